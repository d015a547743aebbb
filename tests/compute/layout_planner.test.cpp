// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/layout_planner.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <set>
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
    CHECK(p.memory_gb * 1e9 <= 0.9 * aicb::require_gpu("H100").memory_bytes());
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

TEST_CASE("planner: zero-bubble and DualPipe layouts compete with Megatron's", "[compute][planner]") {
  aicb::plan_request r{.job = {aicb::presets::llama3_8b,
                               {.world_size = 16, .pipeline_parallel = 4},
                               {.micro_batch = 1, .global_batch = 64, .seq_length = 4096}},
                       .cluster = aicb::cluster_preset("dgx-h100"),
                       .fixed = {"pipeline_parallel", "micro_batch"},
                       .estimate_limit = 200};
  const aicb::layout_plan plan = aicb::plan_layouts(r);
  std::set<aicb::pipeline_schedule_kind> seen;
  for (const aicb::planned_layout& p : plan.layouts) {
    seen.insert(p.job.parallel.pipeline_schedule);
    if (p.job.parallel.pipeline_schedule != aicb::pipeline_schedule_kind::megatron)
      CHECK(p.job.parallel.virtual_pipeline == 1);
  }
  CHECK(seen.size() == 3);
  // With everything else equal, zero-bubble H1 is estimated faster than 1F1B.
  const auto find = [&](aicb::pipeline_schedule_kind k, std::uint64_t tp, aicb::recompute_kind rc) {
    for (const aicb::planned_layout& p : plan.layouts)
      if (p.job.parallel.pipeline_schedule == k && p.job.parallel.tensor_parallel == tp &&
          p.job.parallel.virtual_pipeline == 1 && p.job.parallel.recompute == rc &&
          p.job.parallel.context_parallel == 1)
        return p.estimate.iteration_s;
    return 0.0;
  };
  const double plain = find(aicb::pipeline_schedule_kind::megatron, 4, aicb::recompute_kind::none);
  const double zero_bubble = find(aicb::pipeline_schedule_kind::zb_h1, 4, aicb::recompute_kind::none);
  REQUIRE(plain > 0);
  REQUIRE(zero_bubble > 0);
  CHECK(zero_bubble < plain);
}

TEST_CASE("planner: a restart after losing GPUs, on the most that can run the batch", "[compute][planner]") {
  const aicb::plan_request r{.job = {aicb::presets::llama3_8b,
                                     {.world_size = 16},
                                     {.micro_batch = 1, .global_batch = 32, .seq_length = 2048}},
                             .cluster = aicb::cluster_preset("dgx-h100"),
                             .estimate_limit = 8};
  // 16 - 3 = 13 GPUs: 13 divides neither the batch nor the layers; the next whole node count, 8, runs.
  const aicb::restart_plan p = aicb::plan_restart(r, 3);
  CHECK(p.gpus_after == 8);
  CHECK(p.after.job.parallel.world_size == 8);
  CHECK(p.before.job.parallel.world_size == 16);
  CHECK(aicb::global_batch(p.after.job) == 32);
  CHECK(p.slowdown() > 0);
  CHECK(p.slowdown() == Approx(p.after.estimate.iteration_s / p.before.estimate.iteration_s - 1));
  CHECK_THAT(aicb::format_restart(p), Catch::Contains("after losing 3: 8 GPUs"));
  CHECK_THROWS_WITH(aicb::plan_restart(r, 16), Catch::Contains("below world_size (16)"));
  CHECK_THROWS_WITH(aicb::plan_restart(r, 0), Catch::Contains("at least 1"));
}

TEST_CASE("planner: a model whose training refuses some layouts still gets a plan without them",
          "[compute][planner]") {
  // Llama 4 Scout at 32k tokens: context parallelism with 8k chunks is refused for training, so the
  // plan leaves CP out instead of failing on it.
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  aicb::job_spec job{aicb::presets::llama4_scout,
                     {.world_size = 64},
                     {.micro_batch = 1, .global_batch = 64, .seq_length = 32768}};
  const aicb::layout_plan plan = aicb::plan_layouts({.job = job, .cluster = c, .estimate_limit = 4});
  REQUIRE_FALSE(plan.layouts.empty());
  CHECK(plan.valid < plan.candidates);
  for (const aicb::planned_layout& p : plan.layouts) {
    CHECK(p.job.parallel.context_parallel == 1);
    CHECK(aicb::validate_training(p.job));
  }
}
