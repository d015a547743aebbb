// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Exact parameter counts: of a whole model (total, active per token, by component) and of the
/// shard one GPU holds under a parallel layout (by pipeline stage, tensor, expert parallelism).
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

/// Weights of one norm over `n` features.
[[nodiscard]] constexpr std::uint64_t norm_weights(const model_spec& m, std::uint64_t n) noexcept {
  return m.norm == norm_kind::layernorm ? 2 * n : n;
}

/// Weights of one MLP with intermediate size `ffn`.
[[nodiscard]] constexpr std::uint64_t mlp_weights(const model_spec& m, std::uint64_t ffn) noexcept {
  const bool gated = m.activation == activation_kind::swiglu;
  const std::uint64_t matrices = (gated ? 3 : 2) * m.hidden_size * ffn;
  const std::uint64_t biases = m.linear_bias ? (gated ? 2 * ffn : ffn) + m.hidden_size : 0;
  return matrices + biases;
}

/// Weights of one attention block (projections, biases, q/k norms, MLA latent norms).
[[nodiscard]] constexpr std::uint64_t attention_weights(const model_spec& m) noexcept {
  const std::uint64_t h = m.hidden_size, a = m.num_attention_heads;
  if (m.is_mla()) {
    const std::uint64_t qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    const std::uint64_t q = m.q_lora_rank > 0
                                ? h * m.q_lora_rank + norm_weights(m, m.q_lora_rank) + m.q_lora_rank * a * qk
                                : h * a * qk;
    const std::uint64_t kv = h * (m.kv_lora_rank + m.qk_rope_head_dim) + norm_weights(m, m.kv_lora_rank) +
                             m.kv_lora_rank * a * (m.qk_nope_head_dim + m.v_head_dim);
    const std::uint64_t out = a * m.v_head_dim * h + (m.linear_bias ? h : 0);
    return q + kv + out;
  }
  // With an output gate the query projection also produces the gate: twice its width.
  const std::uint64_t q = a * m.head_dim, kv = m.num_kv_heads * m.head_dim;
  const std::uint64_t q_out = m.attention_output_gate ? 2 * q : q;
  std::uint64_t weights = h * (q_out + 2 * kv) + q * h;
  if (m.linear_bias || m.qkv_bias) weights += q_out + 2 * kv;
  if (m.linear_bias) weights += h;
  if (m.qk_norm) weights += 2 * norm_weights(m, m.head_dim);
  return weights;
}

/// Weights of one Gated DeltaNet block on a TP rank of `t` (its heads split over TP): the input
/// projection to q, k, v, the output gate z (2·key + 2·value) and the per-value-head decay and
/// update gates (2·nv); the depthwise convolution over q, k, v (conv_dim × kernel); the per-head
/// decay parameters A and dt bias (2·nv); the gated norm over one value head (replicated); the
/// output projection (value → h). No biases.
[[nodiscard]] constexpr std::uint64_t linear_attention_weights(const model_spec& m,
                                                               std::uint64_t t = 1) noexcept {
  const std::uint64_t h = m.hidden_size, nv = m.linear_num_value_heads;
  const std::uint64_t key = m.linear_key_dim(), value = m.linear_value_dim();
  return (h * (2 * key + 2 * value + 2 * nv) + m.linear_conv_dim() * m.linear_conv_kernel_dim + 2 * nv +
          value * h) /
             t +
         m.linear_value_head_dim;
}

/// Router weights of one MoE layer.
[[nodiscard]] constexpr std::uint64_t router_weights(const model_spec& m) noexcept {
  return m.hidden_size * m.num_experts + (m.moe_router_bias ? m.num_experts : 0);
}

}  // namespace detail

/// Exact parameter counts of a model (defaults resolved first). Pure; usable at compile time.
/// `sequence_length` sizes a learned position table when max_position_embeddings is 0.
[[nodiscard]] constexpr param_counts count_params(const model_spec& spec,
                                                  std::uint64_t sequence_length = 0) noexcept {
  const model_spec m = resolve(spec);
  const std::uint64_t h = m.hidden_size;
  param_counts c;
  const std::uint64_t positions =
      m.max_position_embeddings != 0 ? m.max_position_embeddings : sequence_length;
  c.embedding = m.vocab_size * h + (m.position == position_kind::learned ? positions * h : 0);
  c.output = m.tied_embeddings ? 0 : m.vocab_size * h;
  const std::uint64_t linear_layers = m.num_linear_attention_layers();
  c.attention = (m.num_layers - linear_layers) * detail::attention_weights(m) +
                linear_layers * detail::linear_attention_weights(m);
  c.norms = (2 * m.num_layers + 1) * detail::norm_weights(m, h);
  c.dense_mlp = m.num_dense_layers() * detail::mlp_weights(m, m.ffn_hidden_size);
  const std::uint64_t moe_layers = m.num_moe_layers();
  const std::uint64_t expert = detail::mlp_weights(m, m.moe_ffn_hidden_size);
  c.routed_experts = moe_layers * m.num_experts * expert;
  c.active_routed = moe_layers * m.moe_top_k * expert;
  const std::uint64_t shared_gate = m.shared_expert_gate ? h : 0;
  c.shared_experts =
      moe_layers *
      (m.num_shared_experts * detail::mlp_weights(m, m.shared_expert_ffn_hidden_size) + shared_gate);
  c.router = moe_layers * detail::router_weights(m);
  // One DeepSeek-V3 MTP module: two input norms, a 2h→h projection, one MoE transformer layer and
  // an output norm; embedding and output head are shared with the main model.
  const std::uint64_t mtp_layer =
      detail::attention_weights(m) + 2 * detail::norm_weights(m, h) +
      (m.is_moe()
           ? m.num_experts * expert + detail::router_weights(m) +
                 m.num_shared_experts * detail::mlp_weights(m, m.shared_expert_ffn_hidden_size) + shared_gate
           : detail::mlp_weights(m, m.ffn_hidden_size));
  c.mtp = m.num_mtp_layers * (3 * detail::norm_weights(m, h) + 2 * h * h + mtp_layer);
  return c;
}

/// The weights one GPU holds, split into those reduced over data parallel (`dense`) and those
/// reduced over the expert-data-parallel group (`expert`, the routed experts).
struct shard_params {
  std::uint64_t dense = 0;
  std::uint64_t expert = 0;

  [[nodiscard]] constexpr std::uint64_t total() const noexcept { return dense + expert; }
  [[nodiscard]] friend constexpr bool operator==(const shard_params&, const shard_params&) = default;
};

/// First layer (0-based) held by pipeline stage `stage`.
[[nodiscard]] constexpr std::uint64_t stage_first_layer(const job_spec& job, std::uint64_t stage) noexcept {
  std::uint64_t first = 0;
  for (std::uint64_t s = 0; s < stage; ++s)
    first += stage_layers(job, s);
  return first;
}

/// Weights held by one GPU of pipeline stage `stage` (every GPU of a stage holds the same amount).
[[nodiscard]] constexpr shard_params params_on_gpu(const job_spec& job, std::uint64_t stage = 0) noexcept {
  const model_spec m = resolve(job.model);
  const parallel_spec& p = job.parallel;
  const std::uint64_t h = m.hidden_size, t = p.tensor_parallel;
  const std::uint64_t vocab_shard = padded_vocab(job) / t * h;
  const bool first = stage == 0, last = stage + 1 == p.pipeline_parallel;
  shard_params s;
  if (first) {
    s.dense += vocab_shard;
    if (m.position == position_kind::learned)
      s.dense += (m.max_position_embeddings != 0 ? m.max_position_embeddings : job.batch.seq_length) * h;
  }
  // The output projection lives on the last stage; tied, the last stage keeps a copy of the
  // embedding (Megatron's embedding group), so the count is the same either way.
  if (last && (!m.tied_embeddings || p.pipeline_parallel > 1)) s.dense += vocab_shard;
  if (last) s.dense += detail::norm_weights(m, h);  // final norm

  // One attention block's share on a TP rank.
  std::uint64_t attention = 0;
  const std::uint64_t a = m.num_attention_heads;
  if (m.is_mla()) {
    const std::uint64_t qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    attention = m.q_lora_rank > 0
                    ? h * m.q_lora_rank + detail::norm_weights(m, m.q_lora_rank) + m.q_lora_rank * a * qk / t
                    : h * a * qk / t;
    attention += h * (m.kv_lora_rank + m.qk_rope_head_dim) + detail::norm_weights(m, m.kv_lora_rank) +
                 m.kv_lora_rank * a * (m.qk_nope_head_dim + m.v_head_dim) / t;
    attention += a * m.v_head_dim * h / t + (m.linear_bias ? h : 0);
  } else {
    // With replicated key/value heads each rank holds at least one whole head.
    const std::uint64_t q = a * m.head_dim / t, q_out = m.attention_output_gate ? 2 * q : q;
    const std::uint64_t kv = std::max<std::uint64_t>(m.num_kv_heads / t, 1) * m.head_dim;
    attention = h * (q_out + 2 * kv) + q * h;
    if (m.linear_bias || m.qkv_bias) attention += q_out + 2 * kv;
    if (m.linear_bias) attention += h;
    if (m.qk_norm) attention += 2 * detail::norm_weights(m, m.head_dim);
  }
  const auto mlp_shard = [&](std::uint64_t ffn, std::uint64_t tp) {
    const bool gated = m.activation == activation_kind::swiglu;
    return (gated ? 3 : 2) * h * ffn / tp + (m.linear_bias ? (gated ? 2 * ffn : ffn) / tp + h : 0);
  };
  const std::uint64_t etp = expert_tensor_parallel(job);
  const std::uint64_t begin = stage_first_layer(job, stage), end = begin + stage_layers(job, stage);
  for (std::uint64_t layer = begin; layer < end; ++layer) {
    s.dense += (m.is_linear_attention_layer(layer) ? detail::linear_attention_weights(m, t) : attention) +
               2 * detail::norm_weights(m, h);
    const std::uint64_t shared_gate = m.shared_expert_gate ? h : 0;
    if (m.is_moe() && layer >= m.first_dense_layers) {
      // The router's score bias (DeepSeek-V3) is a buffer in Megatron-Core, not a trained weight: it has
      // no gradient or optimizer state, so only the router's matrix is counted here.
      s.dense += m.hidden_size * m.num_experts +
                 m.num_shared_experts * mlp_shard(m.shared_expert_ffn_hidden_size, t) + shared_gate;
      s.expert += m.num_experts / p.expert_parallel * mlp_shard(m.moe_ffn_hidden_size, etp);
    } else {
      s.dense += mlp_shard(m.ffn_hidden_size, t);
    }
  }
  // Multi-token prediction on the last stage (Megatron-Core's default placement): per module enorm,
  // hnorm and a final norm, the column-parallel 2h → h projection and a transformer layer built like the
  // last decoder layer; and the embedding they look tokens up in, a copy of the first stage's unless
  // the stage holds it already (one stage, or the tied output layer's copy).
  if (last && m.num_mtp_layers > 0) {
    const bool moe = m.is_moe() && m.num_layers >= m.first_dense_layers;
    const std::uint64_t module_dense =
        3 * detail::norm_weights(m, h) + 2 * h * h / t + attention + 2 * detail::norm_weights(m, h) +
        (moe ? h * m.num_experts + m.num_shared_experts * mlp_shard(m.shared_expert_ffn_hidden_size, t) +
                   (m.shared_expert_gate ? h : 0)
             : mlp_shard(m.ffn_hidden_size, t));
    const std::uint64_t module_expert =
        moe ? m.num_experts / p.expert_parallel * mlp_shard(m.moe_ffn_hidden_size, etp) : 0;
    s.dense += m.num_mtp_layers * module_dense;
    s.expert += m.num_mtp_layers * module_expert;
    if (!first && !m.tied_embeddings) s.dense += vocab_shard;
  }
  return s;
}

AICB_END_NAMESPACE
