// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/units/rate.hpp>

#include <catch2/catch.hpp>

using namespace aicb::literals;

TEST_CASE("rate: bytes over a duration is a rate, bytes over a rate is a duration", "[units][rate]") {
  const auto hbm = aicb::byte_rate::from_gb_per_s(3350);
  CHECK(hbm.bytes_per_second() == Approx(3.35e12));
  const auto t = aicb::bytes{3'350'000'000ULL} / hbm;
  CHECK(t.count() == Approx(1e-3));
  const auto r = 1_GiB / 1s;
  CHECK(r.bytes_per_second() == Approx(1073741824.0));
  CHECK((r * 0.5).bytes_per_second() == Approx(536870912.0));
  CHECK(aicb::byte_rate{1.0} < aicb::byte_rate{2.0});
}
