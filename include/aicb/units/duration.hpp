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

#include <chrono>
#include <cmath>

AICB_BEGIN_NAMESPACE

/// Integer nanoseconds: the time unit of workload records (one SimAI tick).
using nanoseconds = std::chrono::nanoseconds;

/// Fractional microseconds: the unit AIOB profiles store.
using microseconds_f = std::chrono::duration<double, std::micro>;

/// Rounds a fractional duration to whole nanoseconds, halves away from zero (what `std::lround` does).
template <class Rep, class Period>
[[nodiscard]] nanoseconds round_to_ns(std::chrono::duration<Rep, Period> d) noexcept {
  const double ns = std::chrono::duration<double, std::nano>(d).count();
  return nanoseconds{std::llround(ns)};
}

namespace literals {
// `10ns`, `5us`, `2ms` … come straight from the standard.
using namespace std::chrono_literals;
}  // namespace literals

AICB_END_NAMESPACE
