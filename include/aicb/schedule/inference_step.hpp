// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::inference_step — what one GPU does in one serving step (aicb::serving_spec): its
/// computations with their shapes (so a compute model prices them by FLOPs and bytes), its
/// collectives with their groups and bytes, in order; and the weights and KV cache it holds.
///
/// ```cpp
/// const aicb::inference_step step(aicb::presets::deepseek_v3, s, /*rank=*/0);
/// for (const aicb::operation& op : step.operations()) ...
/// std::printf("%.1f GB of weights\n", step.weight_bytes() / 1e9);
/// ```
///
/// The model (docs/inference.md has it with its sources), per layer, forward only, for the m tokens
/// of the GPU's DP-attention group (requests per group × tokens per request):
/// - input norm; attention with its heads over TP — GQA (QKV projection, core attention over the
///   KV cache or the causal prompt, output projection) or MLA (replicated down-projections and
///   their norms; the query up-projection; in decode the weight-absorbed form: the key absorption
///   into the latent, attention over one 576-wide latent head read once, the value absorption; in
///   prefill the decompressing key/value up-projection and 192/128-wide heads);
/// - after attention over TP > 1: an all-reduce of the m tokens' hidden states (2·m·h bytes) — or,
///   when the experts are spread over all GPUs, a reduce-scatter that leaves each TP rank m/t tokens,
///   and an all-gather of the layer's output after the experts;
/// - the post-attention norm; a dense MLP (TP-sharded, all-reduced), or the experts: the router, then
///   with expert parallelism DeepEP's dispatch and combine all-to-alls over every GPU — in decode its
///   low-latency kernels, one message per (token, expert): dispatch k·(h·b + 4h/128 + 16) bytes per
///   token with FP8 (b = 1, with a 4-byte scale per 128 values) or k·(2h + 16) in BF16, combine k·2h; in
///   prefill its normal kernels, one message per distinct destination GPU (the expected number under
///   uniform routing, D = ep·(1 − C(E − E/ep, k)/C(E, k))) — between them the GPU's E/ep experts as
///   one grouped GEMM over the tokens routed to them (balanced: all tokens × k / E each), and the
///   shared experts over its own tokens; without expert parallelism every expert's TP shard and an
///   all-reduce;
/// - after the layers: the final norm and the output projection (vocabulary over TP, gathered), for
///   every token in decode and each request's last token in prefill; with drafts, the MTP module's
///   layer once per draft.
/// Compute dtype: GEMMs in the weights' format, everything else BF16; attention reads the KV cache in
/// its format.

#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/error.hpp>
#include <aicb/model/compute_op.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/serving.hpp>
#include <aicb/model/spec.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/operation.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Expected distinct destination GPUs of a token routed to `k` of `experts` experts spread evenly
/// over `ep` GPUs, under uniform routing: ep · (1 − C(E − E/ep, k) / C(E, k)).
[[nodiscard]] inline double expected_destinations(std::uint64_t experts, std::uint64_t k, std::uint64_t ep) {
  if (ep <= 1 || experts == 0) return 1;
  const std::uint64_t per = experts / ep;
  // C(E − per, k) / C(E, k) = Π_{i<k} (E − per − i) / (E − i)
  double miss = 1;
  for (std::uint64_t i = 0; i < k; ++i) {
    if (experts - per < i + 1) {
      miss = 0;
      break;
    }
    miss *= static_cast<double>(experts - per - i) / static_cast<double>(experts - i);
  }
  return static_cast<double>(ep) * (1 - miss);
}

/// The serving layout as a training job's process grid: TP × DP-attention ranks (TP fastest), the
/// experts over all GPUs (expert TP 1) or over TP with the attention. Its groups are the step's.
[[nodiscard]] inline job_spec serving_layout_job(const model_spec& model, const serving_spec& s) {
  job_spec j;
  j.model = model;
  j.parallel.world_size = s.gpus();
  j.parallel.tensor_parallel = s.tensor_parallel;
  j.parallel.sequence_parallel = s.tensor_parallel > 1;
  j.parallel.expert_parallel = s.expert_parallel;
  j.parallel.expert_tensor_parallel = s.expert_parallel > 1 ? 1 : s.tensor_parallel;
  return j;
}

/// One GPU's serving step. See the file comment.
class inference_step {
 public:
  inference_step(const model_spec& model, const serving_spec& serving, std::uint64_t rank = 0)
      : m_(resolve(model)), s_(serving), rank_(rank), grid_(serving_layout_job(m_, serving)) {
    validate(model);
    validate_serving(m_, s_);
    if (rank >= s_.gpus())
      AICB_THROW(config_error("rank", std::to_string(rank),
                              "a rank must be below the GPUs (" + std::to_string(s_.gpus()) + ")"));
    build();
  }

  [[nodiscard]] const std::vector<operation>& operations() const noexcept { return ops_; }
  [[nodiscard]] const model_spec& model() const noexcept { return m_; }
  [[nodiscard]] const serving_spec& serving() const noexcept { return s_; }
  /// Tokens of the GPU's DP-attention group in this step (the attention's m).
  [[nodiscard]] std::uint64_t tokens() const noexcept { return tokens_; }
  /// Tokens each GPU dispatches to the experts (the group's tokens scattered over TP with EP).
  [[nodiscard]] std::uint64_t expert_input_tokens() const noexcept { return moe_tokens_; }
  /// Weights the GPU holds (elements), and their bytes in the weights' format.
  [[nodiscard]] std::uint64_t weights() const noexcept { return weights_; }
  [[nodiscard]] double weight_bytes() const noexcept {
    return static_cast<double>(weights_) * size_of(s_.weights);
  }
  /// KV cache bytes per token of context on this GPU (all layers; MLA's latent is whole on every TP
  /// rank, GQA's heads are split over TP, replicated where TP exceeds them).
  [[nodiscard]] double kv_bytes_per_token() const noexcept { return kv_per_token_; }
  /// KV cache bytes per token for the whole model on one copy (every layer, every head).
  [[nodiscard]] double model_kv_bytes_per_token() const noexcept { return model_kv_per_token_; }
  /// Linear-attention state per request on this GPU (all linear layers; 0 without them), and for
  /// the whole model on one copy. It does not grow with the context.
  [[nodiscard]] double state_bytes_per_request() const noexcept { return state_per_request_; }
  [[nodiscard]] double model_state_bytes_per_request() const noexcept { return model_state_per_request_; }
  /// The cache of one request on this GPU: its tokens' KV and its linear-attention state.
  [[nodiscard]] double cache_bytes_per_request() const noexcept {
    return static_cast<double>(s_.phase == inference_phase::decode ? s_.context : s_.prompt) * kv_per_token_ +
           state_per_request_;
  }
  /// The KV cache (and linear-attention state) this step reads (decode: every request's context) or
  /// writes (prefill), on this GPU.
  [[nodiscard]] double kv_bytes() const noexcept {
    return static_cast<double>(s_.requests_per_group()) * cache_bytes_per_request();
  }
  /// FLOPs and bytes of the step's computations on this GPU.
  [[nodiscard]] double flops() const noexcept {
    double f = 0;
    for (const operation& op : ops_)
      if (op.type == op_type::compute) f += op.compute.flops();
    return f;
  }
  [[nodiscard]] double bytes() const noexcept {
    double b = 0;
    for (const operation& op : ops_)
      if (op.type == op_type::compute) b += op.compute.bytes();
    return b;
  }

 private:
  operation& push(op_type type, std::string_view name, std::uint64_t layer) {
    operation op;
    op.index = ops_.size();
    op.type = type;
    op.name = name;
    op.layer = layer;
    if (!ops_.empty()) {
      op.after[0] = ops_.size() - 1;
      op.after_count = 1;
    }
    ops_.push_back(op);
    return ops_.back();
  }
  // A computation; `weights` elements of the GPU's weights it reads (GEMMs).
  void compute(std::string_view name, std::uint64_t layer, op_role role, op_kind kind, std::uint64_t batch,
               std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t weights = 0) {
    operation& op = push(op_type::compute, name, layer);
    op.compute.role = role;
    op.compute.kind = kind;
    op.compute.batch = batch;
    op.compute.m = m;
    op.compute.n = n;
    op.compute.k = k;
    op.compute.causal = false;
    op.compute.type = kind == op_kind::gemm ? s_.weights : dtype::bf16;
    weights_ += weights;
  }
  void gemm(std::string_view name, std::uint64_t layer, op_role role, std::uint64_t m, std::uint64_t k,
            std::uint64_t n, std::uint64_t batch = 1) {
    compute(name, layer, role, op_kind::gemm, batch, m, n, k, batch * k * n);
  }
  void collective(std::string_view name, std::uint64_t layer, collective kind, group_kind group,
                  std::uint64_t size) {
    operation& op = push(op_type::collective, name, layer);
    const rank_group g = grid_.group(group, rank_);
    op.kind = kind;
    op.group = g.id();
    op.group_size = g.size();
    op.size = aicb::bytes{size};
  }

  void attention(std::uint64_t layer, std::uint64_t requests, std::uint64_t q, std::uint64_t tokens) {
    const std::uint64_t t = s_.tensor_parallel, h = m_.hidden_size;
    const bool decode = s_.phase == inference_phase::decode;
    const std::uint64_t heads = m_.num_attention_heads / t;
    const std::uint64_t kv_len = decode ? s_.context : s_.prompt;
    if (m_.is_mla()) {
      const std::uint64_t nope = m_.qk_nope_head_dim, rope = m_.qk_rope_head_dim, v = m_.v_head_dim;
      const std::uint64_t latent = m_.kv_lora_rank;
      if (m_.q_lora_rank > 0) {
        gemm("mla_q_down", layer, op_role::mla_q_down, tokens, h, m_.q_lora_rank);
        compute("mla_q_norm", layer, op_role::mla_q_down, op_kind::norm, 1, tokens, m_.q_lora_rank, 0);
        gemm("mla_q_up", layer, op_role::mla_q_up, tokens, m_.q_lora_rank, heads * (nope + rope));
      } else {
        gemm("mla_q", layer, op_role::mla_q_up, tokens, h, heads * (nope + rope));
      }
      gemm("mla_kv_down", layer, op_role::mla_kv_down, tokens, h, latent + rope);
      compute("mla_kv_norm", layer, op_role::mla_kv_down, op_kind::norm, 1, tokens, latent, 0);
      if (decode) {  // weight-absorbed: queries into the latent, one latent head for keys and values
        gemm("mla_absorb_k", layer, op_role::mla_kv_up, tokens, nope, latent, heads);
        compute("attention_core", layer, op_role::attention_core, op_kind::attention, requests, q * heads,
                kv_len, latent + rope);
        ops_.back().compute.v_dim = latent;
        ops_.back().compute.shared_kv = true;
        ops_.back().compute.type = s_.kv_cache;
        gemm("mla_absorb_v", layer, op_role::mla_kv_up, tokens, latent, v, heads);
      } else {  // prefill: keys and values decompressed, multi-head attention over the prompt
        gemm("mla_kv_up", layer, op_role::mla_kv_up, tokens, latent, heads * (nope + v));
        compute("attention_core", layer, op_role::attention_core, op_kind::attention, requests * heads, q,
                kv_len, nope + rope);
        ops_.back().compute.v_dim = v;
        ops_.back().compute.causal = true;
      }
      gemm("attention_out", layer, op_role::attention_out, tokens, heads * v, h);
      return;
    }
    const std::uint64_t hd = m_.head_dim;
    const std::uint64_t kv_heads = std::max<std::uint64_t>(1, m_.num_kv_heads / t);  // replicated past TP
    // A gated output doubles the query projection: each head's query and its output gate.
    const std::uint64_t q_width = (m_.attention_output_gate ? 2 : 1) * heads;
    gemm("attention_qkv", layer, op_role::attention_qkv, tokens, h, (q_width + 2 * kv_heads) * hd);
    if (m_.qk_norm)
      compute("attention_qk_norm", layer, op_role::attention_qkv, op_kind::norm, 1,
              tokens * (heads + kv_heads), hd, 0);
    // Grouped-query attention reads each KV head once for its group of query heads.
    const std::uint64_t group = heads / kv_heads;
    compute("attention_core", layer, op_role::attention_core, op_kind::attention, requests * kv_heads,
            q * group, kv_len, hd);
    ops_.back().compute.causal = !decode;
    if (decode) ops_.back().compute.type = s_.kv_cache;
    if (m_.attention_output_gate) {  // output × sigmoid(gate), element by element
      compute("attention_gate", layer, op_role::attention_out, op_kind::elementwise, 1, tokens, heads * hd,
              0);
      ops_.back().compute.inputs = 2;
    }
    gemm("attention_out", layer, op_role::attention_out, tokens, heads * hd, h);
  }

  // Gated DeltaNet (hybrid layouts' linear attention), its heads split over TP: the input
  // projections (q, k, v, the output gate z; the decay and update gates per value head), the short
  // causal convolution over q, k, v, the gated delta rule over each sequence's state, the gated norm
  // and the output projection. In place of a KV cache each sequence keeps a state per value head
  // and the convolution's last inputs.
  void linear_attention(std::uint64_t layer, std::uint64_t requests, std::uint64_t q, std::uint64_t tokens) {
    const std::uint64_t t = s_.tensor_parallel, h = m_.hidden_size;
    const std::uint64_t key = m_.linear_key_dim() / t, value = m_.linear_value_dim() / t;
    const std::uint64_t value_heads = m_.linear_num_value_heads / t;
    gemm("gdn_in_proj_qkvz", layer, op_role::attention_qkv, tokens, h, 2 * key + 2 * value);
    gemm("gdn_in_proj_ba", layer, op_role::attention_qkv, tokens, h, 2 * value_heads);
    compute("gdn_conv", layer, op_role::attention_qkv, op_kind::elementwise, 1, tokens, 2 * key + value, 0);
    weights_ += (2 * key + value) * m_.linear_conv_kernel_dim + 2 * value_heads;  // the filters; A, dt bias
    compute("gdn_core", layer, op_role::attention_core, op_kind::linear_attention, requests * value_heads, q,
            m_.linear_value_head_dim, m_.linear_key_head_dim);
    compute("gdn_norm", layer, op_role::attention_core, op_kind::norm, 1, tokens * value_heads,
            m_.linear_value_head_dim, 0);
    weights_ += m_.linear_value_head_dim;  // the gated norm's weight (one head's, shared)
    gemm("gdn_out", layer, op_role::attention_out, tokens, value, h);
  }

  void mlp(std::uint64_t layer, std::uint64_t tokens, std::uint64_t width, op_role fc1, op_role act,
           op_role fc2, std::string_view up, std::string_view activation, std::string_view down,
           std::uint64_t groups = 1) {
    const bool swiglu = m_.activation == activation_kind::swiglu;
    gemm(up, layer, fc1, tokens, m_.hidden_size, (swiglu ? 2 : 1) * width, groups);
    compute(activation, layer, act, op_kind::elementwise, groups, tokens, width, 0);
    ops_.back().compute.inputs = swiglu ? 2 : 1;
    gemm(down, layer, fc2, tokens, width, m_.hidden_size, groups);
  }

  void layer(std::uint64_t i, std::uint64_t requests, std::uint64_t q, bool moe_layer, bool linear) {
    const std::uint64_t t = s_.tensor_parallel, h = m_.hidden_size, tokens = requests * q;
    const bool ep = moe_layer && s_.expert_parallel > 1;
    compute("input_norm", i, op_role::input_norm, op_kind::norm, 1, tokens, h, 0);
    if (linear)
      linear_attention(i, requests, q, tokens);
    else
      attention(i, requests, q, tokens);
    const std::uint64_t hidden_bytes = 2 * tokens * h;  // BF16 hidden states
    std::uint64_t local = tokens;
    if (t > 1) {
      if (ep) {  // scatter the tokens over TP for the experts
        collective("attention_reduce_scatter", i, collective::reduce_scatter, group_kind::tp, hidden_bytes);
        local = tokens / t;
      } else {
        collective("attention_all_reduce", i, collective::all_reduce, group_kind::tp, hidden_bytes);
      }
    }
    compute("post_attention_norm", i, op_role::post_attention_norm, op_kind::norm, 1, local, h, 0);
    if (!moe_layer) {
      mlp(i, tokens, m_.ffn_hidden_size / t, op_role::mlp_fc1, op_role::mlp_activation, op_role::mlp_fc2,
          "mlp_fc1", "mlp_activation", "mlp_fc2");
      if (t > 1) collective("mlp_all_reduce", i, collective::all_reduce, group_kind::tp, hidden_bytes);
      return;
    }
    const std::uint64_t E = m_.num_experts, k = m_.moe_top_k;
    gemm("moe_router", i, op_role::moe_router, local, h, E);
    if (ep) {
      const std::uint64_t per_gpu = E / s_.expert_parallel;
      const bool decode = s_.phase == inference_phase::decode;
      const double messages =
          decode ? static_cast<double>(local * k)
                 : static_cast<double>(local) * expected_destinations(E, k, s_.expert_parallel);
      const double per_message =
          s_.fp8_dispatch ? static_cast<double>(h + h / 128 * 4) : 2.0 * static_cast<double>(h);
      const double header = decode ? 16 : 0;  // low-latency kernels: a 16-byte header per (token, expert)
      collective("moe_dispatch", i, collective::all_to_all, group_kind::ep,
                 static_cast<std::uint64_t>(std::llround(messages * (per_message + header))));
      // The tokens each local expert receives, balanced: every GPU's tokens × k / E.
      const std::uint64_t routed = (local * s_.gpus() * k + E - 1) / E;
      mlp(i, routed, m_.moe_ffn_hidden_size, op_role::moe_fc1, op_role::moe_activation, op_role::moe_fc2,
          "moe_fc1", "moe_activation", "moe_fc2", per_gpu);
      if (m_.num_shared_experts > 0) {
        mlp(i, local, m_.shared_expert_ffn_hidden_size * m_.num_shared_experts, op_role::mlp_fc1,
            op_role::mlp_activation, op_role::mlp_fc2, "shared_expert_fc1", "shared_expert_activation",
            "shared_expert_fc2");
        shared_gate(i, local);
      }
      collective("moe_combine", i, collective::all_to_all, group_kind::ep,
                 static_cast<std::uint64_t>(std::llround(messages * 2.0 * static_cast<double>(h))));
      if (t > 1) collective("moe_all_gather", i, collective::all_gather, group_kind::tp, hidden_bytes);
      moe_tokens_ = local;
      return;
    }
    // Experts sharded over TP with the attention: every expert's shard, then an all-reduce.
    const std::uint64_t routed = (tokens * k + E - 1) / E;
    mlp(i, routed, m_.moe_ffn_hidden_size / t, op_role::moe_fc1, op_role::moe_activation, op_role::moe_fc2,
        "moe_fc1", "moe_activation", "moe_fc2", E);
    if (m_.num_shared_experts > 0) {
      mlp(i, tokens, m_.shared_expert_ffn_hidden_size * m_.num_shared_experts / t, op_role::mlp_fc1,
          op_role::mlp_activation, op_role::mlp_fc2, "shared_expert_fc1", "shared_expert_activation",
          "shared_expert_fc2");
      shared_gate(i, tokens);
    }
    if (t > 1) collective("moe_all_reduce", i, collective::all_reduce, group_kind::tp, hidden_bytes);
    moe_tokens_ = tokens;
  }

  // The shared experts' sigmoid gate (replicated): one score per token, then output × score.
  void shared_gate(std::uint64_t layer, std::uint64_t tokens) {
    if (!m_.shared_expert_gate) return;
    gemm("shared_expert_gate", layer, op_role::mlp_fc2, tokens, m_.hidden_size, 1);
    compute("shared_expert_scale", layer, op_role::mlp_activation, op_kind::elementwise, 1, tokens,
            m_.hidden_size, 0);
    ops_.back().compute.inputs = 2;
  }

  void head(std::uint64_t requests, std::uint64_t q, std::uint64_t layer_id) {
    const std::uint64_t t = s_.tensor_parallel, h = m_.hidden_size;
    const std::uint64_t rows = s_.phase == inference_phase::prefill ? requests : requests * q;
    const std::uint64_t vocab = (m_.vocab_size + t - 1) / t;
    compute("final_norm", layer_id, op_role::final_norm, op_kind::norm, 1, rows, h, 0);
    gemm("logits", layer_id, op_role::logits, rows, h, vocab);
    if (t > 1)
      collective("logits_all_gather", layer_id, collective::all_gather, group_kind::tp, rows * vocab * t * 2);
  }

  void build() {
    const std::uint64_t requests = s_.requests_per_group(), q = s_.tokens_per_request();
    const std::uint64_t t = s_.tensor_parallel, h = m_.hidden_size;
    tokens_ = requests * q;
    moe_tokens_ = tokens_;
    // The vocabulary-parallel embedding: a lookup of the GPU's shard, summed over TP.
    compute("embedding", no_layer, op_role::embedding, op_kind::embedding, 1, tokens_, h, 0);
    weights_ += (m_.vocab_size + t - 1) / t * h;
    if (t > 1)
      collective("embedding_all_reduce", no_layer, collective::all_reduce, group_kind::tp, 2 * tokens_ * h);
    for (std::uint64_t i = 0; i < m_.num_layers; ++i)
      layer(i, requests, q, m_.is_moe() && i >= m_.first_dense_layers, m_.is_linear_attention_layer(i));
    head(requests, q, no_layer);
    const bool untied = !m_.tied_embeddings;
    if (!untied) weights_ -= (m_.vocab_size + t - 1) / t * h;  // the head reused the embedding's table
    // MTP: each draft runs the module's layer (the decoder's last kind) on one token per request.
    if (s_.mtp_drafts > 0 && m_.num_mtp_layers > 0) {
      const std::uint64_t held = weights_;
      for (std::uint64_t d = 0; d < s_.mtp_drafts; ++d) {
        gemm("mtp_projection", m_.num_layers, op_role::mtp_projection, requests, 2 * h, h);
        layer(m_.num_layers, requests, 1, m_.is_moe(), false);  // MTP layers use softmax attention
        head(requests, 1, m_.num_layers);
        if (d == 0) mtp_weights_ = weights_ - held;
      }
      weights_ = held + mtp_weights_;  // the drafts reuse one module's weights
    }
    // KV cache: MLA keeps the latent and the rotary key (whole on every TP rank); GQA its KV heads —
    // in the softmax layers only. Linear-attention layers keep, per sequence, a key × value state per
    // value head and the convolution's last kernel − 1 inputs, in BF16 (the activations' format).
    const double e = size_of(s_.kv_cache),
                 layers = static_cast<double>(m_.num_layers - m_.num_linear_attention_layers());
    if (m_.is_hybrid()) {
      const auto state = [&](std::uint64_t split) {
        const double heads = static_cast<double>(m_.linear_num_value_heads / split);
        const double conv =
            static_cast<double>(m_.linear_conv_dim() / split * (m_.linear_conv_kernel_dim - 1));
        return (heads * static_cast<double>(m_.linear_key_head_dim * m_.linear_value_head_dim) + conv) *
               size_of(dtype::bf16) * static_cast<double>(m_.num_linear_attention_layers());
      };
      state_per_request_ = state(s_.tensor_parallel);
      model_state_per_request_ = state(1);
    }
    if (m_.is_mla()) {
      model_kv_per_token_ = static_cast<double>(m_.kv_lora_rank + m_.qk_rope_head_dim) * e * layers;
      kv_per_token_ = model_kv_per_token_;
    } else {
      const std::uint64_t kv_heads = std::max<std::uint64_t>(1, m_.num_kv_heads / t);
      model_kv_per_token_ = 2.0 * static_cast<double>(m_.num_kv_heads * m_.head_dim) * e * layers;
      kv_per_token_ = 2.0 * static_cast<double>(kv_heads * m_.head_dim) * e * layers;
    }
  }

  model_spec m_;
  serving_spec s_;
  std::uint64_t rank_ = 0;
  process_grid grid_;
  std::vector<operation> ops_;
  std::uint64_t tokens_ = 0, moe_tokens_ = 0, weights_ = 0, mtp_weights_ = 0;
  double kv_per_token_ = 0, model_kv_per_token_ = 0, state_per_request_ = 0, model_state_per_request_ = 0;
};

AICB_END_NAMESPACE
