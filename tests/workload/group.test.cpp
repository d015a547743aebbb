// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/workload/group.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <string_view>

TEST_CASE("group: every group has a distinct name that parses back", "[workload][group]") {
  std::set<std::string_view> names;
  for (aicb::comm_group g : aicb::all_comm_groups) {
    CHECK(names.insert(aicb::to_string(g)).second);
    CHECK(aicb::from_string<aicb::comm_group>(aicb::to_string(g)) == g);
  }
  CHECK(names == std::set<std::string_view>{"tp", "dp", "pp", "ep", "dp_ep", "cp", "world"});
  STATIC_REQUIRE(!aicb::from_string<aicb::comm_group>("DP").has_value());
}
