// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/commands/describe_serving.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>

TEST_CASE("describe serving: decode on an H100 is memory-bound, prefill compute-bound",
          "[commands][serving]") {
  const aicb::roofline_model h100("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  const aicb::serving_spec decode{.phase = aicb::inference_phase::decode,
                                  .batch = 64,
                                  .context = 2048,
                                  .tensor_parallel = 4,
                                  .attention_data_parallel = 2,
                                  .expert_parallel = 8};
  const aicb::serving_report d = aicb::describe_serving(aicb::presets::qwen3_235b_a22b, decode, h100, c);
  CHECK(d.intensity < d.ridge);
  // The roofline's time is the step's bytes at the achievable bandwidth, plus the kernels' launches
  // and the lower bandwidth of norms and activations: within 30% above it, never below.
  CHECK(d.compute_us >= d.memory_bound_us);
  CHECK(d.compute_us <= 1.3 * d.memory_bound_us);
  CHECK(d.memory_bound_us == Approx(d.bytes / (3350e9 * 0.88) * 1e6));
  CHECK(d.step_us == Approx(d.compute_us + d.communication_us));
  CHECK(d.time_per_output_token_ms == Approx(d.step_us / 1000));
  CHECK(d.tokens_per_s_per_gpu == Approx(64 / (d.step_us * 1e-6) / 8));
  // Memory: weights plus as many 2048-token requests as fit in 90% of the H100's 81,559 MiB (what
  // its driver reports), per group, both groups.
  const double per_request = 2048.0 * 2 * 128 * 2 * 94;
  CHECK(d.max_batch ==
        static_cast<std::uint64_t>((0.9 * 81559 * 1048576.0 - d.weight_bytes) / per_request) * 2);
  const aicb::serving_spec prefill{.phase = aicb::inference_phase::prefill,
                                   .batch = 2,
                                   .prompt = 8192,
                                   .tensor_parallel = 4,
                                   .attention_data_parallel = 2,
                                   .expert_parallel = 8};
  const aicb::serving_report p = aicb::describe_serving(aicb::presets::qwen3_235b_a22b, prefill, h100, c);
  CHECK(p.intensity > p.ridge);
  CHECK(p.compute_us > 2 * p.memory_bound_us);
  CHECK(p.time_per_output_token_ms == 0);
}

TEST_CASE("describe serving: text and JSON say the same", "[commands][serving]") {
  const aicb::serving_spec s{.phase = aicb::inference_phase::decode,
                             .batch = 256,
                             .context = 4096,
                             .attention_data_parallel = 8,
                             .expert_parallel = 8,
                             .weights = aicb::dtype::fp8};
  const aicb::serving_report r = aicb::describe_serving(
      aicb::presets::deepseek_v3, s, aicb::roofline_model("H200"), aicb::cluster_preset("dgx-h200"));
  const nlohmann::json j = nlohmann::json::parse(aicb::to_json(r));
  CHECK(j["schema"] == "aicb.serving/1");
  CHECK(j["per_gpu"]["kv_bytes_per_token"] == 70272);
  CHECK(j["per_gpu"]["weights"] == r.weights);
  CHECK(j["step"]["step_us"].get<double>() == Approx(r.step_us));
  const std::string text = aicb::format_serving(r);
  CHECK(text.find("70272 B") != std::string::npos);
  CHECK(text.find("memory-bound") != std::string::npos);
  CHECK(text.find("FP8 dispatch") != std::string::npos);
  // Weights that do not fit are said.
  const aicb::serving_report big = aicb::describe_serving(
      aicb::presets::deepseek_v3, s, aicb::roofline_model("H800"), aicb::cluster_preset("h800"));
  CHECK(big.max_batch == 0);
  CHECK(aicb::format_serving(big).find("the weights alone do not fit") != std::string::npos);
}

TEST_CASE("describe serving: the overhead-free ceiling is not below DeepSeek's published serving",
          "[commands][serving]") {
  // docs/inference.md: DeepSeek-V3 with its 32 redundant experts (288 physical) on H800 nodes.
  aicb::model_spec deployed = aicb::presets::deepseek_v3;
  deployed.num_experts = 288;
  const aicb::roofline_model h800("H800");
  const aicb::cluster_spec& c = aicb::cluster_preset("h800");
  // Decode, EP 144 / DP-attention 144: 14.8k output tokens/s per node published (88 requests per GPU,
  // context 4,989, one MTP draft).
  const aicb::serving_spec decode{.phase = aicb::inference_phase::decode,
                                  .batch = 144 * 88,
                                  .context = 4989,
                                  .attention_data_parallel = 144,
                                  .expert_parallel = 144,
                                  .weights = aicb::dtype::fp8,
                                  .mtp_drafts = 1};
  const aicb::serving_report d = aicb::describe_serving(deployed, decode, h800, c);
  CHECK(8 * d.overlapped_tokens_per_s_per_gpu >= 14800);
  CHECK(d.overlapped_step_us == Approx(std::max(d.compute_us, d.communication_us)));
  // Prefill, EP 32 / DP-attention 32: 73.7k input tokens/s per node, 56.3% of them cache hits.
  const aicb::serving_spec prefill{.phase = aicb::inference_phase::prefill,
                                   .batch = 128,
                                   .prompt = 4096,
                                   .attention_data_parallel = 32,
                                   .expert_parallel = 32,
                                   .weights = aicb::dtype::fp8};
  const aicb::serving_report p = aicb::describe_serving(deployed, prefill, h800, c);
  CHECK(8 * p.overlapped_tokens_per_s_per_gpu >= 73700 * (1 - 0.563));
}
