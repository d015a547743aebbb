// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/fixed_string.hpp>

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("fixed_string: literal and run-time construction, views, equality", "[model][fixed_string]") {
  constexpr aicb::fixed_string<8> a = "llama";
  STATIC_REQUIRE(a.view() == "llama");
  STATIC_REQUIRE(!a.empty());
  STATIC_REQUIRE(aicb::fixed_string<8>{}.empty());
  CHECK(aicb::fixed_string<8>::from("llama") == a);
  CHECK(aicb::fixed_string<8>::from("1234567").view() == "1234567");
  CHECK_THROWS_AS(aicb::fixed_string<8>::from("12345678"), aicb::config_error);
}
