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
    CHECK(aicb::comm_group_from_string(aicb::to_string(g)) == g);
  }
  CHECK(names == std::set<std::string_view>{"tp", "dp", "pp", "ep", "dp_ep", "cp", "world"});
  STATIC_REQUIRE(!aicb::comm_group_from_string("DP").has_value());
}
