// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/presets.hpp>
#include <aicb/model/serving.hpp>

#include <catch2/catch.hpp>

#include <cstdint>

TEST_CASE("serving spec: GPUs, requests and tokens per group", "[model][serving]") {
  const aicb::serving_spec d{.phase = aicb::inference_phase::decode,
                             .batch = 96,
                             .context = 4096,
                             .tensor_parallel = 2,
                             .attention_data_parallel = 4,
                             .mtp_drafts = 1};
  CHECK(d.gpus() == 8);
  CHECK(d.requests_per_group() == 24);
  CHECK(d.tokens_per_request() == 2);  // the new token and one draft
  const aicb::serving_spec p{.phase = aicb::inference_phase::prefill, .batch = 4, .prompt = 8192};
  CHECK(p.tokens_per_request() == 8192);
  CHECK(aicb::to_string(p.phase) == "prefill");
}

TEST_CASE("serving spec: a layout that cannot serve the model is refused, naming the rule",
          "[model][serving]") {
  const auto refused = [](const aicb::model_spec& m, aicb::serving_spec s, const std::string& field,
                          const std::string& says) {
    CHECK_THROWS_WITH(aicb::validate_serving(m, s), Catch::StartsWith(field) && Catch::Contains(says));
  };
  const aicb::model_spec qwen = aicb::presets::qwen3_235b_a22b;
  const aicb::model_spec llama = aicb::presets::llama3_8b;
  refused(qwen, {.batch = 0, .context = 8}, "batch = 0", "at least one request");
  refused(qwen, {.batch = 6, .context = 8, .attention_data_parallel = 4}, "batch = 6",
          "multiple of attention_data_parallel");
  refused(qwen, {.batch = 8, .context = 8, .tensor_parallel = 3}, "tensor_parallel = 3",
          "num_attention_heads (64)");
  refused(qwen, {.batch = 8, .context = 8, .attention_data_parallel = 8, .expert_parallel = 3},
          "expert_parallel = 3", "every GPU (8");
  refused(llama, {.batch = 8, .context = 8, .attention_data_parallel = 8, .expert_parallel = 8},
          "expert_parallel = 8", "no experts");
  // Drafts in a prefill step: the draft module's pass over the prompt (aicb::inference_step).
  CHECK_NOTHROW(aicb::validate_serving(
      qwen, {.phase = aicb::inference_phase::prefill, .batch = 8, .prompt = 16, .mtp_drafts = 2}));
  // With expert parallelism a group's tokens are scattered over its TP ranks; a count that is not a
  // multiple of TP is padded (aicb::inference_step), not refused.
  CHECK_NOTHROW(aicb::validate_serving(
      qwen,
      {.batch = 2, .context = 8, .tensor_parallel = 4, .attention_data_parallel = 2, .expert_parallel = 8}));
  CHECK_NOTHROW(aicb::validate_serving(
      qwen,
      {.batch = 16, .context = 8, .tensor_parallel = 4, .attention_data_parallel = 2, .expert_parallel = 8}));
}

TEST_CASE("serving spec: sizes that would wrap or that a phase ignores are refused",
          "[model][serving][wrap]") {
  const auto refused = [](aicb::serving_spec s, const std::string& field, const std::string& says) {
    CHECK_THROWS_WITH(aicb::validate_serving(aicb::presets::llama3_8b, s),
                      Catch::StartsWith(field) && Catch::Contains(says));
  };
  constexpr std::uint64_t max = ~std::uint64_t{0};
  // 1 + drafts would wrap to 0 tokens per request.
  refused({.batch = 64, .context = 4096, .mtp_drafts = max}, "mtp_drafts = 18446744073709551615",
          "at most 256");
  refused({.batch = 64, .context = 4096, .mtp_drafts = 257}, "mtp_drafts = 257", "at most 256");
  CHECK_NOTHROW(aicb::validate_serving(aicb::presets::llama3_8b,
                                       {.batch = 64, .context = 4096, .mtp_drafts = aicb::max_mtp_drafts}));
  // TP x DP-attention would wrap.
  refused({.batch = 1ULL << 32,
           .context = 8,
           .tensor_parallel = 1ULL << 33,
           .attention_data_parallel = 1ULL << 31},
          "attention_data_parallel", "at most 2^31 GPUs");
  refused({.batch = max, .context = 8}, "batch", "at most 2^32");
  refused({.batch = 8, .context = max}, "context", "at most 2^32");
  refused({.phase = aicb::inference_phase::prefill, .batch = 1ULL << 20, .prompt = 1ULL << 21}, "batch",
          "at most 2^40 tokens");
  // A decode step has no prompt; a prefill reads no cache: silently ignoring either misleads.
  refused({.batch = 8, .prompt = 100, .context = 8}, "prompt = 100", "decode step has no prompt");
  refused({.phase = aicb::inference_phase::prefill, .batch = 8, .prompt = 16, .context = 8}, "context = 8",
          "prefill step reads no KV cache");
}
