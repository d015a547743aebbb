// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Per-GPU memory of a training job: weights, gradients, optimizer states and activations.
///
/// - Weights, gradients, optimizer (Megatron-LM theoretical_memory_usage.py): weights in the job's
///   dtype (2 B for bf16), gradients in grad_dtype (Megatron: fp32, 4 B), Adam states 12 B (fp32
///   master weights, m, v) — 18 B per parameter, or 6 + 12/DP with the distributed optimizer
///   (expert weights divide by the expert-data-parallel size instead). DeepSpeed ZeRO stages shard,
///   over DP, the optimizer states (1), also the gradients (2), also the weights (3) — Rajbhandari et
///   al. 2019: (2 + 2 + K)·Ψ / N for stage 3 with bf16 gradients and K = 12.
/// - Activations per layer (Korthikanti et al. 2022, Table 2, generalised to any FFN width as
///   Megatron does): s·b·h·(18 + 4F/h) / TP with sequence parallelism; without sequence
///   parallelism 10 of those bytes per s·b·h are replicated over TP; full recompute keeps 2·s·b·h
///   (the layer input). Attention is fused (as in the operation graph, and Megatron-Core with
///   Transformer Engine): the score matrix, its softmax and dropout mask (Table 2's 5·a·s/h) are
///   never stored, so selective recomputation saves nothing more and no recomputation costs the same;
///   the softmax statistics (4·a·s·b bytes) are below the formula's precision and left out, as
///   Megatron's theoretical_memory_usage.py leaves them out. Pipeline stage `p` holds
///   min(PP − p, micro batches) micro batches in flight (1F1B), × (1 + (PP−1)/(PP·v)) interleaved.
///   Stage 0 adds the embedding's inputs and dropout mask (8·s·b + s·b·h per micro batch in flight);
///   the last stage adds one micro batch's output layer and loss: 4·s·b·h/TP for the output layer's
///   input and, per logit of the vocabulary shard (s·b·V'/TP), the 4 bytes of the FP32 probabilities
///   Megatron's cross-entropy keeps for its backward, or the 2 of Transformer Engine's, which writes
///   the gradient over the 16-bit logits (Megatron's theoretical_memory_usage.py reports the first
///   stage and counts them with PP = 1 only).
///   Zero-bubble H1 holds what 1F1B does (its paper's accounting). DualPipe holds two stages' weights
///   per GPU (stage p and its mirror PP − 1 − p) and PP + 1 micro batches of one chunk in flight (its
///   authors' table), a chunk taken as the mean of the two.

#include <aicb/calc/params.hpp>
#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/model/job.hpp>
#include <aicb/schedule/layer.hpp>
#include <aicb/units/bytes.hpp>

#include <algorithm>
#include <cstdint>

AICB_BEGIN_NAMESPACE

/// Memory one GPU of a pipeline stage needs.
struct memory_estimate {
  bytes weights{};
  bytes gradients{};
  bytes optimizer{};
  bytes activations{};
  std::uint64_t in_flight_microbatches = 0;  ///< micro batches whose activations are held at once

  [[nodiscard]] constexpr bytes total() const { return weights + gradients + optimizer + activations; }
};

/// Activation bytes of one transformer layer for one micro batch, on one GPU (see the file comment).
/// `ffn` is the FFN width that tokens pass through (k·F_expert + shared for MoE layers; `experts`:
/// the layer's MLP is a mixture of experts). A layer of one block (a layer pattern's M or * layer:
/// `mlp` false; its - or E layer: `mixer` false) holds its block's share of the terms: the attention
/// side 10/t (SP) or 5 + 8/t, the MLP side (8 + 4F/h)/t or 5 + (4F/h)/t — Mamba-2 and Gated DeltaNet
/// mixers priced as attention's side. Selective recomputation's modules (recompute.hpp) take out
/// what they discard, in units of s·b·h bytes (1/t of it under SP where the tensor is sharded):
/// a separate norm's output 2 (the norm before the experts; MLA's input norm), moe_act the experts'
/// activation output 2·k·F_expert/h/t, shared_experts their 4·F_shared/h/t, moe and mlp the whole
/// MLP side but the norm's input and output and the residual's mask (5); core_attn and mla_up_proj
/// nothing the count holds (the fused kernel's statistics and MLA's up-projected heads are not in it).
/// FP8 training holds the GEMMs' inputs as Transformer Engine's quantized copies: half of the first
/// projection's and the output projection's inputs (2 + 2 → 1 + 1) and of fc1's and fc2's (2 + 2F/h →
/// 1 + F/h), in the same units.
[[nodiscard]] constexpr double layer_activation_bytes(const job_spec& job, double ffn, bool mixer = true,
                                                      bool mlp = true, bool experts = false) noexcept {
  const model_spec m = resolve(job.model);
  const parallel_spec& p = job.parallel;
  const double s = static_cast<double>(job.batch.seq_length) / static_cast<double>(p.context_parallel);
  const double sbh = s * static_cast<double>(job.batch.micro_batch) * static_cast<double>(m.hidden_size);
  const double t = static_cast<double>(p.tensor_parallel);
  const double h = static_cast<double>(m.hidden_size);
  if (p.recompute == recompute_kind::full) return p.sequence_parallel ? 2 * sbh / t : 2 * sbh;
  // Fused attention: no score matrix is held, with or without selective recomputation.
  double attention_side = p.sequence_parallel ? 10 / t : 5 + 8 / t;
  double mlp_side = p.sequence_parallel ? (8 + 4 * ffn / h) / t : 5 + 4 * ffn / h / t;
  const recompute_set r = recomputed_modules(p);
  const double replicated = p.sequence_parallel ? 1 / t : 1;  // a norm's output, per s·b·h
  const bool norm_discarded = r.has(recompute_module::layernorm);
  if (mixer && m.is_mla() && norm_discarded) attention_side -= 2 * replicated;
  const bool whole = experts ? r.has(recompute_module::moe) : r.has(recompute_module::mlp);
  if (mlp && whole) {
    mlp_side = std::min(mlp_side, (norm_discarded && experts ? 3 : 5) * replicated);
  } else if (mlp && experts) {
    if (norm_discarded) mlp_side -= 2 * replicated;
    if (r.has(recompute_module::moe_act))
      mlp_side -= 2 * static_cast<double>(m.moe_top_k * m.moe_ffn_hidden_size) / h / t;
    if (r.has(recompute_module::shared_experts))
      mlp_side -= 4 * static_cast<double>(m.num_shared_experts * m.shared_expert_ffn_hidden_size) / h / t;
  }
  // FP8 GEMMs: Transformer Engine keeps the input each GEMM's weight gradient needs as its quantized
  // copy, 1 byte an element where the count has 2 — the first projection's input and the output
  // projection's on the attention side, fc1's and fc2's on the MLP side — unless recomputation
  // discarded it.
  if (job.batch.dtype == dtype::fp8) {
    if (mixer) attention_side -= (m.is_mla() && norm_discarded ? 0 : replicated) + 1 / t;
    if (mlp && !whole) {
      if (!(experts && norm_discarded)) mlp_side -= replicated;  // fc1's input
      double held = ffn;                                         // widths whose fc2 input is held
      if (experts && r.has(recompute_module::moe_act))
        held -= static_cast<double>(m.moe_top_k * m.moe_ffn_hidden_size);
      if (experts && r.has(recompute_module::shared_experts))
        held -= static_cast<double>(m.num_shared_experts * m.shared_expert_ffn_hidden_size);
      mlp_side -= held / h / t;
    }
  }
  return sbh * ((mixer ? attention_side : 0) + (mlp ? mlp_side : 0));
}

/// Per-GPU memory of pipeline stage `stage` (0 = the first, which holds the most activations).
[[nodiscard]] inline memory_estimate memory_per_gpu(const job_spec& job, std::uint64_t stage = 0) {
  const model_spec m = resolve(job.model);
  const parallel_spec& p = job.parallel;
  const bool dualpipe = p.pipeline_schedule == pipeline_schedule_kind::dualpipe;
  const std::uint64_t mirror = p.pipeline_parallel - 1 - stage;
  shard_params params = params_on_gpu(job, stage);
  if (dualpipe) {
    const shard_params other = params_on_gpu(job, mirror);
    params.dense += other.dense;
    params.expert += other.expert;
  }
  const std::uint64_t dp = data_parallel(job), edp = expert_data_parallel(job);
  // FP8 training keeps its weights in BF16 (Transformer Engine casts them for each GEMM).
  const std::uint64_t weight_size = size_of(activation_dtype(job.batch.dtype));
  const std::uint64_t grad_size = size_of(job.batch.grad_dtype);
  constexpr std::uint64_t adam_size = 12;  // fp32 master weights + Adam m and v

  // Bytes per parameter group, each divided by its data-parallel size where sharded.
  const auto sharded = [](std::uint64_t n, std::uint64_t per, std::uint64_t over, bool shard) {
    return shard ? n * per / over : n * per;
  };
  const bool shard_optimizer = p.distributed_optimizer || p.zero_stage >= 1;
  const bool shard_gradients = p.zero_stage >= 2, shard_weights = p.zero_stage >= 3;
  memory_estimate e;
  e.weights = bytes{sharded(params.dense, weight_size, dp, shard_weights) +
                    sharded(params.expert, weight_size, edp, shard_weights)};
  e.gradients = bytes{sharded(params.dense, grad_size, dp, shard_gradients) +
                      sharded(params.expert, grad_size, edp, shard_gradients)};
  e.optimizer = bytes{sharded(params.dense, adam_size, dp, shard_optimizer) +
                      sharded(params.expert, adam_size, edp, shard_optimizer)};

  // Activations.
  const std::uint64_t pp = p.pipeline_parallel, ga = microbatches(job);
  // The combined 1F1B holds one forward more: without a pipeline two micro batches at its merged
  // steps; interleaved, one more virtual micro batch of warm-up (a chunk's share, added below).
  const bool combined = p.overlap_moe_expert_parallel_comm;
  e.in_flight_microbatches = dualpipe              ? std::min(pp + 1, ga)
                             : combined && pp == 1 ? std::min<std::uint64_t>(2, ga)
                                                   : std::min(pp - stage, ga);
  const double interleave = p.virtual_pipeline > 1 ? 1.0 + static_cast<double>(pp - 1) /
                                                               static_cast<double>(pp * p.virtual_pipeline)
                                                   : 1.0;
  const double t = static_cast<double>(p.tensor_parallel);
  const double s = static_cast<double>(job.batch.seq_length) / static_cast<double>(p.context_parallel);
  const double sb = s * static_cast<double>(job.batch.micro_batch), h = static_cast<double>(m.hidden_size);
  // One micro batch's activations on the layers of pipeline stage `at`.
  const auto stage_activations = [&](std::uint64_t at) {
    double bytes_held = 0;
    for_each_stage_layer(job, at, [&](std::uint64_t layer) {
      const layer_kind kind = kind_of_layer(m, layer);
      const double ffn = kind.moe
                             ? static_cast<double>(m.moe_top_k * m.moe_ffn_hidden_size +
                                                   m.num_shared_experts * m.shared_expert_ffn_hidden_size)
                             : static_cast<double>(m.ffn_hidden_size);
      bytes_held += layer_activation_bytes(job, ffn, !kind.no_mixer, !kind.no_mlp, kind.moe);
    });
    // Multi-token-prediction modules on the last stage: a transformer layer each (the projection's and
    // norms' few s·b·h are below the formula's precision).
    if (at + 1 == pp && m.num_mtp_layers > 0) {
      const bool moe = m.is_moe() && m.num_layers >= m.first_dense_layers;
      const double ffn = moe ? static_cast<double>(m.moe_top_k * m.moe_ffn_hidden_size +
                                                   m.num_shared_experts * m.shared_expert_ffn_hidden_size)
                             : static_cast<double>(m.ffn_hidden_size);
      bytes_held += static_cast<double>(m.num_mtp_layers) * layer_activation_bytes(job, ffn, true, true, moe);
    }
    if (at == 0) bytes_held += (8 * sb + sb * h) / t;  // token ids and the embedding dropout mask
    return bytes_held;
  };
  const double per_microbatch =
      dualpipe ? (stage_activations(stage) + stage_activations(mirror)) / 2 : stage_activations(stage);
  double activations = per_microbatch * static_cast<double>(e.in_flight_microbatches) * interleave;
  if (combined && pp > 1) activations += per_microbatch / static_cast<double>(p.virtual_pipeline);
  if (stage + 1 == pp || (dualpipe && mirror + 1 == pp)) {  // the output layer and the loss
    const bool te_loss = training_loss_kernel(p) == loss_kernel::te;
    activations += sb * (4 * h + (te_loss ? 2.0 : 4.0) * static_cast<double>(padded_vocab(job))) / t;
  }
  e.activations = bytes{checked_integer(activations, "activation memory (bytes)")};
  return e;
}

AICB_END_NAMESPACE
