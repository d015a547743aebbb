// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/report_format.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

TEST_CASE("report format: the JSON and the table carry the report's numbers", "[calc][report]") {
  const aicb::job_spec job{
      aicb::presets::llama2_7b,
      {.world_size = 64, .tensor_parallel = 2, .pipeline_parallel = 2, .sequence_parallel = true},
      {.global_batch = 256, .seq_length = 4096}};
  const auto r = aicb::describe_job(job);
  // The JSON is valid, complete and carries the same numbers (read back with a real JSON parser).
  const auto j = nlohmann::json::parse(aicb::to_json(r));
  CHECK(j["model"]["activation"] == "swiglu");
  CHECK(j["model"]["head_dim"] == 128);
  CHECK(j["parallel"]["sequence_parallel"] == true);
  CHECK(j["derived"]["data_parallel"] == 16);
  CHECK(j["parameters"]["total"] == r.params.total());
  CHECK(j["flops"]["model"].get<double>() == Approx(r.flops.model()));
  CHECK(j["stages"][1]["memory_per_gpu"]["total"] == r.stages[1].memory.total().count());
  CHECK(j["stages"][0]["traffic_per_gpu"]["tp"] == r.stages[0].comm.tp.count());

  const std::string text = aicb::format_description(r);
  CHECK_THAT(text, Catch::Contains("model llama2-7b"));
  CHECK_THAT(text, Catch::Contains("data parallel                   16"));
  CHECK_THAT(text, Catch::Contains("6738415616"));
  CHECK_THAT(text, Catch::Contains("sequence_parallel=true"));
}
