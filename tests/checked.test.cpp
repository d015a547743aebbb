// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/checked.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

TEST_CASE("checked: products and sums that fit are exact, at compile time too", "[checked]") {
  STATIC_REQUIRE(aicb::checked_mul(1ULL << 32, (1ULL << 32) - 1, "x") == 0xFFFF'FFFF'0000'0000ULL);
  STATIC_REQUIRE(aicb::checked_add(aicb::max_u64 - 1, 1, "x") == aicb::max_u64);
  STATIC_REQUIRE(aicb::mul_fits(0, aicb::max_u64));
  STATIC_REQUIRE_FALSE(aicb::mul_fits(1ULL << 32, 1ULL << 32));
  STATIC_REQUIRE_FALSE(aicb::add_fits(aicb::max_u64, 1));
  STATIC_REQUIRE(aicb::product_within({2, 3, 7}) == 42);
  STATIC_REQUIRE_FALSE(aicb::product_within({1ULL << 40, 1ULL << 40}).has_value());
  STATIC_REQUIRE_FALSE(aicb::product_within({1ULL << 25, 1ULL << 26}, aicb::max_derived_size).has_value());
  STATIC_REQUIRE(aicb::product_within({1ULL << 25, 1ULL << 25}, aicb::max_derived_size) ==
                 aicb::max_derived_size);
}

TEST_CASE("checked: an overflow names what was computed, its operands and the limit", "[checked]") {
  try {
    (void)aicb::checked_mul(1ULL << 32, 1ULL << 32, "records per iteration");
    FAIL("no error");
  } catch (const aicb::config_error& e) {
    CHECK(e.field() == "records per iteration");
    CHECK(e.value() == "4294967296 x 4294967296");
    CHECK(e.rule() == "the result must not exceed 2^64-1 (18446744073709551615)");
  }
  CHECK_THROWS_WITH(aicb::checked_add(aicb::max_u64, 1, "bytes"),
                    Catch::Contains("18446744073709551615 + 1"));
  CHECK_THROWS_WITH(aicb::checked_mul(1000, 1000, "tokens", 999'999),
                    Catch::Contains("must not exceed 999999"));
  CHECK(aicb::checked_mul(1000, 1000, "tokens", 1'000'000) == 1'000'000);
}

TEST_CASE("checked: floating-point quantities convert only when in range", "[checked]") {
  CHECK(aicb::checked_integer(12.9, "x") == 12);
  CHECK(aicb::checked_integer(1.8e19, "x") == 18'000'000'000'000'000'000ULL);
  CHECK_THROWS_AS(aicb::checked_integer(1.9e19, "x"), aicb::config_error);
  CHECK_THROWS_AS(aicb::checked_integer(-1.0, "x"), aicb::config_error);
  CHECK_THROWS_WITH(aicb::checked_integer(std::numeric_limits<double>::quiet_NaN(), "activation memory"),
                    Catch::Contains("activation memory"));
}
