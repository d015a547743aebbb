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
#include <aicb/schedule/layer.hpp>
#include <aicb/schedule/operation.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The serving layout as a training job's process grid: TP × DP-attention ranks (TP fastest), the
/// experts over all GPUs (expert TP 1) or over TP with the attention. Its groups are the step's. A TP
/// wider than the key/value heads replicates them, as serving engines do (vLLM, SGLang, TensorRT-LLM).
[[nodiscard]] inline job_spec serving_layout_job(const model_spec& model, const serving_spec& s) {
  job_spec j;
  j.model = model;
  j.parallel.world_size = s.gpus();
  j.parallel.tensor_parallel = s.tensor_parallel;
  j.parallel.replicate_kv_heads = !model.is_mla() && s.tensor_parallel > model.num_kv_heads;
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
  /// Weights the GPU holds (elements), and their bytes: in the weights' format, but for the
  /// embedding table and the LM head, which checkpoints of 8-bit weights keep in 16 bits.
  [[nodiscard]] std::uint64_t weights() const noexcept { return weights_; }
  [[nodiscard]] double weight_bytes() const noexcept {
    const double wide = static_cast<double>(wide_weights_);
    return (static_cast<double>(weights_) - wide) * size_of(s_.weights) +
           wide * std::max(size_of(s_.weights), size_of(dtype::bf16));
  }
  /// KV cache bytes per token of context on this GPU (all layers; MLA's latent is whole on every TP
  /// rank, GQA's heads are split over TP, replicated where TP exceeds them). Local layers (a sliding
  /// window, or chunks) count while the context is within their span: beyond it their share stops
  /// growing (a chunked layer keeps at most one chunk).
  [[nodiscard]] double kv_bytes_per_token() const noexcept { return kv_per_token_; }
  /// The local layers' part of kv_bytes_per_token (0 without local attention): what stops growing
  /// past the model's local_attention_span.
  [[nodiscard]] double local_kv_bytes_per_token() const noexcept { return window_kv_per_token_; }
  /// KV cache bytes per token for the whole model on one copy (every layer, every head).
  [[nodiscard]] double model_kv_bytes_per_token() const noexcept { return model_kv_per_token_; }
  /// Recurrent state per request on this GPU (Gated DeltaNet and Mamba-2 layers; 0 without them), and for
  /// the whole model on one copy. It does not grow with the context.
  [[nodiscard]] double state_bytes_per_request() const noexcept { return state_per_request_; }
  [[nodiscard]] double model_state_bytes_per_request() const noexcept { return model_state_per_request_; }
  /// The cache of one request on this GPU: its tokens' KV and its recurrent state.
  [[nodiscard]] double cache_bytes_per_request() const noexcept {
    const std::uint64_t tokens = s_.phase == inference_phase::decode ? s_.context : s_.prompt;
    // Local layers keep the window's (or the chunk's) last tokens only.
    const std::uint64_t span = m_.local_attention_span();
    const std::uint64_t windowed = span > 0 ? std::min(tokens, span) : tokens;
    return static_cast<double>(tokens) * (kv_per_token_ - window_kv_per_token_) +
           static_cast<double>(windowed) * window_kv_per_token_ + state_per_request_;
  }
  /// The KV cache (and recurrent state) this step reads (decode: every request's context) or
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
  operation& push(op_type type, std::string_view name) {
    operation op;
    op.index = ops_.size();
    op.type = type;
    op.name = name;
    op.layer = layer_;
    if (!ops_.empty()) {
      op.after[0] = ops_.size() - 1;
      op.after_count = 1;
    }
    ops_.push_back(op);
    return ops_.back();
  }

  // The layer description's sink: operations in order, the weights they read.
  struct sink {
    inference_step& step;
    void compute(std::string_view name, const compute_op& op) {
      step.push(op_type::compute, name).compute = op;
    }
    void collective(std::string_view name, aicb::collective kind, group_kind group, std::uint64_t size) {
      operation& op = step.push(op_type::collective, name);
      const rank_group g = step.grid_.group(group, step.rank_);
      op.kind = kind;
      op.group = g.id();
      op.group_size = g.size();
      op.size = aicb::bytes{size};
    }
    void ring(std::string_view, std::uint64_t, bool, std::uint64_t) {}  // no context parallelism here
    void weights(weight_part part, weight_sharing sharing, std::uint64_t n) {
      if (sharing == weight_sharing::buffer) return;
      step.weights_ += n;
      if (part == weight_part::embedding || part == weight_part::output) step.wide_weights_ += n;
    }
  };

  // The step's shapes: the group's requests, the tokens of each in this step, the keys they attend.
  layer_context context() const {
    layer_context c{.model = m_};
    c.training = false;
    c.gemm_type = s_.weights;
    c.activation_type = dtype::bf16;
    c.cache_type = s_.kv_cache;
    c.state_type = recurrent_state_type(m_, s_);
    c.tp = s_.tensor_parallel;
    c.ep = s_.expert_parallel;
    c.etp = s_.expert_parallel > 1 ? 1 : s_.tensor_parallel;
    c.decode = s_.phase == inference_phase::decode;
    c.sequences = s_.requests_per_group();
    c.query_tokens = s_.tokens_per_request();
    c.key_tokens = c.decode ? s_.context : s_.prompt;
    c.exchange = s_.expert_parallel > 1 ? expert_exchange::deepep : expert_exchange::tensor_parallel;
    c.fp8_dispatch = s_.fp8_dispatch;
    c.gpus = s_.gpus();
    c.vocab_rows = (m_.vocab_size + s_.tensor_parallel - 1) / s_.tensor_parallel;
    return c;
  }

  void build() {
    const layer_context c = context();
    sink out{*this};
    detail::layer_writer<sink> write{c, out};
    tokens_ = c.tokens();
    moe_tokens_ = m_.is_moe() ? write.router_tokens() : tokens_;
    layer_ = no_layer;
    write.embedding_forward();
    for (std::uint64_t i = 0; i < m_.num_layers; ++i) {
      layer_ = i;
      write.layer_forward(kind_of_layer(m_, i));
    }
    layer_ = no_layer;
    write.output_forward(!m_.tied_embeddings);  // tied: the embedding's table
    // MTP: in decode each draft runs the module (its input, its layer, its head) on one token per
    // request; in prefill the module runs once over the prompt (filling its KV cache; its head on each
    // request's last token). One module's weights either way.
    if (s_.mtp_drafts > 0 && m_.num_mtp_layers > 0) {
      layer_context one = c;
      if (c.decode) one.query_tokens = 1;
      detail::layer_writer<sink> draft{one, out};
      const std::uint64_t held = weights_;
      layer_ = m_.num_layers;
      const std::uint64_t passes = c.decode ? s_.mtp_drafts : 1;
      for (std::uint64_t d = 0; d < passes; ++d) {
        draft.mtp_input_forward();
        draft.layer_forward(kind_of_layer(m_, m_.num_layers));
        draft.output_forward(false);
        if (d == 0) mtp_weights_ = weights_ - held;
      }
      weights_ = held + mtp_weights_;
    }
    const std::uint64_t t = s_.tensor_parallel;
    // KV cache: MLA keeps the latent and the rotary key (whole on every TP rank); GQA its KV heads —
    // in the softmax layers only. Recurrent layers keep, per sequence, their state (Gated DeltaNet: a
    // key × value state per value head; Mamba-2: a head × state one per head) in the layout's state
    // format (serving_spec::recurrent_state) and the convolution's last kernel − 1 inputs in BF16.
    const double e = size_of(s_.kv_cache),
                 layers = static_cast<double>(m_.has_layer_pattern()
                                                  ? m_.pattern_count('*')
                                                  : m_.num_layers - m_.num_linear_attention_layers());
    // Per request and recurrent layer: `heads` states of `state` elements (`state_bytes` each) and
    // the convolution's last kernel − 1 inputs over `conv` channels (BF16), split over `split` GPUs.
    const auto recurrent = [](std::uint64_t heads, std::uint64_t state, double state_bytes,
                              std::uint64_t conv, std::uint64_t kernel, std::uint64_t layers,
                              std::uint64_t split) {
      return (static_cast<double>(heads / split) * static_cast<double>(state) * state_bytes +
              static_cast<double>(conv / split * (kernel - 1)) * size_of(dtype::bf16)) *
             static_cast<double>(layers);
    };
    const auto add_recurrent = [&](std::uint64_t heads, std::uint64_t state, double state_bytes,
                                   std::uint64_t conv, std::uint64_t kernel, std::uint64_t layers) {
      state_per_request_ += recurrent(heads, state, state_bytes, conv, kernel, layers, s_.tensor_parallel);
      model_state_per_request_ += recurrent(heads, state, state_bytes, conv, kernel, layers, 1);
    };
    const double state_bytes = size_of(recurrent_state_type(m_, s_));
    if (m_.is_hybrid())  // Gated DeltaNet: a key × value state per value head
      add_recurrent(m_.linear_num_value_heads, m_.linear_key_head_dim * m_.linear_value_head_dim, state_bytes,
                    m_.linear_conv_dim(), m_.linear_conv_kernel_dim, m_.num_linear_attention_layers());
    if (m_.pattern_count('M') > 0)  // Mamba-2: a head size × state size state per head
      add_recurrent(m_.mamba_num_heads, m_.mamba_head_dim * m_.mamba_state_dim, state_bytes,
                    m_.mamba_conv_dim(), m_.mamba_conv_kernel, m_.pattern_count('M'));
    if (m_.is_mla()) {
      model_kv_per_token_ = static_cast<double>(m_.kv_lora_rank + m_.qk_rope_head_dim) * e * layers;
      // The indexer's key, FP8 with a 4-byte scale per 128 values, in the layers that run an indexer
      // (an S layer of indexer_pattern reuses another layer's selection).
      if (m_.has_sparse_attention())
        model_kv_per_token_ +=
            static_cast<double>(m_.indexer_head_dim + (m_.indexer_head_dim + 127) / 128 * 4) *
            static_cast<double>(m_.num_indexer_layers());
      kv_per_token_ = model_kv_per_token_;
    } else {
      const std::uint64_t kv_heads = std::max<std::uint64_t>(1, m_.num_kv_heads / t);
      model_kv_per_token_ = 2.0 * static_cast<double>(m_.num_kv_heads * m_.head_dim) * e * layers;
      kv_per_token_ = 2.0 * static_cast<double>(kv_heads * m_.head_dim) * e * layers;
      window_kv_per_token_ =
          layers > 0 ? kv_per_token_ * static_cast<double>(m_.num_local_attention_layers()) / layers : 0;
    }
  }

  model_spec m_;
  serving_spec s_;
  std::uint64_t rank_ = 0;
  process_grid grid_;
  std::vector<operation> ops_;
  std::uint64_t layer_ = no_layer;  // the layer of the operations being added
  std::uint64_t tokens_ = 0, moe_tokens_ = 0, weights_ = 0, mtp_weights_ = 0, wide_weights_ = 0;
  double kv_per_token_ = 0, model_kv_per_token_ = 0, state_per_request_ = 0, model_state_per_request_ = 0;
  double window_kv_per_token_ = 0;  // the local layers' part of kv_per_token_
};

AICB_END_NAMESPACE
