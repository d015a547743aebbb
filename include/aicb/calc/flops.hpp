// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Training FLOPs per iteration: the sums of the matrix products and attention cores of the layer
/// description (aicb/schedule/layer.hpp), 2 FLOPs per multiply-add, over the whole job's tokens —
/// grouped-query and latent attention, SwiGLU, mixtures of experts (router, top-k routed and shared
/// experts), Gated DeltaNet layers, multi-token prediction. Backward is twice the forward (each GEMM's
/// input- and weight-gradient products; attention's four products from the stored probabilities).
///
/// Core attention counts the full s×s score matrix (no halving for the causal mask), as Narayanan et
/// al. 2021 do; set `causal_halving` to halve it. For a dense GPT layer (MHA, GeLU, ffn = 4h) the
/// forward pass is then 24·B·s·h² + 4·B·s²·h and the logits 2·B·s·h·V, so with full recomputation
/// the iteration costs exactly their Eq. 3: 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) — a test checks it.

#include <aicb/config.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/spec.hpp>
#include <aicb/schedule/layer.hpp>

#include <cstdint>
#include <string_view>

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

namespace detail {

// A sink of the layer description that adds up the FLOPs of its matrix products (GEMMs) and of its
// attention cores (softmax and linear), the model FLOPs of MFU; norms and element-wise work are not
// model FLOPs.
struct flop_tally {
  double causal_factor = 1;  // softmax attention's share of the score matrix counted
  double gemm = 0, core_attention = 0;
  constexpr void compute(std::string_view, const compute_op& op) noexcept {
    if (op.kind == op_kind::gemm) gemm += op.flops();
    if (op.kind == op_kind::attention) core_attention += op.flops() * causal_factor;
    if (op.kind == op_kind::linear_attention || op.kind == op_kind::attention_index)
      core_attention += op.flops();
  }
  constexpr void collective(std::string_view, collective, group_kind, std::uint64_t) noexcept {}
  constexpr void ring(std::string_view, std::uint64_t, bool, std::uint64_t) noexcept {}
  constexpr void weights(weight_part, weight_sharing, std::uint64_t) noexcept {}
  [[nodiscard]] constexpr double total() const noexcept { return gemm + core_attention; }
};

// The whole job's tokens on one GPU without parallelism: `sequences` of `seq` tokens; attention
// counted as Megatron's unfused path (the full score matrix; backward twice the forward).
[[nodiscard]] constexpr layer_context flop_context(const model_spec& m, std::uint64_t sequences,
                                                   std::uint64_t tokens, std::uint64_t seq) noexcept {
  layer_context c{.model = m};
  c.sequences = sequences;
  c.query_tokens = tokens;
  c.key_tokens = seq;
  c.fused_attention = false;
  c.vocab_rows = m.vocab_size;
  return c;
}

}  // namespace detail

/// Forward FLOPs of layer `layer` (0-based; decides its kind) for `tokens` tokens attending over
/// `seq` keys each: the layer description's GEMMs and attention core.
[[nodiscard]] constexpr layer_flops forward_layer_flops(const model_spec& spec, std::uint64_t layer,
                                                        double tokens, double seq,
                                                        flop_options options = {}) noexcept {
  const model_spec m = resolve(spec);
  const layer_context c =
      detail::flop_context(m, 1, static_cast<std::uint64_t>(tokens), static_cast<std::uint64_t>(seq));
  detail::flop_tally t{.causal_factor = options.causal_halving ? 0.5 : 1.0};
  describe_layer_forward(c, kind_of_layer(m, layer), t);
  return {.gemm = t.gemm, .core_attention = t.core_attention};
}

/// FLOPs of one training iteration of `job` over all GPUs: the layer description's forward and
/// backward passes over global batch × sequence length tokens — every layer, the logits, and each
/// multi-token-prediction module (its projection, layer and logits). Recomputation: `full` repeats
/// every layer's forward, `selective` the forward work of its modules (recompute_modules; by default
/// the softmax attention core, Megatron's core_attention — Gated DeltaNet layers are not recomputed);
/// logits are never recomputed.
[[nodiscard]] constexpr flop_counts training_flops(const job_spec& job, flop_options options = {}) noexcept {
  const model_spec m = resolve(job.model);
  const std::uint64_t seq = job.batch.seq_length;
  const layer_context c = detail::flop_context(m, global_batch(job), seq, seq);
  // The same context with selective recomputation's modules: its backward carries their forward
  // work again, whose FLOPs are the difference.
  layer_context recomputing = c;
  recomputing.recompute = recomputed_modules(job.parallel);
  const double factor = options.causal_halving ? 0.5 : 1.0;
  flop_counts r;
  const auto layer = [&](layer_kind kind) {
    detail::flop_tally f{.causal_factor = factor}, b{.causal_factor = factor};
    describe_layer_forward(c, kind, f);
    describe_layer_backward(c, kind, b);
    r.forward += f.total();
    r.backward += b.total();
    if (job.parallel.recompute == recompute_kind::full) r.recompute += f.total();
    if (!recomputing.recompute.empty()) {
      detail::flop_tally again{.causal_factor = factor};
      describe_layer_backward(recomputing, kind, again);
      r.recompute += again.total() - b.total();
    }
  };
  const auto head = [&](bool mtp) {
    detail::flop_tally f, b;
    detail::layer_writer<detail::flop_tally> wf{c, f}, wb{c, b};
    if (mtp) {
      wf.mtp_input_forward();
      wb.mtp_input_backward();
    }
    wf.output_forward(true);
    wb.output_backward();
    r.forward += f.total();
    r.backward += b.total();
  };
  for (std::uint64_t l = 0; l < m.num_layers; ++l)
    layer(kind_of_layer(m, l));
  head(false);
  for (std::uint64_t k = 0; k < m.num_mtp_layers; ++k) {
    head(true);
    layer(kind_of_layer(m, m.num_layers));
  }
  return r;
}

AICB_END_NAMESPACE
