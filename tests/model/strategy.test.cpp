// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/presets.hpp>
#include <aicb/model/strategy.hpp>

#include <catch2/catch.hpp>

TEST_CASE("strategy: a layout as a type sets the dimensions it names, in any order, and no other",
          "[model][strategy]") {
  using layout = aicb::parallel_strategy<aicb::ep<8>, aicb::sp, aicb::tp<2>, aicb::pp<2>, aicb::vpp<4>>;
  constexpr aicb::parallel_spec p = layout::on(64);
  static_assert(p.world_size == 64);
  static_assert(p.tensor_parallel == 2 && p.pipeline_parallel == 2 && p.virtual_pipeline == 4);
  static_assert(p.expert_parallel == 8 && p.sequence_parallel);
  static_assert(p.context_parallel == 1 && p.expert_tensor_parallel == 0 && !p.distributed_optimizer);
  CHECK(aicb::parallel_strategy<>::on(8) == aicb::parallel_spec{.world_size = 8});
}

TEST_CASE("strategy: job<Model, GPUs> is the checked job, equal to the one built at run time",
          "[model][strategy]") {
  using layout = aicb::parallel_strategy<aicb::tp<2>, aicb::ep<8>, aicb::sp, aicb::distributed_optimizer>;
  constexpr aicb::job_spec job = layout::job<aicb::presets::mixtral_8x7b, 16>;
  const aicb::job_spec run_time{aicb::resolve(aicb::presets::mixtral_8x7b),
                                {.world_size = 16,
                                 .tensor_parallel = 2,
                                 .expert_parallel = 8,
                                 .sequence_parallel = true,
                                 .distributed_optimizer = true},
                                {}};
  CHECK(job == run_time);
  CHECK(aicb::validate(run_time));
  // The same layout that does not fit a model is refused at run time with the rule that the
  // compile-time form reports (tests/compile_fail/strategy_*).
  const aicb::job_spec three_way{
      aicb::presets::mixtral_8x7b, aicb::parallel_strategy<aicb::ep<3>>::on(24), {}};
  CHECK_THROWS_WITH(aicb::validate(three_way), Catch::Contains("expert_parallel must divide num_experts"));
}
