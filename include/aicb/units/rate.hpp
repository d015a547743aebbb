// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::byte_rate — bytes per second, the derived unit of bandwidths (bytes / duration).
///
/// ```cpp
/// using namespace aicb::literals;
/// auto hbm = aicb::byte_rate::from_gb_per_s(3350);  // H100 HBM3, datasheet "3.35 TB/s"
/// auto t   = 1_GiB / hbm;                           // std::chrono::duration<double>
/// ```

#include <aicb/units/bytes.hpp>
#include <aicb/units/duration.hpp>

#include <chrono>

AICB_BEGIN_NAMESPACE

/// A transfer rate in bytes per second.
class byte_rate {
 public:
  constexpr byte_rate() noexcept = default;
  constexpr explicit byte_rate(double bytes_per_second) noexcept : bytes_per_second_(bytes_per_second) {}

  /// Decimal gigabytes per second (10^9 B/s), the unit of datasheets.
  [[nodiscard]] static constexpr byte_rate from_gb_per_s(double gb_per_s) noexcept {
    return byte_rate{gb_per_s * 1e9};
  }

  [[nodiscard]] constexpr double bytes_per_second() const noexcept { return bytes_per_second_; }

  [[nodiscard]] friend constexpr auto operator<=>(byte_rate, byte_rate) noexcept = default;

  /// Scales a rate, e.g. by an efficiency factor.
  [[nodiscard]] friend constexpr byte_rate operator*(byte_rate r, double k) noexcept {
    return byte_rate{r.bytes_per_second_ * k};
  }

 private:
  double bytes_per_second_ = 0.0;
};

/// Rate of moving `b` in `d`.
template <class Rep, class Period>
[[nodiscard]] constexpr byte_rate operator/(bytes b, std::chrono::duration<Rep, Period> d) noexcept {
  return byte_rate{static_cast<double>(b.count()) / std::chrono::duration<double>(d).count()};
}

/// Time to move `b` at rate `r`, in (fractional) seconds.
[[nodiscard]] constexpr std::chrono::duration<double> operator/(bytes b, byte_rate r) noexcept {
  return std::chrono::duration<double>{static_cast<double>(b.count()) / r.bytes_per_second()};
}

AICB_END_NAMESPACE
