// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/units/duration.hpp>

#include <catch2/catch.hpp>

#include <limits>
#include <type_traits>

using namespace aicb::literals;

TEST_CASE("duration: workload times are integer nanoseconds, profile times fractional microseconds",
          "[units][duration]") {
  STATIC_REQUIRE(std::is_integral_v<aicb::nanoseconds::rep>);
  STATIC_REQUIRE(std::is_same_v<aicb::nanoseconds::period, std::nano>);
  STATIC_REQUIRE(std::is_floating_point_v<aicb::microseconds_f::rep>);
  STATIC_REQUIRE(std::is_same_v<aicb::microseconds_f::period, std::micro>);
  // Losing precision is never implicit: fractional microseconds do not convert to integer ns.
  STATIC_REQUIRE(!std::is_convertible_v<aicb::microseconds_f, aicb::nanoseconds>);
  STATIC_REQUIRE(std::is_convertible_v<aicb::nanoseconds, aicb::microseconds_f>);
}

TEST_CASE("duration: rounding microseconds to nanoseconds is explicit and exact", "[units][duration]") {
  CHECK(aicb::round_to_ns(aicb::microseconds_f{799.0}) == 799000ns);
  CHECK(aicb::round_to_ns(aicb::microseconds_f{0.0015}) == 2ns);  // 1.5 ns rounds half away from zero
  CHECK(aicb::round_to_ns(aicb::microseconds_f{12.3456}) == 12346ns);
  CHECK(aicb::round_to_ns(2ms) == 2'000'000ns);
}

TEST_CASE("duration: times out of range are refused, never converted with undefined behaviour", "[units]") {
  using namespace std::chrono_literals;
  CHECK(aicb::checked_ns(1.5, "t") == 2ns);
  CHECK(aicb::checked_ns(aicb::max_duration_ns, "t").count() == 4611686018427387904LL);
  CHECK_THROWS_WITH(aicb::checked_ns(1e300, "roofline time"),
                    Catch::Contains("roofline time = 1e+300 ns") && Catch::Contains("2^62"));
  CHECK_THROWS_AS(aicb::checked_ns(-1.0, "t"), aicb::config_error);
  CHECK_THROWS_AS(aicb::checked_ns(std::numeric_limits<double>::quiet_NaN(), "t"), aicb::config_error);
  CHECK_THROWS_AS(aicb::round_to_ns(aicb::microseconds_f{1e300}), aicb::config_error);
}
