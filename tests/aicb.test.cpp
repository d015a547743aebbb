// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The umbrella brings in every public type.
#include <aicb/aicb.hpp>

#include <catch2/catch.hpp>

#include <vector>

TEST_CASE("aicb.hpp: the umbrella alone gives the whole vocabulary", "[umbrella]") {
  using namespace aicb::literals;
  std::vector<aicb::record> workload{
      {"grad_norm", {}, {}, {1ns, {aicb::collective::all_gather, aicb::comm_group::dp, 2_GiB}}, 100ns}};
  STATIC_REQUIRE(aicb::RecordRange<decltype(workload)>);
  CHECK(workload.front().weight_grad.comm.size == 2_GiB);
  CHECK_THROWS_AS(throw aicb::config_error("world_size", "0", "world_size must be positive"), aicb::error);
  CHECK(std::string(AICB_VERSION_STRING).size() >= 5);
}
