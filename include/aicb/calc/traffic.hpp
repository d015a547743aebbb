// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Communication volume of one training iteration on one GPU, by group: the sum of the rank's
/// operation graph (aicb/schedule/rank_schedule.hpp; docs/schedules.md) — the same collectives and
/// transfers every output projects, in the size convention of aicb::operation (a collective's whole
/// buffer: all-reduce input, all-gather output, reduce-scatter input, all-to-all send buffer).
///
/// - tp: tensor-parallel collectives (SP gathers and scatters both ways, their backward re-gathers,
///   the loss's all-reduces, the expert-TP collectives when ETP = TP, the SP-replicated gradients);
/// - dp: gradient reductions over DP × CP and the distributed optimizer's weight gathers;
/// - pp: bytes sent to the pipeline neighbours (activations forward, gradients backward);
/// - ep: the MoE dispatchers' collectives (over EP, or over ETP × EP for the allgather dispatcher);
/// - dp_ep: routed-expert gradient reductions and gathers over expert-DP;
/// - cp: bytes sent around the context-parallel ring;
/// - other: reductions over groups of their own (the tied word embedding, the router's expert bias).
///
/// ZeRO stages 2 and 3 (DeepSpeed's) are not in the graph: their volumes follow the ZeRO paper
/// (docs/zero.md), per layer.

#include <aicb/calc/params.hpp>
#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/model/job.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/schedule/rank_schedule.hpp>
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

/// Communication volume per iteration of one GPU on pipeline stage `stage`. See the file comment.
namespace detail {

// ZeRO stages 2 and 3 (DeepSpeed's, not in the per-rank graph): the per-layer formulas.
[[nodiscard]] constexpr traffic zero_comm_volume(const job_spec& job, std::uint64_t stage = 0) {
  const model_spec m = resolve(job.model);
  const parallel_spec& p = job.parallel;
  const std::uint64_t w = size_of(job.batch.dtype), g = size_of(job.batch.grad_dtype);
  const std::uint64_t t = p.tensor_parallel, ga = microbatches(job);
  const std::uint64_t s = job.batch.seq_length / p.context_parallel, b = job.batch.micro_batch,
                      h = m.hidden_size;
  const std::uint64_t activation = s * b * h * w;
  const bool sp = p.sequence_parallel, full = p.recompute == recompute_kind::full;
  const bool first = stage == 0, last = stage + 1 == p.pipeline_parallel;
  const std::uint64_t layers = stage_layers(job, stage);
  traffic v;

  const std::uint64_t tokens = s * b;
  const std::uint64_t begin = stage_first_layer(job, stage);
  const std::uint64_t etp = expert_tensor_parallel(job);
  const bool sp_tp = sp && t > 1;
  std::uint64_t tp_bytes = 0, ep_bytes = 0, cp_bytes = 0;
  for (std::uint64_t layer = begin; layer < begin + layers; ++layer) {
    std::uint64_t forward = 0, backward = 0, ep_forward = 0, cp_forward = 0;
    if (t > 1) {
      // Attention.
      forward += sp_tp ? 2 * activation : activation;
      if (m.is_mla()) {
        const std::uint64_t latent = tokens * (m.q_lora_rank + m.kv_lora_rank) * w;
        backward += (sp_tp ? 2 * activation : (m.q_lora_rank > 0 ? 0 : activation)) + latent;
      } else {
        backward += sp_tp ? 2 * activation : activation;
      }
    }
    const bool moe = m.is_moe() && layer >= m.first_dense_layers;
    if (!moe) {
      if (t > 1) {
        forward += sp_tp ? 2 * activation : activation;
        backward += sp_tp ? 2 * activation : activation;
      }
    } else {
      const std::uint64_t dispatched = (sp_tp ? tokens / t : tokens) * m.moe_top_k * h * w;
      if (etp > 1) {
        forward += 2 * dispatched * etp;
        backward += 2 * dispatched * etp;
      }
      if (m.num_shared_experts > 0 && t > 1) {
        forward += sp_tp ? 2 * activation : activation;
        backward += sp_tp ? 2 * activation : activation;
      }
      if (p.expert_parallel > 1) ep_forward = 2 * dispatched;
    }
    if (p.context_parallel > 1) {
      const std::uint64_t local_heads = m.num_attention_heads / t;
      const std::uint64_t kv_dim =
          m.is_mla() ? local_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim)
                     : 2 * std::max<std::uint64_t>(m.num_kv_heads / t, 1) * m.head_dim;
      cp_forward = kv_dim * job.batch.seq_length * b * w;
    }
    const std::uint64_t replay = full ? 1 : 0;
    // Per layer the sizes are bounded by the job's rules; their sums over layers and micro batches are
    // checked.
    constexpr std::string_view what = "bytes communicated per iteration";
    tp_bytes = checked_add(tp_bytes, forward * (1 + replay) + backward, what);
    ep_bytes = checked_add(ep_bytes, ep_forward * (2 + replay), what);
    cp_bytes = checked_add(cp_bytes, cp_forward * (2 + replay), what);
  }
  if (t > 1) {
    if (first) tp_bytes += sp_tp ? 2 * activation : activation;
    if (last) tp_bytes += (sp_tp ? 2 * activation : activation) + 3 * tokens * 4;
  }
  v.tp = bytes{tp_bytes} * ga;
  v.ep = bytes{ep_bytes} * ga;
  v.cp = bytes{cp_bytes} * ga;

  const shard_params params = params_on_gpu(job, stage);
  const auto gradient_sync = [&](std::uint64_t n, std::uint64_t ranks) -> std::uint64_t {
    if (ranks <= 1) return 0;
    const bool sharded = p.distributed_optimizer || p.zero_stage >= 1;
    // ZeRO-3: per micro batch the weights gathered before forward and before backward, and the
    // gradients reduce-scattered; the weights are never gathered whole after the step.
    if (p.zero_stage >= 3) return checked_mul(ga, n * g + 2 * n * w, "ZeRO-3 bytes per iteration");
    // ZeRO-2: gradients reduce-scattered in every micro batch, weights gathered after the step.
    if (p.zero_stage == 2)
      return checked_add(checked_mul(ga, n * g, "ZeRO-2 bytes per iteration"), n * w,
                         "ZeRO-2 bytes per iteration");
    return sharded ? n * g + n * w : n * g;  // RS grads + AG weights, or one AR
  };
  v.dp = bytes{gradient_sync(params.dense, data_parallel(job))};
  v.dp_ep = bytes{gradient_sync(params.expert, expert_data_parallel(job))};

  if (p.pipeline_parallel > 1) {
    const std::uint64_t message = sp ? activation / t : activation;
    v.pp = bytes{message} * ga * ((first || last) ? 1 : 2);
  }

  return v;
}

}  // namespace detail

/// The communication of one iteration on the first rank of pipeline stage `stage`, summed from that
/// rank's operation graph (aicb/schedule/rank_schedule.hpp): every collective's size (SimAI's and
/// aicb's convention: the whole buffer) by the group it runs on, and the point-to-point bytes it
/// sends. ZeRO stages 2 and 3, which the graph does not model, use the per-layer formulas of
/// detail::zero_comm_volume.
[[nodiscard]] inline traffic comm_volume(const job_spec& job, std::uint64_t stage = 0) {
  if (job.parallel.zero_stage >= 2) return detail::zero_comm_volume(job, stage);
  validate(job);
  // Every micro batch moves the same bytes: stream the fewest micro batches the schedule allows, and
  // scale the per-micro-batch part.
  job_spec few = job;
  const std::uint64_t least = job.parallel.virtual_pipeline > 1 ? job.parallel.pipeline_parallel : 1;
  few.batch.global_batch = job.batch.micro_batch * data_parallel(job) * least;
  const std::uint64_t rank = stage * (job.parallel.world_size / job.parallel.pipeline_parallel);
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
  for (const operation& op : rank_schedule(few, rank)) {
    if (op.type != op_type::collective && op.type != op_type::send) continue;
    if (op.phase == op_phase::finalize) {
      std::uint64_t& sum = per_iteration[category(op)];
      sum = checked_add(sum, op.size.count(), what);
    } else if (op.microbatch == 0) {
      std::uint64_t& sum = per_microbatch[category(op)];
      sum = checked_add(sum, op.size.count(), what);
    }
  }
  const std::uint64_t ga = microbatches(job);
  std::array<bytes, 7> total{};
  for (std::size_t i = 0; i < total.size(); ++i)
    total[i] = bytes{per_microbatch[i]} * ga + bytes{per_iteration[i]};
  return {total[0], total[1], total[2], total[3], total[4], total[5], total[6]};
}

AICB_END_NAMESPACE
