// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Exact parameter counts: of a whole model (total, active per token, by component) and of the
/// shard one GPU holds under a parallel layout (by pipeline stage, tensor, expert parallelism) —
/// both sums of the weights the layer description (aicb/schedule/layer.hpp) declares.
///
/// Conventions (docs/calculators.md):
/// - `total` is the headline count: embeddings, every layer, final norm, the output projection when
///   untied; multi-token-prediction modules are counted apart (`mtp`), as model cards do.
/// - `active` counts what one token uses: all dense weights, the router, top-k routed experts and
///   the shared experts — input embedding included; active_without_input_embedding() is the
///   convention of DeepSeek's and Qwen's "activated parameters".
/// - Shards follow Megatron: column/row-parallel weights and their split biases divided by TP, row
///   biases, norms, routers and MLA down-projections replicated, the vocabulary padded and split by
///   TP, routed experts split by EP (and by the expert tensor-parallel size).

#include <aicb/config.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/spec.hpp>
#include <aicb/schedule/layer.hpp>

#include <algorithm>
#include <cstdint>

AICB_BEGIN_NAMESPACE

/// Parameter counts of a whole model, by component. See the file comment for conventions.
struct param_counts {
  std::uint64_t embedding = 0;       ///< input embedding (+ learned position table)
  std::uint64_t output = 0;          ///< output projection (0 when tied to the embedding)
  std::uint64_t attention = 0;       ///< all layers: projections, their biases, q/k norms, MLA latent norms
  std::uint64_t dense_mlp = 0;       ///< all dense-MLP layers
  std::uint64_t routed_experts = 0;  ///< all routed experts of all MoE layers
  std::uint64_t shared_experts = 0;  ///< all shared experts of all MoE layers
  std::uint64_t router = 0;          ///< routers (and their score biases)
  std::uint64_t norms = 0;           ///< per-layer norms and the final norm
  std::uint64_t active_routed = 0;   ///< the routed-expert weights one token uses (top-k per MoE layer)
  std::uint64_t mtp = 0;             ///< multi-token-prediction modules (not in total)

  /// Every weight of the model (the headline count).
  [[nodiscard]] constexpr std::uint64_t total() const noexcept {
    return embedding + output + attention + dense_mlp + routed_experts + shared_experts + router + norms;
  }
  /// The weights one token uses, input embedding included.
  [[nodiscard]] constexpr std::uint64_t active() const noexcept {
    return total() - routed_experts + active_routed;
  }
  /// The weights one token uses, without the input embedding (a table lookup, not a matrix product).
  [[nodiscard]] constexpr std::uint64_t active_without_input_embedding() const noexcept {
    return active() - embedding;
  }
};

namespace detail {

// One GPU that holds the whole model (no parallelism), for the model's own counts.
[[nodiscard]] constexpr layer_context whole_model_context(const model_spec& m,
                                                          std::uint64_t sequence_length) noexcept {
  layer_context c{.model = m};
  c.vocab_rows = m.vocab_size;
  if (m.position == position_kind::learned)
    c.learned_positions = m.max_position_embeddings != 0 ? m.max_position_embeddings : sequence_length;
  return c;
}

// The weights of one multi-token-prediction module but its layer (enorm, hnorm, eh_proj, its final
// norm) and of its layer, as the layer description declares them.
template <class Writer>
constexpr void mtp_module(Writer& w, const model_spec& m) {
  w.mtp_input_forward();
  w.layer_forward(kind_of_layer(m, m.num_layers));
  w.final_norm_forward("mtp_final_norm", weight_part::mtp);
}

}  // namespace detail

/// Exact parameter counts of a model (defaults resolved first): the sums of the weights the layer
/// description (aicb/schedule/layer.hpp) declares. Pure; usable at compile time.
/// `sequence_length` sizes a learned position table when max_position_embeddings is 0.
[[nodiscard]] constexpr param_counts count_params(const model_spec& spec,
                                                  std::uint64_t sequence_length = 0) noexcept {
  const model_spec m = resolve(spec);
  const layer_context c = detail::whole_model_context(m, sequence_length);
  weight_tally t;
  detail::layer_writer<weight_tally> w{c, t};
  w.embedding_forward();
  for (std::uint64_t layer = 0; layer < m.num_layers; ++layer)
    w.layer_forward(kind_of_layer(m, layer));
  w.final_norm_forward();
  w.output_forward(!m.tied_embeddings);
  param_counts r;
  r.embedding = t.part(weight_part::embedding);
  r.output = t.part(weight_part::output);
  r.attention = t.part(weight_part::attention);
  r.dense_mlp = t.part(weight_part::dense_mlp);
  r.routed_experts = t.part(weight_part::routed_experts);
  r.shared_experts = t.part(weight_part::shared_experts);
  r.router = t.part(weight_part::router);
  r.norms = t.part(weight_part::norms);
  // Every MoE layer holds all experts; a token uses top-k of them.
  if (m.num_experts > 0) r.active_routed = r.routed_experts / m.num_experts * m.moe_top_k;
  // Multi-token-prediction modules (DeepSeek-V3): their own weights and their layer's; embedding and
  // output layer are the main model's.
  weight_tally u;
  detail::layer_writer<weight_tally> mw{c, u};
  detail::mtp_module(mw, m);
  std::uint64_t module = 0;
  for (const std::uint64_t n : u.by_part)
    module += n;
  r.mtp = m.num_mtp_layers * module;
  return r;
}

/// The weights one GPU holds, split into those reduced over data parallel (`dense`) and those
/// reduced over the expert-data-parallel group (`expert`, the routed experts).
struct shard_params {
  std::uint64_t dense = 0;
  std::uint64_t expert = 0;

  [[nodiscard]] constexpr std::uint64_t total() const noexcept { return dense + expert; }
  [[nodiscard]] friend constexpr bool operator==(const shard_params&, const shard_params&) = default;
};

/// First layer (0-based) held by pipeline stage `stage`: the first of its first model chunk.
[[nodiscard]] constexpr std::uint64_t stage_first_layer(const job_spec& job, std::uint64_t stage) noexcept {
  return chunk_first_layer(job, stage, 0);
}

/// Weights held by one GPU of pipeline stage `stage` (every GPU of a stage holds the same amount):
/// the trained weights the layer description declares for its layers, the embedding on the first
/// stage, the output layer and final norm on the last (a tied output layer's copy when the pipeline
/// has two ends), and the multi-token-prediction modules on the last (Megatron-Core's placement) with
/// the embedding they look tokens up in, a copy of the first stage's unless the stage holds it
/// already. Buffers (the router's score bias) have no gradient or optimizer state: not counted.
[[nodiscard]] constexpr shard_params params_on_gpu(const job_spec& job, std::uint64_t stage = 0) noexcept {
  const model_spec m = resolve(job.model);
  const parallel_spec& p = job.parallel;
  const layer_context c = training_layer_context(job);
  const bool first = stage == 0, last = stage + 1 == p.pipeline_parallel;
  weight_tally t;
  detail::layer_writer<weight_tally> w{c, t};
  if (first) w.embedding_forward();
  for_each_stage_layer(job, stage, [&](std::uint64_t layer) { w.layer_forward(kind_of_layer(m, layer)); });
  if (last) {
    w.final_norm_forward();
    w.output_forward(!m.tied_embeddings || p.pipeline_parallel > 1);
    for (std::uint64_t k = 0; k < m.num_mtp_layers; ++k)
      detail::mtp_module(w, m);
    if (m.num_mtp_layers > 0 && !first && !m.tied_embeddings)
      t.weights(weight_part::embedding, weight_sharing::split, c.vocab_rows * m.hidden_size);
  }
  return {.dense = t.sharing(weight_sharing::split) + t.sharing(weight_sharing::replicated),
          .expert = t.sharing(weight_sharing::expert)};
}

AICB_END_NAMESPACE
