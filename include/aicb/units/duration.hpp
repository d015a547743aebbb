// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Durations: plain `std::chrono` types, named for the units aicb's file formats use.
///
/// | where                        | unit                                  | type                   |
/// |------------------------------|---------------------------------------|------------------------|
/// | workload records, SimAI file | integer nanoseconds (SimAI ticks)     | aicb::nanoseconds      |
/// | AIOB profiles                | decimal microseconds                  | aicb::microseconds_f   |
///
/// `std::chrono` already forbids implicit conversions that lose precision, so a profile's
/// fractional microseconds reach a workload only through an explicit, documented rounding.

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// Integer nanoseconds: the time unit of workload records (one SimAI tick).
using nanoseconds = std::chrono::nanoseconds;

/// Fractional microseconds: the unit AIOB profiles store.
using microseconds_f = std::chrono::duration<double, std::micro>;

/// The longest duration aicb represents: 2^62 ns, about 146 years. Far beyond any operation or
/// iteration, and with room for sums of many of them in std::chrono's signed 64-bit nanoseconds.
inline constexpr double max_duration_ns = 4611686018427387904.0;

/// A fractional number of nanoseconds rounded to whole nanoseconds (halves away from zero), or a
/// config_error naming `what` when it is not a number, negative, or above max_duration_ns — never
/// the undefined behaviour of converting an out-of-range double to an integer.
[[nodiscard]] inline nanoseconds checked_ns(double ns, std::string_view what) {
  if (!(ns >= 0) || !(ns <= max_duration_ns)) {
    char text[48];
    std::snprintf(text, sizeof text, "%.6g ns", ns);
    AICB_THROW(
        config_error(std::string(what), text,
                     "a duration must be a number of nanoseconds between 0 and 2^62 (about 146 years)"));
  }
  return nanoseconds{std::llround(ns)};
}

/// Rounds a fractional duration to whole nanoseconds, halves away from zero (what `std::lround` does);
/// config_error as checked_ns when it is out of range.
template <class Rep, class Period>
[[nodiscard]] nanoseconds round_to_ns(std::chrono::duration<Rep, Period> d) {
  return checked_ns(std::chrono::duration<double, std::nano>(d).count(), "duration");
}

namespace literals {
// `10ns`, `5us`, `2ms` … come straight from the standard.
using namespace std::chrono_literals;
}  // namespace literals

AICB_END_NAMESPACE
