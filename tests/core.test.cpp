// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The light header alone describes, sizes and costs a job.
#include <aicb/core.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

TEST_CASE("core.hpp: a job described, sized and costed with the light header alone", "[umbrella]") {
  constexpr aicb::job_spec job{aicb::presets::llama2_7b,
                               {.world_size = 64, .tensor_parallel = 2, .pipeline_parallel = 2},
                               {.micro_batch = 1, .global_batch = 256, .seq_length = 4096}};
  STATIC_REQUIRE(aicb::validate(job));
  STATIC_REQUIRE(aicb::data_parallel(job) == 16);
  const aicb::job_report r = aicb::describe_job(job);
  CHECK(r.params.total() > 6'000'000'000ull);
  CHECK(r.params.total() < 7'000'000'000ull);
  CHECK(r.stages.size() == 2);
  CHECK(r.data_parallel == 16);
  // A model by size: the calculators and the sizing rules are both here.
  const aicb::model_spec sized = aicb::shape_for_size(aicb::model_family::llama, 13'000'000'000ull);
  const std::uint64_t params = aicb::count_params(sized, 2048).total();
  CHECK(params > 12'700'000'000ull);
  CHECK(params < 13'300'000'000ull);
}
