// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// range-v3 views over a rank's operations (aicb::rank_schedule, or any range of aicb::operation):
/// the selections every projection starts from, composable with each other and with range-v3's own
/// views. Lazy — a pipeline over a rank's stream holds one operation at a time.
///
/// ```cpp
/// for (const aicb::operation& op : aicb::rank_schedule(job, rank) | aicb::views::collectives |
///                                      aicb::views::in_microbatch(0))
///   sum[op.group.kind] += op.size.count();
/// ```
///
/// A schedule is a view: pipe a named one or a temporary (the pipeline then owns it). range-v3 enters
/// the schedule floor here and in <aicb/schedule/rank_schedule.hpp>; nvcc-compiled code includes
/// neither (nvcc rejects range-v3 views).

#include <aicb/config.hpp>
#include <aicb/schedule/operation.hpp>

#include <range/v3/view/filter.hpp>

#include <cstdint>

AICB_BEGIN_NAMESPACE

namespace views {

/// Collectives only.
inline constexpr auto collectives =
    ranges::views::filter([](const operation& op) { return op.type == op_type::collective; });

/// Point-to-point sends and receives only.
inline constexpr auto transfers = ranges::views::filter([](const operation& op) { return op.is_transfer(); });

/// Computations only.
inline constexpr auto computations =
    ranges::views::filter([](const operation& op) { return op.type == op_type::compute; });

/// What is not a point-to-point transfer: what a single-rank format (SimAI's) can carry.
inline constexpr auto local_and_collective =
    ranges::views::filter([](const operation& op) { return !op.is_transfer(); });

/// Operations of one phase (forward, backward, recompute, finalize).
[[nodiscard]] inline auto in_phase(op_phase phase) {
  return ranges::views::filter([phase](const operation& op) { return op.phase == phase; });
}

/// Operations of a micro batch's passes (forward, backward, recompute); the finalize belongs to none.
[[nodiscard]] inline auto in_microbatch(std::uint64_t microbatch) {
  return ranges::views::filter([microbatch](const operation& op) { return op.in_microbatch(microbatch); });
}

/// A micro batch's backward work: its backward pass and the forward work recomputed in it.
inline constexpr auto backward_work =
    ranges::views::filter([](const operation& op) { return op.is_backward_work(); });

}  // namespace views

AICB_END_NAMESPACE
