// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/measured_network.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

namespace {

// A curve over `n` ranks whose times follow two regimes, as NCCL's protocols do: α 10 µs and 20 GB/s
// below 1 MiB, α 40 µs and 100 GB/s from there, measured at 1 KiB … 256 MiB.
aicb::measured_curve two_regimes(aicb::collective kind, std::uint64_t n) {
  aicb::measured_curve c{.kind = kind, .group_size = n};
  const double factor = aicb::busbw_factor(kind, n);
  for (std::uint64_t s = 1024; s <= (std::uint64_t{256} << 20); s *= 2) {
    const bool small = s < (std::uint64_t{1} << 20);
    const double us =
        (small ? 10.0 : 40.0) + static_cast<double>(s) * factor / ((small ? 20.0 : 100.0) * 1e3);
    c.points.push_back({s, us});
  }
  c.bands = aicb::fit_bands(c);
  return c;
}

}  // namespace

TEST_CASE("measured network: bands recover each regime's latency and bus bandwidth", "[compute][measured]") {
  const aicb::measured_curve c = two_regimes(aicb::collective::all_reduce, 8);
  REQUIRE(c.bands.size() == 2);
  CHECK(c.bands[0].first == 0);
  CHECK(c.points[c.bands[1].first].bytes == (std::uint64_t{1} << 20));  // the regimes' boundary
  CHECK(c.bands[0].latency_us == Approx(10).epsilon(1e-6));
  CHECK(c.bands[0].busbw_gb_per_s == Approx(20).epsilon(1e-6));
  CHECK(c.bands[1].latency_us == Approx(40).epsilon(1e-6));
  CHECK(c.bands[1].busbw_gb_per_s == Approx(100).epsilon(1e-6));
  CHECK(c.max_error() < 1e-9);
  // A size between measured ones follows its band's line, not an interpolation of the two points.
  const double s = 3.0 * (1 << 22);
  CHECK(c.time_us(s, 8) == Approx(40 + s * (2 * 7.0 / 8) / 100e3));
  // The bus bandwidth at the largest size is what nccl-tests reports there.
  const double top = 256.0 * (1 << 20);
  CHECK(c.peak_busbw_gb_per_s() == Approx(top * 1.75 / (40 + top * 1.75 / 100e3) / 1e3));
}

TEST_CASE("measured network: noise within the tolerance stays in a band, beyond it starts another",
          "[compute][measured]") {
  aicb::measured_curve c{.kind = aicb::collective::all_gather, .group_size = 2};
  for (std::uint64_t s = 1 << 20; s <= (std::uint64_t{64} << 20); s *= 2)
    c.points.push_back({s, static_cast<double>(s) * 0.5 / 10e3 * ((s >> 20) % 2 == 0 ? 1.02 : 0.98)});
  c.bands = aicb::fit_bands(c);
  CHECK(c.bands.size() == 1);
  CHECK(c.max_error() <= aicb::band_tolerance);
  CHECK(c.bands[0].busbw_gb_per_s == Approx(10).epsilon(0.03));
  // One size 30% off (a cache falling out) cannot share the band: every fitted time stays within 5%.
  c.points[3].us *= 1.3;
  c.bands = aicb::fit_bands(c);
  CHECK(c.bands.size() > 1);
  CHECK(c.max_error() <= aicb::band_tolerance);
}

TEST_CASE("measured network: times falling with size make a latency-only band", "[compute][measured]") {
  aicb::measured_curve c{.kind = aicb::collective::all_reduce,
                         .group_size = 2,
                         .points = {{1024, 20}, {2048, 19.5}, {4096, 19.8}}};
  c.bands = aicb::fit_bands(c);
  REQUIRE(c.bands.size() == 1);
  CHECK(c.bands[0].busbw_gb_per_s == 0);
  CHECK(c.bands[0].latency_us == Approx(19.77).epsilon(0.01));
  CHECK(c.time_us(1e9, 2) == Approx(c.bands[0].latency_us));  // the band's line extends
}

TEST_CASE("measured network: the estimate prices measured collectives from the curves",
          "[compute][measured]") {
  aicb::measured_network net;
  net.curves.push_back(two_regimes(aicb::collective::all_reduce, 8));
  aicb::measured_curve rail = two_regimes(aicb::collective::all_reduce, 4);
  rail.where = aicb::link_class::rail;
  net.curves.push_back(rail);
  aicb::cluster_spec c = aicb::cluster_preset("dgx-h100");
  const aicb::cluster_spec preset = c;
  c.measured = &net;
  const double s = 64.0 * (1 << 20);

  // Within a node, the measured group: the curve itself; a smaller group: scaled by the bus factors.
  CHECK(aicb::collective_us(aicb::collective::all_reduce, s, {.size = 8, .nodes = 1, .per_node = 8}, c) ==
        Approx(net.curves[0].time_us(s, 8)));
  CHECK(aicb::collective_us(aicb::collective::all_reduce, s, {.size = 2, .nodes = 1, .per_node = 2}, c) ==
        Approx(net.curves[0].time_us(s, 8) * (1.0 / 1.75)));
  // Across nodes: the rail curve; 8 members per node share 8 rails, bounded below by the node curve.
  const double one_per_node = rail.time_us(s, 4);
  CHECK(aicb::collective_us(aicb::collective::all_reduce, s, {.size = 4, .nodes = 4, .per_node = 1}, c) ==
        Approx(one_per_node));
  CHECK(aicb::collective_us(aicb::collective::all_reduce, s, {.size = 32, .nodes = 4, .per_node = 8}, c) ==
        Approx(std::max(rail.time_us(s, 32) / 8, net.curves[0].time_us(s, 8))));
  // A kind no curve covers keeps the preset's figures.
  const aicb::group_placement node8{.size = 8, .nodes = 1, .per_node = 8};
  CHECK(aicb::collective_us(aicb::collective::all_gather, s, node8, c) ==
        aicb::collective_us(aicb::collective::all_gather, s, node8, preset));
  CHECK(aicb::collective_us(aicb::collective::all_reduce, s, node8, c) !=
        Approx(aicb::collective_us(aicb::collective::all_reduce, s, node8, preset)));
  // No send curve: transfers keep the preset's figures; with one, the curve prices them.
  CHECK(aicb::transfer_us(s, 0, 1, c) == aicb::transfer_us(s, 0, 1, preset));
  aicb::measured_curve send = two_regimes(aicb::collective::send, 2);
  net.curves.push_back(send);
  CHECK(aicb::transfer_us(s, 0, 1, c) == Approx(send.time_us(s, 2)));
  CHECK(aicb::transfer_us(s, 0, 8, c) == aicb::transfer_us(s, 0, 8, preset));  // no rail send curve
}
