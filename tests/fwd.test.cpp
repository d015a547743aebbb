// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// fwd.hpp alone: the types are declared (usable by pointer and reference) but not defined.
#include <aicb/fwd.hpp>

#include <catch2/catch.hpp>

#include <type_traits>

namespace {
// Only declarations are needed to form these signatures.
[[maybe_unused]] void takes_record(const aicb::record*) {}
[[maybe_unused]] void takes_bytes(aicb::bytes*) {}
[[maybe_unused]] void takes_error(const aicb::config_error&) {}
}  // namespace

TEST_CASE("fwd: enums are declared with their underlying type", "[fwd]") {
  STATIC_REQUIRE(std::is_same_v<std::underlying_type_t<aicb::collective>, std::uint8_t>);
  STATIC_REQUIRE(std::is_same_v<std::underlying_type_t<aicb::comm_group>, std::uint8_t>);
  STATIC_REQUIRE(std::is_enum_v<aicb::collective>);
}
