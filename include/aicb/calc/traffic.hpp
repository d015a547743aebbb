// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Communication volume of one training iteration on one GPU, by group: the sum of the rank's
/// operation graph (aicb/schedule/rank_pass.hpp; docs/schedules.md) — the same collectives and
/// transfers every output projects, in the size convention of aicb::operation (a collective's whole
/// buffer: all-reduce input, all-gather output, reduce-scatter input, all-to-all send buffer).
///
/// - tp: tensor-parallel collectives (SP gathers and scatters both ways, their backward re-gathers,
///   the loss's all-reduces, the expert-TP collectives when ETP = TP, the SP-replicated gradients);
/// - dp: gradient reductions over DP × CP, the distributed optimizer's weight gathers, ZeRO-2/3's
///   per-module reduce-scatters and ZeRO-3's per-module weight gathers;
/// - pp: bytes sent to the pipeline neighbours (activations forward, gradients backward);
/// - ep: the MoE dispatchers' collectives (over EP, or over ETP × EP for the allgather dispatcher);
/// - dp_ep: routed-expert gradient reductions and gathers over expert-DP;
/// - cp: bytes sent around the context-parallel ring;
/// - other: reductions over groups of their own (the tied word embedding, the router's expert bias).

#include <aicb/calc/params.hpp>
#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/model/job.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/schedule/rank_pass.hpp>
#include <aicb/units/bytes.hpp>

#include <array>
#include <cstdint>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// Bytes of collective messages one GPU takes part in per iteration, by group.
struct traffic {
  bytes tp{};
  bytes dp{};
  bytes pp{};
  bytes ep{};
  bytes dp_ep{};
  bytes cp{};
  bytes other{};  ///< groups of their own: the tied-embedding and router-bias reductions

  [[nodiscard]] constexpr bytes total() const { return tp + dp + pp + ep + dp_ep + cp + other; }
};

/// The communication of one iteration on the first rank of pipeline stage `stage`, summed from that
/// rank's operation graph (aicb/schedule/rank_pass.hpp): every collective's size (SimAI's and
/// aicb's convention: the whole buffer) by the group it runs on, and the point-to-point bytes it
/// sends.
[[nodiscard]] inline traffic comm_volume(const job_spec& job, std::uint64_t stage = 0) {
  validate(job);
  // Every micro batch moves the same bytes (DualPipe: those of each direction, half of the micro
  // batches each): stream the fewest micro batches the schedule allows, and scale their mean.
  const job_spec few = with_fewest_microbatches(job);
  const std::uint64_t rank = first_rank_of_stage(job, stage);
  std::array<std::uint64_t, 7> per_microbatch{}, per_iteration{};  // tp dp pp ep dp_ep cp other
  const auto category = [](const operation& op) -> std::size_t {
    if (op.type == op_type::send) return op.name.rfind("attention_kv", 0) == 0 ? 5 : 2;
    switch (op.group.kind) {
      case group_kind::tp:
      case group_kind::etp:
        return 0;
      case group_kind::dp:
      case group_kind::dp_cp:
        return 1;
      case group_kind::ep:
      case group_kind::etp_ep:
        return 3;
      case group_kind::edp:
        return 4;
      case group_kind::cp:
        return 5;
      default:
        return 6;
    }
  };
  constexpr std::string_view what = "bytes communicated per iteration";
  for_each_operation(few, rank, [&](const operation& op) {
    if (op.type != op_type::collective && op.type != op_type::send) return;
    if (op.phase == op_phase::finalize) {
      std::uint64_t& sum = per_iteration[category(op)];
      sum = checked_add(sum, op.size.count(), what);
    } else {
      std::uint64_t& sum = per_microbatch[category(op)];
      sum = checked_add(sum, op.size.count(), what);
    }
  });
  const std::uint64_t ga = microbatches(job), streamed = microbatches(few);
  std::array<bytes, 7> total{};
  for (std::size_t i = 0; i < total.size(); ++i) {
    // ga x the mean over the streamed micro batches, exact: their sum is a whole number of means.
    const std::uint64_t mean = per_microbatch[i] / streamed, rest = per_microbatch[i] % streamed;
    total[i] = bytes{mean} * ga + bytes{checked_mul(rest, ga, what) / streamed} + bytes{per_iteration[i]};
  }
  return {total[0], total[1], total[2], total[3], total[4], total[5], total[6]};
}

AICB_END_NAMESPACE
