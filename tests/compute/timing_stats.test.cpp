// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/timing_stats.hpp>

#include <catch2/catch.hpp>

TEST_CASE("timing stats: median, minimum and maximum of the timed calls", "[compute][profile]") {
  const aicb::timing_stats odd = aicb::summarize({5.0, 1.0, 3.0, 100.0, 2.0});
  CHECK(odd.median_us == 3.0);  // the outlier moves the maximum, not the median
  CHECK(odd.min_us == 1.0);
  CHECK(odd.max_us == 100.0);
  CHECK(odd.samples == 5);
  const aicb::timing_stats even = aicb::summarize({4.0, 1.0, 2.0, 3.0});
  CHECK(even.median_us == 2.5);
  CHECK(aicb::summarize({}) == aicb::timing_stats{});
}
