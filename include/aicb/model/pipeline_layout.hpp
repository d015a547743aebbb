// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::pipeline_layout_text and its readers — Megatron-Core's explicit pipeline layout
/// (`--pipeline-model-parallel-layout`, PipelineParallelLayerLayout): what each virtual pipeline
/// stage holds, written as one group per virtual stage separated by `|`, in virtual-stage order
/// (chunk 0 of every stage, then chunk 1, ...):
///
/// | character | meaning |
/// |---|---|
/// | `E` | the embedding |
/// | `t` | a transformer (decoder) layer |
/// | `m` | a multi-token-prediction layer |
/// | `L` | the output layer and the loss |
/// | `x*N` | the character x N times |
/// | `(...)*N` | the group N times (groups do not nest) |
/// | `,` and spaces | nothing (cosmetic) |
///
/// DeepSeek-V3 on 16 stages of 8 GPUs × 2 chunks, its Megatron-Bridge B200 recipe:
/// `Et*4|(t*4|)*14tmL` — the embedding and 4 layers, 14 chunks of 4, then the last layer with the MTP
/// module and the loss. The readers walk the text without allocating, so a layout stays a literal
/// (parallel_spec::pipeline_layout) and the counts are constant expressions.
///
/// ```cpp
/// aicb::pipeline_layout_stages("Et*4|(t*4|)*14tmL");          // 16
/// aicb::pipeline_layout_stage("Et*4|(t*4|)*14tmL", 15).decoder;  // 1
/// ```

#include <aicb/config.hpp>
#include <aicb/model/fixed_string.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The text of parallel_spec::pipeline_layout.
using pipeline_layout_text = fixed_string<256>;

namespace detail {

// A repeat count after `*` at text[i] (i just past the `*`): its value and where it ends.
struct layout_repeat {
  std::uint64_t count = 0;
  std::size_t end = 0;
  bool ok = false;
};
[[nodiscard]] constexpr layout_repeat layout_repeat_at(std::string_view text, std::size_t i) noexcept {
  layout_repeat r{.end = i};
  while (r.end < text.size() && text[r.end] >= '0' && text[r.end] <= '9') {
    r.count = r.count * 10 + static_cast<std::uint64_t>(text[r.end] - '0');
    if (r.count > (1U << 20)) return {};
    ++r.end;
  }
  r.ok = r.end > i;
  return r;
}

// The most characters a layout unrolls to (a million layers and separators): beyond it the text is
// refused rather than walked, so no repeat count can make a reader run for long.
inline constexpr std::uint64_t max_unrolled_layout = std::uint64_t{1} << 20;

// Calls visit(c) for each character of `group` with its `x*N` repeats unrolled (no parentheses),
// spending `budget` characters; false when the group is not a layout or the budget runs out.
template <class Visit>
[[nodiscard]] constexpr bool unroll_layout_group(std::string_view group, Visit& visit,
                                                 std::uint64_t& budget) {
  for (std::size_t i = 0; i < group.size();) {
    const char c = group[i];
    if (c == ',' || c == ' ') {
      ++i;
      continue;
    }
    if (c != 'E' && c != 't' && c != 'm' && c != 'L' && c != '|') return false;
    std::uint64_t times = 1;
    ++i;
    if (i < group.size() && group[i] == '*') {
      const layout_repeat r = layout_repeat_at(group, i + 1);
      if (!r.ok) return false;
      times = r.count;
      i = r.end;
    }
    if (times > budget) return false;
    budget -= times;
    for (std::uint64_t k = 0; k < times; ++k)
      visit(c);
  }
  return true;
}

}  // namespace detail

/// Calls visit(c) for each character of the layout unrolled as Megatron unrolls it (`(...)*N` groups,
/// then `x*N`; commas and spaces dropped): `E`, `t`, `m`, `L` and the `|` between virtual stages.
/// False when `text` is not a layout (another character, a group without its `*N`, a nested group) or
/// unrolls to more than a million characters.
template <class Visit>
[[nodiscard]] constexpr bool unroll_pipeline_layout(std::string_view text, Visit&& visit) {
  std::uint64_t budget = detail::max_unrolled_layout;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ')' || text[i] == '*') return false;
    if (text[i] != '(') {
      std::size_t end = i;
      while (end < text.size() && text[end] != '(') {
        if (text[end] == ')') return false;
        ++end;
      }
      if (!detail::unroll_layout_group(text.substr(i, end - i), visit, budget)) return false;
      i = end;
      continue;
    }
    const std::size_t close = text.find(')', i);
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != '*') return false;
    const std::string_view group = text.substr(i + 1, close - i - 1);
    if (group.empty() || group.find('(') != std::string_view::npos) return false;
    const detail::layout_repeat r = detail::layout_repeat_at(text, close + 2);
    if (!r.ok) return false;
    for (std::uint64_t k = 0; k < r.count; ++k)
      if (!detail::unroll_layout_group(group, visit, budget)) return false;
    i = r.end;
  }
  return true;
}

/// What one virtual stage of a layout holds.
struct pipeline_layout_contents {
  std::uint64_t decoder = 0;  ///< transformer layers
  std::uint64_t mtp = 0;      ///< multi-token-prediction layers
  bool embedding = false;
  bool loss = false;
};

/// The number of virtual stages of `text` (its `|`-separated groups), or nullopt when it is not a
/// layout.
[[nodiscard]] constexpr std::optional<std::uint64_t> pipeline_layout_stages(std::string_view text) {
  std::uint64_t stages = 1;
  const bool ok = unroll_pipeline_layout(text, [&](char c) { stages += c == '|' ? 1 : 0; });
  if (!ok) return std::nullopt;
  return stages;
}

/// What virtual stage `index` (0-based, virtual-stage order) of `text` holds; empty when `text` is
/// not a layout or has fewer stages.
[[nodiscard]] constexpr pipeline_layout_contents pipeline_layout_stage(std::string_view text,
                                                                       std::uint64_t index) {
  pipeline_layout_contents out;
  std::uint64_t at = 0;
  const bool ok = unroll_pipeline_layout(text, [&](char c) {
    if (c == '|') {
      ++at;
      return;
    }
    if (at != index) return;
    if (c == 't') ++out.decoder;
    if (c == 'm') ++out.mtp;
    if (c == 'E') out.embedding = true;
    if (c == 'L') out.loss = true;
  });
  return ok ? out : pipeline_layout_contents{};
}

/// Transformer layers of the virtual stages before `index`: the first layer (0-based, global) of
/// virtual stage `index`.
[[nodiscard]] constexpr std::uint64_t pipeline_layout_layers_before(std::string_view text,
                                                                    std::uint64_t index) {
  std::uint64_t at = 0, before = 0;
  const bool ok = unroll_pipeline_layout(text, [&](char c) {
    if (c == '|') ++at;
    if (c == 't' && at < index) ++before;
  });
  return ok ? before : 0;
}

AICB_END_NAMESPACE
