// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::job_spec — a whole training job: model, parallel layout and batch, the rules that relate
/// them, and the quantities derived from them (data parallelism, micro batches per iteration,
/// padded vocabulary, layers per pipeline stage).
///
/// ```cpp
/// constexpr aicb::job_spec job{aicb::presets::llama2_7b,
///                              {.world_size = 64, .tensor_parallel = 2, .pipeline_parallel = 2},
///                              {.micro_batch = 1, .global_batch = 256, .seq_length = 4096}};
/// static_assert(aicb::validate(job));
/// static_assert(aicb::data_parallel(job) == 16 && aicb::microbatches(job) == 16);
/// ```

#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/require.hpp>
#include <aicb/model/batch.hpp>
#include <aicb/model/parallel.hpp>
#include <aicb/model/spec.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The largest world aicb describes: 2^31 − 1 GPUs, the largest rank an `int` holds — what NCCL,
/// MPI and SimAI number ranks with.
inline constexpr std::uint64_t max_world_size = 2147483647;

/// A training job: what is trained, how it is split, what one iteration processes.
struct job_spec {
  model_spec model{};
  parallel_spec parallel{};
  batch_spec batch{};

  [[nodiscard]] friend constexpr bool operator==(const job_spec&, const job_spec&) = default;
};

/// Data-parallel size: world_size / (TP · PP · CP).
[[nodiscard]] constexpr std::uint64_t data_parallel(const job_spec& j) noexcept {
  const auto& p = j.parallel;
  const std::uint64_t model_parallel = p.tensor_parallel * p.pipeline_parallel * p.context_parallel;
  return model_parallel == 0 ? 0 : p.world_size / model_parallel;
}

/// Tensor-parallel size inside experts (expert_tensor_parallel, or TP when 0).
[[nodiscard]] constexpr std::uint64_t expert_tensor_parallel(const job_spec& j) noexcept {
  return j.parallel.expert_tensor_parallel != 0 ? j.parallel.expert_tensor_parallel
                                                : j.parallel.tensor_parallel;
}

/// Data-parallel size among replicas of the same experts ("DP within EP"): world_size / (PP · ETP · EP).
[[nodiscard]] constexpr std::uint64_t expert_data_parallel(const job_spec& j) noexcept {
  const std::uint64_t denominator =
      j.parallel.pipeline_parallel * expert_tensor_parallel(j) * j.parallel.expert_parallel;
  return denominator == 0 ? 0 : j.parallel.world_size / denominator;
}

/// Global batch in sequences (global_batch, or micro_batch · DP when 0).
[[nodiscard]] constexpr std::uint64_t global_batch(const job_spec& j) noexcept {
  return j.batch.global_batch != 0 ? j.batch.global_batch : j.batch.micro_batch * data_parallel(j);
}

/// Micro batches per iteration on each data-parallel rank (gradient-accumulation steps).
[[nodiscard]] constexpr std::uint64_t microbatches(const job_spec& j) noexcept {
  const std::uint64_t per_step = j.batch.micro_batch * data_parallel(j);
  return per_step == 0 ? 0 : global_batch(j) / per_step;
}

/// Vocabulary padded to a multiple of vocab_divisible_by · TP, as Megatron pads it.
[[nodiscard]] constexpr std::uint64_t padded_vocab(const job_spec& j) noexcept {
  const std::uint64_t multiple = j.parallel.vocab_divisible_by * j.parallel.tensor_parallel;
  if (multiple == 0) return j.model.vocab_size;
  return (j.model.vocab_size + multiple - 1) / multiple * multiple;
}

/// Whether the pipeline split counts the embedding and/or the loss as layers (Megatron's
/// --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split).
[[nodiscard]] constexpr bool pipeline_split_accounts(const parallel_spec& p) noexcept {
  return p.account_for_embedding_in_pipeline_split || p.account_for_loss_in_pipeline_split;
}

namespace detail {
// Layer slots of one model chunk when the split accounts for the embedding and the loss: the
// layers and the accounted ends, spread evenly over PP x VPP chunks.
[[nodiscard]] constexpr std::uint64_t accounted_chunk_slots(const job_spec& j) noexcept {
  const auto& p = j.parallel;
  const std::uint64_t chunks =
      std::max<std::uint64_t>(p.pipeline_parallel, 1) * std::max<std::uint64_t>(p.virtual_pipeline, 1);
  const std::uint64_t slots = j.model.num_layers + (p.account_for_embedding_in_pipeline_split ? 1 : 0) +
                              (p.account_for_loss_in_pipeline_split ? 1 : 0);
  return slots / chunks;
}
// Layers of stage `stage` under an explicit first/last split (or the even one).
[[nodiscard]] constexpr std::uint64_t explicit_stage_layers(const job_spec& j, std::uint64_t stage) noexcept {
  const auto& p = j.parallel;
  const std::uint64_t pp = p.pipeline_parallel == 0 ? 1 : p.pipeline_parallel;
  if (pp == 1) return j.model.num_layers;
  const bool first = p.first_stage_layers != 0, last = p.last_stage_layers != 0;
  if (first && stage == 0) return p.first_stage_layers;
  if (last && stage == pp - 1) return p.last_stage_layers;
  const std::uint64_t middle_stages = pp - (first ? 1 : 0) - (last ? 1 : 0);
  const std::uint64_t middle_layers = j.model.num_layers - p.first_stage_layers - p.last_stage_layers;
  return middle_stages == 0 ? 0 : middle_layers / middle_stages;
}
}  // namespace detail

/// Transformer layers of model chunk `chunk` (0-based, < virtual_pipeline) on pipeline stage
/// `stage`. A stage's layers divide evenly over its chunks, except when the split accounts for the
/// embedding or the loss: every chunk then has the same number of slots, and the embedding takes one
/// of the very first chunk's (stage 0, chunk 0), the loss one of the very last chunk's; and except
/// under an explicit pipeline_layout, which says what each chunk holds.
[[nodiscard]] constexpr std::uint64_t chunk_layers(const job_spec& j, std::uint64_t stage,
                                                   std::uint64_t chunk) noexcept {
  const auto& p = j.parallel;
  const std::uint64_t pp = std::max<std::uint64_t>(p.pipeline_parallel, 1);
  const std::uint64_t vpp = std::max<std::uint64_t>(p.virtual_pipeline, 1);
  if (!p.pipeline_layout.empty())  // virtual stage chunk·PP + stage of the explicit layout
    return pipeline_layout_stage(p.pipeline_layout.view(), chunk * pp + stage).decoder;
  if (!pipeline_split_accounts(p)) return detail::explicit_stage_layers(j, stage) / vpp;
  std::uint64_t n = detail::accounted_chunk_slots(j);
  if (p.account_for_embedding_in_pipeline_split && stage == 0 && chunk == 0 && n > 0) --n;
  if (p.account_for_loss_in_pipeline_split && stage + 1 == pp && chunk + 1 == vpp && n > 0) --n;
  return n;
}

/// The first layer (0-based, global) of model chunk `chunk` on stage `stage`: Megatron's
/// virtual-stage order — chunk 0 of every stage in stage order, then chunk 1 of every stage, ...
[[nodiscard]] constexpr std::uint64_t chunk_first_layer(const job_spec& j, std::uint64_t stage,
                                                        std::uint64_t chunk) noexcept {
  const auto& p = j.parallel;
  const std::uint64_t pp = std::max<std::uint64_t>(p.pipeline_parallel, 1);
  const std::uint64_t vpp = std::max<std::uint64_t>(p.virtual_pipeline, 1);
  if (!p.pipeline_layout.empty())
    return pipeline_layout_layers_before(p.pipeline_layout.view(), chunk * pp + stage);
  if (pipeline_split_accounts(p)) {
    const std::uint64_t slot = (chunk * pp + stage) * detail::accounted_chunk_slots(j);
    return slot - (p.account_for_embedding_in_pipeline_split && slot > 0 ? 1 : 0);
  }
  std::uint64_t before = 0;  // layers on earlier stages within the same chunk round
  std::uint64_t round = 0;   // layers of one whole chunk round (every stage's chunk)
  for (std::uint64_t s = 0; s < pp; ++s) {
    const std::uint64_t n = detail::explicit_stage_layers(j, s) / vpp;
    if (s < stage) before += n;
    round += n;
  }
  return chunk * round + before;
}

/// Layers held by pipeline stage `stage` (0-based), over all its virtual chunks.
[[nodiscard]] constexpr std::uint64_t stage_layers(const job_spec& j, std::uint64_t stage) noexcept {
  if (!pipeline_split_accounts(j.parallel) && j.parallel.pipeline_layout.empty())
    return detail::explicit_stage_layers(j, stage);
  std::uint64_t n = 0;
  for (std::uint64_t c = 0; c < std::max<std::uint64_t>(j.parallel.virtual_pipeline, 1); ++c)
    n += chunk_layers(j, stage, c);
  return n;
}

/// Calls `f(layer)` for each layer (global index) of stage `stage`, chunk by chunk, in the order the
/// stage's forward pass runs them within each chunk.
template <class F>
constexpr void for_each_stage_layer(const job_spec& j, std::uint64_t stage, F&& f) {
  for (std::uint64_t c = 0; c < std::max<std::uint64_t>(j.parallel.virtual_pipeline, 1); ++c) {
    const std::uint64_t begin = chunk_first_layer(j, stage, c), end = begin + chunk_layers(j, stage, c);
    for (std::uint64_t l = begin; l < end; ++l)
      f(l);
  }
}

/// The rules of an explicit pipeline layout (Megatron's PipelineParallelLayerLayout checks, and this
/// model's): a layout; one group per virtual stage (pipeline_parallel × virtual_pipeline); the
/// embedding first and the loss last, once each; every transformer layer and multi-token-prediction
/// layer placed, the MTP layers after the last transformer layer in the last virtual stage, with the
/// loss; no other split given with it; at least one transformer layer in every virtual stage (the
/// schedule's chunks are never empty).
constexpr void validate_pipeline_layout(const job_spec& job) {
  const parallel_spec& p = job.parallel;
  const model_spec m = resolve(job.model);
  const std::string_view text = p.pipeline_layout.view();
  const auto fail = [&](const std::string& rule) {
    detail::rule_violated_text("pipeline_layout", text, rule);
  };
  const std::optional<std::uint64_t> stages = pipeline_layout_stages(text);
  if (!stages)
    fail(
        "not a pipeline layout: E, t, m, L and | with x*N or (...)*N repeats (groups do not nest), e.g. "
        "Et*4|(t*4|)*14tmL");
  if (p.first_stage_layers != 0 || p.last_stage_layers != 0 || pipeline_split_accounts(p))
    fail(
        "an explicit layout replaces first_stage_layers, last_stage_layers and the accounted splits: give "
        "one of them");
  if (p.pipeline_parallel == 1 && p.virtual_pipeline > 1)
    fail("virtual_pipeline > 1 needs pipeline_parallel > 1");
  if (p.pipeline_schedule == pipeline_schedule_kind::dualpipe)
    fail("dualpipe places two stages per rank itself; its chunks are not Megatron's virtual stages");
  const std::uint64_t chunks = p.pipeline_parallel * p.virtual_pipeline;
  if (*stages != chunks)
    fail("it has " + std::to_string(*stages) + " virtual stages; pipeline_parallel x virtual_pipeline is " +
         std::to_string(chunks));
  std::uint64_t embeddings = 0, losses = 0, decoders = 0, mtps = 0;
  char first = 0, last = 0;
  (void)unroll_pipeline_layout(text, [&](char c) {
    if (first == 0) first = c;
    last = c;
    embeddings += c == 'E' ? 1 : 0;
    losses += c == 'L' ? 1 : 0;
    decoders += c == 't' ? 1 : 0;
    if (c == 'm') ++mtps;
    if (c == 't' && mtps > 0) fail("transformer layers must come before the multi-token-prediction layers");
  });
  if (first != 'E' || embeddings != 1) fail("the embedding (E) comes first, once");
  if (last != 'L' || losses != 1) fail("the loss (L) comes last, once");
  if (decoders != m.num_layers)
    fail("it places " + std::to_string(decoders) + " transformer layers; num_layers is " +
         std::to_string(m.num_layers));
  if (mtps != m.num_mtp_layers)
    fail("it places " + std::to_string(mtps) + " multi-token-prediction layers; num_mtp_layers is " +
         std::to_string(m.num_mtp_layers));
  if (mtps > 0 && pipeline_layout_stage(text, chunks - 1).mtp != mtps)
    fail("the multi-token-prediction layers are modelled in the last virtual stage, with the loss");
  for (std::uint64_t v = 0; v < chunks; ++v) {
    const pipeline_layout_contents held = pipeline_layout_stage(text, v);
    if (held.decoder == 0 && held.mtp == 0 && !held.embedding && !held.loss)
      fail("virtual stage " + std::to_string(v) +
           " holds nothing: each holds a layer, the embedding or the loss");
  }
}

/// Checks every rule of the job: the model's own (validate(model_spec)) and those relating model,
/// layout and batch. Returns true, so it can sit in a `static_assert`; a broken rule throws
/// aicb::config_error — a compile error in a constant expression, whose notes carry the rule.
constexpr bool validate(const job_spec& job) {
  using detail::require;
  validate(job.model);
  const model_spec m = resolve(job.model);
  const parallel_spec& p = job.parallel;
  const batch_spec& b = job.batch;

  // Sizes are positive.
  require(p.world_size >= 1, "world_size", p.world_size, "world_size must be at least 1");
  require(p.tensor_parallel >= 1, "tensor_parallel", p.tensor_parallel, "tensor_parallel must be at least 1");
  require(p.pipeline_parallel >= 1, "pipeline_parallel", p.pipeline_parallel,
          "pipeline_parallel must be at least 1");
  require(p.virtual_pipeline >= 1, "virtual_pipeline", p.virtual_pipeline,
          "virtual_pipeline must be at least 1");
  require(p.context_parallel >= 1, "context_parallel", p.context_parallel,
          "context_parallel must be at least 1");
  require(p.expert_parallel >= 1, "expert_parallel", p.expert_parallel, "expert_parallel must be at least 1");
  require(b.micro_batch >= 1, "micro_batch", b.micro_batch, "micro_batch must be at least 1");
  require(b.seq_length >= 1, "seq_length", b.seq_length, "seq_length must be at least 1");
  if (b.fp8_recipe != fp8_recipe_kind::delayed && b.dtype != dtype::fp8)
    detail::rule_violated_text("fp8_recipe", to_string(b.fp8_recipe),
                               "an FP8 recipe scales FP8 GEMMs: it needs dtype fp8");
  require(p.vocab_divisible_by >= 1, "vocab_divisible_by", p.vocab_divisible_by,
          "vocab_divisible_by must be at least 1");
  require(p.zero_stage <= 3, "zero_stage", p.zero_stage, "zero_stage must be 0, 1, 2 or 3");
  require(p.world_size <= max_world_size, "world_size", p.world_size,
          "world_size must not exceed 2^31-1 (NCCL, MPI and SimAI number ranks with an int)");

  // The model-parallel product fits the world (each factor is then at most world_size).
  const auto model_parallel =
      product_within({p.tensor_parallel, p.pipeline_parallel, p.context_parallel}, p.world_size);
  require(model_parallel.has_value(), "world_size", p.world_size,
          "tensor_parallel x pipeline_parallel x context_parallel exceeds world_size");
  require(p.world_size % *model_parallel == 0, "world_size", p.world_size,
          "tensor_parallel x pipeline_parallel x context_parallel must divide world_size", "TPxPPxCP",
          *model_parallel);
  require(p.pipeline_parallel <= m.num_layers, "pipeline_parallel", p.pipeline_parallel,
          "pipeline_parallel must not exceed num_layers (every stage holds at least one layer)", "num_layers",
          m.num_layers);

  // Tensor parallelism splits whole heads.
  require(m.num_attention_heads % p.tensor_parallel == 0, "tensor_parallel", p.tensor_parallel,
          "tensor_parallel must divide num_attention_heads", "num_attention_heads", m.num_attention_heads);
  if (!m.is_mla()) {
    if (p.replicate_kv_heads && p.tensor_parallel > m.num_kv_heads)
      require(p.tensor_parallel % m.num_kv_heads == 0, "tensor_parallel", p.tensor_parallel,
              "with replicated key/value heads, num_kv_heads must divide tensor_parallel", "num_kv_heads",
              m.num_kv_heads);
    else
      require(m.num_kv_heads % p.tensor_parallel == 0, "tensor_parallel", p.tensor_parallel,
              "tensor_parallel must divide num_kv_heads (or set replicate_kv_heads)", "num_kv_heads",
              m.num_kv_heads);
  }

  // Experts.
  const std::uint64_t etp = expert_tensor_parallel(job);
  if (p.moe_flex_backend == moe_flex_backend_kind::hybridep && p.moe_dispatcher != moe_dispatcher_kind::flex)
    detail::rule_violated_text("moe_flex_backend", "hybridep",
                               "HybridEP is a backend of the flex dispatcher: it needs moe_dispatcher flex");
  if (!m.is_moe()) {
    require(p.expert_parallel == 1, "expert_parallel", p.expert_parallel,
            "expert_parallel > 1 needs num_experts > 0");
  } else {
    require(m.num_experts % p.expert_parallel == 0, "expert_parallel", p.expert_parallel,
            "expert_parallel must divide num_experts", "num_experts", m.num_experts);
    const auto expert_grid = product_within({etp, p.expert_parallel}, p.world_size);
    require(
        expert_grid && (p.world_size / p.pipeline_parallel) % *expert_grid == 0, "expert_parallel",
        p.expert_parallel,
        "expert_parallel x expert_tensor_parallel must divide the ranks of one pipeline stage (TP x CP x DP)",
        "TPxCPxDP", p.world_size / p.pipeline_parallel);
    require(p.tensor_parallel == 1 || p.sequence_parallel, "sequence_parallel", 0,
            "MoE with tensor_parallel > 1 needs sequence_parallel (Megatron rule)", "tensor_parallel",
            p.tensor_parallel);
    require(!m.moe_pad_to_capacity || p.moe_dispatcher != moe_dispatcher_kind::allgather,
            "moe_pad_to_capacity", 1,
            "Megatron's all-gather dispatcher does not pad experts to a capacity (it ignores the setting): "
            "pad with "
            "moe_dispatcher alltoall, or flex on HybridEP");
    if (p.moe_dispatcher == moe_dispatcher_kind::flex) {
      // The flex dispatcher as modelled: DeepEP or HybridEP over the EP group, experts whole on their
      // GPU, each token sent once to each destination; only HybridEP pads experts to a capacity.
      require(etp == 1, "expert_tensor_parallel", etp,
              "the flex dispatcher is modelled with experts whole on their GPU (expert_tensor_parallel 1)");
      require(!m.moe_pad_to_capacity || p.moe_flex_backend == moe_flex_backend_kind::hybridep,
              "moe_pad_to_capacity", 1,
              "the flex dispatcher on DeepEP does not pad experts to their capacity (Megatron refuses it; "
              "HybridEP does: moe_flex_backend hybridep)");
    }
  }

  // Pipeline stages hold whole layers (and whole virtual chunks).
  if (!p.pipeline_layout.empty()) {
    validate_pipeline_layout(job);
  } else if (p.pipeline_parallel == 1) {
    require(p.first_stage_layers == 0 && p.last_stage_layers == 0, "first_stage_layers", p.first_stage_layers,
            "an uneven pipeline split needs pipeline_parallel > 1");
    require(p.virtual_pipeline == 1, "virtual_pipeline", p.virtual_pipeline,
            "virtual_pipeline > 1 needs pipeline_parallel > 1");
  } else if (pipeline_split_accounts(p)) {
    require(
        p.first_stage_layers == 0 && p.last_stage_layers == 0, "first_stage_layers", p.first_stage_layers,
        "first_stage_layers and last_stage_layers cannot be combined with accounting for the embedding or "
        "the loss in the pipeline split (Megatron refuses the combination too)",
        "last_stage_layers", p.last_stage_layers);
    const std::uint64_t ends =
        (p.account_for_embedding_in_pipeline_split ? 1 : 0) + (p.account_for_loss_in_pipeline_split ? 1 : 0);
    const auto chunk_count = product_within({p.pipeline_parallel, p.virtual_pipeline}, max_layers);
    require(chunk_count.has_value(), "virtual_pipeline", p.virtual_pipeline,
            "pipeline_parallel x virtual_pipeline (the model chunks) must not exceed 2^20",
            "pipeline_parallel", p.pipeline_parallel);
    const std::uint64_t chunks = *chunk_count;
    require((m.num_layers + ends) % chunks == 0, "num_layers", m.num_layers,
            "with the embedding or the loss accounted in the pipeline split, num_layers plus the accounted "
            "ends must divide evenly over pipeline_parallel x virtual_pipeline model chunks",
            "PPxVPP", chunks);
    for (const std::uint64_t stage : {std::uint64_t{0}, p.pipeline_parallel - 1})
      for (const std::uint64_t chunk : {std::uint64_t{0}, p.virtual_pipeline - 1})
        require(chunk_layers(job, stage, chunk) > 0, "num_layers", m.num_layers,
                "every model chunk needs at least one transformer layer after the embedding and the loss "
                "take their slots (use fewer chunks)",
                "layers per chunk", (m.num_layers + ends) / chunks);
  } else {
    require(p.first_stage_layers <= m.num_layers && p.last_stage_layers <= m.num_layers, "first_stage_layers",
            p.first_stage_layers, "first_stage_layers and last_stage_layers must not exceed num_layers",
            "last_stage_layers", p.last_stage_layers);
    const std::uint64_t explicit_layers = p.first_stage_layers + p.last_stage_layers;
    const std::uint64_t middle_stages =
        p.pipeline_parallel - (p.first_stage_layers ? 1 : 0) - (p.last_stage_layers ? 1 : 0);
    require(explicit_layers <= m.num_layers, "first_stage_layers", p.first_stage_layers,
            "first_stage_layers + last_stage_layers must not exceed num_layers", "num_layers", m.num_layers);
    if (middle_stages == 0)
      require(explicit_layers == m.num_layers, "last_stage_layers", p.last_stage_layers,
              "with two pipeline stages, first_stage_layers + last_stage_layers must equal num_layers",
              "num_layers", m.num_layers);
    else
      require((m.num_layers - explicit_layers) % middle_stages == 0, "pipeline_parallel", p.pipeline_parallel,
              "the pipeline stages (after any explicit first/last split) must divide num_layers evenly",
              "num_layers", m.num_layers);
    for (std::uint64_t stage = 0; stage < p.pipeline_parallel; ++stage)
      require(stage_layers(job, stage) % p.virtual_pipeline == 0 && stage_layers(job, stage) > 0,
              "virtual_pipeline", p.virtual_pipeline,
              "every pipeline stage needs a positive number of layers divisible by virtual_pipeline", "stage",
              stage);
  }

  // Zero-bubble H1 is a variant of 1F1B: one model chunk per stage, and a pipeline to fill.
  if (p.pipeline_schedule == pipeline_schedule_kind::zb_h1) {
    require(p.pipeline_parallel > 1, "pipeline_parallel", p.pipeline_parallel,
            "pipeline_schedule zb_h1 needs pipeline_parallel > 1 (it fills the bubbles of a pipeline)");
    require(
        p.virtual_pipeline == 1, "virtual_pipeline", p.virtual_pipeline,
        "pipeline_schedule zb_h1 runs one model chunk per stage (a variant of 1F1B); set virtual_pipeline "
        "= 1 or pipeline_schedule megatron");
  }

  // DualPipe (the reference implementation's rules): an even number of stages, half the micro batches
  // from each end, at least two per stage.
  if (p.pipeline_schedule == pipeline_schedule_kind::dualpipe) {
    require(p.pipeline_parallel >= 2 && p.pipeline_parallel % 2 == 0, "pipeline_parallel",
            p.pipeline_parallel,
            "pipeline_schedule dualpipe needs an even pipeline_parallel (each rank holds stage r and stage "
            "pipeline_parallel - 1 - r)");
    require(p.virtual_pipeline == 1, "virtual_pipeline", p.virtual_pipeline,
            "pipeline_schedule dualpipe places two stages per rank itself; set virtual_pipeline = 1");
  }

  // Megatron-Core's combined 1F1B (TransformerConfig's checks of overlap_moe_expert_parallel_comm):
  // expert parallelism over the all-to-all dispatcher, no full recomputation, at most one MTP layer,
  // and either no pipeline or an interleaved one (its only pipelined schedule that merges passes).
  if (p.overlap_moe_expert_parallel_comm) {
    const std::uint64_t on = 1;
    require(m.is_moe() && p.expert_parallel > 1, "overlap_moe_expert_parallel_comm", on,
            "the combined 1F1B overlaps expert-parallel all-to-alls: it needs a mixture of experts and "
            "expert_parallel > 1",
            "expert_parallel", p.expert_parallel);
    require(p.moe_dispatcher != moe_dispatcher_kind::allgather, "overlap_moe_expert_parallel_comm", on,
            "the combined 1F1B needs moe_dispatcher alltoall or flex (Megatron's rule)");
    require(p.recompute != recompute_kind::full, "overlap_moe_expert_parallel_comm", on,
            "the combined 1F1B cannot run with full recomputation (Megatron refuses it); use recompute "
            "selective or none");
    require(m.num_mtp_layers <= 1, "overlap_moe_expert_parallel_comm", on,
            "the combined 1F1B supports at most one multi-token-prediction layer (Megatron)",
            "num_mtp_layers", m.num_mtp_layers);
    require(p.pipeline_schedule == pipeline_schedule_kind::megatron, "overlap_moe_expert_parallel_comm", on,
            "the combined 1F1B is Megatron's schedule; zb_h1 and dualpipe pair passes their own way "
            "(dualpipe already overlaps its forward-backward pairs)");
    require(p.pipeline_parallel == 1 || p.virtual_pipeline > 1, "overlap_moe_expert_parallel_comm", on,
            "with pipeline_parallel > 1, Megatron runs the combined 1F1B only in its interleaved schedule: "
            "set virtual_pipeline > 1",
            "pipeline_parallel", p.pipeline_parallel);
    require(b.dtype != dtype::fp32, "overlap_moe_expert_parallel_comm", on,
            "the combined 1F1B needs a bf16 or fp16 model (Megatron); FP8 GEMMs are fine");
  }
  require(!p.delay_wgrad_compute || p.overlap_moe_expert_parallel_comm, "delay_wgrad_compute", 1,
          "delay_wgrad_compute needs overlap_moe_expert_parallel_comm (Megatron)");
  if (p.cross_entropy_fusion_impl != cross_entropy_fusion_kind::native && !p.cross_entropy_loss_fusion)
    detail::rule_violated_text("cross_entropy_fusion_impl", to_string(p.cross_entropy_fusion_impl),
                               "the fused cross-entropy's implementation needs cross_entropy_loss_fusion "
                               "(Megatron ignores it otherwise)");

  // Selective recomputation's modules (TransformerConfig's checks of recompute_modules).
  if (!p.recompute_modules.empty()) {
    const std::string_view text = p.recompute_modules.view();
    std::string_view bad;
    const std::optional<recompute_set> set = parse_recompute_modules(text, &bad);
    if (!set)
      detail::rule_violated_text("recompute_modules", text,
                                 "'" + std::string(bad) +
                                     "' is not a module Megatron recomputes: core_attn, layernorm, moe_act, "
                                     "moe, mlp, shared_experts or mla_up_proj");
    if (p.recompute != recompute_kind::selective)
      detail::rule_violated_text(
          "recompute_modules", text,
          "recompute_modules are selective recomputation's: set recompute = selective");
    if (set->has(recompute_module::moe_act) && !p.moe_grouped_gemm)
      detail::rule_violated_text("recompute_modules", text,
                                 "moe_act is recomputed only with moe_grouped_gemm (Megatron's rule)");
    if (set->has(recompute_module::mla_up_proj) && !m.is_mla())
      detail::rule_violated_text("recompute_modules", text,
                                 "mla_up_proj needs multi-latent attention (Megatron's rule)");
    if (set->has(recompute_module::moe) && p.overlap_moe_expert_parallel_comm)
      detail::rule_violated_text("recompute_modules", text,
                                 "recomputing the whole MoE block (moe) inside the combined 1F1B is not "
                                 "modelled: its merged steps would repeat the block's all-to-alls; use "
                                 "moe_act");
  }

  // The batch splits into whole micro batches on every data-parallel rank.
  const std::uint64_t dp = data_parallel(job);
  const auto per_step = product_within({b.micro_batch, dp}, max_derived_size);
  require(per_step.has_value(), "micro_batch", b.micro_batch,
          "micro_batch x data_parallel (sequences per step) must not exceed 2^50", "data_parallel", dp);
  const std::uint64_t g = global_batch(job);
  require(g % *per_step == 0 && g >= *per_step, "global_batch", g,
          "global_batch must be a positive multiple of micro_batch x data_parallel", "micro_batch x DP",
          *per_step);
  // Interleaving groups pipeline_parallel micro batches per model chunk (Megatron-Core's default
  // microbatch_group_size_per_vp_stage): the micro batches must fill whole groups.
  if (p.virtual_pipeline > 1)
    require((g / *per_step) % p.pipeline_parallel == 0, "global_batch", g,
            "with virtual_pipeline > 1, the micro batches per iteration (global_batch / (micro_batch x DP)) "
            "must be "
            "a multiple of pipeline_parallel, as Megatron-Core requires",
            "pipeline_parallel", p.pipeline_parallel);
  if (p.pipeline_schedule == pipeline_schedule_kind::dualpipe) {
    const std::uint64_t m = g / *per_step;
    require(m % 2 == 0 && m >= 2 * p.pipeline_parallel, "global_batch", g,
            "with pipeline_schedule dualpipe, the micro batches per iteration (global_batch / (micro_batch x "
            "DP)) must be even and at least 2 x pipeline_parallel, as DualPipe requires",
            "pipeline_parallel", p.pipeline_parallel);
  }
  require(product_within({g, b.seq_length}, max_derived_size).has_value(), "global_batch", g,
          "global_batch x seq_length (the tokens of an iteration) must not exceed 2^50", "seq_length",
          b.seq_length);
  require(product_within({p.vocab_divisible_by, p.tensor_parallel}, max_derived_size).has_value(),
          "vocab_divisible_by", p.vocab_divisible_by,
          "vocab_divisible_by x tensor_parallel (the vocabulary padding) must not exceed 2^50",
          "tensor_parallel", p.tensor_parallel);

  // One micro batch's widest activation fits (max_derived_size): with it bounded, every message,
  // tensor and byte count of a micro batch is exact.
  const std::uint64_t gated = m.activation == activation_kind::swiglu ? 2 : 1;
  const auto wide = [](std::initializer_list<std::uint64_t> factors) {
    return product_within(factors).value_or(max_u64);
  };
  std::uint64_t width = m.hidden_size;
  for (const std::uint64_t w :
       {wide({gated, m.ffn_hidden_size}),
        wide({gated, m.moe_ffn_hidden_size, std::max<std::uint64_t>(m.moe_top_k, 1)}),
        wide({m.moe_top_k, m.hidden_size, expert_tensor_parallel(job)}), padded_vocab(job), m.num_experts,
        wide({m.num_attention_heads + 2 * m.num_kv_heads, m.head_dim}),
        wide({m.num_attention_heads, m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim})})
    width = std::max(width, w);
  require(product_within({b.micro_batch, b.seq_length, width}, max_derived_size).has_value(), "seq_length",
          b.seq_length,
          "micro_batch x seq_length x the widest activation (hidden size, MLP and expert widths, vocabulary) "
          "must not exceed 2^50 elements",
          "widest activation", width);
  if (m.position == position_kind::learned && m.max_position_embeddings != 0)
    require(
        b.seq_length <= m.max_position_embeddings, "seq_length", b.seq_length,
        "seq_length must not exceed max_position_embeddings, the rows of the learned position table (give "
        "a larger table, or position = rope)",
        "max_position_embeddings", m.max_position_embeddings);

  // Sequence splits.
  if (p.sequence_parallel)
    require(b.seq_length % p.tensor_parallel == 0, "seq_length", b.seq_length,
            "with sequence_parallel, tensor_parallel must divide seq_length", "tensor_parallel",
            p.tensor_parallel);
  if (p.context_parallel > 1)
    require(b.seq_length % (2 * p.context_parallel) == 0, "seq_length", b.seq_length,
            "with context_parallel, 2 x context_parallel must divide seq_length (load-balanced causal split)",
            "2xCP", 2 * p.context_parallel);
  return true;
}

/// validate(job) and the rules of training workloads: a hybrid layout's Gated DeltaNet heads split
/// evenly over TP, and no context parallelism with it (each sequence's recurrent state would pass
/// from CP rank to CP rank, which the schedule does not model); a sliding window or an attention chunk
/// shorter than the sequence runs in fused attention kernels, without context parallelism.
constexpr bool validate_training(const job_spec& job) {
  validate(job);
  const model_spec& m = job.model;
  if (m.pattern_count('M') > 0) {
    const std::uint64_t t = job.parallel.tensor_parallel;
    detail::require(m.mamba_num_heads % t == 0, "tensor_parallel", t,
                    "tensor_parallel must divide mamba_num_heads (Mamba-2's heads are split over TP)",
                    "mamba_num_heads", m.mamba_num_heads);
    detail::require(
        m.mamba_num_groups % t == 0, "tensor_parallel", t,
        "tensor_parallel must divide mamba_num_groups (Megatron splits Mamba-2's B/C groups over TP)",
        "mamba_num_groups", m.mamba_num_groups);
    detail::require(job.parallel.context_parallel == 1, "context_parallel", job.parallel.context_parallel,
                    "context parallelism with Mamba-2 layers is not modelled (each sequence's state passes "
                    "from CP rank to CP rank); use context_parallel = 1",
                    "mamba_num_heads", m.mamba_num_heads);
  }
  // Attention that reaches only some of the keys — a window, chunks, an indexer's top-k — is modelled on
  // one CP rank (which rank holds the keys it reaches is not), in the fused kernels that skip the rest.
  struct limited_keys {
    bool limited;
    std::string_view field;
    std::uint64_t value;
    std::string_view cp_rule, kernel_rule;
  };
  for (const limited_keys& k :
       {limited_keys{
            m.sliding_window > 0 && m.sliding_window < job.batch.seq_length, "sliding_window",
            m.sliding_window,
            "context parallelism with sliding-window attention is not modelled (which key blocks each "
            "CP rank's window reaches); use context_parallel = 1",
            "sliding-window attention runs in fused kernels (Transformer Engine, "
            "FlashAttention); Megatron's unfused path has no window: use attention = flash"},
        limited_keys{
            m.attention_chunk_size > 0 && m.attention_chunk_size < job.batch.seq_length,
            "attention_chunk_size", m.attention_chunk_size,
            "context parallelism with chunked attention is not modelled (which key blocks each CP rank's "
            "chunks reach); use context_parallel = 1",
            "chunked attention runs in fused kernels with a chunk mask; Megatron's unfused "
            "path has none: use attention = flash"},
        limited_keys{
            m.has_sparse_attention() && m.sparse_attention_topk < job.batch.seq_length,
            "sparse_attention_topk", m.sparse_attention_topk,
            "context parallelism with DeepSeek sparse attention is not modelled (which CP rank holds the "
            "keys each query's indexer selects); use context_parallel = 1",
            "DeepSeek sparse attention runs in sparse fused kernels (FlashMLA); Megatron's "
            "unfused path has no top-k selection: use attention = flash"}}) {
    if (!k.limited) continue;
    detail::require(job.parallel.context_parallel == 1, "context_parallel", job.parallel.context_parallel,
                    k.cp_rule, k.field, k.value);
    if (job.parallel.attention != attention_kind::flash)
      detail::rule_violated_text("attention", "unfused", k.kernel_rule);
  }
  if (m.is_hybrid()) {
    const std::uint64_t t = job.parallel.tensor_parallel;
    detail::require(
        m.linear_num_key_heads % t == 0, "tensor_parallel", t,
        "tensor_parallel must divide linear_num_key_heads (Gated DeltaNet's heads are split over TP)",
        "linear_num_key_heads", m.linear_num_key_heads);
    detail::require(
        m.linear_num_value_heads % t == 0, "tensor_parallel", t,
        "tensor_parallel must divide linear_num_value_heads (Gated DeltaNet's heads are split over TP)",
        "linear_num_value_heads", m.linear_num_value_heads);
    detail::require(job.parallel.context_parallel == 1, "context_parallel", job.parallel.context_parallel,
                    "context parallelism with Gated DeltaNet layers is not modelled (each sequence's state "
                    "passes from CP rank to CP rank); use context_parallel = 1",
                    "full_attention_interval", m.full_attention_interval);
  }
  return true;
}

class validated_job;
[[nodiscard]] validated_job with_fewest_microbatches(const validated_job& job);

/// A training job that passed validate_training once, its model resolved (the defaults its family
/// leaves open filled in): what a path through the library carries after its first step. The
/// schedules and projections given one check and resolve nothing again; given a job_spec, they make
/// one. Only this constructor (and the schedule's smallest batch of a job made so) creates one.
///
/// ```cpp
/// const aicb::validated_job job(spec);                          // config_error here, naming the rule
/// const aicb::simai_projection w(job, compute);                 // neither validates again
/// for (const aicb::operation& op : aicb::rank_schedule(job, 0)) ...
/// ```
class validated_job {
 public:
  explicit validated_job(const job_spec& job) : job_(job) {
    validate_training(job_);
    job_.model = resolve(job_.model);
  }
  [[nodiscard]] const job_spec& job() const noexcept { return job_; }
  [[nodiscard]] const job_spec* operator->() const noexcept { return &job_; }
  /// The same job on Megatron-Core's pipeline schedule (valid whenever the job is: the other
  /// schedules only add rules) — what a format that runs its own 1F1B is written from.
  [[nodiscard]] validated_job on_megatron_schedule() const {
    validated_job out = *this;
    out.job_.parallel.pipeline_schedule = pipeline_schedule_kind::megatron;
    return out;
  }

 private:
  struct already_checked {};
  validated_job(const job_spec& job, already_checked) : job_(job) {}
  friend validated_job with_fewest_microbatches(const validated_job& job);

  job_spec job_;
};

/// `J` with its model resolved, for a job that must be valid at compile time: a broken rule makes
/// any use of `checked_job<J>` a compile error whose notes carry the rule.
template <job_spec J>
inline constexpr job_spec checked_job = (validate(J), job_spec{resolve(J.model), J.parallel, J.batch});

AICB_END_NAMESPACE
