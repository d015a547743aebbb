// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::model_spec — the shape of a transformer language model, any size, any of the families the
/// field trains: dense GPT (GeLU, LayerNorm, biases), LLaMA-style (SwiGLU, RMSNorm, grouped-query
/// attention, tied or untied embeddings), mixture-of-experts (routed and shared experts, top-k,
/// leading dense layers), DeepSeek's multi-head latent attention (MLA) and sparse attention (DSA: a
/// lightning indexer picks each query's top-k keys), Qwen3-Next's hybrid Gated
/// DeltaNet layers, sliding-window attention with attention sinks (Mistral, GPT-OSS), and hybrid
/// layer patterns of Mamba-2, attention, MLP and expert layers (Nemotron-H, Nemotron 3).
///
/// A literal, structural type: usable at run time, in constant expressions and as a template
/// argument. Fields left at 0 take a documented default (resolve()); validate() checks the rules.
///
/// ```cpp
/// constexpr aicb::model_spec my_15b{.name = "my-15b", .hidden_size = 5120, .num_layers = 48,
///                                   .num_attention_heads = 40, .vocab_size = 32000,
///                                   .activation = aicb::activation_kind::swiglu};
/// static_assert(aicb::validate(my_15b));   // a broken rule is a compile error naming it
/// ```
///
/// Fields are declared once (AICB_MODEL_SPEC_FIELDS); printing, `key=value` parsing and CLI flags
/// are derived from that list (aicb/model/reflect.hpp).

#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/reflect.hpp>
#include <aicb/detail/require.hpp>
#include <aicb/model/fixed_string.hpp>
#include <aicb/model/options.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <utility>

AICB_BEGIN_NAMESPACE

/// Capacity of descriptor names (47 characters and the terminator).
using spec_name = fixed_string<48>;
/// Capacity of a hybrid layer pattern: one character per layer, up to 511 layers.
using layer_pattern_text = fixed_string<512>;

// (type, name, default, help) — the single definition of model_spec's fields.
// clang-format off
#define AICB_MODEL_SPEC_FIELDS                                                                                 \
  ((spec_name, name, {}, "model name (free text)"))                                                            \
  ((std::uint64_t, hidden_size, 0, "hidden size h (d_model)"))                                                 \
  ((std::uint64_t, num_layers, 0, "number of transformer layers"))                                             \
  ((std::uint64_t, num_attention_heads, 0, "number of query heads a"))                                         \
  ((std::uint64_t, num_kv_heads, 0, "key/value heads (grouped-query attention); 0 = num_attention_heads (MHA)")) \
  ((std::uint64_t, head_dim, 0, "size of one attention head; 0 = hidden_size / num_attention_heads"))          \
  ((std::uint64_t, ffn_hidden_size, 0, "dense MLP intermediate size; 0 = 4h (gelu) or floor(8h/3/64)*64 (swiglu)")) \
  ((std::uint64_t, vocab_size, 0, "vocabulary size (before padding)"))                                         \
  ((std::uint64_t, max_position_embeddings, 0, "rows of a learned position table; 0 = the sequence length"))   \
  ((activation_kind, activation, activation_kind::gelu, "MLP activation: gelu | swiglu | squared_relu"))                               \
  ((norm_kind, norm, norm_kind::layernorm, "normalisation: layernorm | rmsnorm"))                              \
  ((position_kind, position, position_kind::learned, "position encoding: learned | rope | none"))                     \
  ((bool, linear_bias, false, "biases on every linear layer (GPT-style)"))                                     \
  ((bool, qkv_bias, false, "biases on the Q, K and V projections only (Qwen2)"))                               \
  ((bool, qk_norm, false, "RMSNorm on each query and key head (Qwen3)"))                                       \
  ((bool, tied_embeddings, false, "the output projection shares the input embedding's weights"))              \
  ((std::uint64_t, num_experts, 0, "routed experts per MoE layer; 0 = dense model"))                           \
  ((std::uint64_t, moe_top_k, 0, "experts each token is routed to"))                                           \
  ((std::uint64_t, moe_ffn_hidden_size, 0, "intermediate size of one expert; 0 = ffn_hidden_size"))            \
  ((std::uint64_t, num_shared_experts, 0, "shared (always active) experts per MoE layer"))                     \
  ((std::uint64_t, shared_expert_ffn_hidden_size, 0, "intermediate size of one shared expert; 0 = moe_ffn_hidden_size")) \
  ((std::uint64_t, first_dense_layers, 0, "leading layers with a dense MLP instead of experts"))                \
  ((bool, moe_router_bias, false, "per-expert router score bias (DeepSeek-V3 e_score_correction_bias)"))       \
  ((std::uint64_t, moe_router_num_groups, 0, "group-limited routing: the experts in this many equal groups (n_group; Megatron --moe-router-num-groups); 0 = routing over all experts")) \
  ((std::uint64_t, moe_router_group_topk, 0, "group-limited routing: the groups each token's experts are chosen from (topk_group; Megatron --moe-router-group-topk)")) \
  ((double, moe_capacity_factor, 0.0, "expert capacity factor; 0 = dropless (Megatron --moe-expert-capacity-factor): an expert takes at most factor x its balanced share of tokens, the rest dropped")) \
  ((bool, moe_pad_to_capacity, false, "pad every expert's tokens to its capacity (Megatron --moe-pad-expert-input-to-capacity; needs moe_capacity_factor)")) \
  ((double, moe_load_skew, 0.0, "routing imbalance: the busiest GPU's experts receive (1 + skew) x their balanced share of tokens, which the step waits for; 0 = balanced")) \
  ((std::uint64_t, q_lora_rank, 0, "MLA query compression rank; 0 = uncompressed queries"))                    \
  ((std::uint64_t, kv_lora_rank, 0, "MLA key/value compression rank; > 0 selects multi-head latent attention")) \
  ((std::uint64_t, qk_nope_head_dim, 0, "MLA per-head query/key size without rotary part"))                    \
  ((std::uint64_t, qk_rope_head_dim, 0, "MLA per-head rotary query/key size"))                                 \
  ((std::uint64_t, v_head_dim, 0, "MLA per-head value size"))                                                  \
  ((std::uint64_t, num_mtp_layers, 0, "multi-token-prediction modules (DeepSeek-V3: 1); not in headline counts")) \
  ((std::uint64_t, full_attention_interval, 0, "hybrid layout: every N-th layer softmax attention, the others Gated DeltaNet linear attention; 0 = all softmax")) \
  ((std::uint64_t, linear_num_key_heads, 0, "Gated DeltaNet query/key heads (hybrid layouts)"))                  \
  ((std::uint64_t, linear_num_value_heads, 0, "Gated DeltaNet value heads (hybrid layouts)"))                    \
  ((std::uint64_t, linear_key_head_dim, 0, "Gated DeltaNet query/key head size (hybrid layouts)"))               \
  ((std::uint64_t, linear_value_head_dim, 0, "Gated DeltaNet value head size (hybrid layouts)"))                 \
  ((std::uint64_t, linear_conv_kernel_dim, 0, "Gated DeltaNet short-convolution width (hybrid layouts)"))        \
  ((bool, attention_output_gate, false, "softmax attention output gated per element by sigmoid(x W_g): q_proj twice as wide (Qwen3-Next)")) \
  ((bool, shared_expert_gate, false, "shared experts' output scaled by sigmoid(x w), w of h weights (Qwen2-MoE, Qwen3-Next)")) \
  ((std::uint64_t, sliding_window, 0, "sliding-window attention: each query attends to at most this many keys, itself included (Mistral, GPT-OSS); 0 = full attention")) \
  ((std::uint64_t, sliding_window_pattern, 0, "with sliding_window: every N-th layer attends to the full context, the others to the window (GPT-OSS: 2); 0 = every layer uses the window")) \
  ((bool, attention_sinks, false, "a learned sink logit per query head joins every softmax (GPT-OSS): one weight per head and layer")) \
  ((double, rope_attention_factor, 1.0, "YaRN's attention factor, multiplying the rotary cosines and sines (GPT-OSS: 0.1 ln 32 + 1 = 1.347); 1 = none. Megatron-Core's fused RoPE kernel cannot apply one: training then rotates queries and keys with its unfused PyTorch operations")) \
  ((std::uint64_t, attention_chunk_size, 0, "chunked attention: each query attends to the keys of its own block of this many positions, itself included (Llama 4: 8192); 0 = none")) \
  ((std::uint64_t, attention_chunk_pattern, 0, "with attention_chunk_size: every N-th layer attends to the full context without rotary embedding (Llama 4: 4), the others to their chunk; 0 = every layer chunked")) \
  ((bool, qk_l2_norm, false, "queries and keys of the chunked layers divided by their L2 norm per head, without weights (Llama 4 Scout)")) \
  ((std::uint64_t, moe_latent_size, 0, "latent experts: tokens projected from the hidden size to this width before the exchange and back after it, the experts working in it (Nemotron 3 Super: 1024); 0 = experts on the hidden size")) \
  ((std::uint64_t, moe_layer_interval, 0, "with experts: every N-th layer (N-1, 2N-1, ...) has them, the others the dense MLP of ffn_hidden_size (Llama 4 Maverick: 2; Megatron's --moe-layer-freq); 0 or 1 = every layer after first_dense_layers")) \
  ((layer_pattern_text, layer_pattern, {}, "hybrid layers, one character each (Megatron's hybrid_override_pattern, Nemotron-H): M Mamba-2, * attention, - MLP, E experts; empty = every layer attention then MLP")) \
  ((std::uint64_t, mamba_num_heads, 0, "Mamba-2 heads (the M layers of layer_pattern)")) \
  ((std::uint64_t, mamba_head_dim, 0, "Mamba-2 head size")) \
  ((std::uint64_t, mamba_state_dim, 0, "Mamba-2 state size per head (ssm_state_size)")) \
  ((std::uint64_t, mamba_num_groups, 0, "Mamba-2 groups sharing B and C (n_groups)")) \
  ((std::uint64_t, mamba_conv_kernel, 0, "Mamba-2 short-convolution width")) \
  ((std::uint64_t, mamba_chunk_size, 0, "Mamba-2 scan chunk (the SSD kernels' block of tokens); 0 = 128")) \
  ((bool, mamba_state_fp32, false, "serving keeps the Mamba-2 state in FP32 (Nemotron-H's mamba_ssm_cache_dtype float32); false: BF16 like the activations")) \
  ((std::uint64_t, sparse_attention_topk, 0, "DeepSeek sparse attention (DeepSeek-V3.2): how many keys each query attends to, those its lightning indexer scores highest (2048); 0 = dense attention")) \
  ((std::uint64_t, indexer_heads, 0, "DeepSeek sparse attention: the lightning indexer's query heads, sharing one key head (DeepSeek-V3.2: 64)")) \
  ((std::uint64_t, indexer_head_dim, 0, "DeepSeek sparse attention: the indexer's query and key head size (DeepSeek-V3.2: 128)")) \
  ((layer_pattern_text, indexer_pattern, {}, "DeepSeek sparse attention with shared indexers (GLM-5.2's IndexShare): one character per layer, F runs the layer's own lightning indexer, S has none and reuses the previous F layer's selection; empty = every layer runs its own"))
// clang-format on

/// The shape of a transformer language model. See the file comment.
struct model_spec {
  AICB_DETAIL_REFLECTED_FIELDS(AICB_MODEL_SPEC_FIELDS)

  [[nodiscard]] friend constexpr bool operator==(const model_spec&, const model_spec&) = default;

  /// True for mixture-of-experts models.
  [[nodiscard]] constexpr bool is_moe() const noexcept { return num_experts > 0; }
  /// How many times its balanced share of routed tokens the busiest GPU's experts compute (the
  /// expert exchange waits for it): 1 + moe_load_skew when dropless; the capacity factor when
  /// padded to capacity; otherwise the lesser of the two (tokens beyond the capacity dropped).
  [[nodiscard]] constexpr double moe_load_factor() const noexcept {
    if (moe_pad_to_capacity && moe_capacity_factor > 0.0) return moe_capacity_factor;
    return moe_routed_factor();
  }
  /// How many times its balanced share of routed tokens the busiest GPU's experts receive, padding
  /// aside: 1 + moe_load_skew, at most the capacity factor where tokens beyond it are dropped. An
  /// exchange that pads on arrival (HybridEP) carries this many; the experts compute
  /// moe_load_factor().
  [[nodiscard]] constexpr double moe_routed_factor() const noexcept {
    const double load = 1.0 + moe_load_skew;
    if (moe_capacity_factor <= 0.0) return load;
    return load < moe_capacity_factor ? load : moe_capacity_factor;
  }
  /// True for multi-head latent attention (DeepSeek-V2/V3).
  [[nodiscard]] constexpr bool is_mla() const noexcept { return kv_lora_rank > 0; }
  /// True for DeepSeek sparse attention: a lightning indexer scores every earlier key for each query
  /// and the attention reads only the sparse_attention_topk keys scored highest.
  [[nodiscard]] constexpr bool has_sparse_attention() const noexcept { return sparse_attention_topk > 0; }
  /// Whether layer `layer` (0-based; num_layers and beyond: the MTP modules) runs a lightning
  /// indexer of its own — every sparse-attention layer, except the S layers of indexer_pattern,
  /// which reuse the selection of the F layer before them and hold no indexer weights.
  [[nodiscard]] constexpr bool runs_indexer(std::uint64_t layer) const noexcept {
    if (!has_sparse_attention()) return false;
    const std::string_view p = indexer_pattern.view();
    return layer >= p.size() || p[layer] == 'F';
  }
  /// Decoder layers that run a lightning indexer of their own.
  [[nodiscard]] constexpr std::uint64_t num_indexer_layers() const noexcept {
    if (!has_sparse_attention()) return 0;
    if (indexer_pattern.empty()) return num_layers;
    std::uint64_t n = 0;
    for (const char ch : indexer_pattern.view())
      n += ch == 'F' ? 1 : 0;
    return n;
  }
  /// True when layer_pattern gives each layer's one block (Nemotron-H); otherwise every layer is a
  /// token mixer followed by an MLP.
  [[nodiscard]] constexpr bool has_layer_pattern() const noexcept { return !layer_pattern.empty(); }
  /// The pattern's character for layer `layer` ('\0' without a pattern or past its end).
  [[nodiscard]] constexpr char pattern_at(std::uint64_t layer) const noexcept {
    const std::string_view p = layer_pattern.view();
    return layer < p.size() ? p[layer] : '\0';
  }
  /// Layers of the pattern that are `block` ('M', '*', '-' or 'E').
  [[nodiscard]] constexpr std::uint64_t pattern_count(char block) const noexcept {
    std::uint64_t n = 0;
    for (const char ch : layer_pattern.view())
      n += ch == block ? 1 : 0;
    return n;
  }
  /// Whether layer `layer` (0-based) has a mixture of experts: an E of the pattern (a
  /// multi-token-prediction layer, index num_layers: whenever the model has experts), or — without
  /// one — every layer after the leading dense ones of an MoE model, or every moe_layer_interval-th.
  [[nodiscard]] constexpr bool is_moe_layer(std::uint64_t layer) const noexcept {
    if (has_layer_pattern()) return layer < num_layers ? pattern_at(layer) == 'E' : is_moe();
    return is_moe() && layer >= first_dense_layers &&
           (moe_layer_interval <= 1 || (layer + 1) % moe_layer_interval == 0);
  }
  /// Whether layer `layer` is a Mamba-2 layer (an M of the pattern).
  [[nodiscard]] constexpr bool is_mamba_layer(std::uint64_t layer) const noexcept {
    return pattern_at(layer) == 'M';
  }
  /// Layers whose MLP is a mixture of experts.
  [[nodiscard]] constexpr std::uint64_t num_moe_layers() const noexcept {
    if (has_layer_pattern()) return pattern_count('E');
    if (!is_moe() || first_dense_layers >= num_layers) return 0;
    if (moe_layer_interval <= 1) return num_layers - first_dense_layers;
    return num_layers / moe_layer_interval - first_dense_layers / moe_layer_interval;
  }
  /// Layers with a dense MLP.
  [[nodiscard]] constexpr std::uint64_t num_dense_layers() const noexcept {
    if (has_layer_pattern()) return pattern_count('-');
    return num_layers - num_moe_layers();
  }
  /// Mamba-2 sizes: the inner width (heads × head size) and the convolution's channels (the inner
  /// width and each group's B and C).
  [[nodiscard]] constexpr std::uint64_t mamba_inner_dim() const noexcept {
    return mamba_num_heads * mamba_head_dim;
  }
  [[nodiscard]] constexpr std::uint64_t mamba_conv_dim() const noexcept {
    return mamba_inner_dim() + 2 * mamba_num_groups * mamba_state_dim;
  }
  /// True for hybrid layouts: Gated DeltaNet linear attention in most layers, softmax attention in
  /// every `full_attention_interval`-th (Qwen3-Next: 3 linear, then 1 softmax, repeated).
  [[nodiscard]] constexpr bool is_hybrid() const noexcept { return full_attention_interval > 1; }
  /// Whether layer `layer` (0-based) is a linear-attention layer: all but layers N−1, 2N−1, … of a
  /// hybrid layout (N = full_attention_interval).
  [[nodiscard]] constexpr bool is_linear_attention_layer(std::uint64_t layer) const noexcept {
    return is_hybrid() && (layer + 1) % full_attention_interval != 0;
  }
  /// Layers with linear attention.
  [[nodiscard]] constexpr std::uint64_t num_linear_attention_layers() const noexcept {
    return is_hybrid() ? num_layers - num_layers / full_attention_interval : 0;
  }
  /// Whether layer `layer` (0-based) attends over a sliding window: every softmax layer when
  /// sliding_window_pattern is 0, else all but layers N−1, 2N−1, … (N = sliding_window_pattern).
  [[nodiscard]] constexpr bool is_sliding_window_layer(std::uint64_t layer) const noexcept {
    return sliding_window > 0 && !is_linear_attention_layer(layer) &&
           (sliding_window_pattern == 0 || (layer + 1) % sliding_window_pattern != 0);
  }
  /// Layers with sliding-window attention.
  [[nodiscard]] constexpr std::uint64_t num_sliding_window_layers() const noexcept {
    if (sliding_window == 0) return 0;
    return sliding_window_pattern == 0 ? num_layers : num_layers - num_layers / sliding_window_pattern;
  }
  /// Whether layer `layer` (0-based) attends within its chunk: every layer when
  /// attention_chunk_pattern is 0, else all but layers N−1, 2N−1, … (N = attention_chunk_pattern).
  [[nodiscard]] constexpr bool is_chunked_attention_layer(std::uint64_t layer) const noexcept {
    return attention_chunk_size > 0 && layer < num_layers &&
           (attention_chunk_pattern == 0 || (layer + 1) % attention_chunk_pattern != 0);
  }
  /// Layers with local attention — a sliding window or a chunk — and how far back such a layer's
  /// queries can see (the window, else the chunk; 0 without local attention). A model has one kind
  /// of local attention at most (validate).
  [[nodiscard]] constexpr bool is_local_attention_layer(std::uint64_t layer) const noexcept {
    return is_sliding_window_layer(layer) || is_chunked_attention_layer(layer);
  }
  [[nodiscard]] constexpr std::uint64_t local_attention_span() const noexcept {
    return sliding_window > 0 ? sliding_window : attention_chunk_size;
  }
  [[nodiscard]] constexpr std::uint64_t num_local_attention_layers() const noexcept {
    if (sliding_window > 0) return num_sliding_window_layers();
    if (attention_chunk_size == 0) return 0;
    return attention_chunk_pattern == 0 ? num_layers : num_layers - num_layers / attention_chunk_pattern;
  }
  /// Gated DeltaNet sizes: all query/key heads' width, all value heads' width, and the channels of
  /// the short convolution over q, k and v (2·key + value).
  [[nodiscard]] constexpr std::uint64_t linear_key_dim() const noexcept {
    return linear_num_key_heads * linear_key_head_dim;
  }
  [[nodiscard]] constexpr std::uint64_t linear_value_dim() const noexcept {
    return linear_num_value_heads * linear_value_head_dim;
  }
  [[nodiscard]] constexpr std::uint64_t linear_conv_dim() const noexcept {
    return 2 * linear_key_dim() + linear_value_dim();
  }
};

/// The deepest model aicb describes: 2^20 layers (models have tens to hundreds). aicb walks a
/// stage's layers one at a time, so this also bounds the work of describing a job.
inline constexpr std::uint64_t max_layers = std::uint64_t{1} << 20;

/// The SwiGLU intermediate size Megatron (and aicb) choose when none is given: 2/3 of 4h, rounded
/// down to a multiple of 64.
[[nodiscard]] constexpr std::uint64_t default_swiglu_ffn(std::uint64_t hidden) noexcept {
  return (4 * hidden * 2 / 3) / 64 * 64;
}

/// `m` with every 0-means-default field replaced by its value. Idempotent.
[[nodiscard]] constexpr model_spec resolve(model_spec m) noexcept {
  if (m.num_kv_heads == 0) m.num_kv_heads = m.num_attention_heads;
  if (m.head_dim == 0 && m.num_attention_heads != 0) m.head_dim = m.hidden_size / m.num_attention_heads;
  if (m.ffn_hidden_size == 0)
    m.ffn_hidden_size =
        m.activation == activation_kind::swiglu ? default_swiglu_ffn(m.hidden_size) : 4 * m.hidden_size;
  if (m.is_moe() && m.moe_ffn_hidden_size == 0) m.moe_ffn_hidden_size = m.ffn_hidden_size;
  if (m.pattern_count('M') > 0 && m.mamba_chunk_size == 0) m.mamba_chunk_size = 128;
  if (m.num_shared_experts > 0 && m.shared_expert_ffn_hidden_size == 0)
    m.shared_expert_ffn_hidden_size = m.moe_ffn_hidden_size;
  return m;
}

/// Checks every rule of a model on its own (resolving defaults first). Returns true, so it can sit
/// in a `static_assert`; a broken rule throws aicb::config_error — a compile error in a constant
/// expression, whose notes carry the rule.
constexpr bool validate(const model_spec& spec) {
  using detail::require;
  const model_spec m = resolve(spec);
  require(m.hidden_size > 0, "hidden_size", m.hidden_size, "hidden_size must be positive");
  require(m.num_layers > 0, "num_layers", m.num_layers, "num_layers must be positive");
  require(m.num_attention_heads > 0, "num_attention_heads", m.num_attention_heads,
          "num_attention_heads must be positive");
  require(m.vocab_size > 0, "vocab_size", m.vocab_size, "vocab_size must be positive");
  require(m.num_layers <= max_layers, "num_layers", m.num_layers,
          "num_layers must not exceed 2^20 (1048576)");
  for (const auto& [field, value] : {std::pair<std::string_view, std::uint64_t>{"hidden_size", m.hidden_size},
                                     {"num_attention_heads", m.num_attention_heads},
                                     {"num_kv_heads", m.num_kv_heads},
                                     {"head_dim", m.head_dim},
                                     {"ffn_hidden_size", m.ffn_hidden_size},
                                     {"vocab_size", m.vocab_size},
                                     {"max_position_embeddings", m.max_position_embeddings},
                                     {"num_experts", m.num_experts},
                                     {"moe_ffn_hidden_size", m.moe_ffn_hidden_size},
                                     {"num_shared_experts", m.num_shared_experts},
                                     {"shared_expert_ffn_hidden_size", m.shared_expert_ffn_hidden_size},
                                     {"q_lora_rank", m.q_lora_rank},
                                     {"kv_lora_rank", m.kv_lora_rank},
                                     {"qk_nope_head_dim", m.qk_nope_head_dim},
                                     {"qk_rope_head_dim", m.qk_rope_head_dim},
                                     {"v_head_dim", m.v_head_dim},
                                     {"num_mtp_layers", m.num_mtp_layers},
                                     {"full_attention_interval", m.full_attention_interval},
                                     {"linear_num_key_heads", m.linear_num_key_heads},
                                     {"linear_num_value_heads", m.linear_num_value_heads},
                                     {"linear_key_head_dim", m.linear_key_head_dim},
                                     {"linear_value_head_dim", m.linear_value_head_dim},
                                     {"linear_conv_kernel_dim", m.linear_conv_kernel_dim}})
    require(value <= max_derived_size, field, value, "a model dimension must not exceed 2^50");
  require(spec.head_dim != 0 || m.is_mla() || m.hidden_size % m.num_attention_heads == 0,
          "num_attention_heads", m.num_attention_heads,
          "num_attention_heads must divide hidden_size (or give head_dim explicitly)", "hidden_size",
          m.hidden_size);
  require(m.num_kv_heads > 0 && m.num_kv_heads <= m.num_attention_heads, "num_kv_heads", m.num_kv_heads,
          "num_kv_heads must be between 1 and num_attention_heads", "num_attention_heads",
          m.num_attention_heads);
  require(
      m.num_attention_heads % m.num_kv_heads == 0, "num_kv_heads", m.num_kv_heads,
      "num_kv_heads must divide num_attention_heads (each key/value head serves a whole group of queries)",
      "num_attention_heads", m.num_attention_heads);
  require(m.ffn_hidden_size > 0, "ffn_hidden_size", m.ffn_hidden_size, "ffn_hidden_size must be positive");

  // Weight counts fit (max_derived_size): each product below is one group of weights of the whole
  // model; with all of them bounded, every count, shard and byte size derived from them is exact.
  const auto fits = [](std::initializer_list<std::uint64_t> factors) {
    return product_within(factors, max_derived_size).has_value();
  };
  require(fits({m.vocab_size, m.hidden_size}), "vocab_size", m.vocab_size,
          "vocab_size x hidden_size (the embedding's weights) must not exceed 2^50", "hidden_size",
          m.hidden_size);
  require(fits({m.max_position_embeddings, m.hidden_size}), "max_position_embeddings",
          m.max_position_embeddings,
          "max_position_embeddings x hidden_size (the position table's weights) must not exceed 2^50",
          "hidden_size", m.hidden_size);
  // The projections' output width per token (dimensions are at most 2^50: the sums cannot wrap).
  const auto attention_width =
      m.is_mla()
          ? product_within(
                {m.num_attention_heads, 2 * m.qk_nope_head_dim + m.qk_rope_head_dim + 2 * m.v_head_dim})
          : product_within(
                {(m.attention_output_gate ? 3 : 2) * m.num_attention_heads + 2 * m.num_kv_heads, m.head_dim});
  require(
      attention_width.has_value() &&
          fits({m.num_layers, m.hidden_size,
                *attention_width + (m.is_mla() ? m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim : 0)}),
      "hidden_size", m.hidden_size,
      "num_layers x hidden_size x the attention projections' width must not exceed 2^50 (the attention "
      "weights)",
      "num_layers", m.num_layers);
  if (m.is_moe()) {
    require(m.moe_top_k >= 1 && m.moe_top_k <= m.num_experts, "moe_top_k", m.moe_top_k,
            "moe_top_k must be between 1 and num_experts", "num_experts", m.num_experts);
    require(m.first_dense_layers < m.num_layers, "first_dense_layers", m.first_dense_layers,
            "first_dense_layers must leave at least one MoE layer", "num_layers", m.num_layers);
    require(m.moe_latent_size <= max_derived_size, "moe_latent_size", m.moe_latent_size,
            "a model dimension must not exceed 2^50");
    require(m.num_moe_layers() > 0, "moe_layer_interval", m.moe_layer_interval,
            "moe_layer_interval must leave at least one MoE layer (layers N-1, 2N-1, ... after "
            "first_dense_layers)",
            "num_layers", m.num_layers);
    require(m.moe_layer_interval <= 1 || m.num_mtp_layers == 0, "moe_layer_interval", m.moe_layer_interval,
            "multi-token prediction with interleaved MoE layers is not modelled", "num_mtp_layers",
            m.num_mtp_layers);
    require(
        fits({m.num_moe_layers(), m.num_experts, 3, m.hidden_size, m.moe_ffn_hidden_size}), "num_experts",
        m.num_experts,
        "MoE layers x num_experts x 3 x hidden_size x moe_ffn_hidden_size (the routed experts' weights) must "
        "not exceed 2^50",
        "moe_ffn_hidden_size", m.moe_ffn_hidden_size);
    require(
        fits({m.num_moe_layers(), m.num_shared_experts, 3, m.hidden_size, m.shared_expert_ffn_hidden_size}),
        "num_shared_experts", m.num_shared_experts,
        "MoE layers x num_shared_experts x 3 x hidden_size x shared_expert_ffn_hidden_size (the shared "
        "experts' weights) must not exceed 2^50",
        "shared_expert_ffn_hidden_size", m.shared_expert_ffn_hidden_size);
    const double factor = m.moe_capacity_factor;
    if (!(factor == 0.0 || (factor >= 1.0 && factor <= static_cast<double>(m.num_experts))))
      detail::rule_violated_by(
          "moe_capacity_factor", factor,
          "moe_capacity_factor must be 0 (dropless) or between 1 and num_experts (an expert takes each token "
          "at most once)");
    if (!(m.moe_load_skew >= 0.0 && m.moe_load_skew + 1.0 <= static_cast<double>(m.num_experts)))
      detail::rule_violated_by(
          "moe_load_skew", m.moe_load_skew,
          "moe_load_skew must be at least 0 and 1 + moe_load_skew at most num_experts (a "
          "GPU's experts cannot receive more than every token)");
    if (m.moe_pad_to_capacity && factor == 0.0)
      detail::rule_violated_text(
          "moe_pad_to_capacity", "true",
          "moe_pad_to_capacity needs moe_capacity_factor > 0 (a dropless expert has no "
          "capacity to pad to)");
    // Group-limited routing (DeepSeek's n_group / topk_group): both or neither.
    require((m.moe_router_num_groups == 0) == (m.moe_router_group_topk == 0), "moe_router_group_topk",
            m.moe_router_group_topk,
            "moe_router_group_topk and moe_router_num_groups are set together (0: no groups)",
            "moe_router_num_groups", m.moe_router_num_groups);
    if (m.moe_router_num_groups > 0) {
      require(m.num_experts % m.moe_router_num_groups == 0, "moe_router_num_groups", m.moe_router_num_groups,
              "moe_router_num_groups must divide num_experts (equal groups)", "num_experts", m.num_experts);
      require(m.moe_router_group_topk <= m.moe_router_num_groups, "moe_router_group_topk",
              m.moe_router_group_topk, "moe_router_group_topk must not exceed moe_router_num_groups",
              "moe_router_num_groups", m.moe_router_num_groups);
      require(m.moe_top_k <= m.moe_router_group_topk * (m.num_experts / m.moe_router_num_groups), "moe_top_k",
              m.moe_top_k,
              "moe_top_k must not exceed the experts of the chosen groups (moe_router_group_topk x "
              "num_experts / moe_router_num_groups)",
              "moe_router_group_topk", m.moe_router_group_topk);
    }
  } else {
    require(m.moe_top_k == 0 && m.num_shared_experts == 0 && m.first_dense_layers == 0 &&
                m.moe_layer_interval == 0 && m.moe_latent_size == 0 && m.moe_capacity_factor == 0.0 &&
                m.moe_load_skew == 0.0 && !m.moe_pad_to_capacity && m.moe_router_num_groups == 0 &&
                m.moe_router_group_topk == 0,
            "num_experts", 0,
            "moe_top_k, num_shared_experts, first_dense_layers, moe_layer_interval, moe_latent_size, "
            "moe_capacity_factor, moe_load_skew, moe_pad_to_capacity and the router's groups need "
            "num_experts > 0");
  }
  require(fits({m.num_dense_layers(), 3, m.hidden_size, m.ffn_hidden_size}), "ffn_hidden_size",
          m.ffn_hidden_size,
          "num_layers x 3 x hidden_size x ffn_hidden_size (the MLP weights) must not exceed 2^50",
          "hidden_size", m.hidden_size);
  if (m.is_mla()) {
    require(m.qk_rope_head_dim > 0, "qk_rope_head_dim", m.qk_rope_head_dim,
            "multi-head latent attention (kv_lora_rank > 0) needs qk_rope_head_dim > 0");
    require(m.qk_nope_head_dim > 0, "qk_nope_head_dim", m.qk_nope_head_dim,
            "multi-head latent attention (kv_lora_rank > 0) needs qk_nope_head_dim > 0");
    require(m.v_head_dim > 0, "v_head_dim", m.v_head_dim,
            "multi-head latent attention (kv_lora_rank > 0) needs v_head_dim > 0");
  } else {
    require(m.q_lora_rank == 0, "q_lora_rank", m.q_lora_rank,
            "q_lora_rank needs multi-head latent attention (kv_lora_rank > 0)");
  }
  // The linear attention's sizes come with a hybrid layout — all of them — and only with it.
  for (const auto& [field, value] :
       {std::pair<std::string_view, std::uint64_t>{"linear_num_key_heads", m.linear_num_key_heads},
        {"linear_num_value_heads", m.linear_num_value_heads},
        {"linear_key_head_dim", m.linear_key_head_dim},
        {"linear_value_head_dim", m.linear_value_head_dim},
        {"linear_conv_kernel_dim", m.linear_conv_kernel_dim}}) {
    if (m.is_hybrid())
      require(value > 0, field, value,
              "a hybrid layout (full_attention_interval > 1) needs every linear_* size");
    else
      require(value == 0, field, value,
              "linear attention sizes need a hybrid layout (full_attention_interval > 1)",
              "full_attention_interval", m.full_attention_interval);
  }
  if (m.is_hybrid()) {
    require(m.linear_num_value_heads % m.linear_num_key_heads == 0, "linear_num_value_heads",
            m.linear_num_value_heads,
            "linear_num_value_heads must be a multiple of linear_num_key_heads (each key head serves a whole "
            "group of value heads)",
            "linear_num_key_heads", m.linear_num_key_heads);
    require(!m.is_mla(), "kv_lora_rank", m.kv_lora_rank,
            "a hybrid layout's softmax layers are grouped-query attention, not multi-head latent attention");
    // Per layer: the input projection (q, k, v, z and the two gates per value head), the
    // convolution and the output projection.
    const auto key = product_within({m.linear_num_key_heads, m.linear_key_head_dim}, max_derived_size);
    const auto value = product_within({m.linear_num_value_heads, m.linear_value_head_dim}, max_derived_size);
    require(key.has_value() && value.has_value() &&
                fits({m.num_layers, m.hidden_size, 2 * *key + 3 * *value + 2 * m.linear_num_value_heads}),
            "linear_num_value_heads", m.linear_num_value_heads,
            "num_layers x hidden_size x the linear attention projections' width must not exceed 2^50",
            "hidden_size", m.hidden_size);
  }
  require(!m.shared_expert_gate || m.num_shared_experts > 0, "shared_expert_gate", 1,
          "shared_expert_gate needs shared experts (num_shared_experts > 0)");
  require(m.sliding_window <= max_derived_size, "sliding_window", m.sliding_window,
          "a model dimension must not exceed 2^50");
  require(m.sliding_window_pattern == 0 || m.sliding_window > 0, "sliding_window_pattern",
          m.sliding_window_pattern, "sliding_window_pattern needs a sliding window (sliding_window > 0)");
  if (m.sliding_window > 0) {
    require(!m.is_mla(), "sliding_window", m.sliding_window,
            "sliding-window attention with multi-head latent attention is not modelled");
    require(!m.is_hybrid(), "sliding_window", m.sliding_window,
            "sliding-window attention in a hybrid linear-attention layout is not modelled");
  }
  require(!m.attention_sinks || !m.is_mla(), "attention_sinks", 1,
          "attention sinks with multi-head latent attention are not modelled");
  if (!(m.rope_attention_factor > 0.0 && m.rope_attention_factor <= 100.0))
    detail::rule_violated_by("rope_attention_factor", m.rope_attention_factor,
                             "rope_attention_factor must be positive and at most 100 (1: none)");
  if (m.rope_attention_factor != 1.0 && m.position != position_kind::rope)
    detail::rule_violated_by("rope_attention_factor", m.rope_attention_factor,
                             "rope_attention_factor needs rotary positions (position = rope)");
  require(m.attention_chunk_size <= max_derived_size, "attention_chunk_size", m.attention_chunk_size,
          "a model dimension must not exceed 2^50");
  require(m.attention_chunk_pattern == 0 || m.attention_chunk_size > 0, "attention_chunk_pattern",
          m.attention_chunk_pattern,
          "attention_chunk_pattern needs chunked attention (attention_chunk_size > 0)");
  require(!m.qk_l2_norm || m.attention_chunk_size > 0, "qk_l2_norm", 1,
          "qk_l2_norm normalises the chunked layers' queries and keys: it needs attention_chunk_size > 0");
  require(!m.qk_l2_norm || !m.qk_norm, "qk_l2_norm", 1,
          "a model normalises its query and key heads one way: qk_norm (RMSNorm with weights) or qk_l2_norm");
  if (m.attention_chunk_size > 0) {
    require(m.sliding_window == 0, "attention_chunk_size", m.attention_chunk_size,
            "a model has one kind of local attention: a sliding window or chunks, not both", "sliding_window",
            m.sliding_window);
    require(!m.is_mla() && !m.is_hybrid() && !m.has_layer_pattern(), "attention_chunk_size",
            m.attention_chunk_size,
            "chunked attention with multi-head latent attention, linear attention or a layer_pattern is not "
            "modelled");
  }
  // A hybrid layer pattern: one known block per layer, each with the sizes it needs.
  for (const auto& [field, value] :
       {std::pair<std::string_view, std::uint64_t>{"mamba_num_heads", m.mamba_num_heads},
        {"mamba_head_dim", m.mamba_head_dim},
        {"mamba_state_dim", m.mamba_state_dim},
        {"mamba_num_groups", m.mamba_num_groups},
        {"mamba_conv_kernel", m.mamba_conv_kernel},
        {"mamba_chunk_size", m.mamba_chunk_size}}) {
    require(value <= max_derived_size, field, value, "a model dimension must not exceed 2^50");
    if (m.pattern_count('M') > 0)
      require(value > 0, field, value, "Mamba-2 layers (M in layer_pattern) need every mamba_* size");
    else
      require(value == 0, field, value, "Mamba-2 sizes need Mamba-2 layers (M in layer_pattern)");
  }
  // DeepSeek sparse attention: the indexer reads MLA's query latent, so it comes with MLA and a
  // query rank, and with all of its sizes.
  for (const auto& [field, value] :
       {std::pair<std::string_view, std::uint64_t>{"sparse_attention_topk", m.sparse_attention_topk},
        {"indexer_heads", m.indexer_heads},
        {"indexer_head_dim", m.indexer_head_dim}}) {
    require(value <= max_derived_size, field, value, "a model dimension must not exceed 2^50");
    if (m.has_sparse_attention())
      require(
          value > 0, field, value,
          "DeepSeek sparse attention (sparse_attention_topk > 0) needs indexer_heads and indexer_head_dim");
    else
      require(value == 0, field, value,
              "indexer sizes need DeepSeek sparse attention (sparse_attention_topk > 0)");
  }
  if (m.has_sparse_attention()) {
    require(m.is_mla() && m.q_lora_rank > 0, "sparse_attention_topk", m.sparse_attention_topk,
            "DeepSeek sparse attention's indexer reads multi-head latent attention's query latent: it needs "
            "kv_lora_rank > 0 and q_lora_rank > 0");
    require(m.indexer_head_dim >= m.qk_rope_head_dim, "indexer_head_dim", m.indexer_head_dim,
            "the indexer's heads carry the rotary part: indexer_head_dim must be at least qk_rope_head_dim",
            "qk_rope_head_dim", m.qk_rope_head_dim);
    require(fits({m.num_layers, m.q_lora_rank + m.hidden_size, m.indexer_heads, m.indexer_head_dim}),
            "indexer_heads", m.indexer_heads,
            "num_layers x (q_lora_rank + hidden_size) x indexer_heads x indexer_head_dim (the indexers' "
            "weights) must not exceed 2^50",
            "indexer_head_dim", m.indexer_head_dim);
    require(!m.is_hybrid() && !m.has_layer_pattern(), "sparse_attention_topk", m.sparse_attention_topk,
            "DeepSeek sparse attention in a hybrid layout is not modelled");
  }
  if (!m.indexer_pattern.empty()) {
    const std::string_view pattern = m.indexer_pattern.view();
    require(m.has_sparse_attention(), "indexer_pattern", pattern.size(),
            "an indexer_pattern needs DeepSeek sparse attention (sparse_attention_topk > 0)");
    for (std::size_t i = 0; i < pattern.size(); ++i)
      if (pattern[i] != 'F' && pattern[i] != 'S')
        detail::rule_violated_text("indexer_pattern", pattern.substr(i, 1),
                                   "indexer_pattern holds one character per layer: F (runs its own indexer) "
                                   "or S (reuses the previous F layer's selection)");
    require(pattern.size() == m.num_layers, "indexer_pattern", pattern.size(),
            "indexer_pattern needs one character per layer", "num_layers", m.num_layers);
    if (pattern.front() != 'F')
      detail::rule_violated_text("indexer_pattern", pattern.substr(0, 1),
                                 "the first layer has no earlier selection to reuse: indexer_pattern starts "
                                 "with F");
  }
  require(!m.mamba_state_fp32 || m.pattern_count('M') > 0, "mamba_state_fp32", 1,
          "mamba_state_fp32 needs Mamba-2 layers (M in layer_pattern)");
  if (m.has_layer_pattern()) {
    const std::string_view pattern = m.layer_pattern.view();
    for (std::size_t i = 0; i < pattern.size(); ++i)
      if (pattern[i] != 'M' && pattern[i] != '*' && pattern[i] != '-' && pattern[i] != 'E')
        detail::rule_violated_text(
            "layer_pattern", pattern.substr(i, 1),
            "layer_pattern holds one block per layer: M (Mamba-2), * (attention), - (MLP) "
            "or E (experts)");
    require(pattern.size() == m.num_layers, "layer_pattern", pattern.size(),
            "layer_pattern needs one character per layer", "num_layers", m.num_layers);
    require(m.is_moe() == (m.pattern_count('E') > 0), "num_experts", m.num_experts,
            "experts (num_experts > 0) go with the E layers of layer_pattern, and E layers need them");
    require(m.first_dense_layers == 0, "first_dense_layers", m.first_dense_layers,
            "with a layer_pattern, the E characters place the experts (first_dense_layers must be 0)");
    require(m.moe_layer_interval == 0, "moe_layer_interval", m.moe_layer_interval,
            "with a layer_pattern, the E characters place the experts (moe_layer_interval must be 0)");
    require(
        !m.is_hybrid() && !m.is_mla() && m.sliding_window == 0, "layer_pattern", pattern.size(),
        "a layer_pattern with Gated DeltaNet layers, multi-head latent attention or a sliding window is not "
        "modelled");
  }
  if (m.pattern_count('M') > 0) {
    require(m.mamba_num_heads % m.mamba_num_groups == 0, "mamba_num_groups", m.mamba_num_groups,
            "mamba_num_groups must divide mamba_num_heads (each group's B and C serve whole heads)",
            "mamba_num_heads", m.mamba_num_heads);
    const auto inner = product_within({m.mamba_num_heads, m.mamba_head_dim}, max_derived_size);
    const auto groups = product_within({2, m.mamba_num_groups, m.mamba_state_dim}, max_derived_size);
    require(inner.has_value() && groups.has_value() &&
                fits({m.num_layers, m.hidden_size, 3 * *inner + *groups + m.mamba_num_heads}),
            "mamba_num_heads", m.mamba_num_heads,
            "num_layers x hidden_size x the Mamba-2 projections' width must not exceed 2^50", "hidden_size",
            m.hidden_size);
  }
  return true;
}

/// `M` resolved, for a model that must be valid at compile time: a broken rule makes any use of
/// `checked_model<M>` a compile error whose notes carry the rule.
///
/// ```cpp
/// constexpr auto m = aicb::checked_model<aicb::model_spec{.hidden_size = 4096, ...}>;
/// ```
template <model_spec M>
inline constexpr model_spec checked_model = (validate(M), resolve(M));

AICB_END_NAMESPACE
