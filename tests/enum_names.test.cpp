// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/dtype.hpp>
#include <aicb/enum_names.hpp>
#include <aicb/model/options.hpp>
#include <aicb/workload/collective.hpp>

#include <catch2/catch.hpp>

#include <cstdint>

namespace {
enum class colour : std::uint8_t { red, green };
enum class unnamed : std::uint8_t { a };
}  // namespace

template <>
struct aicb::enum_names<colour> {
  static constexpr std::array<std::string_view, 2> value{"red", "green"};
  static constexpr std::array<std::pair<std::string_view, colour>, 1> aliases{{{"verde", colour::green}}};
};

TEST_CASE("enum names: one mechanism names every enum, a user's own included", "[core][enum]") {
  STATIC_REQUIRE(aicb::NamedEnum<colour>);
  STATIC_REQUIRE(!aicb::NamedEnum<unnamed>);
  STATIC_REQUIRE(aicb::to_string(colour::green) == "green");
  STATIC_REQUIRE(aicb::from_string<colour>("red") == colour::red);
  STATIC_REQUIRE(aicb::from_string<colour>("verde") == colour::green);              // an alias parses ...
  STATIC_REQUIRE(aicb::to_string(*aicb::from_string<colour>("verde")) == "green");  // ... and prints by name
  STATIC_REQUIRE(!aicb::from_string<colour>("blue").has_value());
  CHECK(aicb::to_string(static_cast<colour>(7)) == "?");
  // The library's enums, from the core floor up, are named the same way.
  STATIC_REQUIRE(aicb::to_string(aicb::dtype::fp8) == "fp8");
  STATIC_REQUIRE(aicb::from_string<aicb::dtype>("half") == aicb::dtype::fp16);
  STATIC_REQUIRE(aicb::to_string(aicb::collective::all_to_all) == "all_to_all");
  STATIC_REQUIRE(aicb::from_string<aicb::norm_kind>("rmsnorm") == aicb::norm_kind::rmsnorm);
}
