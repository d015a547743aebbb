// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/options.hpp>

#include <catch2/catch.hpp>

TEST_CASE("options: every enum value has a name that parses back", "[model][options]") {
  STATIC_REQUIRE(aicb::to_string(aicb::activation_kind::swiglu) == "swiglu");
  STATIC_REQUIRE(aicb::from_string<aicb::norm_kind>("rmsnorm") == aicb::norm_kind::rmsnorm);
  STATIC_REQUIRE(aicb::from_string<aicb::position_kind>("rope") == aicb::position_kind::rope);
  STATIC_REQUIRE(aicb::from_string<aicb::position_kind>("none") == aicb::position_kind::none);
  STATIC_REQUIRE(aicb::from_string<aicb::recompute_kind>("selective") == aicb::recompute_kind::selective);
  STATIC_REQUIRE(!aicb::from_string<aicb::activation_kind>("relu").has_value());
  for (auto name : aicb::enum_names<aicb::recompute_kind>::value)
    CHECK(aicb::to_string(*aicb::from_string<aicb::recompute_kind>(name)) == name);
}
