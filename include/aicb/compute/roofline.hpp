// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::roofline_model — durations from physics: each kernel's FLOPs against the GPU's tensor-core
/// peak and its bytes against the memory bandwidth, each at the fraction real kernels sustain:
///
///     time = launch + max( FLOPs / (peak · fraction · waves) + ramp,
///                          (bytes + memory_half) / (bandwidth · memory_fraction · kind_factor) )
///
/// - `fraction`: GEMMs 0.72 of the dense BF16/FP16 peak (0.60 of the FP8 peak); fused attention
///   0.45 — both measured on an H200 (docs/compute-model.md: on its 56 bf16 GEMMs of at least 50
///   GFLOP this model's median error is −1.6%, its median absolute error 6.9%). A GPU whose catalogue
///   entry knows better (gpu_spec::gemm_efficiency: the A100s and the B200; gpu_spec::
///   fp8_gemm_efficiency: the B200; gpu_spec::attention, per
///   pass and head width: the Hopper GPUs, timed on an H200 with their own ramp, and the B200) uses
///   its own. DeepSeek sparse
///   attention's indexer scores (FP8 products of each query's heads with every key) run at the GEMM
///   fractions, FP8 or BF16 as their type says.
/// - `waves`: wave quantisation — a GEMM's output tiles (128 rows high, 64, 128 or 256 wide, whichever
///   fills the last wave best) run in waves of one tile per streaming multiprocessor, and a last
///   partial wave leaves multiprocessors idle (NVIDIA's Matrix Multiplication Background guide, §3.2).
///   Grouped GEMMs fill the GPU with all groups' tiles.
/// - `memory_fraction` 0.88: streaming copies and additions reach 88% of the datasheet bandwidth;
///   other memory-bound kernels reach a share of that (`kind_factor`, measured): activations 0.74,
///   norms 0.65, dropout and the residual's bias-dropout-add 0.59, a fused scale-mask-softmax (unfused
///   attention) 0.80, the fused Adam step 0.80.
/// - the ramp: a kernel's fill and tail, so that small kernels are not absurdly fast. A GEMM's is a
///   time, `gemm_ramp_ns` 2.8 µs on every GPU and in every precision (the fill of its tiles' pipelines
///   and its epilogue are latencies, not work: 2·10⁹ FLOP at the H200's BF16 GEMM rate, where it was
///   fitted), paid once however few tiles the kernel has; other kernels' is `compute_half` FLOPs at
///   their own rate (2·10⁹), fused causal attention's as measured per GPU. `memory_half` 4 MB for
///   memory-bound kernels (norms, element-wise passes, softmax, the optimizer step: their few FLOPs
///   carry no compute ramp); `launch` 2 µs per kernel.
///
/// What each operation is made of: a GEMM is one kernel; a loop of GEMMs (Megatron's SequentialMLP)
/// is one kernel per expert, each priced on its own shape; a grouped or batched GEMM is one kernel
/// whose time is the sum of its problems' rooflines with one ramp (each expert's shape decides its
/// efficiency, not the group's total FLOPs); unfused attention is its four or six kernels
/// (aicb::unfused_attention_kernels); the cross-entropy loss is its passes over the logits
/// (compute_op::loss_bytes_per_logit), each a streaming kernel — casts, in-place element-wise passes and
/// row reductions, as a copy or an addition runs: at the memory fraction — with its launch and ramp.
///
/// Grouped expert GEMMs (Megatron's GroupedMLP, `--moe-grouped-gemm`) on a B200 do not hide an
/// expert's weight traffic behind its computation: each expert's time is its compute plus its
/// weights' traffic at the streaming bandwidth — the weights read once in the forward and
/// input-gradient passes, the FP32 main gradient read and written in the weight-gradient pass
/// (Megatron's gradient-accumulation fusion: 8 bytes per weight) — so an expert of M tokens runs at
/// about M / (M + M₀) of a large GEMM's efficiency, M₀ the GPU's ridge in rows (B200: 157 forward,
/// 628 for weight gradients). No parameter is fitted: this is what Transformer Engine's grouped GEMMs
/// measured on a B200 show (docs/measurements/b200/grouped_gemm.csv: 20 to 256 experts of 128 to 9832
/// tokens, three passes; docs/compute-model.md), and what the same kernels published for an H100 show
/// (Transformer Engine 2.7, PR 2045: 8 experts of 4096 tokens at 627.9 TFLOP/s, 16 of 2048 at 553.9 —
/// priced within 9%, where a large GEMM's efficiency for every expert says 668.6 for both). A loop of
/// single cuBLAS GEMMs (the H200's `docs/measurements/h200/grouped.csv`, `moe_grouped_gemm` off) hides
/// the traffic as any GEMM does. Elsewhere the flag (gpu_spec::grouped_gemm_exposes_weights) is off.
///
/// Precision: what runs in FP8 is what the operation's dtype says — the per-rank schedules give FP8
/// to GEMMs only (docs/compute-model.md). An FP8 GEMM also pays its scaling: the casts and transposes
/// the operation carries (compute_op::quantize_input_bytes and the rest, counted by the layer writer
/// as Transformer Engine runs them), each a streaming kernel at the activation kernels' bandwidth with
/// its launch and ramp; weights are cast once per iteration and not counted. Peaks of GPUs without
/// FP8 fall back to BF16, and so do their GEMMs: no cast.
///
/// The fractions were measured on one GPU (an H200); other GPUs use the same fractions of their own
/// datasheet peaks until measured (cuda/check-on-gpu.sh writes the curves for any GPU).

#include <aicb/compute/gpu.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/model/compute_op.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

AICB_BEGIN_NAMESPACE

/// The efficiencies of roofline_model (see the file comment for where each comes from).
struct roofline_efficiency {
  double gemm_fraction = 0.72;       ///< of the dense BF16/FP16/FP32 peak, large GEMMs
  double fp8_gemm_fraction = 0.60;   ///< of the dense FP8 peak
  double attention_fraction = 0.45;  ///< fused attention, of the BF16 peak
  double memory_fraction = 0.88;     ///< streaming copy, of the datasheet bandwidth
  double activation_factor = 0.74;   ///< element-wise activations (GeLU, SwiGLU), embedding lookups
  double norm_factor = 0.65;         ///< LayerNorm, RMSNorm
  double dropout_factor = 0.59;      ///< dropout, bias-dropout-add
  double softmax_factor = 0.80;      ///< fused scale-mask-softmax
  double optimizer_factor = 0.80;    ///< the fused Adam step
  double gemm_ramp_ns = 2800;        ///< a GEMM kernel's ramp and tail, ns (file comment)
  double compute_half = 2e9;         ///< FLOPs of another compute-bound kernel's ramp and tail
  double memory_half = 4e6;          ///< bytes of a kernel's ramp and tail
  double launch_ns = 2000;           ///< per kernel
  unsigned tile = 128;               ///< GEMM output tile height (and middle width), for wave quantisation
};

/// Durations from a GPU's peaks and the efficiencies above.
class roofline_model final : public compute_model {
 public:
  explicit roofline_model(const gpu_spec& gpu, roofline_efficiency e = {}) : gpu_(gpu), e_(e) {}

  /// By catalogue name ("H100", "NVIDIA H200 …"); config_error listing the catalogue if unknown.
  explicit roofline_model(std::string_view gpu_name, roofline_efficiency e = {})
      : gpu_(require_gpu(gpu_name)), e_(e) {}

  [[nodiscard]] nanoseconds duration(const compute_op& op) const override {
    const std::string what = "roofline time of " + std::string(to_string(op.role));
    if (op.kind == op_kind::attention && !op.fused) {
      double sum = 0;
      for (const compute_op& kernel : unfused_attention_kernels(op))
        sum += one_kernel_ns(kernel);
      return checked_ns(sum, what);
    }
    if (op.kind == op_kind::elementwise && op.role == op_role::logits) {  // the loss: its passes
      const double kernels = static_cast<double>(op.loss_kernels());
      return checked_ns(kernels * e_.launch_ns + (op.bytes() + kernels * e_.memory_half) /
                                                     (gpu_.memory_bytes_per_s() * e_.memory_fraction) * 1e9,
                        what);
    }
    if (!op.one_kernel && (op.batch > 1 || op.kernels_per_problem > 1)) {  // a loop: kernels per problem
      compute_op one = op;
      one.batch = 1;
      // A problem's further kernels: a launch and a memory ramp each (their bytes are in the first's).
      const double further = static_cast<double>(op.kernels_per_problem > 1 ? op.kernels_per_problem - 1 : 0);
      const double ramp =
          e_.memory_half / (gpu_.memory_bytes_per_s() * e_.memory_fraction * kind_factor(one)) * 1e9;
      return checked_ns(
          static_cast<double>(op.batch) * (one_kernel_ns(one) + further * (e_.launch_ns + ramp)), what);
    }
    return checked_ns(one_kernel_ns(op), what);
  }

  [[nodiscard]] std::string provenance() const override {
    char attention[96];
    const auto share = [&](double measured) { return measured > 0 ? measured : e_.attention_fraction; };
    if (gpu_.attention.forward > 0 || gpu_.attention.backward > 0 || gpu_.wide_head_attention.forward > 0 ||
        gpu_.wide_head_attention.backward > 0)
      std::snprintf(attention, sizeof attention,
                    "attention %.2f forward, %.2f backward (heads over 128 wide: %.2f, %.2f)",
                    share(gpu_.attention.forward), share(gpu_.attention.backward),
                    share(gpu_.wide_head_attention.forward), share(gpu_.wide_head_attention.backward));
    else
      std::snprintf(attention, sizeof attention, "attention %.2f", e_.attention_fraction);
    char text[640];
    std::snprintf(text, sizeof text,
                  "roofline: %s (datasheet: BF16 %.0f TFLOP/s, FP8 %.0f TFLOP/s, memory %.0f GB/s, %u SMs) x "
                  "efficiency (GEMM %.2f, FP8 GEMM %.2f, %s, memory %.2f; memory-bound kinds: "
                  "activation %.2f, norm %.2f, dropout %.2f, softmax %.2f, optimizer %.2f; launch %.0f "
                  "ns; waves of %u-row tiles %u, %u or %u wide)",
                  std::string(gpu_.full_name).c_str(), gpu_.bf16_tflops, gpu_.fp8_tflops,
                  gpu_.memory_gb_per_s, gpu_.sm_count,
                  gpu_.gemm_efficiency > 0 ? gpu_.gemm_efficiency : e_.gemm_fraction, fp8_gemm_fraction(),
                  attention, e_.memory_fraction, e_.activation_factor, e_.norm_factor, e_.dropout_factor,
                  e_.softmax_factor, e_.optimizer_factor, e_.launch_ns, e_.tile, e_.tile / 2, e_.tile,
                  e_.tile * 2);
    return text;
  }

  [[nodiscard]] const gpu_spec& gpu() const noexcept { return gpu_; }
  /// The share of the dense FP8 peak FP8 GEMMs sustain here: the GPU's own where its catalogue entry
  /// has one (gpu_spec::fp8_gemm_efficiency), else the model's.
  [[nodiscard]] double fp8_gemm_fraction() const noexcept {
    return gpu_.fp8_gemm_efficiency > 0 ? gpu_.fp8_gemm_efficiency : e_.fp8_gemm_fraction;
  }
  [[nodiscard]] const roofline_efficiency& efficiency() const noexcept { return e_; }

 private:
  // The share of the multiprocessors a GEMM's tiles keep busy over its waves (1 = no idle tail): the
  // best of output tiles `tile` rows high and half, one or two times `tile` wide, as cuBLAS's and
  // CUTLASS's heuristics pick a tile shape per problem (and DeepGEMM its block width) rather than
  // leave most of a last wave idle. A GEMM with fewer output tiles than multiprocessors (the skinny
  // GEMMs of decoding a few tokens) splits its reduction dimension over the idle ones (split-K /
  // stream-K, as those libraries choose for such shapes), at most one split per `tile`-wide slice of k.
  [[nodiscard]] double waves(const compute_op& op) const {
    if (gpu_.sm_count == 0 || e_.tile == 0) return 1;
    const double edge = e_.tile;
    double best = 0;
    for (const double width : {edge / 2, edge, edge * 2})
      best = std::max(best, waves(op, edge, width));
    return best;
  }
  [[nodiscard]] double waves(const compute_op& op, double height, double width) const {
    double tiles = static_cast<double>(op.batch) * std::ceil(static_cast<double>(op.m) / height) *
                   std::ceil(static_cast<double>(op.n) / width);
    if (!(tiles > 0)) return 1;
    const double sms = gpu_.sm_count;
    if (tiles < sms)
      tiles *=
          std::max(1.0, std::min(std::floor(sms / tiles), std::ceil(static_cast<double>(op.k) / e_.tile)));
    return tiles / (std::ceil(tiles / sms) * sms);
  }

  // One kernel, launch included, ns. A batched or grouped GEMM prices each problem on its own shape
  // (its roofline), with the waves all problems' tiles make and one ramp for the kernel.
  [[nodiscard]] double one_kernel_ns(const compute_op& op) const {
    if (op.kind != op_kind::gemm) return e_.launch_ns + roofline_ns(op, 1, true);
    if (op.type == dtype::fp8 && gpu_.fp8_tflops > 0 && op.quantize_kernels > 0) {
      const double rows = static_cast<double>(op.batch) * static_cast<double>(op.m);
      const double bytes = rows * (static_cast<double>(op.k) * op.quantize_input_bytes +
                                   static_cast<double>(op.n) * op.quantize_output_bytes);
      const double kernels = op.quantize_kernels;
      return kernels * e_.launch_ns +
             (bytes + kernels * e_.memory_half) /
                 (gpu_.memory_bytes_per_s() * e_.memory_fraction * e_.activation_factor) * 1e9 +
             gemm_ns(op);
    }
    return gemm_ns(op);
  }

  // A GEMM's kernel, launch included (see one_kernel_ns).
  [[nodiscard]] double gemm_ns(const compute_op& op) const {
    if (op.batch <= 1) return e_.launch_ns + roofline_ns(op, waves(op), true);
    compute_op one = op;
    one.batch = 1;
    const double share = waves(op);
    if (exposes_expert_weights(op)) {  // each expert: its compute, then its weights' traffic (file comment)
      const double weights =
          expert_weight_bytes(one) / (gpu_.memory_bytes_per_s() * e_.memory_fraction) * 1e9;
      const auto expert = [&](bool ramp) {
        return std::max(roofline_compute_ns(one, share, ramp) + weights, roofline_memory_ns(one, ramp));
      };
      return e_.launch_ns + expert(true) + static_cast<double>(op.batch - 1) * expert(false);
    }
    return e_.launch_ns + roofline_ns(one, share, true) +
           static_cast<double>(op.batch - 1) * roofline_ns(one, share, false);
  }

  // A grouped GEMM over experts (one kernel, more than one expert) on a GPU whose grouped kernels
  // were measured not to hide the experts' weight traffic.
  [[nodiscard]] bool exposes_expert_weights(const compute_op& op) const noexcept {
    return gpu_.grouped_gemm_exposes_weights && op.kind == op_kind::gemm && op.one_kernel && op.batch > 1 &&
           (op.role == op_role::moe_fc1 || op.role == op_role::moe_fc2);
  }
  // The weight traffic of one expert's pass: its weights (k × n) in the GEMM's type, or in the
  // weight-gradient pass the FP32 main gradient read and written.
  [[nodiscard]] static constexpr double expert_weight_bytes(const compute_op& one) noexcept {
    const double elements = static_cast<double>(one.k) * static_cast<double>(one.n);
    return elements * (one.pass == pass_kind::weight_grad ? 8.0 : size_of(one.type));
  }

  // max(compute, memory) of one kernel without its launch, ns; `ramp`: with its ramp and tail.
  [[nodiscard]] double roofline_ns(const compute_op& op, double wave_share, bool ramp) const {
    return std::max(roofline_compute_ns(op, wave_share, ramp), roofline_memory_ns(op, ramp));
  }
  [[nodiscard]] double roofline_compute_ns(const compute_op& op, double wave_share, bool ramp) const {
    const double flops = op.flops();
    if (!(flops > 0)) return 0;
    double fraction = gpu_.gemm_efficiency > 0 ? gpu_.gemm_efficiency : e_.gemm_fraction;
    if (op.kind == op_kind::attention || op.kind == op_kind::linear_attention)
      fraction = attention_fraction(op);
    else if ((op.kind == op_kind::gemm || op.kind == op_kind::attention_index) && op.type == dtype::fp8 &&
             gpu_.fp8_tflops > 0)
      fraction = fp8_gemm_fraction();
    // Element-wise kernels do a few FLOPs per element on CUDA cores: never the bound that matters,
    // priced against the tensor-core peak like everything else.
    const double rate = gpu_.peak_flops(op.type) * fraction;
    if (op.kind == op_kind::gemm || op.kind == op_kind::attention_index)
      return flops / (rate * wave_share) * 1e9 + (ramp ? e_.gemm_ramp_ns : 0);
    // A memory-bound kernel's ramp is its memory side's (memory_half), not a compute ramp.
    const bool memory_bound = op.kind == op_kind::norm || op.kind == op_kind::elementwise ||
                              op.kind == op_kind::softmax || op.kind == op_kind::optimizer;
    return (flops + (ramp && !memory_bound ? ramp_flops(op) : 0)) / (rate * wave_share) * 1e9;
  }
  // A non-GEMM kernel's ramp and tail in FLOPs: a causal fused attention's measured one where the GPU has
  // it, in proportion to the work below the smallest kernel measured (attention_fractions).
  [[nodiscard]] double ramp_flops(const compute_op& op) const noexcept {
    if (op.kind == op_kind::attention && op.fused && op.causal) {
      const attention_fractions& measured = op.k > 128 ? gpu_.wide_head_attention : gpu_.attention;
      const bool forward = op.pass == pass_kind::forward;
      const double ramp = forward ? measured.forward_ramp_flops : measured.backward_ramp_flops;
      const double from = measured.ramp_measured_from * (forward ? 1 : 2.5);
      if (ramp > 0) return from > 0 ? ramp * std::min(1.0, op.flops() / from) : ramp;
    }
    return e_.compute_half;
  }
  // Fused attention's fraction: the GPU's measured one for the pass and head width where it has
  // one, else the model's.
  [[nodiscard]] double attention_fraction(const compute_op& op) const noexcept {
    if (gated_deltanet(op) && gpu_.gated_deltanet_fraction > 0) return gpu_.gated_deltanet_fraction;
    if (mamba_ssd(op) && gpu_.mamba_ssd_fraction > 0) return gpu_.mamba_ssd_fraction;
    if (op.kind != op_kind::attention) return e_.attention_fraction;
    if (decoding(op) && gpu_.decode_attention_fraction > 0) return gpu_.decode_attention_fraction;
    const attention_fractions& measured = op.k > 128 ? gpu_.wide_head_attention : gpu_.attention;
    const double fraction = op.pass == pass_kind::forward ? measured.forward : measured.backward;
    return fraction > 0 ? fraction : e_.attention_fraction;
  }
  // Attention over a per-head KV cache (MHA, GQA): a decoding step's fused, non-causal forward. MLA's
  // absorbed decode (every head against one shared latent cache) runs kernels of its own.
  [[nodiscard]] static bool decoding(const compute_op& op) noexcept {
    return op.kind == op_kind::attention && op.fused && !op.causal && !op.shared_kv &&
           op.pass == pass_kind::forward;
  }
  // Gated DeltaNet's scan (three state products per token; Mamba-2's SSD has two).
  [[nodiscard]] static bool gated_deltanet(const compute_op& op) noexcept {
    return op.kind == op_kind::linear_attention && op.state_products == 3;
  }
  [[nodiscard]] static bool mamba_ssd(const compute_op& op) noexcept {
    return op.kind == op_kind::linear_attention && op.state_products == 2;
  }
  [[nodiscard]] double roofline_memory_ns(const compute_op& op, bool ramp) const {
    const double bytes = op.bytes();
    if (!(bytes > 0)) return 0;
    return (bytes + (ramp ? e_.memory_half : 0)) /
           (gpu_.memory_bytes_per_s() * e_.memory_fraction * kind_factor(op)) * 1e9;
  }

  [[nodiscard]] double kind_factor(const compute_op& op) const noexcept {
    switch (op.kind) {
      case op_kind::linear_attention:
        return gated_deltanet(op) && gpu_.gated_deltanet_memory > 0
                   ? gpu_.gated_deltanet_memory / e_.memory_fraction
                   : 1;
      case op_kind::attention: {
        if (!decoding(op)) return 1;
        const double measured = op.type == dtype::fp8 && gpu_.decode_attention_fp8_memory > 0
                                    ? gpu_.decode_attention_fp8_memory
                                    : gpu_.decode_attention_memory;
        return measured > 0 ? measured / e_.memory_fraction : 1;
      }
      case op_kind::gemm:
      case op_kind::attention_index:
        return 1;
      case op_kind::norm:
        return e_.norm_factor;
      case op_kind::softmax:
        return e_.softmax_factor;
      case op_kind::optimizer:
        return e_.optimizer_factor;
      case op_kind::embedding:
        return e_.activation_factor;
      case op_kind::elementwise:
        if (op.role == op_role::residual || op.role == op_role::attention_core) return e_.dropout_factor;
        return e_.activation_factor;
    }
    return 1;
  }

  const gpu_spec& gpu_;
  roofline_efficiency e_;
};

AICB_END_NAMESPACE
