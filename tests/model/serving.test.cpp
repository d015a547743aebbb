// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/presets.hpp>
#include <aicb/model/serving.hpp>

#include <catch2/catch.hpp>

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
  refused(qwen, {.phase = aicb::inference_phase::prefill, .batch = 8, .prompt = 16, .mtp_drafts = 2},
          "mtp_drafts", "decode");
  refused(
      qwen,
      {.batch = 2, .context = 8, .tensor_parallel = 4, .attention_data_parallel = 2, .expert_parallel = 8},
      "batch = 2", "multiple of tensor_parallel");
  CHECK_NOTHROW(aicb::validate_serving(
      qwen,
      {.batch = 16, .context = 8, .tensor_parallel = 4, .attention_data_parallel = 2, .expert_parallel = 8}));
}
