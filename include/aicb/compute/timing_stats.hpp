// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::timing_stats — what a profiler reports for one operation: the median, minimum and maximum
/// of its timed calls, in microseconds, and how many calls were timed. The median, not the mean: a
/// GPU's timings have a long upper tail (clock ramps, other processes) that a mean would take in.
///
/// Light (standard library only): the CUDA profiler includes it.

#include <aicb/config.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Statistics of timed calls, microseconds.
struct timing_stats {
  double median_us = 0, min_us = 0, max_us = 0;
  std::uint32_t samples = 0;

  [[nodiscard]] friend bool operator==(const timing_stats&, const timing_stats&) = default;
};

/// The statistics of `samples_us` (taken by value: it is sorted). The median of an even count is the
/// mean of the middle two. No samples: all zero.
[[nodiscard]] inline timing_stats summarize(std::vector<double> samples_us) {
  timing_stats s;
  if (samples_us.empty()) return s;
  std::sort(samples_us.begin(), samples_us.end());
  const std::size_t n = samples_us.size();
  s.samples = static_cast<std::uint32_t>(n);
  s.min_us = samples_us.front();
  s.max_us = samples_us.back();
  s.median_us = n % 2 == 1 ? samples_us[n / 2] : (samples_us[n / 2 - 1] + samples_us[n / 2]) / 2;
  return s;
}

AICB_END_NAMESPACE
