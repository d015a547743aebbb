// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/workload/modes.hpp>

#include <catch2/catch.hpp>

TEST_CASE("modes: the generators' choices parse from the command line's words", "[workload][modes]") {
  STATIC_REQUIRE(aicb::from_string<aicb::compat_mode>("aicb") == aicb::compat_mode::aicb);
  STATIC_REQUIRE(aicb::from_string<aicb::compat_mode>("none") == aicb::compat_mode::corrected);  // an alias
  STATIC_REQUIRE(aicb::to_string(aicb::compat_mode::corrected) == "corrected");
  STATIC_REQUIRE(aicb::from_string<aicb::workload_format>("chakra") == aicb::workload_format::chakra);
  STATIC_REQUIRE(!aicb::from_string<aicb::workload_format>("json").has_value());
  STATIC_REQUIRE(aicb::from_string<aicb::compute_source>("auto") == aicb::compute_source::automatic);
  STATIC_REQUIRE(aicb::to_string(aicb::compute_source::roofline) == "roofline");
}
