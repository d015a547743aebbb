// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/units/bytes.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <type_traits>

using namespace aicb::literals;

// The point of the type: an integer never becomes a byte count by accident.
static_assert(!std::is_convertible_v<int, aicb::bytes>, "bytes must not be implicitly built from int");
static_assert(!std::is_convertible_v<std::uint64_t, aicb::bytes>, "nor from uint64_t");
static_assert(!std::is_convertible_v<aicb::bytes, std::uint64_t>, "nor turn back into an integer implicitly");
static_assert(std::is_constructible_v<aicb::bytes, int>, "explicit construction works");
static_assert(!std::is_constructible_v<aicb::bytes, double>, "floating point must be rounded explicitly");
static_assert(!std::is_constructible_v<aicb::bytes, bool>, "a bool is not a size");

TEST_CASE("bytes: construction is explicit and the count is kept exactly", "[units][bytes]") {
  STATIC_REQUIRE(!std::is_convertible_v<int, aicb::bytes>);
  STATIC_REQUIRE(aicb::bytes{4096}.count() == 4096);
  STATIC_REQUIRE(aicb::bytes{}.count() == 0);
  STATIC_REQUIRE(aicb::bytes{(1ULL << 40) + 3}.count() == (1ULL << 40) + 3);
}

TEST_CASE("bytes: literals are IEC binary or SI decimal multiples", "[units][bytes]") {
  STATIC_REQUIRE((1_KiB).count() == 1024);
  STATIC_REQUIRE((16_MiB).count() == 16ULL * 1024 * 1024);
  STATIC_REQUIRE((2_GiB).count() == 2147483648ULL);
  STATIC_REQUIRE((1_TiB).count() == 1099511627776ULL);
  STATIC_REQUIRE((80_GB).count() == 80'000'000'000ULL);
  STATIC_REQUIRE((3_KB).count() == 3000);
  STATIC_REQUIRE((5_MB).count() == 5'000'000);
  STATIC_REQUIRE((7_B).count() == 7);
}

TEST_CASE("bytes: arithmetic keeps the unit", "[units][bytes]") {
  STATIC_REQUIRE(1_KiB + 1_KiB == 2_KiB);
  STATIC_REQUIRE(3_MiB - 1_MiB == 2_MiB);
  STATIC_REQUIRE(1_MiB * 4 == 4_MiB);
  STATIC_REQUIRE(4 * 1_MiB == 4_MiB);
  STATIC_REQUIRE(1_MiB / 3 == aicb::bytes{349525});  // floor
  STATIC_REQUIRE(1_MiB / 1_KiB == 1024);             // dimensionless
  STATIC_REQUIRE(1_MiB % 1000 == aicb::bytes{576});
  STATIC_REQUIRE(std::is_same_v<decltype(1_MiB / 1_KiB), std::uint64_t>);
  aicb::bytes b{10};
  b += aicb::bytes{5};
  b -= aicb::bytes{3};
  CHECK(b == aicb::bytes{12});
  CHECK(aicb::bytes{1} < aicb::bytes{2});
  CHECK(aicb::elements(1000, 2) == aicb::bytes{2000});
}

TEST_CASE("bytes: IEC strings for display", "[units][bytes]") {
  CHECK(aicb::to_iec_string(aicb::bytes{512}) == "512 B");
  CHECK(aicb::to_iec_string(1_KiB + 512_B) == "1.500 KiB");
  CHECK(aicb::to_iec_string(16_GiB) == "16.000 GiB");
  CHECK(aicb::to_iec_string(aicb::bytes{3} * (1ULL << 40)) == "3.000 TiB");
}

TEST_CASE("bytes: arithmetic that would wrap is refused", "[units]") {
  using namespace aicb::literals;
  const aicb::bytes big{1ULL << 63};
  CHECK_THROWS_WITH(big * 2, Catch::Contains("9223372036854775808 x 2") && Catch::Contains("2^64-1"));
  CHECK_THROWS_AS(big + big, aicb::config_error);
  CHECK_THROWS_AS(1_KiB - 2_KiB, aicb::config_error);
  CHECK_THROWS_AS(aicb::bytes{-1}, aicb::config_error);
  CHECK_THROWS_AS(aicb::elements(1ULL << 62, 4), aicb::config_error);
  CHECK((big - big).count() == 0);
  CHECK((aicb::bytes{1ULL << 62} * 3).count() == 3ULL << 62);
  STATIC_REQUIRE((16_GiB * 4).count() == 64ULL << 30);
}
