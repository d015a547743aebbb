// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/concepts.hpp>
#include <aicb/workload/record.hpp>

#include <catch2/catch.hpp>

#include <list>
#include <ranges>
#include <vector>

namespace {
struct counting_sink {
  int count = 0;
  void operator()(const aicb::record&) { ++count; }
};
}  // namespace

TEST_CASE("concepts: containers and lazy views of records are RecordRanges, other ranges are not",
          "[concepts]") {
  STATIC_REQUIRE(aicb::RecordRange<std::vector<aicb::record>>);
  STATIC_REQUIRE(aicb::RecordRange<std::list<aicb::record>>);
  auto lazy = std::views::iota(0, 3) | std::views::transform([](int) { return aicb::record{}; });
  STATIC_REQUIRE(aicb::RecordRange<decltype(lazy)>);
  STATIC_REQUIRE_FALSE(aicb::RecordRange<std::vector<int>>);
  STATIC_REQUIRE_FALSE(aicb::RecordRange<aicb::record>);
}

TEST_CASE("concepts: a callable taking a record is a RecordSink", "[concepts]") {
  STATIC_REQUIRE(aicb::RecordSink<counting_sink>);
  STATIC_REQUIRE_FALSE(aicb::RecordSink<int>);
  counting_sink sink;
  for (const auto& r : std::vector<aicb::record>(3))
    sink(r);
  CHECK(sink.count == 3);
}
