// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::recompute_module and aicb::recompute_set — which parts of a layer Megatron-Core recomputes
/// under selective recomputation (`--recompute-granularity selective --recompute-modules ...`,
/// TransformerConfig.recompute_modules):
///
/// | module | recomputed before its backward | activations no longer held |
/// |---|---|---|
/// | core_attn (the default) | the core attention | none beyond the fused kernel's own |
/// | layernorm | the two pre-norms (input, pre-MLP) | their outputs, 2·s·b·h bytes each |
/// | moe_act | the grouped experts' activation | its output, the second expert GEMM's input |
/// | moe | the whole MoE block: router, dispatch, experts, combine | all of the block's but its input |
/// | mlp | a dense layer's MLP | all of the MLP's but its input |
/// | shared_experts | the shared experts' MLP | the shared experts' activations |
/// | mla_up_proj | MLA's query and key-value up-projections | (within the attention side's count) |
///
/// The set is written as text in parallel_spec::recompute_modules — names separated by commas or
/// spaces, as Megatron's list is — so the descriptor stays a literal, structural type.
///
/// ```cpp
/// auto set = aicb::parse_recompute_modules("moe_act, layernorm");  // std::optional<recompute_set>
/// set->has(aicb::recompute_module::moe_act);                        // true
/// ```

#include <aicb/config.hpp>
#include <aicb/enum_names.hpp>
#include <aicb/model/fixed_string.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// A submodule selective recomputation can repeat (see the file comment).
enum class recompute_module : std::uint8_t {
  core_attn,
  layernorm,
  moe_act,
  moe,
  mlp,
  shared_experts,
  mla_up_proj
};

template <>
struct enum_names<recompute_module> {
  static constexpr std::array<std::string_view, 7> value{"core_attn", "layernorm",      "moe_act",    "moe",
                                                         "mlp",       "shared_experts", "mla_up_proj"};
};

/// The text of parallel_spec::recompute_modules (every name once fits with room to spare).
using recompute_modules_text = fixed_string<96>;

/// A set of recompute_module values.
struct recompute_set {
  std::uint8_t bits = 0;

  [[nodiscard]] constexpr bool has(recompute_module m) const noexcept {
    return (bits >> static_cast<unsigned>(m) & 1U) != 0;
  }
  constexpr recompute_set& add(recompute_module m) noexcept {
    bits = static_cast<std::uint8_t>(bits | 1U << static_cast<unsigned>(m));
    return *this;
  }
  [[nodiscard]] constexpr bool empty() const noexcept { return bits == 0; }
  [[nodiscard]] friend constexpr bool operator==(recompute_set, recompute_set) = default;
};

/// The modules named in `text` (commas and spaces separate them; empty text is the empty set), or
/// nullopt when a name is not a recompute_module; `bad`, when given, receives that name.
[[nodiscard]] constexpr std::optional<recompute_set> parse_recompute_modules(
    std::string_view text, std::string_view* bad = nullptr) {
  recompute_set set;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ',' || text[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && text[end] != ',' && text[end] != ' ')
      ++end;
    const std::string_view name = text.substr(i, end - i);
    const std::optional<recompute_module> m = from_string<recompute_module>(name);
    if (!m) {
      if (bad != nullptr) *bad = name;
      return std::nullopt;
    }
    set.add(*m);
    i = end;
  }
  return set;
}

AICB_END_NAMESPACE
