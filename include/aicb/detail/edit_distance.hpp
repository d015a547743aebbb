// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// IWYU pragma: private, include <aicb/aicb.hpp>
#pragma once

// Levenshtein distance and "did you mean" suggestions for unknown names (flags, keys, tokens).

#include <aicb/config.hpp>

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE
namespace detail {

/// Edits (insertions, deletions, substitutions) that turn `a` into `b`.
[[nodiscard]] inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// The candidate closest to `name`, if it is close enough to be a plausible typo (at most a third
/// of the name's length, and at least one edit allowed); empty otherwise.
template <class Range>
[[nodiscard]] std::string_view nearest(std::string_view name, const Range& candidates) {
  std::string_view best;
  std::size_t best_distance = std::max<std::size_t>(1, name.size() / 3) + 1;
  for (std::string_view candidate : candidates) {
    const std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace detail
AICB_END_NAMESPACE
