// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The enumerated choices of the descriptors — activation, normalisation, position embedding,
/// activation recomputation — each with the names used in printing, `key=value` text and CLI flags.
///
/// ```cpp
/// aicb::to_string(aicb::activation_kind::swiglu);           // "swiglu"
/// aicb::from_string<aicb::norm_kind>("rmsnorm");       // std::optional{norm_kind::rmsnorm}
/// ```

#include <aicb/config.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

AICB_BEGIN_NAMESPACE

/// MLP activation. `swiglu` (and any gated unit) has three weight matrices; `gelu` and
/// `squared_relu` (relu(x)², Nemotron-H's) two.
enum class activation_kind : std::uint8_t { gelu, swiglu, squared_relu };
/// Normalisation layer. `layernorm` has a weight and a bias, `rmsnorm` only a weight.
enum class norm_kind : std::uint8_t { layernorm, rmsnorm };
/// Position encoding. `learned` adds a (positions × hidden) table to the parameters; `rope` adds none.
enum class position_kind : std::uint8_t { learned, rope };
/// Activation recomputation: none, Megatron's "selective" (core attention only), or full layers.
enum class recompute_kind : std::uint8_t { none, selective, full };
/// How Megatron-Core moves tokens to their experts: `allgather` (its default: every rank of the
/// ETP x EP group gathers all tokens and keeps its experts' share) or `alltoall` (tokens sent to the
/// rank of their expert and back).
enum class moe_dispatcher_kind : std::uint8_t { allgather, alltoall };
/// How core attention runs: `flash`, one fused kernel that skips the causal mask's blocks and keeps
/// the scores on chip (FlashAttention, cuDNN, Transformer Engine); or `unfused`, Megatron's original
/// path — the score matrix QKᵀ written to memory, a fused scale-mask-softmax, dropout, then the
/// weighted sum of the values, over the full s × s scores (docs/compute-model.md).
enum class attention_kind : std::uint8_t { flash, unfused };

/// Names of an enum's values, indexed by the underlying value. Specialised for each named enum.
template <class E>
struct enum_names;

template <>
struct enum_names<activation_kind> {
  static constexpr std::array<std::string_view, 3> value{"gelu", "swiglu", "squared_relu"};
};
template <>
struct enum_names<norm_kind> {
  static constexpr std::array<std::string_view, 2> value{"layernorm", "rmsnorm"};
};
template <>
struct enum_names<position_kind> {
  static constexpr std::array<std::string_view, 2> value{"learned", "rope"};
};
template <>
struct enum_names<recompute_kind> {
  static constexpr std::array<std::string_view, 3> value{"none", "selective", "full"};
};
template <>
struct enum_names<moe_dispatcher_kind> {
  static constexpr std::array<std::string_view, 2> value{"allgather", "alltoall"};
};
template <>
struct enum_names<attention_kind> {
  static constexpr std::array<std::string_view, 2> value{"flash", "unfused"};
};

/// An enum whose values have names (a specialisation of enum_names exists).
template <class E>
concept NamedEnum = std::is_enum_v<E> && requires {
  enum_names<E>::value;
};

/// The name of `e`.
template <NamedEnum E>
[[nodiscard]] constexpr std::string_view to_string(E e) noexcept {
  const auto i = static_cast<std::size_t>(e);
  return i < enum_names<E>::value.size() ? enum_names<E>::value[i] : std::string_view{"?"};
}

/// The value named `name`, or nothing.
template <NamedEnum E>
[[nodiscard]] constexpr std::optional<E> from_string(std::string_view name) noexcept {
  for (std::size_t i = 0; i < enum_names<E>::value.size(); ++i)
    if (enum_names<E>::value[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

AICB_END_NAMESPACE
