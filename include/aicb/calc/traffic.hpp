// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Communication volume of one training iteration on one GPU, by group, in the size convention of
/// aicb::collective_op (the buffer of one rank: all-reduce input, all-gather output). These are
/// the collectives a Megatron-style job issues; docs/calculators.md gives each rule.
///
/// With A = (s/CP)·b·h·bytes(dtype), one micro batch's activation on a TP group:
/// - TP: per layer and micro batch, 2 all-reduces of A forward and 2 backward, or with sequence
///   parallelism 2 all-gathers + 2 reduce-scatters each way; full recompute repeats the forward
///   ones. The embedding adds one forward collective (and its backward all-gather under SP), the
///   logits layer one backward collective (and its forward all-gather under SP), the loss three
///   all-reduces of s·b·4 bytes.
/// - DP: the gradients once per iteration — an all-reduce of the dense gradients, or with a
///   sharded optimizer (distributed optimizer, ZeRO 1/2) a reduce-scatter of them plus an
///   all-gather of the updated weights; ZeRO-3 also all-gathers the weights forward and backward
///   on every micro batch. Routed-expert weights do the same over the expert-data-parallel group.
/// - PP: each micro batch's activation forward and its gradient backward, A/TP under sequence
///   parallelism; stages with two neighbours send both ways.
/// - EP: per MoE layer and micro batch, token dispatch and combine all-to-alls of
///   tokens·top_k·h·bytes(dtype), forward and backward (tokens = s/CP·b, /TP under SP).
/// - CP: per layer and micro batch, (CP−1) key/value chunks forward, twice that backward (keys,
///   values and their gradients).

#include <aicb/calc/params.hpp>
#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/model/job.hpp>
#include <aicb/units/bytes.hpp>

#include <cstdint>

AICB_BEGIN_NAMESPACE

/// Bytes of collective messages one GPU takes part in per iteration, by group.
struct traffic {
  bytes tp{};
  bytes dp{};
  bytes pp{};
  bytes ep{};
  bytes dp_ep{};
  bytes cp{};

  [[nodiscard]] constexpr bytes total() const noexcept { return tp + dp + pp + ep + dp_ep + cp; }
};

/// Communication volume per iteration of one GPU on pipeline stage `stage`. See the file comment.
[[nodiscard]] constexpr traffic comm_volume(const job_spec& job, std::uint64_t stage = 0) noexcept {
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

  if (t > 1) {
    const std::uint64_t per_layer = (sp ? 8 : 4) + (full ? (sp ? 4 : 2) : 0);
    std::uint64_t ops = layers * per_layer;
    if (first) ops += sp ? 2 : 1;
    if (last) ops += sp ? 2 : 1;
    v.tp = bytes{ga * (ops * activation + (last ? 3 * s * b * 4 : 0))};
  }

  const shard_params params = params_on_gpu(job, stage);
  const auto gradient_sync = [&](std::uint64_t n, std::uint64_t ranks) -> std::uint64_t {
    if (ranks <= 1) return 0;
    const bool sharded = p.distributed_optimizer || p.zero_stage >= 1;
    std::uint64_t volume = sharded ? n * g + n * w : n * g;  // RS grads + AG weights, or one AR
    if (p.zero_stage >= 3) volume += ga * 2 * n * w;         // weights gathered forward and backward
    return volume;
  };
  v.dp = bytes{gradient_sync(params.dense, data_parallel(job))};
  v.dp_ep = bytes{gradient_sync(params.expert, expert_data_parallel(job))};

  if (p.pipeline_parallel > 1) {
    const std::uint64_t message = sp ? activation / t : activation;
    v.pp = bytes{ga * message * ((first || last) ? 1 : 2)};
  }

  if (m.is_moe() && p.expert_parallel > 1) {
    const std::uint64_t begin = stage_first_layer(job, stage);
    std::uint64_t moe_layers = 0;
    for (std::uint64_t layer = begin; layer < begin + layers; ++layer)
      moe_layers += layer >= m.first_dense_layers;
    const std::uint64_t tokens = sp ? s * b / t : s * b;
    const std::uint64_t message = tokens * m.moe_top_k * h * w;
    v.ep = bytes{ga * moe_layers * message * (4 + (full ? 2 : 0))};
  }

  if (p.context_parallel > 1) {
    const std::uint64_t kv_dim =
        m.is_mla() ? m.num_attention_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim)
                   : 2 * m.num_kv_heads * m.head_dim;
    const std::uint64_t chunk = kv_dim / t * s * b * w;
    v.cp = bytes{ga * layers * 3 * (p.context_parallel - 1) * chunk};
  }
  return v;
}

AICB_END_NAMESPACE
