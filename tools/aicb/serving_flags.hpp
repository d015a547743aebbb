// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The flags of a serving step (aicb::serving_spec) that `aicb describe --phase` and `aicb inference`
// share; each command adds the model, TP, EP and the machines its own way.
#pragma once

#include <aicb/dtype.hpp>
#include <aicb/error.hpp>
#include <aicb/model/serving.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace aicb_tool {

// The recurrent state flag's help and value (aicb::serving_spec::recurrent_state; empty: the model's).
inline constexpr const char* recurrent_state_help =
    "the recurrent layers' state cache (Gated DeltaNet, Mamba-2): bf16 | fp32 (default: the model's; SGLang "
    "keeps fp32)";
inline void set_recurrent_state(aicb::serving_spec& s, const std::string& text) {
  if (!text.empty()) s.recurrent_state = text == "fp32" ? aicb::dtype::fp32 : aicb::dtype::bf16;
}

// A weight or KV-cache format flag's value (`field` names it in the error): bf16, fp16 or fp8.
inline aicb::dtype parse_serving_format(const std::string& field, const std::string& text) {
  const auto t = aicb::from_string<aicb::dtype>(text);
  if (!t || (*t != aicb::dtype::bf16 && *t != aicb::dtype::fp8 && *t != aicb::dtype::fp16))
    throw aicb::config_error(field, text, "expected bf16 | fp16 | fp8");
  return *t;
}

struct serving_flags {
  std::string phase, weights = "bf16", kv_cache = "bf16", dispatch = "fp8", recurrent_state;
  std::uint64_t batch = 1, prompt = 0, context = 0, dp_attention = 1, mtp_drafts = 0;
  double memory_fraction = 0.9;

  void add_to(CLI::App& command) {
    const char* group = "serving (with --phase)";
    command.add_option("--phase", phase, "describe or write one serving step: prefill | decode")
        ->check(CLI::IsMember({"prefill", "decode"}))
        ->group(group);
    command.add_option("--batch", batch, "requests in the step, over all DP-attention groups")
        ->capture_default_str()
        ->group(group);
    command.add_option("--prompt", prompt, "prefill: prompt tokens per request")->group(group);
    command.add_option("--context", context, "decode: tokens each request attends over (its KV cache)")
        ->group(group);
    command.add_option("--dp-attention", dp_attention, "data-parallel attention groups (GPUs = TP x this)")
        ->capture_default_str()
        ->group(group);
    command.add_option("--weights", weights, "weight format: bf16 | fp8")
        ->capture_default_str()
        ->group(group);
    command.add_option("--kv-cache", kv_cache, "KV cache format: bf16 | fp8")
        ->capture_default_str()
        ->group(group);
    command.add_option("--recurrent-state", recurrent_state, recurrent_state_help)
        ->check(CLI::IsMember({"bf16", "fp32"}))
        ->group(group);
    command
        .add_option("--dispatch", dispatch, "expert-parallel dispatch format: fp8 (DeepEP's default) | bf16")
        ->check(CLI::IsMember({"fp8", "bf16"}))
        ->capture_default_str()
        ->group(group);
    command
        .add_option(
            "--mtp-drafts", mtp_drafts,
            "decode: speculative tokens per request (MTP); prefill: the MTP module's pass over the prompt")
        ->group(group);
    command.add_option("--memory-fraction", memory_fraction, "share of GPU memory for weights and KV cache")
        ->capture_default_str()
        ->group(group);
  }

  [[nodiscard]] aicb::serving_spec spec(std::uint64_t tensor_parallel, std::uint64_t expert_parallel) const {
    aicb::serving_spec s;
    s.phase = phase == "prefill" ? aicb::inference_phase::prefill : aicb::inference_phase::decode;
    s.batch = batch;
    s.prompt = prompt;
    s.context = context;
    s.tensor_parallel = tensor_parallel;
    s.attention_data_parallel = dp_attention;
    s.expert_parallel = expert_parallel;
    s.weights = parse_serving_format("weights", weights);
    s.kv_cache = parse_serving_format("kv_cache", kv_cache);
    set_recurrent_state(s, recurrent_state);
    s.fp8_dispatch = dispatch == "fp8";
    s.mtp_drafts = mtp_drafts;
    return s;
  }
};

}  // namespace aicb_tool
