// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/version.hpp>

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("version: the integer and the string agree with the three parts", "[version]") {
  STATIC_REQUIRE(AICB_VERSION == AICB_VERSION_MAJOR * 10000 + AICB_VERSION_MINOR * 100 + AICB_VERSION_PATCH);
  const std::string expected = std::to_string(AICB_VERSION_MAJOR) + "." + std::to_string(AICB_VERSION_MINOR) +
                               "." + std::to_string(AICB_VERSION_PATCH);
  CHECK(std::string(AICB_VERSION_STRING) == expected);
}
