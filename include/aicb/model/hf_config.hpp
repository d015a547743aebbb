// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Builds a model_spec from a Hugging Face `config.json`: LLaMA, Llama 4 (its language model: chunked
/// and full attention, interleaved experts), Mistral (with its sliding window),
/// Mixtral, Qwen2 (with its q/k/v biases), Qwen2-MoE, Qwen3 (with its q/k norms), Qwen3-MoE,
/// Qwen3-Next, DeepSeek-V2, -V3 and -V3.2, Kimi K2, GLM-4.5, GLM-5 (with GLM-5.2's shared indexers),
/// GPT-OSS (alternating sliding-window and full attention, attention sinks, biased experts) and
/// Nemotron-H.
///
/// Every key is accounted for: a key that shapes the model is read; a key known not to (token
/// ids, initialisation, RoPE scaling, router loss coefficients, quantisation of the checkpoint…)
/// is ignored; any other key is an error that lists them all, as is every missing required key —
/// so a config from a newer architecture is never imported silently wrong.
///
/// ```cpp
/// aicb::model_spec m = aicb::load_hf_config("Meta-Llama-3-8B/config.json").model;
/// ```

#include <aicb/config.hpp>
#include <aicb/detail/input_file.hpp>
#include <aicb/error.hpp>
#include <aicb/model/spec.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Options of the import.
struct hf_import_options {
  /// Accept keys that are neither read nor known to be irrelevant (they are still reported through
  /// `ignored_keys` of the result).
  bool allow_unknown_keys = false;
};

/// A model imported from a config.json.
struct hf_import {
  model_spec model;
  std::vector<std::string> ignored_keys;  ///< unknown keys accepted under allow_unknown_keys
};

namespace detail {

// Keys that do not change the shape or the training cost of a model.
inline constexpr std::array<std::string_view, 37> hf_irrelevant_keys{"_name_or_path",
                                                                     "architectures",
                                                                     "attention_dropout",
                                                                     "auto_map",
                                                                     "aux_loss_alpha",
                                                                     "bos_token_id",
                                                                     "eos_token_id",
                                                                     "pad_token_id",
                                                                     "ep_size",
                                                                     "initializer_range",
                                                                     "n_group",
                                                                     "norm_topk_prob",
                                                                     "output_router_logits",
                                                                     "pretraining_tp",
                                                                     "quantization_config",
                                                                     "rms_norm_eps",
                                                                     "rope_scaling",
                                                                     "rope_theta",
                                                                     "routed_scaling_factor",
                                                                     "router_aux_loss_coef",
                                                                     "scoring_func",
                                                                     "seq_aux",
                                                                     "topk_group",
                                                                     "torch_dtype",
                                                                     "transformers_version",
                                                                     "use_cache",
                                                                     "use_mrope",
                                                                     "max_window_layers",
                                                                     "swiglu_limit",
                                                                     "initial_context_length",
                                                                     "experts_per_token",
                                                                     "hidden_dropout",
                                                                     "router_jitter_noise",
                                                                     "residual_dropout",
                                                                     "embedding_dropout",
                                                                     "tokenizer_class",
                                                                     "layer_norm_eps"};

/// YaRN's attention factor from a config's rope_scaling (1 for any other scaling, or none): its
/// attention_factor where given, else — as transformers and Megatron-Core derive it — the ratio of
/// the two mscale terms when both are given (DeepSeek-V3, Kimi K2: 1), else 0.1 ln(factor) + 1
/// (GPT-OSS: factor 32).
[[nodiscard]] inline double yarn_attention_factor(const nlohmann::json* scaling) {
  if (scaling == nullptr || !scaling->is_object()) return 1.0;
  const auto type = scaling->find(scaling->contains("rope_type") ? "rope_type" : "type");
  if (type == scaling->end() || !type->is_string() || type->get<std::string>() != "yarn") return 1.0;
  const auto number = [&](const char* key) -> std::optional<double> {
    const auto it = scaling->find(key);
    if (it == scaling->end() || it->is_null()) return std::nullopt;
    if (!it->is_number())
      AICB_THROW(config_error(std::string("rope_scaling.") + key, it->dump(), "expected a number"));
    return it->get<double>();
  };
  if (const std::optional<double> given = number("attention_factor")) return *given;
  const double factor = number("factor").value_or(1.0);
  if (!(factor >= 1.0 && factor <= 1e6))
    AICB_THROW(config_error("rope_scaling.factor", std::to_string(factor),
                            "YaRN's factor must be at least 1 (and at most 1e6)"));
  const auto mscale = [&](double m) { return factor <= 1.0 ? 1.0 : 0.1 * m * std::log(factor) + 1.0; };
  const std::optional<double> m = number("mscale"), all = number("mscale_all_dim");
  if (m && all) {
    const double over = mscale(*all);
    if (!(over > 0.0))
      AICB_THROW(
          config_error("rope_scaling.mscale_all_dim", std::to_string(*all),
                       "YaRN's mscale_all_dim term (0.1 mscale_all_dim ln factor + 1) must be positive"));
    return mscale(*m) / over;
  }
  return mscale(1.0);
}

class hf_reader {
 public:
  hf_reader(const nlohmann::json& config, std::string source) : config_(config), source_(std::move(source)) {
    if (!config_.is_object())
      AICB_THROW(config_error(source_, "(not an object)", "a config.json must be a JSON object"));
  }

  /// The value of a required integer key.
  std::uint64_t required(std::string_view key) {
    used_.emplace_back(key);
    const auto it = config_.find(std::string(key));
    if (it == config_.end() || it->is_null()) {
      missing_.emplace_back(key);
      return 0;
    }
    return integer(key, *it);
  }
  /// The value of an optional integer key (`fallback` when absent or null).
  std::uint64_t optional(std::string_view key, std::uint64_t fallback) {
    used_.emplace_back(key);
    const auto it = config_.find(std::string(key));
    return it == config_.end() || it->is_null() ? fallback : integer(key, *it);
  }
  bool flag(std::string_view key, bool fallback) {
    used_.emplace_back(key);
    const auto it = config_.find(std::string(key));
    if (it == config_.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) AICB_THROW(config_error(std::string(key), it->dump(), "expected true or false"));
    return it->get<bool>();
  }
  std::string text(std::string_view key, std::string fallback) {
    used_.emplace_back(key);
    const auto it = config_.find(std::string(key));
    if (it == config_.end() || it->is_null()) return fallback;
    if (!it->is_string()) AICB_THROW(config_error(std::string(key), it->dump(), "expected a string"));
    return it->get<std::string>();
  }
  /// Marks a key as read (its value is checked by the caller).
  const nlohmann::json* peek(std::string_view key) {
    used_.emplace_back(key);
    const auto it = config_.find(std::string(key));
    return it == config_.end() ? nullptr : &*it;
  }

  /// Throws one error listing all missing keys, then one listing all unknown keys (unless allowed).
  std::vector<std::string> finish(const std::string& model_type, bool allow_unknown) {
    if (!missing_.empty())
      AICB_THROW(config_error(source_, model_type,
                              "missing required keys for model_type " + model_type + ": " + join(missing_)));
    std::vector<std::string> unknown;
    for (const auto& [key, value] : config_.items()) {
      if (std::find(used_.begin(), used_.end(), key) != used_.end()) continue;
      if (std::find(hf_irrelevant_keys.begin(), hf_irrelevant_keys.end(), key) != hf_irrelevant_keys.end())
        continue;
      unknown.push_back(key);
    }
    if (!unknown.empty() && !allow_unknown)
      AICB_THROW(
          config_error(source_, model_type,
                       "unknown keys (not read, not known to be irrelevant): " + join(unknown) +
                           "; check that they do not change the model, then import with allow_unknown_keys "
                           "(--allow-unknown-keys)"));
    return unknown;
  }

 private:
  std::uint64_t integer(std::string_view key, const nlohmann::json& value) const {
    if (value.is_number_unsigned()) return value.get<std::uint64_t>();  // up to 2^64-1; the rules bound it
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0)
      AICB_THROW(config_error(std::string(key), value.dump(), "expected a non-negative integer"));
    return value.get<std::uint64_t>();
  }
  static std::string join(const std::vector<std::string>& keys) {
    std::string text;
    for (const auto& k : keys)
      text += (text.empty() ? "" : ", ") + k;
    return text;
  }

  const nlohmann::json& config_;
  std::string source_;
  std::vector<std::string> used_;
  std::vector<std::string> missing_;
};

// Llama 4's language model (transformers' Llama4TextConfig): experts (intermediate_size wide, one shared
// expert of the same width, top-k of num_local_experts) on every interleave_moe_layer_step-th layer and a
// dense MLP of intermediate_size_mlp on the others; attention within chunks of attention_chunk_size on
// the RoPE layers of no_rope_layers, full attention without RoPE on the others (every 4th by default),
// the RoPE layers' queries and keys L2-normalised under use_qk_norm. The temperature tuning of the NoPE
// layers' queries is an element-wise scale, not priced.
inline void llama4_text(hf_reader& r, model_spec& m) {
  const std::uint64_t layers = m.num_layers;
  // The per-layer lists below are as long as the model: bound it first (validate says the same).
  if (layers > max_layers)
    AICB_THROW(config_error("num_hidden_layers", std::to_string(layers), "at most 2^20 (1048576) layers"));
  const std::uint64_t expert_width = m.ffn_hidden_size;  // intermediate_size: one expert's
  m.ffn_hidden_size = r.required("intermediate_size_mlp");
  const std::uint64_t experts = r.optional("num_local_experts", 0),
                      step = r.optional("interleave_moe_layer_step", 1);
  // HF's moe_layers: interleave_moe_layer_step − 1, then every step-th layer; none for a step of 0.
  std::vector<std::uint64_t> expected;
  for (std::uint64_t l = step == 0 ? layers : step - 1; l < layers; l += step)
    expected.push_back(l);
  if (const nlohmann::json* listed = r.peek("moe_layers"); listed && !listed->is_null()) {
    bool same = listed->is_array() && listed->size() == expected.size();
    for (std::size_t i = 0; same && i < expected.size(); ++i)
      same = (*listed)[i].is_number_unsigned() && (*listed)[i].get<std::uint64_t>() == expected[i];
    if (!same)
      AICB_THROW(
          config_error("moe_layers", listed->dump().substr(0, 200),
                       "only the layers interleave_moe_layer_step places (step − 1, then every step-th) are "
                       "modelled"));
  }
  const std::uint64_t top_k = r.optional("num_experts_per_tok", 0);
  if (experts > 0 && top_k > 0 && !expected.empty()) {
    m.num_experts = experts;
    m.moe_top_k = top_k;
    m.moe_ffn_hidden_size = expert_width;
    m.num_shared_experts = 1;  // Llama4TextMoe's shared_expert, as wide as a routed one
    m.shared_expert_ffn_hidden_size = expert_width;
    m.moe_layer_interval = step;
  }
  // The RoPE layers: no_rope_layers (1 = RoPE), else every no_rope_layer_interval-th layer without.
  std::uint64_t interval = r.optional("no_rope_layer_interval", 4);
  std::vector<bool> rope(layers);
  const nlohmann::json* listed = r.peek("no_rope_layers");
  if (listed && !listed->is_null() && !listed->is_array())
    AICB_THROW(config_error("no_rope_layers", listed->dump().substr(0, 200),
                            "expected a list, one entry per layer"));
  const bool given = listed && listed->is_array() && !listed->empty();
  if (given) {
    if (listed->size() != layers)
      AICB_THROW(config_error("no_rope_layers", listed->dump().substr(0, 200), "needs one entry per layer"));
    interval = 0;  // the period the list shows: its first NoPE layer + 1 (0: every layer RoPE)
    for (std::size_t i = 0; i < layers; ++i) {
      const auto& v = (*listed)[i];
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 1)
        AICB_THROW(config_error("no_rope_layers", v.dump(), "entries are 1 (RoPE) or 0 (no RoPE)"));
      rope[i] = v.get<std::uint64_t>() == 1;
      if (!rope[i] && interval == 0) interval = i + 1;
    }
  }
  for (std::size_t i = 0; i < layers; ++i) {
    const bool periodic = interval == 0 || (i + 1) % interval != 0;
    if (given && rope[i] != periodic)
      AICB_THROW(config_error("no_rope_layers", listed->dump().substr(0, 200),
                              "only a periodic layout is modelled: RoPE layers with every N-th without"));
    rope[i] = periodic;
  }
  // Chunked attention on the RoPE layers (transformers' default layer_types), unless layer_types says
  // full attention everywhere.
  bool chunked = true;
  if (const nlohmann::json* types = r.peek("layer_types"); types && !types->is_null()) {
    bool all_full = types->is_array() && types->size() == layers, matches = all_full;
    for (std::size_t i = 0; (all_full || matches) && i < layers; ++i) {
      const auto& t = (*types)[i];
      const std::string name = t.is_string() ? t.get<std::string>() : "";
      all_full = all_full && name == "full_attention";
      matches = matches && name == (rope[i] ? "chunked_attention" : "full_attention");
    }
    if (!all_full && !matches)
      AICB_THROW(
          config_error("layer_types", types->dump().substr(0, 200),
                       "modelled: chunked_attention on the RoPE layers and full_attention on the others, or "
                       "full_attention everywhere"));
    chunked = matches;
  }
  const std::uint64_t chunk = r.optional("attention_chunk_size", 0);
  const bool any_rope = std::find(rope.begin(), rope.end(), true) != rope.end();
  if (chunked && chunk > 0 && any_rope) {
    m.attention_chunk_size = chunk;
    m.attention_chunk_pattern = interval;
  }
  if (r.flag("use_qk_norm", false)) {
    if (m.attention_chunk_size == 0)
      AICB_THROW(
          config_error("use_qk_norm", "true",
                       "Llama 4's L2 query/key norm is modelled on chunked layers; this config has none"));
    m.qk_l2_norm = true;
  }
  for (const char* key : {"attn_temperature_tuning", "attn_scale", "floor_scale", "for_llm_compressor",
                          "cache_implementation", "_attn_implementation_autoset", "dtype"})
    r.peek(key);  // query scaling of the NoPE layers, checkpoint and runtime settings: no change to cost
}

/// Group-limited routing (DeepSeek's `n_group` / `topk_group`, transformers' DeepseekV3TopkRouter and
/// Glm4MoeTopkRouter): a token's experts chosen among those of topk_group of n_group equal groups. One
/// group, or every group chosen, is routing over all experts (stored as no groups).
inline void read_router_groups(hf_reader& r, model_spec& m) {
  const std::uint64_t groups = r.optional("n_group", 1), chosen = r.optional("topk_group", groups);
  if (groups > 1 && chosen < groups) {
    m.moe_router_num_groups = groups;
    m.moe_router_group_topk = chosen;
  }
}

/// GLM-5's keys beyond DeepSeek-V3.2's (transformers' GlmMoeDsaConfig): which layers are dense, and
/// which run a lightning indexer — `indexer_types` ("full" / "shared"), else `index_topk_pattern`
/// (F / S), else every `index_topk_freq`-th layer from `index_skip_topk_offset` − 1 on (defaults 1
/// and 2: every layer); a shared layer reuses the previous full layer's selection.
inline void read_glm5_layout(hf_reader& r, model_spec& m) {
  const std::uint64_t layers = m.num_layers;
  // head_dim is the rotary slice here (transformers points it at qk_rope_head_dim); qk_head_dim the sum.
  if (m.head_dim != 0 && m.head_dim != m.qk_rope_head_dim)
    AICB_THROW(config_error("head_dim", std::to_string(m.head_dim),
                            "GLM-5's head_dim names the rotary slice and must equal qk_rope_head_dim (" +
                                std::to_string(m.qk_rope_head_dim) + ")"));
  m.head_dim = 0;
  if (const std::uint64_t qk = r.optional("qk_head_dim", 0);
      qk != 0 && qk != m.qk_nope_head_dim + m.qk_rope_head_dim)
    AICB_THROW(config_error("qk_head_dim", std::to_string(qk),
                            "qk_head_dim must be qk_nope_head_dim + qk_rope_head_dim (" +
                                std::to_string(m.qk_nope_head_dim + m.qk_rope_head_dim) + ")"));
  // A per-layer list of strings, every entry one of `allowed`; null when absent.
  const auto string_list = [&](std::string_view key, std::initializer_list<std::string_view> allowed) {
    std::vector<std::string> out;
    const nlohmann::json* v = r.peek(key);
    if (!v || v->is_null()) return out;
    if (!v->is_array() || v->size() != layers)
      AICB_THROW(config_error(std::string(key), v->dump().substr(0, 200),
                              "expected a list of one entry per layer (" + std::to_string(layers) + ")"));
    for (const auto& entry : *v) {
      const bool known = entry.is_string() &&
                         std::find(allowed.begin(), allowed.end(), entry.get<std::string>()) != allowed.end();
      if (!known) AICB_THROW(config_error(std::string(key), entry.dump(), "unknown entry"));
      out.push_back(entry.get<std::string>());
    }
    return out;
  };
  if (const auto mlp = string_list("mlp_layer_types", {"dense", "sparse"}); !mlp.empty())
    for (std::uint64_t i = 0; i < layers; ++i)
      if ((mlp[i] == "dense") != (i < m.first_dense_layers))
        AICB_THROW(config_error("mlp_layer_types", "layer " + std::to_string(i) + ": " + mlp[i],
                                "modelled: the first first_k_dense_replace layers dense (" +
                                    std::to_string(m.first_dense_layers) + "), the others sparse"));
  (void)string_list("layer_types", {"deepseek_sparse_attention"});  // every layer sparse, as modelled
  if (r.flag("index_share_for_mtp_iteration", false))
    AICB_THROW(config_error("index_share_for_mtp_iteration", "true",
                            "an MTP module reusing the decoder's indexer selection is not modelled"));
  // The sharing keys in transformers' order of precedence; a key a higher one supersedes is still read.
  for (const char* key : {"index_topk_pattern", "index_topk_freq", "index_skip_topk_offset"})
    r.peek(key);
  std::string pattern;
  if (const auto types = string_list("indexer_types", {"full", "shared"}); !types.empty()) {
    for (const auto& t : types)
      pattern += t == "full" ? 'F' : 'S';
  } else if (const nlohmann::json* p = r.peek("index_topk_pattern"); p && !p->is_null()) {
    if (p->is_string()) {
      pattern = p->get<std::string>();
    } else {
      for (const auto& t : string_list("index_topk_pattern", {"full", "shared"}))
        pattern += t == "full" ? 'F' : 'S';
    }
    if (pattern.size() != layers || pattern.find_first_not_of("FS") != std::string::npos)
      AICB_THROW(
          config_error("index_topk_pattern", p->dump().substr(0, 200),
                       "expected one F (full) or S (shared) per layer (" + std::to_string(layers) + ")"));
  } else {
    const std::uint64_t freq = std::max<std::uint64_t>(r.optional("index_topk_freq", 1), 1);
    const std::uint64_t offset = r.optional("index_skip_topk_offset", 2);
    for (std::uint64_t i = 0; i < layers; ++i)
      pattern += (i + 1 > offset ? i + 1 - offset : 0) % freq == 0 ? 'F' : 'S';
  }
  for (const char* key : {"rope_parameters", "rope_interleave", "dtype"})
    r.peek(key);  // the rotary frequencies and layout, the checkpoint's format: no change to cost
  if (pattern.find('S') == std::string::npos) return;  // every layer runs its own indexer
  if (pattern.size() >= sizeof(layer_pattern_text{}.data))
    AICB_THROW(config_error("num_hidden_layers", std::to_string(layers),
                            "a shared-indexer pattern holds at most " +
                                std::to_string(sizeof(layer_pattern_text{}.data) - 1) + " layers"));
  m.indexer_pattern = layer_pattern_text::from(pattern);
}

}  // namespace detail

/// Builds a model from a parsed config.json. `source` names it in errors.
[[nodiscard]] inline hf_import from_hf_config(const nlohmann::json& config,
                                              std::string source = "config.json",
                                              hf_import_options options = {}) {
  detail::hf_reader r(config, source);
  const std::string type = r.text("model_type", "");
  if (type == "llama4") {
    // Llama 4's checkpoints are multimodal: the language model is text_config (llama4_text), which is
    // what aicb describes; the vision encoder and its projector (vision_config) are not part of the job.
    const nlohmann::json* text = r.peek("text_config");
    if (!text || !text->is_object())
      AICB_THROW(config_error("text_config", text ? text->dump().substr(0, 80) : "(missing)",
                              "a llama4 config holds its language model in text_config"));
    for (const char* key : {"vision_config", "boi_token_index", "eoi_token_index", "image_token_index"})
      r.peek(key);
    nlohmann::json language = *text;
    language["model_type"] = "llama4_text";
    if (const nlohmann::json* tied = r.peek("tie_word_embeddings");
        tied && !language.contains("tie_word_embeddings"))
      language["tie_word_embeddings"] = *tied;
    r.finish(type, options.allow_unknown_keys);
    hf_import inner = from_hf_config(language, source + " (text_config)", options);
    return inner;
  }
  static constexpr std::array<std::string_view, 17> supported{
      "llama",     "mistral",     "mixtral",     "qwen2",       "qwen2_moe",    "qwen3",
      "qwen3_moe", "qwen3_next",  "deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2",
      "glm4_moe",  "glm_moe_dsa", "gpt_oss",     "nemotron_h",  "llama4_text"};
  if (std::find(supported.begin(), supported.end(), type) == supported.end())
    AICB_THROW(
        config_error("model_type", type.empty() ? "(missing)" : type,
                     "supported model types: llama, llama4 (its text_config), llama4_text, mistral, "
                     "mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, qwen3_next, deepseek_v2, deepseek_v3, "
                     "deepseek_v32, kimi_k2, glm4_moe, glm_moe_dsa, gpt_oss, nemotron_h"));
  // Kimi K2 is DeepSeek-V3's architecture under its own model_type (Moonshot's model card); DeepSeek-V3.2
  // is V3's with DeepSeek sparse attention; GLM-5 (glm_moe_dsa) is V3.2's with its own sizes and, from
  // GLM-5.2 on, indexers shared between layers.
  const bool glm5 = type == "glm_moe_dsa";
  const bool deepseek =
      type == "deepseek_v2" || type == "deepseek_v3" || type == "deepseek_v32" || type == "kimi_k2" || glm5;
  model_spec m;
  m.name = spec_name::from(type);
  m.hidden_size = r.required("hidden_size");
  m.num_layers = r.required("num_hidden_layers");
  m.num_attention_heads = r.required("num_attention_heads");
  m.num_kv_heads = r.optional("num_key_value_heads", m.num_attention_heads);
  m.head_dim = r.optional("head_dim", 0);
  m.ffn_hidden_size = r.required("intermediate_size");
  m.vocab_size = r.required("vocab_size");
  m.max_position_embeddings = r.optional("max_position_embeddings", 0);
  m.norm = norm_kind::rmsnorm;
  m.position = position_kind::rope;
  m.tied_embeddings = r.flag("tie_word_embeddings", false);
  const bool nemotron_h = type == "nemotron_h";
  const std::string act_key = nemotron_h ? "mlp_hidden_act" : "hidden_act";
  const std::string act = r.text(act_key, nemotron_h ? "relu2" : "silu");
  if (act == "silu" || act == "swiglu")
    m.activation = activation_kind::swiglu;
  else if (act.rfind("gelu", 0) == 0)
    m.activation = activation_kind::gelu;
  else if (act == "relu2")
    m.activation = activation_kind::squared_relu;
  else
    AICB_THROW(
        config_error(act_key, act, "supported activations: silu (SwiGLU), gelu, relu2 (squared ReLU)"));

  const bool attention_bias = r.flag("attention_bias", false), mlp_bias = r.flag("mlp_bias", false);
  if (type == "gpt_oss") {
    // Biases on q, k, v, o, on the router and on every expert: one bias on every linear layer.
    if (!attention_bias)
      AICB_THROW(config_error("attention_bias", "false",
                              "GPT-OSS without attention biases is not a GPT-OSS model aicb knows"));
    m.linear_bias = true;
  } else if (type == "glm4_moe") {
    // GLM-4.5's attention_bias biases q, k and v only (its o_proj and MLPs have none).
    if (mlp_bias) AICB_THROW(config_error("mlp_bias", "true", "GLM-4.5's MLPs have no biases"));
    m.qkv_bias = attention_bias;
  } else if (attention_bias && mlp_bias)
    m.linear_bias = true;
  else if (attention_bias || mlp_bias)
    AICB_THROW(
        config_error(attention_bias ? "attention_bias" : "mlp_bias", "true",
                     "biases on attention only or on the MLP only are not modelled; set linear_bias or "
                     "qkv_bias explicitly"));
  if (type == "qwen2" || type == "qwen2_moe") m.qkv_bias = true;  // Qwen2 always biases q, k, v
  if (type == "qwen3" || type == "qwen3_moe" || type == "qwen3_next")
    m.qk_norm = true;  // Qwen3 always normalises q, k heads

  // A sliding window: Mistral's on every layer (null: none); Qwen's only when use_sliding_window is
  // set, with its per-layer rule (not modelled); GPT-OSS's on the layers layer_types names.
  const nlohmann::json* window = r.peek("sliding_window");
  const bool qwen = type.rfind("qwen", 0) == 0;
  const bool use_window = r.flag("use_sliding_window", !qwen);
  if (window && !window->is_null() && use_window) {
    if (qwen)
      AICB_THROW(
          config_error("use_sliding_window", "true",
                       "Qwen's sliding window (on the layers from max_window_layers on) is not modelled"));
    m.sliding_window = r.required("sliding_window");
  }

  if (nemotron_h) {
    // Its attention layers have no position encoding (Megatron-Bridge's conversion sets
    // position_embedding_type "none"): the Mamba-2 layers carry the order.
    m.position = position_kind::none;
    // One block per layer from hybrid_override_pattern: Mamba-2 (M), attention (*), MLP (-), experts (E).
    const std::string pattern = r.text("hybrid_override_pattern", "");
    if (pattern.empty())
      AICB_THROW(config_error("hybrid_override_pattern", "(missing)",
                              "a nemotron_h config needs its layer pattern"));
    if (pattern.size() >= sizeof(layer_pattern_text{}.data))
      AICB_THROW(
          config_error("hybrid_override_pattern", std::to_string(pattern.size()) + " layers",
                       "at most " + std::to_string(sizeof(layer_pattern_text{}.data) - 1) + " layers"));
    m.layer_pattern = layer_pattern_text::from(pattern);
    m.mamba_num_heads = r.required("mamba_num_heads");
    m.mamba_head_dim = r.required("mamba_head_dim");
    m.mamba_state_dim = r.required("ssm_state_size");
    m.mamba_num_groups = r.required("n_groups");
    m.mamba_conv_kernel = r.required("conv_kernel");
    m.mamba_chunk_size = r.optional("chunk_size", 128);
    r.peek("expand");  // the heads define the inner width; expand is only its ratio to hidden_size
    if (r.flag("mamba_proj_bias", false))
      AICB_THROW(
          config_error("mamba_proj_bias", "true", "biases on the Mamba-2 projections are not modelled"));
    if (!r.flag("use_conv_bias", true))
      AICB_THROW(
          config_error("use_conv_bias", "false", "a Mamba-2 convolution without bias is not modelled"));
    if (const std::string mamba_act = r.text("mamba_hidden_act", "silu"); mamba_act != "silu")
      AICB_THROW(config_error("mamba_hidden_act", mamba_act, "Mamba-2 is modelled with silu"));
    if (r.flag("use_bias", false))
      AICB_THROW(
          config_error("use_bias", "true", "biases on every linear layer of nemotron_h are not modelled"));
    // The serving state's format: FP32 as Nemotron's configs ask, or the activations' (BF16/FP16).
    if (const std::string cache = r.text("mamba_ssm_cache_dtype", "auto"); cache == "float32")
      m.mamba_state_fp32 = true;
    else if (cache != "auto" && cache != "bfloat16" && cache != "float16")
      AICB_THROW(config_error("mamba_ssm_cache_dtype", cache,
                              "the Mamba-2 state is modelled in float32, bfloat16 or float16 (or auto)"));
    for (const char* key :
         {"use_mamba_kernels", "time_step_min", "time_step_max", "time_step_floor", "time_step_limit",
          "rescale_prenorm_residual", "residual_in_fp32", "num_logits_to_keep", "norm_eps",
          "layer_norm_epsilon", "partial_rotary_factor", "n_group", "moe_shared_expert_overlap", "dtype"})
      r.peek(key);  // kernels, caches, initialisation and numerics: no change to shapes or cost
    if (const std::uint64_t experts = r.optional("n_routed_experts", 0); experts > 0) {
      m.num_experts = experts;
      m.moe_top_k = r.required("num_experts_per_tok");
      m.moe_ffn_hidden_size = r.required("moe_intermediate_size");
      m.num_shared_experts = r.optional("n_shared_experts", 0);
      if (m.num_shared_experts > 0)
        m.shared_expert_ffn_hidden_size =
            r.required("moe_shared_expert_intermediate_size") / m.num_shared_experts;
      m.moe_router_bias = true;  // sigmoid scores with DeepSeek-V3's score-correction bias
      read_router_groups(r, m);
      m.moe_latent_size = r.optional("moe_latent_size", 0);  // Nemotron 3 Super's latent experts
    }
    // Multi-token prediction: each module one attention block and one MLP block — experts when the
    // model has them ("*E", Nemotron 3 Super), else a dense MLP ("*-").
    if (m.num_mtp_layers = r.optional("num_nextn_predict_layers", 0); m.num_mtp_layers > 0) {
      const std::string expected = m.num_experts > 0 ? "*E" : "*-";
      if (const std::string mtp = r.text("mtp_hybrid_override_pattern", expected); mtp != expected)
        AICB_THROW(config_error("mtp_hybrid_override_pattern", mtp,
                                "a multi-token-prediction module is modelled as " + expected +
                                    " (an attention block, then the model's MLP block)"));
    } else {
      r.peek("mtp_hybrid_override_pattern");
    }
  } else if (type == "gpt_oss") {
    m.num_experts = r.required("num_local_experts");
    m.moe_top_k = r.required("num_experts_per_tok");
    m.moe_ffn_hidden_size = m.ffn_hidden_size;
    m.attention_sinks = true;
    // layer_types alternates sliding_attention and full_attention, sliding first: every second layer
    // is full. Any other list is refused, naming it.
    const nlohmann::json* types = r.peek("layer_types");
    m.sliding_window_pattern = 2;
    bool alternating = types && types->is_array() && types->size() == m.num_layers;
    for (std::size_t i = 0; alternating && i < types->size(); ++i) {
      const auto& t = (*types)[i];
      alternating =
          t.is_string() && t.get<std::string>() == (i % 2 == 0 ? "sliding_attention" : "full_attention");
    }
    if (!alternating)
      AICB_THROW(config_error("layer_types", types ? types->dump().substr(0, 200) : "(missing)",
                              "GPT-OSS's layout is modelled as it is published: sliding_attention and "
                              "full_attention alternating, sliding first, one entry per layer"));
    if (m.sliding_window == 0)
      AICB_THROW(config_error("sliding_window", "(missing)", "GPT-OSS's sliding layers need sliding_window"));
  } else if (type == "llama4_text") {
    detail::llama4_text(r, m);
  } else if (type == "mixtral") {
    m.num_experts = r.required("num_local_experts");
    m.moe_top_k = r.required("num_experts_per_tok");
    m.moe_ffn_hidden_size = m.ffn_hidden_size;
  } else if (type == "qwen2_moe" || type == "qwen3_moe" || type == "qwen3_next") {
    m.num_experts = r.required("num_experts");
    m.moe_top_k = r.required("num_experts_per_tok");
    m.moe_ffn_hidden_size = r.required("moe_intermediate_size");
    if (const std::uint64_t step = r.optional("decoder_sparse_step", 1); step != 1)
      AICB_THROW(config_error("decoder_sparse_step", std::to_string(step),
                              "only every-layer MoE (decoder_sparse_step = 1) is modelled"));
    if (const auto* only = r.peek("mlp_only_layers"); only && !(only->is_array() && only->empty()))
      AICB_THROW(
          config_error("mlp_only_layers", only->dump(), "dense layers among MoE layers are not modelled"));
    if (type == "qwen2_moe" || type == "qwen3_next") {  // one shared expert, scaled by a sigmoid gate
      m.shared_expert_ffn_hidden_size = r.required("shared_expert_intermediate_size");
      m.num_shared_experts = m.shared_expert_ffn_hidden_size > 0 ? 1 : 0;
      m.shared_expert_gate = m.num_shared_experts > 0;
    }
    if (type == "qwen3_next") {  // Gated DeltaNet layers with gated softmax attention every N-th
      m.attention_output_gate = true;
      m.full_attention_interval = r.required("full_attention_interval");
      m.linear_num_key_heads = r.required("linear_num_key_heads");
      m.linear_num_value_heads = r.required("linear_num_value_heads");
      m.linear_key_head_dim = r.required("linear_key_head_dim");
      m.linear_value_head_dim = r.required("linear_value_head_dim");
      m.linear_conv_kernel_dim = r.required("linear_conv_kernel_dim");
      r.peek("partial_rotary_factor");  // the rotary share: the rotary passes are priced over whole heads
      // An explicit per-layer list must be the pattern the interval describes.
      if (const auto* types = r.peek("layer_types"); types && !types->is_null()) {
        bool pattern = types->is_array() && types->size() == m.num_layers;
        for (std::size_t i = 0; pattern && i < types->size(); ++i) {
          const auto& t = (*types)[i];
          const bool linear = m.full_attention_interval > 1 && (i + 1) % m.full_attention_interval != 0;
          pattern = t.is_string() && t.get<std::string>() == (linear ? "linear_attention" : "full_attention");
        }
        if (!pattern)
          AICB_THROW(config_error("layer_types", types->dump().substr(0, 200),
                                  "only the layout of full_attention_interval is modelled (linear_attention, "
                                  "then full_attention every full_attention_interval-th layer)"));
      }
    }
  } else if (deepseek || type == "glm4_moe") {
    // DeepSeek's experts: fine-grained, with shared experts, leading dense layers and MTP modules.
    m.num_experts = r.required("n_routed_experts");
    m.moe_top_k = r.required("num_experts_per_tok");
    m.moe_ffn_hidden_size = r.required("moe_intermediate_size");
    m.num_shared_experts = r.optional("n_shared_experts", 0);
    m.first_dense_layers = r.optional("first_k_dense_replace", glm5 ? 3 : 0);  // GLM-5's default: 3
    m.num_mtp_layers = r.optional("num_nextn_predict_layers", 0);
    if (const std::uint64_t freq = r.optional("moe_layer_freq", 1); freq != 1)
      AICB_THROW(config_error("moe_layer_freq", std::to_string(freq), "only moe_layer_freq = 1 is modelled"));
    if (deepseek) {  // multi-head latent attention
      m.q_lora_rank = r.optional("q_lora_rank", 0);
      m.kv_lora_rank = r.required("kv_lora_rank");
      m.qk_nope_head_dim = r.required("qk_nope_head_dim");
      m.qk_rope_head_dim = r.required("qk_rope_head_dim");
      m.v_head_dim = r.required("v_head_dim");
      const std::string method = r.text("topk_method", "greedy");
      m.moe_router_bias = method == "noaux_tc";  // V3's e_score_correction_bias
      // Group-limited routing (V2's group_limited_greedy, V3's noaux_tc): a token's experts from
      // topk_group of n_group groups.
      if (method == "group_limited_greedy" || method == "noaux_tc") read_router_groups(r, m);
      if (type == "deepseek_v32" || glm5) {  // DeepSeek sparse attention: the lightning indexer, its top-k
        m.sparse_attention_topk = r.required("index_topk");
        m.indexer_heads = r.required("index_n_heads");
        m.indexer_head_dim = r.required("index_head_dim");
      }
      if (glm5) read_glm5_layout(r, m);
    } else {
      // GLM-4.5: on grouped-query attention, its router always with the score-correction bias
      // (transformers' modeling_glm4_moe.py).
      m.moe_router_bias = true;
      read_router_groups(r, m);
      m.qk_norm = r.flag("use_qk_norm", false);
      r.peek("partial_rotary_factor");  // the rotary share: the rotary passes are priced over whole heads
    }
  }
  if (m.position == position_kind::rope)
    m.rope_attention_factor = detail::yarn_attention_factor(r.peek("rope_scaling"));
  hf_import result{m, r.finish(type, options.allow_unknown_keys)};
  validate(result.model);
  return result;
}

/// Parses and imports config.json text; `source` names it in errors. parse_error (with line and
/// column) when it is not JSON, or holds a number no parser can hold ("1e400"); config_error when its
/// keys do not describe a supported model.
[[nodiscard]] inline hf_import parse_hf_config(std::string_view text,
                                               const std::string& source = "config.json",
                                               hf_import_options options = {}) {
  // 1-based line and column of byte `offset`.
  const auto position = [&](std::size_t offset) {
    offset = std::min(offset, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i)
      text[i] == '\n' ? (++line, column = 1) : ++column;
    return std::pair{line, column};
  };
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, column] = position(e.byte == 0 ? 0 : e.byte - 1);
    AICB_THROW(parse_error(source, line, column, std::string("not valid JSON: ") + e.what()));
  } catch (const nlohmann::json::exception& e) {
    // A number beyond what JSON parsers hold ("1e400"): located by the text the message quotes.
    const std::string message = e.what();
    const std::size_t quote = message.find('\'');
    const std::string token = quote == std::string::npos
                                  ? std::string()
                                  : message.substr(quote + 1, message.find('\'', quote + 1) - quote - 1);
    const std::size_t at = token.empty() ? std::string_view::npos : text.find(token);
    const auto [line, column] = position(at == std::string_view::npos ? 0 : at);
    AICB_THROW(parse_error(source, line, column, "not a usable JSON value: " + message));
  }
  return from_hf_config(config, source, options);
}

/// Reads and imports a config.json file. Throws io_error when it cannot be read (or is not a
/// regular file, or is larger than 16 MiB), otherwise as parse_hf_config.
///
/// `path` may name the model's directory (a checkpoint as downloaded): its config.json is read.
/// The model is named for what the user knows it by — `_name_or_path`'s last component, else the
/// directory of a file named config.json, else the file's name without .json — and model_type
/// only when none of these is a usable name.
[[nodiscard]] inline hf_import load_hf_config(const std::string& path, hf_import_options options = {}) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool directory = fs::is_directory(path, ec);
  const std::string file = directory ? (fs::path(path) / "config.json").string() : path;
  if (directory && !fs::exists(fs::path(file), ec))
    AICB_THROW(io_error(path, "is a directory without a config.json (give the model's folder or the file)"));
  // A config.json is a few KiB; 16 MiB bounds what a wrong file costs.
  const detail::file_prefix in = detail::read_file_prefix(file, 16 << 20, "a Hugging Face config.json");
  if (!in.whole) AICB_THROW(io_error(file, "is larger than 16 MiB: not a Hugging Face config.json"));
  hf_import imported = parse_hf_config(in.text, file, options);
  std::string name;
  try {
    const nlohmann::json config = nlohmann::json::parse(in.text);
    if (const auto it = config.find("_name_or_path"); it != config.end() && it->is_string())
      name = fs::path(it->get<std::string>()).filename().string();
  } catch (const nlohmann::json::exception&) {
  }
  const fs::path as_given = fs::absolute(fs::path(file), ec).lexically_normal();
  if (name.empty() && as_given.filename() == "config.json") name = as_given.parent_path().filename().string();
  if (name.empty() || name == "config") name = fs::path(file).stem().string();
  const bool usable = !name.empty() && name.size() < sizeof(spec_name{}.data) && name != "config" &&
                      name.find_first_of(" \t\r\n/\\") == std::string::npos;
  if (usable) imported.model.name = spec_name::from(name);
  return imported;
}

AICB_END_NAMESPACE
