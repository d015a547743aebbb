// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::parallel_spec — how a training job is split over GPUs: tensor, pipeline (with virtual
/// stages, its schedule, and an uneven split given as first/last stage sizes, by counting the embedding and
/// the loss as layers, or as an explicit per-chunk layout, as Megatron does), context, expert (with its own
/// tensor-parallel size) and the data parallelism that remains; sequence parallelism; optimizer sharding;
/// recomputation (full, or selective of the modules recompute_modules names).
///
/// A literal, structural type, like model_spec. The rules that relate it to a model live with
/// job_spec (aicb/model/job.hpp).

#include <aicb/config.hpp>
#include <aicb/detail/reflect.hpp>
#include <aicb/model/options.hpp>
#include <aicb/model/pipeline_layout.hpp>
#include <aicb/model/recompute.hpp>

#include <cstdint>

AICB_BEGIN_NAMESPACE

// (type, name, default, help) — the single definition of parallel_spec's fields.
// clang-format off
#define AICB_PARALLEL_SPEC_FIELDS                                                                              \
  ((std::uint64_t, world_size, 1, "number of GPUs"))                                                           \
  ((std::uint64_t, tensor_parallel, 1, "tensor-parallel size TP"))                                             \
  ((std::uint64_t, pipeline_parallel, 1, "pipeline-parallel size PP"))                                         \
  ((std::uint64_t, virtual_pipeline, 1, "model chunks per pipeline stage (interleaved 1F1B); 1 = plain 1F1B"))  \
  ((std::uint64_t, context_parallel, 1, "context-parallel size CP (sequence split across GPUs)"))              \
  ((std::uint64_t, expert_parallel, 1, "expert-parallel size EP"))                                             \
  ((std::uint64_t, expert_tensor_parallel, 0, "tensor-parallel size inside experts; 0 = tensor_parallel"))     \
  ((bool, sequence_parallel, false, "shard norms/dropout along the sequence over TP (all-gather + reduce-scatter instead of all-reduce)")) \
  ((bool, replicate_kv_heads, false, "allow tensor_parallel > num_kv_heads by replicating key/value heads"))    \
  ((std::uint64_t, first_stage_layers, 0, "layers on the first pipeline stage; 0 = even split"))               \
  ((std::uint64_t, last_stage_layers, 0, "layers on the last pipeline stage; 0 = even split"))                 \
  ((pipeline_schedule_kind, pipeline_schedule, pipeline_schedule_kind::megatron, "pipeline schedule: megatron (1F1B; interleaved with virtual_pipeline > 1) | zb_h1 (zero-bubble H1: weight gradients deferred into the bubbles) | dualpipe (DeepSeek's bidirectional pipeline: two stages per GPU, micro batches from both ends)")) \
  ((bool, account_for_embedding_in_pipeline_split, false, "count the embedding as one layer when splitting the pipeline (Megatron): the first model chunk holds one transformer layer fewer")) \
  ((bool, account_for_loss_in_pipeline_split, false, "count the output layer and loss as one layer when splitting the pipeline (Megatron): the last model chunk holds one transformer layer fewer")) \
  ((pipeline_layout_text, pipeline_layout, {}, "Megatron's --pipeline-model-parallel-layout: each virtual stage's contents, | between them in virtual-stage order; E embedding, t layer, m MTP layer, L loss, x*N and (...)*N repeat (e.g. Et*4|(t*4|)*14tmL); empty = the even or first/last split")) \
  ((bool, distributed_optimizer, false, "shard optimizer states over data parallel (Megatron; like ZeRO-1)"))  \
  ((std::uint64_t, zero_stage, 0, "DeepSpeed ZeRO stage 0-3"))                                                 \
  ((recompute_kind, recompute, recompute_kind::none, "activation recomputation: none | selective | full"))     \
  ((recompute_modules_text, recompute_modules, {}, "with recompute = selective, what it repeats (Megatron --recompute-modules; commas or spaces between): core_attn layernorm moe_act moe mlp shared_experts mla_up_proj; empty = core_attn")) \
  ((bool, cross_entropy_loss_fusion, false, "a fused cross-entropy loss (Megatron --cross-entropy-loss-fusion): fewer passes over the logits and fewer all-reduces over TP")) \
  ((cross_entropy_fusion_kind, cross_entropy_fusion_impl, cross_entropy_fusion_kind::native, "whose fused cross-entropy: native (Megatron's) | te (Transformer Engine's); with cross_entropy_loss_fusion")) \
  ((attention_kind, attention, attention_kind::flash, "core attention kernel: flash (fused, causal blocks skipped) | unfused (scores, softmax, dropout and weighted values as separate kernels)")) \
  ((bool, no_rope_fusion, false, "rotate queries and keys with Megatron-Core's unfused PyTorch operations rather than its fused RoPE kernel (Megatron --no-rope-fusion); a YaRN attention factor other than 1 always does")) \
  ((std::uint64_t, vocab_divisible_by, 128, "the vocabulary is padded to a multiple of this x tensor_parallel")) \
  ((moe_dispatcher_kind, moe_dispatcher, moe_dispatcher_kind::allgather, "MoE token dispatcher: allgather (Megatron's default) | alltoall | flex (DeepEP)")) \
  ((moe_flex_backend_kind, moe_flex_backend, moe_flex_backend_kind::deepep, "the flex dispatcher's kernels: deepep | hybridep (which can also pad experts to their capacity); with moe_dispatcher flex (Megatron --moe-flex-dispatcher-backend)")) \
  ((bool, overlap_grad_reduce, false, "reduce gradients bucket by bucket during the last backward (Megatron --overlap-grad-reduce); otherwise one reduction per buffer after it")) \
  ((bool, moe_grouped_gemm, false, "run a GPU's experts as one grouped GEMM (Megatron --moe-grouped-gemm); otherwise one GEMM per expert, in a loop")) \
  ((bool, overlap_moe_expert_parallel_comm, false, "Megatron's combined 1F1B (--overlap-moe-expert-parallel-comm): one micro batch's forward merged layer by layer with another's backward, each one's expert-parallel all-to-alls under the other's computation (MoE, EP > 1, alltoall dispatcher; PP = 1 or interleaved)")) \
  ((bool, delay_wgrad_compute, false, "with the combined 1F1B, the experts' weight gradients run after the forward's dispatch, under the backward's dispatch all-to-all (Megatron --delay-wgrad-compute)"))
// clang-format on

/// The parallel layout of a training job. See the file comment.
struct parallel_spec {
  AICB_DETAIL_REFLECTED_FIELDS(AICB_PARALLEL_SPEC_FIELDS)

  [[nodiscard]] friend constexpr bool operator==(const parallel_spec&, const parallel_spec&) = default;
};

/// What selective recomputation repeats in `p`: its recompute_modules (core attention when none are
/// named); nothing unless recompute is selective. Names that are not modules are left out here and
/// refused by validate (aicb/model/job.hpp).
[[nodiscard]] constexpr recompute_set recomputed_modules(const parallel_spec& p) noexcept {
  if (p.recompute != recompute_kind::selective) return {};
  const std::optional<recompute_set> named = parse_recompute_modules(p.recompute_modules.view());
  if (!named || named->empty()) return recompute_set{}.add(recompute_module::core_attn);
  return *named;
}

AICB_END_NAMESPACE
