// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::measured_network — collective times measured on a real cluster (`aicb run --sweep
/// --calibrate`), as the iteration estimate prices communication with them instead of a preset's
/// datasheet bandwidths.
///
/// A measurement is a curve: one collective kind, over a group of a given size placed one way (all
/// members in one node: `node`; one member per node, across nodes: `rail`), timed at message sizes
/// doubling from a few KiB to a few hundred MiB. Collective time is not one latency plus one
/// bandwidth over that range — NCCL switches protocol and algorithm with size, MPI's shared-memory
/// path falls out of the caches — so a curve is fitted band by band: consecutive sizes share one
/// latency α (µs) and one bus bandwidth B (GB/s, nccl-tests' definition) while the band's line
///
///     t(S) = α + S · busbw_factor(kind, n) / B
///
/// reproduces each of its measured times within `band_tolerance` (5%); the next size that does not
/// fit starts a new band (NCCL's LL / LL128 / Simple regimes come out as bands). A size between two
/// bands takes the band it is closer to in log size; below the first and above the last, their
/// bands' lines extend.
///
/// A group other than the measured one is priced by the same curve: the time of the measured group
/// scaled by the ratio of bus factors (the bytes each member moves), and, across nodes, with m
/// members per node sharing m rails' bandwidth (the rail curve measured one member per node) —
/// bounded by the node curve, as aicb::collective_us bounds a preset's NIC share by its NVLink.
///
/// ```cpp
/// aicb::measured_curve c{.kind = aicb::collective::all_reduce, .group_size = 8, .points = points};
/// c.bands = aicb::fit_bands(c);
/// const double us = c.time_us(64 << 20, 8);    // a 64 MiB all-reduce over 8 ranks of a node
/// ```

#include <aicb/config.hpp>
#include <aicb/enum_names.hpp>
#include <aicb/workload/bandwidth.hpp>
#include <aicb/workload/collective.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// How a measured group sits on the nodes: all in one node, or one member per node.
enum class link_class : std::uint8_t { node, rail };

template <>
struct enum_names<link_class> {
  static constexpr std::array<std::string_view, 2> value{"node", "rail"};
};

/// One measured size: the whole buffer (aicb::operation's convention) and its median time, µs.
struct measured_point {
  std::uint64_t bytes = 0;
  double us = 0;
};

/// Sizes `first`..`last` (indices into the curve's points) that share one line α + S·f/B.
struct fitted_band {
  std::size_t first = 0, last = 0;
  double latency_us = 0;      ///< α
  double busbw_gb_per_s = 0;  ///< B; 0 for a band whose time does not grow with size (latency only)
};

/// The relative error each measured time of a band is fitted within.
inline constexpr double band_tolerance = 0.05;

/// One collective kind measured over one group placement. See the file comment.
struct measured_curve {
  collective kind = collective::all_reduce;
  link_class where = link_class::node;
  std::uint64_t group_size = 2;          ///< members of the measured group
  std::vector<measured_point> points{};  ///< ascending sizes
  std::vector<fitted_band> bands{};      ///< aicb::fit_bands of the points

  /// The band's line at `bytes` for the measured group, µs.
  [[nodiscard]] double line_us(const fitted_band& b, double bytes) const noexcept {
    const double factor = busbw_factor(kind, group_size);
    return b.latency_us + (b.busbw_gb_per_s > 0 ? bytes * factor / (b.busbw_gb_per_s * 1e3) : 0.0);
  }
  /// The band that prices `bytes`: the one whose sizes hold it, else the nearer in log size.
  [[nodiscard]] const fitted_band* band_for(double bytes) const noexcept {
    if (bands.empty()) return nullptr;
    const fitted_band* best = &bands.front();
    double distance = INFINITY;
    for (const fitted_band& b : bands) {
      const double low = static_cast<double>(points[b.first].bytes);
      const double high = static_cast<double>(points[b.last].bytes);
      if (bytes >= low && bytes <= high) return &b;
      const double d = bytes < low ? std::log(low / bytes) : std::log(bytes / high);
      if (d < distance) {
        distance = d;
        best = &b;
      }
    }
    return best;
  }
  /// The fitted time of `bytes` over a group of `n` members placed as measured, µs (the measured
  /// group's time × the ratio of bus factors; see the file comment). 0 without bands.
  [[nodiscard]] double time_us(double bytes, std::uint64_t n) const noexcept {
    const fitted_band* b = band_for(bytes);
    if (!b) return 0;
    const double measured = busbw_factor(kind, group_size);
    const double scale = measured > 0 ? busbw_factor(kind, n) / measured : 1.0;
    return line_us(*b, bytes) * scale;
  }
  /// The largest relative error of the bands against the measured points.
  [[nodiscard]] double max_error() const noexcept {
    double worst = 0;
    for (const fitted_band& b : bands)
      for (std::size_t i = b.first; i <= b.last && i < points.size(); ++i)
        if (points[i].us > 0)
          worst = std::max(worst, std::abs(line_us(b, static_cast<double>(points[i].bytes)) - points[i].us) /
                                      points[i].us);
    return worst;
  }
  /// Bus bandwidth at the largest measured size (what nccl-tests' table reports there), GB/s.
  [[nodiscard]] double peak_busbw_gb_per_s() const noexcept {
    if (points.empty() || !(points.back().us > 0)) return 0;
    return bus_bandwidth(kind, group_size, static_cast<double>(points.back().bytes), points.back().us * 1e-6);
  }
};

namespace detail {

// α and B minimising the relative squared error of α + x_i/B' against t_i (x_i = S_i·f/1e3, so B' is
// B in GB/s), with α >= 0 and B' > 0 or "no growth"; the fitted band over `first..last`.
[[nodiscard]] inline fitted_band fit_one_band(const measured_curve& c, std::size_t first, std::size_t last) {
  const double factor = busbw_factor(c.kind, c.group_size);
  // Weighted least squares of t = α + β x with weights 1/t²: normal equations in (α, β).
  double s00 = 0, s01 = 0, s11 = 0, r0 = 0, r1 = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double t = c.points[i].us, x = static_cast<double>(c.points[i].bytes) * factor / 1e3;
    const double w = 1 / (t * t);
    s00 += w;
    s01 += w * x;
    s11 += w * x * x;
    r0 += w * t;
    r1 += w * t * x;
  }
  double alpha = 0, beta = 0;
  const double det = s00 * s11 - s01 * s01;
  if (last > first && std::abs(det) > 1e-300 * s00 * s11) {
    alpha = (r0 * s11 - r1 * s01) / det;
    beta = (s00 * r1 - s01 * r0) / det;
  }
  if (last == first || alpha < 0) {  // through the origin: β alone
    alpha = 0;
    beta = s11 > 0 ? r1 / s11 : 0;
  }
  if (beta <= 0) {  // time not growing with size: latency only
    beta = 0;
    alpha = r0 / s00;
  }
  return {first, last, alpha, beta > 0 ? 1 / beta : 0};
}

}  // namespace detail

/// Bands over `curve.points` (see the file comment): each extended while its least-squares line
/// keeps every time within band_tolerance. Points with no time are skipped by no band: a curve is
/// fitted only from positive times.
[[nodiscard]] inline std::vector<fitted_band> fit_bands(const measured_curve& curve) {
  std::vector<fitted_band> bands;
  const std::size_t n = curve.points.size();
  std::size_t first = 0;
  while (first < n) {
    fitted_band best = detail::fit_one_band(curve, first, first);
    for (std::size_t last = first + 1; last < n; ++last) {
      const fitted_band candidate = detail::fit_one_band(curve, first, last);
      bool fits = true;
      for (std::size_t i = first; i <= last && fits; ++i)
        fits = std::abs(curve.line_us(candidate, static_cast<double>(curve.points[i].bytes)) -
                        curve.points[i].us) <= band_tolerance * curve.points[i].us;
      if (!fits) break;
      best = candidate;
    }
    bands.push_back(best);
    first = best.last + 1;
  }
  return bands;
}

/// Every curve measured on one cluster; the estimate looks a collective up by kind and placement.
struct measured_network {
  std::vector<measured_curve> curves;

  [[nodiscard]] const measured_curve* find(collective kind, link_class where) const noexcept {
    for (const measured_curve& c : curves)
      if (c.kind == kind && c.where == where && !c.bands.empty()) return &c;
    return nullptr;
  }
};

AICB_END_NAMESPACE
