// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/config.hpp>

#include <catch2/catch.hpp>

#include <string_view>
#include <type_traits>

AICB_BEGIN_NAMESPACE
inline constexpr int config_test_marker = 42;
AICB_END_NAMESPACE

namespace {
// The inline namespace carries the version: v<major>_<minor>_<patch>.
#define AICB_TEST_STRINGIFY2(x) #x
#define AICB_TEST_STRINGIFY(x) AICB_TEST_STRINGIFY2(x)
constexpr std::string_view abi_name = AICB_TEST_STRINGIFY(AICB_ABI_NAMESPACE);
}  // namespace

TEST_CASE("config: code between the namespace macros lands in aicb, reachable without the inline name",
          "[config]") {
  STATIC_REQUIRE(aicb::config_test_marker == 42);
  STATIC_REQUIRE(&aicb::config_test_marker == &aicb::AICB_ABI_NAMESPACE::config_test_marker);
}

TEST_CASE("config: the inline namespace name spells the version", "[config]") {
  const std::string expected = std::string("v")
                                   .append(std::to_string(AICB_VERSION_MAJOR))
                                   .append("_")
                                   .append(std::to_string(AICB_VERSION_MINOR))
                                   .append("_")
                                   .append(std::to_string(AICB_VERSION_PATCH));
  CHECK(abi_name == expected);
}

TEST_CASE("config: AICB_THROW throws the given exception when exceptions are on", "[config]") {
  CHECK_THROWS_AS([] { AICB_THROW(std::runtime_error("boom")); }(), std::runtime_error);
}
