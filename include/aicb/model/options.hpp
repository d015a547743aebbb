// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The enumerated choices of the descriptors — activation, normalisation, position embedding,
/// activation recomputation, pipeline schedule — each with the names used in printing, `key=value`
/// text and CLI flags.
///
/// ```cpp
/// aicb::to_string(aicb::activation_kind::swiglu);           // "swiglu"
/// aicb::from_string<aicb::norm_kind>("rmsnorm");       // std::optional{norm_kind::rmsnorm}
/// ```

#include <aicb/config.hpp>
#include <aicb/enum_names.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

AICB_BEGIN_NAMESPACE

/// MLP activation. `swiglu` (and any gated unit) has three weight matrices; `gelu` and
/// `squared_relu` (relu(x)², Nemotron-H's) two.
enum class activation_kind : std::uint8_t { gelu, swiglu, squared_relu };
/// Normalisation layer. `layernorm` has a weight and a bias, `rmsnorm` only a weight.
enum class norm_kind : std::uint8_t { layernorm, rmsnorm };
/// Position encoding. `learned` adds a (positions × hidden) table to the parameters; `rope` adds none
/// but rotates each attention layer's queries and keys (a pass of its own); `none` has neither (the
/// attention layers of Nemotron-H's hybrids, whose recurrent layers carry the order).
enum class position_kind : std::uint8_t { learned, rope, none };
/// Activation recomputation: none, Megatron's "selective" (core attention only), or full layers.
enum class recompute_kind : std::uint8_t { none, selective, full };
/// How Megatron-Core moves tokens to their experts: `allgather` (its default: every rank of the
/// ETP x EP group gathers all tokens and keeps its experts' share), `alltoall` (each token copied once
/// per chosen expert, sent to the expert's rank and back) or `flex` (its flex dispatcher on DeepEP:
/// each token sent once to every rank holding one of its experts, put into expert order there, and
/// its experts' outputs summed there before they return).
enum class moe_dispatcher_kind : std::uint8_t { allgather, alltoall, flex };
/// The kernels behind the flex dispatcher (Megatron's --moe-flex-dispatcher-backend): `deepep`
/// (DeepEP's normal kernels) or `hybridep` (HybridEP). Both send a token once per destination node and
/// forward it over NVLink there; HybridEP can also pad each expert's tokens to a capacity (static
/// shapes, no wait for the counts), which Megatron refuses on DeepEP.
enum class moe_flex_backend_kind : std::uint8_t { deepep, hybridep };
/// How core attention runs: `flash`, one fused kernel that skips the causal mask's blocks and keeps
/// the scores on chip (FlashAttention, cuDNN, Transformer Engine); or `unfused`, Megatron's original
/// path — the score matrix QKᵀ written to memory, a fused scale-mask-softmax, dropout, then the
/// weighted sum of the values, over the full s × s scores (docs/compute-model.md).
enum class attention_kind : std::uint8_t { flash, unfused };
/// Whose fused cross-entropy runs with --cross-entropy-loss-fusion (Megatron's
/// --cross-entropy-fusion-impl): `native`, Megatron's compiled passes over an FP32 copy of the logits;
/// `te`, Transformer Engine's kernels — one pass over the logits forward, one backward
/// (docs/compute-model.md).
enum class cross_entropy_fusion_kind : std::uint8_t { native, te };
/// How FP8 GEMMs get their scales (Megatron's --fp8-recipe; Transformer Engine's recipes), which sets
/// what quantising an operand costs (docs/compute-model.md):
/// - `delayed`: one scale per tensor from the amax history of earlier steps (Megatron's default): one
///   cast (and transpose) kernel a tensor, fused into the norm before a GEMM, and one kernel for all of a
///   grouped GEMM's experts;
/// - `tensorwise`: one scale per tensor from its own amax, computed first (per-tensor current scaling,
///   Megatron-Bridge's `fp8_cs`): an amax pass over the operand, a scale kernel and the cast — three
///   kernels a tensor, each expert its own;
/// - `blockwise`: a scale per 1 × 128 block of activations and 128 × 128 block of weights (DeepSeek-V3's,
///   Hopper; Megatron-Bridge's `fp8_sc`): one kernel a tensor, each expert its own;
/// - `mxfp8`: a scale per 32 elements (microscaling, Blackwell only; Megatron-Bridge's `fp8_mx`): one
///   kernel a tensor writing the row-wise and column-wise copies, each expert its own.
enum class fp8_recipe_kind : std::uint8_t { delayed, tensorwise, blockwise, mxfp8 };
/// The pipeline schedule of a job with pipeline_parallel > 1 (docs/schedules.md):
/// - `megatron`: Megatron-Core's — 1F1B, interleaved 1F1B with virtual_pipeline > 1;
/// - `zb_h1`: zero-bubble H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024): 1F1B with
///   each backward split into its input gradient (B) and its weight gradient (W) on every stage but
///   the first, W deferred into the pipeline's bubbles. The same activation memory as 1F1B, a third
///   of its bubble when F, B and W take equal time ((p − 1)(F + B − W) instead of (p − 1)(F + B + W));
/// - `dualpipe`: DeepSeek's DualPipe (DeepSeek-V3 technical report, arXiv 2412.19437; the authors'
///   reference implementation): a bidirectional pipeline — rank r holds stage r and stage p − 1 − r,
///   half the micro batches enter at each end, one direction's forward runs overlapped with the other's
///   backward — twice the weights per GPU, (p/2 − 1)(F&B + B − 3W) of bubble.
enum class pipeline_schedule_kind : std::uint8_t { megatron, zb_h1, dualpipe };

template <>
struct enum_names<activation_kind> {
  static constexpr std::array<std::string_view, 3> value{"gelu", "swiglu", "squared_relu"};
};
template <>
struct enum_names<norm_kind> {
  static constexpr std::array<std::string_view, 2> value{"layernorm", "rmsnorm"};
};
template <>
struct enum_names<position_kind> {
  static constexpr std::array<std::string_view, 3> value{"learned", "rope", "none"};
};
template <>
struct enum_names<recompute_kind> {
  static constexpr std::array<std::string_view, 3> value{"none", "selective", "full"};
};
template <>
struct enum_names<moe_dispatcher_kind> {
  static constexpr std::array<std::string_view, 3> value{"allgather", "alltoall", "flex"};
};
template <>
struct enum_names<moe_flex_backend_kind> {
  static constexpr std::array<std::string_view, 2> value{"deepep", "hybridep"};
};
template <>
struct enum_names<attention_kind> {
  static constexpr std::array<std::string_view, 2> value{"flash", "unfused"};
};
template <>
struct enum_names<cross_entropy_fusion_kind> {
  static constexpr std::array<std::string_view, 2> value{"native", "te"};
};
template <>
struct enum_names<fp8_recipe_kind> {
  static constexpr std::array<std::string_view, 4> value{"delayed", "tensorwise", "blockwise", "mxfp8"};
};
template <>
struct enum_names<pipeline_schedule_kind> {
  static constexpr std::array<std::string_view, 3> value{"megatron", "zb_h1", "dualpipe"};
};

AICB_END_NAMESPACE
