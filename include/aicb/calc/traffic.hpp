// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Communication volume of one training iteration on one GPU, by group, in the size convention of
/// aicb::collective_op (the buffer of one rank: all-reduce input, all-gather output). These are
/// exactly the collectives the corrected Megatron generator emits (aicb/generate/megatron.hpp;
/// docs/workloads.md), summed; docs/calculators.md states each rule.
///
/// With A = (s/CP)·b·h·bytes(dtype), one micro batch's activation on a TP group (no TP traffic at
/// TP = 1):
/// - TP, per layer and micro batch: attention 2A forward and 2A backward with sequence parallelism
///   (all-gather in, reduce-scatter out, and the reverse), A and A without; MLA adds the all-reduces
///   of the latent gradients backward (tokens·(q_lora + kv_lora)·bytes). Dense MLP the same as
///   attention. MoE layers: the TP all-gather and reduce-scatter of dispatched tokens (k·A·ETP/TP
///   each, both ways), and the shared experts like a dense MLP. Full recompute repeats every forward
///   collective. Embedding: A forward (and A backward under SP); logits: A backward (and A forward
///   under SP); the loss three all-reduces of tokens·4 bytes.
/// - DP: the gradients once per iteration — an all-reduce of the dense gradients, or with a
///   sharded optimizer (distributed optimizer, ZeRO-1) a reduce-scatter of them plus an all-gather
///   of the updated weights; ZeRO-2 reduce-scatters the gradients on every micro batch; ZeRO-3
///   reduce-scatters them and all-gathers the weights forward and backward on every micro batch,
///   never after the step. Routed-expert weights do the same over the expert-data-parallel group.
/// - PP: each micro batch's activation forward and its gradient backward, A/TP under sequence
///   parallelism; stages with two neighbours send both ways.
/// - EP: per MoE layer and micro batch, token dispatch and combine all-to-alls of
///   tokens·top_k·h·bytes(dtype), forward and backward (tokens = s/CP·b, /TP under SP).
/// - CP: per layer and micro batch, an all-gather of the keys and values of the whole sequence
///   forward and a reduce-scatter of their gradients backward (ring attention).

#include <aicb/calc/params.hpp>
#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/model/job.hpp>
#include <aicb/units/bytes.hpp>

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

  [[nodiscard]] constexpr bytes total() const { return tp + dp + pp + ep + dp_ep + cp; }
};

/// Communication volume per iteration of one GPU on pipeline stage `stage`. See the file comment.
[[nodiscard]] constexpr traffic comm_volume(const job_spec& job, std::uint64_t stage = 0) {
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

AICB_END_NAMESPACE
