// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/concepts.hpp>
#include <aicb/workload/record_stream.hpp>

#include <catch2/catch.hpp>

#include <range/v3/range/concepts.hpp>
#include <range/v3/view/take.hpp>

#include <algorithm>
#include <ranges>
#include <string>

namespace {
// Produces "r0", "r1", …, counting how many it has made so far (to observe laziness).
struct counter {
  std::uint64_t limit;
  std::uint64_t* made;
  std::uint64_t i = 0;
  aicb::record r;
  const aicb::record* next() {
    if (i == limit) return nullptr;
    r.name = std::string("r").append(std::to_string(i++));
    ++*made;
    return &r;
  }
  std::uint64_t size() const { return limit; }
};
}  // namespace

TEST_CASE("record_stream: a lazy input range, for std::ranges and range-v3 alike", "[generate][stream]") {
  using stream = aicb::record_stream<counter>;
  STATIC_REQUIRE(std::ranges::input_range<stream>);
  STATIC_REQUIRE(aicb::RecordRange<stream>);
  STATIC_REQUIRE(ranges::input_range<stream>);
  std::uint64_t made = 0;
  stream s(counter{1'000'000'000, &made, 0, {}});
  CHECK(s.size() == 1'000'000'000);
  CHECK(made == 0);  // nothing before it is asked for
  std::uint64_t seen = 0;
  for (const aicb::record& r : s | ranges::views::take(5)) {
    CHECK(r.name == std::string("r").append(std::to_string(seen)));
    ++seen;
  }
  CHECK(seen == 5);
  CHECK(made <= 6);  // a billion-record stream made only what was taken
  std::uint64_t made2 = 0;
  stream small(counter{4, &made2, 0, {}});
  CHECK(std::ranges::distance(small.begin(), small.end()) == 4);
}

TEST_CASE("record_stream: a range-v3 view, owning its source, piped from a temporary", "[generate][stream]") {
  using stream = aicb::record_stream<counter>;
  STATIC_REQUIRE(ranges::view_<stream>);
  std::uint64_t made = 0;
  std::uint64_t seen = 0;
  // The temporary stream moves into the pipeline, which owns its source until the loop ends.
  for (const aicb::record& r : stream(counter{10, &made, 0, {}}) | ranges::views::take(3)) {
    CHECK(r.name == std::string("r").append(std::to_string(seen)));
    ++seen;
  }
  CHECK(seen == 3);
  // Copies share the source: a second pass continues where the first stopped (single pass).
  stream s(counter{4, &made, 0, {}});
  const stream copy = s;
  auto first = s.begin();
  CHECK((*first).name == "r0");
  CHECK((*copy.begin()).name == "r1");
}
