// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::serving_spec — one inference step of a served model, as serving engines lay it out
/// (SGLang, vLLM; docs/inference.md): the phase (prefill of whole prompts, or decode of one token —
/// plus speculative drafts — per request against its KV cache), the batch and lengths, and the
/// parallel layout: attention over tensor parallelism within data-parallel attention groups
/// (DP-attention: each group its own requests and KV cache), experts over expert parallelism across
/// all GPUs (DeepEP dispatch and combine) or sharded over TP with the attention.
///
/// ```cpp
/// aicb::serving_spec s{.phase = aicb::inference_phase::decode, .batch = 256, .context = 4096,
///                      .attention_data_parallel = 8, .expert_parallel = 8};
/// aicb::validate_serving(aicb::presets::deepseek_v3, s);   // config_error naming the field and the rule
/// ```

#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/error.hpp>
#include <aicb/model/spec.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The two phases of serving a request.
enum class inference_phase : std::uint8_t {
  prefill,  ///< the whole prompt at once: compute-bound
  decode,   ///< one new token per request (plus drafts) against the KV cache: memory-bound
};

template <>
struct enum_names<inference_phase> {
  static constexpr std::array<std::string_view, 2> value{"prefill", "decode"};
};

/// One inference step's batch and layout. See the file comment.
struct serving_spec {
  inference_phase phase = inference_phase::decode;
  std::uint64_t batch = 1;   ///< requests in the step, over all data-parallel attention groups
  std::uint64_t prompt = 0;  ///< prefill: tokens of each request's prompt
  std::uint64_t context =
      0;  ///< decode: tokens each request attends over (its KV cache, the new token included)
  std::uint64_t tensor_parallel = 1;          ///< attention (and dense MLP) tensor parallelism
  std::uint64_t attention_data_parallel = 1;  ///< DP-attention groups; GPUs = TP x this
  std::uint64_t expert_parallel = 1;  ///< 1: experts sharded over TP with the attention; else all GPUs
  dtype weights = dtype::bf16;        ///< weight format (fp8: DeepSeek-V3's native block-scaled FP8)
  dtype kv_cache = dtype::bf16;       ///< KV cache format
  bool fp8_dispatch = true;           ///< DeepEP: FP8 dispatch with a scale per 128 values, BF16 combine
  /// Decode: speculative tokens per request (MTP/EAGLE), verified in one step. Prefill: with any, the
  /// draft module also runs once over the prompt (its own KV cache, and the first draft from each
  /// request's last token), as engines run it after the decoder's prompt pass.
  std::uint64_t mtp_drafts = 0;
  /// The recurrent layers' state cache (Gated DeltaNet's, Mamba-2's): bf16 or fp32, as the engine
  /// keeps it. Unset: the model's — FP32 where its configuration says so (model_spec::mamba_state_fp32,
  /// Nemotron-H), BF16 otherwise, as vLLM keeps it; SGLang keeps it in FP32 whatever the model
  /// (its --mamba-ssm-dtype, float32 by default).
  std::optional<dtype> recurrent_state{};

  /// GPUs of the serving instance.
  [[nodiscard]] constexpr std::uint64_t gpus() const noexcept {
    return tensor_parallel * attention_data_parallel;
  }
  /// Requests on each DP-attention group.
  [[nodiscard]] constexpr std::uint64_t requests_per_group() const noexcept {
    return attention_data_parallel ? batch / attention_data_parallel : 0;
  }
  /// Tokens each request contributes to this step.
  [[nodiscard]] constexpr std::uint64_t tokens_per_request() const noexcept {
    return phase == inference_phase::prefill ? prompt : 1 + mtp_drafts;
  }
};

/// The format of `model`'s recurrent state in the serving layout `s` (serving_spec::recurrent_state).
[[nodiscard]] constexpr dtype recurrent_state_type(const model_spec& model, const serving_spec& s) noexcept {
  return s.recurrent_state ? *s.recurrent_state : model.mamba_state_fp32 ? dtype::fp32 : dtype::bf16;
}

/// The most speculative tokens a decode step verifies per request (serving_spec::mtp_drafts).
inline constexpr std::uint64_t max_mtp_drafts = 256;

/// Refuses, naming the field, the value and the rule, a layout that cannot serve `model`.
inline void validate_serving(const model_spec& model, const serving_spec& s) {
  const auto refuse = [](std::string_view field, std::uint64_t value, const std::string& rule) {
    AICB_THROW(config_error(std::string(field), std::to_string(value), rule));
  };
  if (model.hidden_size == 0 || model.num_layers == 0 || model.num_attention_heads == 0)
    AICB_THROW(
        config_error("model", std::string(model.name.view()), "needs hidden_size, num_layers and heads"));
  if (s.tensor_parallel == 0) refuse("tensor_parallel", 0, "must be at least 1");
  if (s.attention_data_parallel == 0) refuse("attention_data_parallel", 0, "must be at least 1");
  // Bounds that keep every product below 2^64 and every size a real step could have.
  constexpr std::uint64_t max_gpus = 1ULL << 31, max_tokens = 1ULL << 32;
  if (s.tensor_parallel > max_gpus / s.attention_data_parallel)
    refuse("attention_data_parallel", s.attention_data_parallel,
           "tensor_parallel x attention_data_parallel must be at most 2^31 GPUs");
  if (s.batch == 0) refuse("batch", 0, "a step serves at least one request");
  if (s.batch > max_tokens) refuse("batch", s.batch, "must be at most 2^32 requests");
  if (s.prompt > max_tokens) refuse("prompt", s.prompt, "must be at most 2^32 tokens");
  if (s.context > max_tokens) refuse("context", s.context, "must be at most 2^32 tokens");
  if (s.mtp_drafts > max_mtp_drafts)
    refuse("mtp_drafts", s.mtp_drafts,
           "must be at most " + std::to_string(max_mtp_drafts) +
               " speculative tokens per request (a step verifies a few drafts)");
  if (s.phase == inference_phase::decode && s.prompt != 0)
    refuse("prompt", s.prompt, "a decode step has no prompt: give the tokens attended over as context");
  if (s.phase == inference_phase::prefill && s.context != 0)
    refuse("context", s.context, "a prefill step reads no KV cache: give the prompt length as prompt");
  if (s.tokens_per_request() > (1ULL << 40) / s.batch)
    refuse("batch", s.batch,
           "batch x tokens per request (" + std::to_string(s.tokens_per_request()) +
               ") must be at most 2^40 tokens in one step");
  if (s.batch % s.attention_data_parallel != 0)
    refuse("batch", s.batch,
           "must be a multiple of attention_data_parallel (" + std::to_string(s.attention_data_parallel) +
               "): each DP-attention group serves its own requests");
  if (s.phase == inference_phase::prefill && s.prompt == 0)
    refuse("prompt", 0, "prefill needs the prompt length");
  if (s.phase == inference_phase::decode && s.context == 0)
    refuse("context", 0, "decode needs the context length (the KV cache each request attends over)");
  if (model.num_attention_heads % s.tensor_parallel != 0)
    refuse("tensor_parallel", s.tensor_parallel,
           "must divide num_attention_heads (" + std::to_string(model.num_attention_heads) + ")");
  if (model.full_attention_interval > 1 && model.linear_num_key_heads % s.tensor_parallel != 0)
    refuse("tensor_parallel", s.tensor_parallel,
           "must divide linear_num_key_heads (" + std::to_string(model.linear_num_key_heads) +
               "): the linear-attention heads are split over TP");
  if (model.pattern_count('M') > 0 &&
      (model.mamba_num_heads % s.tensor_parallel != 0 || model.mamba_num_groups % s.tensor_parallel != 0))
    refuse("tensor_parallel", s.tensor_parallel,
           "must divide mamba_num_heads (" + std::to_string(model.mamba_num_heads) +
               ") and mamba_num_groups (" + std::to_string(model.mamba_num_groups) +
               "): the Mamba-2 heads and groups are split over TP");
  if (s.recurrent_state) {
    const std::string format(to_string(*s.recurrent_state));
    if (*s.recurrent_state != dtype::bf16 && *s.recurrent_state != dtype::fp32)
      AICB_THROW(config_error("recurrent_state", format, "expected bf16 or fp32"));
    if (!model.is_hybrid() && model.pattern_count('M') == 0)
      AICB_THROW(config_error("recurrent_state", format,
                              "the model keeps no recurrent state (no Gated DeltaNet or Mamba-2 layers)"));
  }
  const bool moe = model.num_experts > 0;
  if (s.expert_parallel != 1 && s.expert_parallel != s.gpus())
    refuse("expert_parallel", s.expert_parallel,
           "must be 1 (experts sharded over TP) or every GPU (" + std::to_string(s.gpus()) +
               " = tensor_parallel x attention_data_parallel): partial expert groups are not modelled");
  if (s.expert_parallel > 1 && !moe) refuse("expert_parallel", s.expert_parallel, "the model has no experts");
  if (moe && model.num_experts % s.expert_parallel != 0)
    refuse("expert_parallel", s.expert_parallel,
           "must divide num_experts (" + std::to_string(model.num_experts) + ")");
}

AICB_END_NAMESPACE
