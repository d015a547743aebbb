// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/parallel.hpp>

#include <catch2/catch.hpp>

TEST_CASE("parallel: defaults describe a single GPU without any parallelism", "[model][parallel]") {
  constexpr aicb::parallel_spec p{};
  STATIC_REQUIRE(p.world_size == 1 && p.tensor_parallel == 1 && p.pipeline_parallel == 1);
  STATIC_REQUIRE(p.virtual_pipeline == 1 && p.context_parallel == 1 && p.expert_parallel == 1);
  STATIC_REQUIRE(!p.sequence_parallel && !p.distributed_optimizer && p.zero_stage == 0);
  STATIC_REQUIRE(p.recompute == aicb::recompute_kind::none);
  STATIC_REQUIRE(p.vocab_divisible_by == 128);
  CHECK_FALSE(aicb::parallel_spec::help("sequence_parallel").empty());
}
