// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::dtype — the numeric formats of weights, activations and gradients, with their sizes.
///
/// Light: safe in CUDA translation units.

#include <aicb/config.hpp>
#include <aicb/enum_names.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

AICB_BEGIN_NAMESPACE

/// A floating-point storage format.
enum class dtype : std::uint8_t {
  bf16,  ///< bfloat16, 2 bytes: the default for training
  fp16,  ///< IEEE half, 2 bytes
  fp32,  ///< IEEE single, 4 bytes (master weights, optimizer states, gradients in Megatron)
  fp8,   ///< 8-bit float (E4M3/E5M2), 1 byte, Hopper and later
};

/// Every dtype, in declaration order.
inline constexpr std::array<dtype, 4> all_dtypes{dtype::bf16, dtype::fp16, dtype::fp32, dtype::fp8};

/// Bytes per element.
[[nodiscard]] AICB_HOST_DEVICE constexpr std::uint32_t size_of(dtype t) noexcept {
  switch (t) {
    case dtype::bf16:
    case dtype::fp16:
      return 2;
    case dtype::fp32:
      return 4;
    case dtype::fp8:
      return 1;
  }
  return 0;
}

/// The format of everything but the GEMMs in a job trained in `t`: FP8 training (Transformer Engine,
/// and DeepSeek-V3's recipe) runs the GEMMs in FP8 with their scaling factors, and keeps activations,
/// attention, norms, element-wise kernels and the tensors exchanged between GPUs in BF16.
[[nodiscard]] AICB_HOST_DEVICE constexpr dtype activation_dtype(dtype t) noexcept {
  return t == dtype::fp8 ? dtype::bf16 : t;
}

/// The format of the sequence-parallel all-gathers in front of the GEMMs of a job trained in `t`:
/// under sequence parallelism FP8 training gathers the FP8 copies Transformer Engine quantises before
/// it gathers (docs/compute-model.md); otherwise the activations' format.
[[nodiscard]] AICB_HOST_DEVICE constexpr dtype gathered_dtype(dtype t, bool sequence_parallel) noexcept {
  return sequence_parallel && t == dtype::fp8 ? dtype::fp8 : activation_dtype(t);
}

/// "bf16", "fp16", "fp32", "fp8"; from_string<dtype> also reads PyTorch's spellings ("bfloat16",
/// "float16", "half", "float32", "float", "float8", "fp8_e4m3").
template <>
struct enum_names<dtype> {
  static constexpr std::array<std::string_view, 4> value{"bf16", "fp16", "fp32", "fp8"};
  static constexpr std::array<std::pair<std::string_view, dtype>, 7> aliases{{{"bfloat16", dtype::bf16},
                                                                              {"float16", dtype::fp16},
                                                                              {"half", dtype::fp16},
                                                                              {"float32", dtype::fp32},
                                                                              {"float", dtype::fp32},
                                                                              {"float8", dtype::fp8},
                                                                              {"fp8_e4m3", dtype::fp8}}};
};

AICB_END_NAMESPACE
