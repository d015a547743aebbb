// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Training FLOPs per iteration, counted from the GEMMs of every layer as Megatron-LM counts them
/// (2 FLOPs per multiply-add; backward = 2 × forward), with grouped-query attention, SwiGLU,
/// mixture-of-experts (router, top-k routed and shared experts) and multi-head latent attention.
///
/// For a dense GPT layer (MHA, GeLU, ffn = 4h) the forward pass is 24·B·s·h² + 4·B·s²·h and the
/// logits 2·B·s·h·V, so with full recomputation the iteration costs exactly Narayanan et al. 2021,
/// Eq. 3: 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)). Core attention counts the full s×s score matrix
/// (no halving for the causal mask), like that paper; set `causal_halving` to halve it.

#include <aicb/config.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/spec.hpp>

#include <cstdint>

AICB_BEGIN_NAMESPACE

/// FLOPs of one training iteration over the whole job (all GPUs), by pass.
struct flop_counts {
  double forward = 0;    ///< forward pass, layers and logits
  double backward = 0;   ///< input- and weight-gradient passes (2 × forward)
  double recompute = 0;  ///< forward work repeated by activation recomputation

  /// What the hardware executes.
  [[nodiscard]] constexpr double total() const noexcept { return forward + backward + recompute; }
  /// The model FLOPs of MFU: forward + backward, recomputation excluded.
  [[nodiscard]] constexpr double model() const noexcept { return forward + backward; }
};

/// Options of the FLOP count.
struct flop_options {
  bool causal_halving = false;  ///< count half of the s×s attention scores (the causal mask's zeros skipped)
};

/// Forward FLOPs of one transformer layer over `tokens` tokens of sequence length `seq`, split into
/// GEMMs and core attention (scores and weighted values), so recomputation can repeat either.
struct layer_flops {
  double gemm = 0;
  double core_attention = 0;
};

/// Forward FLOPs of layer `layer` (0-based; decides dense or MoE) for `tokens` tokens.
[[nodiscard]] constexpr layer_flops forward_layer_flops(const model_spec& spec, std::uint64_t layer,
                                                        double tokens, double seq,
                                                        flop_options options = {}) noexcept {
  const model_spec m = resolve(spec);
  const double h = static_cast<double>(m.hidden_size), a = static_cast<double>(m.num_attention_heads);
  layer_flops f;
  // Attention projections.
  double qk_dim = 0, v_dim = 0;
  if (m.is_mla()) {
    const double qk = static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim);
    const double qr = static_cast<double>(m.q_lora_rank), kvr = static_cast<double>(m.kv_lora_rank);
    f.gemm += 2 * tokens * (qr > 0 ? h * qr + qr * a * qk : h * a * qk);
    f.gemm += 2 * tokens *
              (h * (kvr + static_cast<double>(m.qk_rope_head_dim)) +
               kvr * a * static_cast<double>(m.qk_nope_head_dim + m.v_head_dim));
    f.gemm += 2 * tokens * a * static_cast<double>(m.v_head_dim) * h;
    qk_dim = qk;
    v_dim = static_cast<double>(m.v_head_dim);
  } else {
    const double d = static_cast<double>(m.head_dim);
    const double q = a * d, kv = static_cast<double>(m.num_kv_heads) * d;
    f.gemm += 2 * tokens * h * (q + 2 * kv) + 2 * tokens * q * h;
    qk_dim = v_dim = d;
  }
  // Scores (Q·Kᵀ) and weighted values (P·V): 2·tokens·seq·heads·dim each.
  f.core_attention = 2 * tokens * seq * a * (qk_dim + v_dim) * (options.causal_halving ? 0.5 : 1.0);
  // MLP.
  const double gated = m.activation == activation_kind::swiglu ? 3 : 2;
  if (m.is_moe() && layer >= m.first_dense_layers) {
    f.gemm += 2 * tokens * h * static_cast<double>(m.num_experts);  // router
    f.gemm += 2 * tokens * h * gated *
              (static_cast<double>(m.moe_top_k * m.moe_ffn_hidden_size) +
               static_cast<double>(m.num_shared_experts * m.shared_expert_ffn_hidden_size));
  } else {
    f.gemm += 2 * tokens * h * gated * static_cast<double>(m.ffn_hidden_size);
  }
  return f;
}

/// FLOPs of one training iteration of `job` over all GPUs: global batch × sequence length tokens
/// through every layer and the logits, and through each multi-token-prediction module (its
/// projection, layer and logits). Recomputation: `full` repeats every layer's forward,
/// `selective` repeats core attention; logits are never recomputed.
[[nodiscard]] constexpr flop_counts training_flops(const job_spec& job, flop_options options = {}) noexcept {
  const model_spec m = resolve(job.model);
  const double seq = static_cast<double>(job.batch.seq_length);
  const double tokens = static_cast<double>(global_batch(job)) * seq;
  double layers_forward = 0, recompute = 0;
  for (std::uint64_t layer = 0; layer < m.num_layers; ++layer) {
    const layer_flops f = forward_layer_flops(m, layer, tokens, seq, options);
    layers_forward += f.gemm + f.core_attention;
    if (job.parallel.recompute == recompute_kind::full) recompute += f.gemm + f.core_attention;
    if (job.parallel.recompute == recompute_kind::selective) recompute += f.core_attention;
  }
  const double h = static_cast<double>(m.hidden_size);
  const double logits = 2 * tokens * h * static_cast<double>(m.vocab_size);
  // Multi-token prediction (DeepSeek-V3): each module projects 2h → h, runs one transformer layer
  // built like the last decoder layer, and computes its own logits.
  double mtp = 0;
  for (std::uint64_t k = 0; k < m.num_mtp_layers; ++k) {
    const layer_flops f = forward_layer_flops(m, m.num_layers, tokens, seq, options);
    mtp += 2 * tokens * 2 * h * h + f.gemm + f.core_attention + logits;
    if (job.parallel.recompute == recompute_kind::full) recompute += f.gemm + f.core_attention;
    if (job.parallel.recompute == recompute_kind::selective) recompute += f.core_attention;
  }
  flop_counts c;
  c.forward = layers_forward + logits + mtp;
  c.backward = 2 * c.forward;
  c.recompute = recompute;
  return c;
}

AICB_END_NAMESPACE
