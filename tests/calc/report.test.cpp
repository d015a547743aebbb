// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/report.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

TEST_CASE("report: the JSON carries resolved descriptors and every calculator's result", "[calc][report]") {
  const aicb::job_spec job{
      aicb::presets::llama2_7b,
      {.world_size = 64, .tensor_parallel = 2, .pipeline_parallel = 2, .sequence_parallel = true},
      {.global_batch = 256, .seq_length = 4096}};
  const auto j = aicb::describe_job(job);
  CHECK(j["model"]["head_dim"] == 128);
  CHECK(j["model"]["activation"] == "swiglu");
  CHECK(j["derived"]["data_parallel"] == 16);
  CHECK(j["derived"]["microbatches"] == 16);
  CHECK(j["parameters"]["total"] == aicb::count_params(job.model).total());
  CHECK(j["parameters"]["per_gpu"].size() == 2);
  CHECK(j["flops"]["model"].get<double>() == Approx(aicb::training_flops(job).model()));
  CHECK(j["memory_per_gpu"][1]["total"] == aicb::memory_per_gpu(job, 1).total().count());
  CHECK(j["traffic_per_gpu"][0]["tp"] == aicb::comm_volume(job, 0).tp.count());
  const std::string text = aicb::format_description(j);
  CHECK_THAT(text, Catch::Contains("model llama2-7b"));
  CHECK_THAT(text, Catch::Contains("data parallel                   16"));
  CHECK_THAT(text, Catch::Contains("6738415616"));
}

TEST_CASE("report: an invalid job is refused with the rule", "[calc][report]") {
  const aicb::job_spec job{aicb::presets::llama2_7b, {.world_size = 10, .tensor_parallel = 5}, {}};
  CHECK_THROWS_WITH(aicb::describe_job(job),
                    Catch::Contains("tensor_parallel must divide num_attention_heads"));
}
