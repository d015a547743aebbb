// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::batch_spec — what one training iteration processes: micro batch, global batch, sequence
/// length, the numeric formats of weights/activations and of reduced gradients, and the FP8 recipe.

#include <aicb/config.hpp>
#include <aicb/detail/reflect.hpp>
#include <aicb/dtype.hpp>
#include <aicb/model/options.hpp>

#include <cstdint>

AICB_BEGIN_NAMESPACE

// (type, name, default, help) — the single definition of batch_spec's fields.
// clang-format off
#define AICB_BATCH_SPEC_FIELDS                                                                                 \
  ((std::uint64_t, micro_batch, 1, "sequences per micro batch (per data-parallel rank)"))                      \
  ((std::uint64_t, global_batch, 0, "sequences per iteration over all ranks; 0 = micro_batch x data parallel")) \
  ((std::uint64_t, seq_length, 2048, "tokens per sequence"))                                                   \
  ((::aicb::dtype, dtype, ::aicb::dtype::bf16, "weights and activations: bf16 | fp16 | fp32 | fp8"))                           \
  ((::aicb::dtype, grad_dtype, ::aicb::dtype::fp32, "gradients as reduced over data parallel (Megatron: fp32)")) \
  ((::aicb::fp8_recipe_kind, fp8_recipe, ::aicb::fp8_recipe_kind::delayed, "how FP8 GEMMs get their scales, with dtype fp8 (Megatron --fp8-recipe): delayed | tensorwise | blockwise | mxfp8"))
// clang-format on

/// The batch of a training job. See the file comment.
struct batch_spec {
  AICB_DETAIL_REFLECTED_FIELDS(AICB_BATCH_SPEC_FIELDS)

  [[nodiscard]] friend constexpr bool operator==(const batch_spec&, const batch_spec&) = default;
};

AICB_END_NAMESPACE
