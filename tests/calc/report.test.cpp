// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/report.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

TEST_CASE("report: every calculator's result, for every stage", "[calc][report]") {
  const aicb::job_spec job{
      aicb::presets::llama2_7b,
      {.world_size = 64, .tensor_parallel = 2, .pipeline_parallel = 2, .sequence_parallel = true},
      {.global_batch = 256, .seq_length = 4096}};
  const auto r = aicb::describe_job(job);
  CHECK(r.job.model.head_dim == 128);  // resolved
  CHECK(r.data_parallel == 16);
  CHECK(r.microbatches == 16);
  CHECK(r.params.total() == aicb::count_params(job.model).total());
  REQUIRE(r.stages.size() == 2);
  CHECK(r.stages[1].memory.total() == aicb::memory_per_gpu(job, 1).total());
  CHECK(r.stages[0].comm.tp == aicb::comm_volume(job, 0).tp);
}

TEST_CASE("report: an invalid job is refused with the rule", "[calc][report]") {
  const aicb::job_spec job{aicb::presets::llama2_7b, {.world_size = 10, .tensor_parallel = 5}, {}};
  CHECK_THROWS_WITH(aicb::describe_job(job),
                    Catch::Contains("tensor_parallel must divide num_attention_heads"));
}
