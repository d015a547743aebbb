// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/workload/collective.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <string_view>

TEST_CASE("collective: every kind has a distinct name that parses back", "[workload][collective]") {
  std::set<std::string_view> names;
  for (aicb::collective c : aicb::all_collectives) {
    const auto name = aicb::to_string(c);
    CHECK(name != "?");
    CHECK(names.insert(name).second);
    CHECK(aicb::from_string<aicb::collective>(name) == c);
  }
  CHECK(names.size() == aicb::all_collectives.size());
  STATIC_REQUIRE(aicb::to_string(aicb::collective::all_reduce) == "all_reduce");
  STATIC_REQUIRE(aicb::from_string<aicb::collective>("reduce_scatter") == aicb::collective::reduce_scatter);
  STATIC_REQUIRE(!aicb::from_string<aicb::collective>("ALLREDUCE").has_value());
}
