// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::roofline_model — durations from a GPU's datasheet peaks and an operation's FLOPs and bytes,
/// with size-dependent efficiency so that small operations are not absurdly fast:
///
///     time = launch + max( FLOPs / (peak_flops · e_c(FLOPs)),  bytes / (peak_bandwidth · e_m(bytes)) )
///     e_c(f) = compute_fraction · f / (f + compute_half)        (attention: × attention_factor)
///     e_m(b) = memory_fraction  · b / (b + memory_half)
///
/// Defaults (adjustable through roofline_efficiency): large GEMMs reach 80% of the datasheet peak
/// (measured: an 8192³ BF16 GEMM runs at ≈ 790 of 989 TFLOP/s on an H200), half of that at 2 GFLOP
/// (a 1000³ GEMM); streaming kernels reach 85% of HBM bandwidth (≈ 4.3 of 4.8 TB/s copy on an H200),
/// half of that at 4 MB; fused attention reaches 75% of the GEMM efficiency (FlashAttention-2 class
/// kernels); every kernel pays 3 µs of launch and tail.
///
/// For a 4096×4096×4096 BF16 GEMM (1.37e11 FLOPs) on an H100 or H200 (989 TFLOP/s): e_c = 0.789,
/// so 176 µs + 3 µs = 179 µs — between the 139 µs of the bare peak and the 278 µs of 50% efficiency.

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

/// The efficiency curves of roofline_model (see the file comment).
struct roofline_efficiency {
  double compute_fraction = 0.80;
  double compute_half = 2e9;  ///< FLOPs at which compute efficiency is half of compute_fraction
  double memory_fraction = 0.85;
  double memory_half = 4e6;  ///< bytes at which memory efficiency is half of memory_fraction
  double attention_factor = 0.75;
  double launch_ns = 3000;
};

/// Durations from a GPU's peaks and the efficiency curves.
class roofline_model final : public compute_model {
 public:
  explicit roofline_model(const gpu_spec& gpu, roofline_efficiency e = {}) : gpu_(gpu), e_(e) {}

  /// By catalogue name ("H100", "NVIDIA H200 …"); config_error listing the catalogue if unknown.
  explicit roofline_model(std::string_view gpu_name, roofline_efficiency e = {})
      : gpu_(lookup(gpu_name)), e_(e) {}

  [[nodiscard]] nanoseconds duration(const compute_op& op) const override {
    if (!op.one_kernel && op.batch > 1) {
      // A loop of kernels: each problem is priced alone (its own efficiency and launch).
      compute_op one = op;
      one.batch = 1;
      one.one_kernel = true;
      return checked_ns(static_cast<double>(duration(one).count()) * static_cast<double>(op.batch),
                        "roofline time of " + std::string(to_string(op.role)));
    }
    const double flops = op.flops(), bytes = op.bytes();
    double compute = 0;
    if (flops > 0) {
      double efficiency = e_.compute_fraction * flops / (flops + e_.compute_half);
      if (op.kind == op_kind::attention) efficiency *= e_.attention_factor;
      compute = flops / (gpu_.peak_flops(op.type) * efficiency) * 1e9;
    }
    double memory = 0;
    if (bytes > 0)
      memory =
          bytes / (gpu_.memory_bytes_per_s() * e_.memory_fraction * bytes / (bytes + e_.memory_half)) * 1e9;
    return checked_ns(e_.launch_ns + std::max(compute, memory),
                      "roofline time of " + std::string(to_string(op.role)));
  }

  [[nodiscard]] std::string provenance() const override {
    char text[320];
    std::snprintf(
        text, sizeof text,
        "roofline: %s (datasheet: BF16 %.0f TFLOP/s, FP8 %.0f TFLOP/s, memory %.0f GB/s) x efficiency "
        "(compute %.2f, half at %.3g FLOP; memory %.2f, half at %.3g B; attention x%.2f; launch %.0f ns)",
        std::string(gpu_.full_name).c_str(), gpu_.bf16_tflops, gpu_.fp8_tflops, gpu_.memory_gb_per_s,
        e_.compute_fraction, e_.compute_half, e_.memory_fraction, e_.memory_half, e_.attention_factor,
        e_.launch_ns);
    return text;
  }

  [[nodiscard]] const gpu_spec& gpu() const noexcept { return gpu_; }

 private:
  static const gpu_spec& lookup(std::string_view name) {
    if (const gpu_spec* g = find_gpu(name)) return *g;
    std::string known;
    for (const gpu_spec& g : gpu_catalogue)
      known += (known.empty() ? "" : ", ") + std::string(g.name);
    AICB_THROW(config_error("gpu", std::string(name), "expected a GPU of the catalogue: " + known));
  }

  const gpu_spec& gpu_;
  roofline_efficiency e_;
};

AICB_END_NAMESPACE
