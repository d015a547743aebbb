// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/layout_planner.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <string>

namespace {

aicb::job_spec llama8b(std::uint64_t gpus) {
  return {aicb::presets::llama3_8b,
          {.world_size = gpus},
          {.micro_batch = 1, .global_batch = 32, .seq_length = 4096}};
}

}  // namespace

TEST_CASE("planner: valid layouts that fit, fastest first, each estimated as on its own",
          "[compute][planner]") {
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  const aicb::layout_plan plan = aicb::plan_layouts({.job = llama8b(16), .cluster = c});
  REQUIRE_FALSE(plan.layouts.empty());
  CHECK(plan.fitting <= plan.valid);
  CHECK(plan.valid <= plan.candidates);
  CHECK(plan.layouts.size() <= 48);
  for (std::size_t i = 0; i < plan.layouts.size(); ++i) {
    const aicb::planned_layout& p = plan.layouts[i];
    INFO(i);
    CHECK(aicb::validate(p.job));
    CHECK(p.job.parallel.world_size == 16);
    CHECK(aicb::global_batch(p.job) == 32);
    CHECK(p.memory_gb <= 0.9 * 80);
    CHECK(p.job.parallel.sequence_parallel == (p.job.parallel.tensor_parallel > 1));
    if (i > 0) CHECK(p.estimate.iteration_s >= plan.layouts[i - 1].estimate.iteration_s);
  }
  const aicb::planned_layout& best = plan.layouts.front();
  CHECK(best.estimate.iteration_s ==
        aicb::estimate_iteration(best.job, aicb::roofline_model("H100"), c).iteration_s);
  // An 8B model on 16 H100s needs neither pipeline stages nor recomputation to fit: the fastest has none.
  CHECK(best.job.parallel.recompute == aicb::recompute_kind::none);
  const std::string json = aicb::to_json(plan, c);
  CHECK_THAT(json, Catch::Contains(R"("schema": "aicb.plan/1")") && Catch::Contains(R"("layouts": [)"));
  CHECK_THAT(aicb::format_plan(plan, c, 3), Catch::Contains("TP  CP  PP VPP"));
}

TEST_CASE("planner: fields the user fixed stay, too large a model fits nowhere", "[compute][planner]") {
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  aicb::job_spec job = llama8b(16);
  job.parallel.tensor_parallel = 2;
  const aicb::layout_plan plan = aicb::plan_layouts({.job = job, .cluster = c, .fixed = {"tensor_parallel"}});
  REQUIRE_FALSE(plan.layouts.empty());
  for (const aicb::planned_layout& p : plan.layouts)
    CHECK(p.job.parallel.tensor_parallel == 2);
  // Llama-3-405B's weights and optimizer states alone exceed 8 GPUs' memory.
  aicb::job_spec huge{
      aicb::presets::llama3_1_405b, {.world_size = 8}, {.global_batch = 8, .seq_length = 4096}};
  const aicb::layout_plan none = aicb::plan_layouts({.job = huge, .cluster = c});
  CHECK(none.layouts.empty());
  CHECK(none.fitting == 0);
  CHECK(none.valid > 0);
  CHECK_THAT(aicb::format_plan(none, c), Catch::Contains("no layout fits"));
  CHECK_THROWS_WITH(aicb::plan_layouts({.job = job, .cluster = c, .memory_fraction = 1.5}),
                    Catch::Contains("memory_fraction"));
}
