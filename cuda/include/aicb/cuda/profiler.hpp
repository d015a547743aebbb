// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The CUDA profiler's interface: plain C++ (no CUDA types), so that code compiled by the host
/// compiler — the `aicb profile` command — calls it. The implementation (cuda/src/profiler.cu) is the
/// static library `aicb::profiler`, built only with a CUDA compiler (docs/profiler.md).
///
/// time_operation() runs one operation of a plan (aicb::compute_op: a GEMM pass through cuBLAS,
/// fused causal attention forward or backward, a norm, an activation, an embedding lookup, or the
/// optimizer step with its gradient norm) on random inputs: warm-up calls, then timed calls between
/// CUDA events, each after an L2 flush, with its output poisoned first and checked for NaN after.
/// check_kernels() compares every kernel with a float64 CPU reference.

#include <aicb/compute/timing_stats.hpp>
#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/model/compute_op.hpp>

#include <cstdint>
#include <string>
#include <vector>

AICB_BEGIN_NAMESPACE

namespace cuda {

/// The GPU and the software stack.
struct device_info {
  std::string name;
  int major = 0, minor = 0;  ///< compute capability
  int sm_count = 0;
  std::uint64_t memory_bytes = 0, l2_bytes = 0;
  int driver_version = 0, runtime_version = 0;  ///< as CUDA encodes them: 1000 × major + 10 × minor
  int sm_clock_mhz = 0, memory_clock_mhz = 0, memory_bus_bits = 0;
};

/// How operations are timed.
struct run_options {
  std::uint32_t warmup = 10;      ///< untimed calls first
  std::uint32_t iterations = 50;  ///< timed calls
  bool l2_flush = true;           ///< overwrite the L2 cache before each timed call (outside the timing)
  bool swiglu = true;             ///< elementwise activation ops: SwiGLU (else GeLU)
  std::uint64_t seed = 1;         ///< inputs are pseudo-random, never zero
  int device = 0;
};

/// One kernel's comparison with its float64 reference.
struct check_result {
  std::string kernel;  ///< e.g. "attention backward (dQ)"
  dtype type = dtype::bf16;
  double max_error = 0;  ///< max |gpu − reference| / (|reference| + 1), over all outputs
  double tolerance = 0;
  [[nodiscard]] bool passed() const noexcept { return max_error <= tolerance; }
};

/// Whether a CUDA device can be used. When not, `why` says what is missing (no driver, no device…).
[[nodiscard]] bool device_available(std::string& why, int device = 0);

/// The properties of `device`. Throws cuda_error when there is none.
[[nodiscard]] device_info query_device(int device = 0);

/// Times `op` (its pass says which: forward, input gradient or weight gradient). Throws cuda_error on a
/// CUDA failure and aicb::error when the output is not finite.
[[nodiscard]] timing_stats time_operation(const compute_op& op, const run_options& options);

/// Runs every kernel on small random problems and compares with the float64 CPU reference.
[[nodiscard]] std::vector<check_result> check_kernels(dtype type, std::uint64_t seed = 1, int device = 0);

/// The tolerance of check_kernels() for a dtype: relative to |reference| + 1, 4 ulps of the storage
/// type's precision times a small growth factor for sums (fp32 1e-4, fp16 1e-2, bf16 4e-2).
[[nodiscard]] constexpr double tolerance(dtype type) noexcept {
  switch (type) {
    case dtype::fp32:
      return 1e-4;
    case dtype::fp16:
      return 1e-2;
    case dtype::bf16:
      return 4e-2;
    case dtype::fp8:
      return 2.5e-1;
  }
  return 0;
}

}  // namespace cuda

AICB_END_NAMESPACE
