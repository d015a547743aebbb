// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// What the profiler's measurements become in a profile: an entry of a profile plan timed (its
/// forward, and its backward as input and weight gradients summed) and the device's provenance.
/// Host code over <aicb/cuda/profiler.hpp>, kept apart from it: profiler.hpp is also compiled by
/// nvcc, and the profile plan (<aicb/compute/profiling.hpp>) reaches the schedules and range-v3.
///
/// ```cpp
/// const aicb::op_measurement m = aicb::cuda::measure_entry(entry, {.iterations = 50});
/// const aicb::device_provenance about = aicb::cuda::provenance_of(aicb::cuda::query_device());
/// ```

#include <aicb/compute/profiling.hpp>
#include <aicb/config.hpp>
#include <aicb/cuda/profiler.hpp>

#include <cstdint>
#include <optional>
#include <string>

AICB_BEGIN_NAMESPACE

namespace cuda {

/// A CUDA version as text: 12040 → "12.4".
[[nodiscard]] inline std::string version_text(int encoded) {
  return std::to_string(encoded / 1000) + "." + std::to_string(encoded % 1000 / 10);
}

/// What a profile records of the device (aicb::make_profile's provenance).
[[nodiscard]] inline device_provenance provenance_of(const device_info& d) {
  return {
      d.name,
      std::to_string(d.major) + "." + std::to_string(d.minor),
      static_cast<std::uint64_t>(d.sm_count),
      d.memory_bytes,
      version_text(d.driver_version),
      version_text(d.runtime_version),
      "sm " + std::to_string(d.sm_clock_mhz) + " MHz, memory " + std::to_string(d.memory_clock_mhz) + " MHz"};
}

/// Times one entry of a profile plan: its forward, and its backward (input and weight gradients
/// summed) — except attention's, whose direct backward kernel is far slower than FlashAttention's
/// and is left to the readers' stated rule (2.5 × forward, docs/aiob.md).
[[nodiscard]] inline op_measurement measure_entry(const profile_entry& e, const run_options& run) {
  op_measurement m{e.role, time_operation(e.forward, run), std::nullopt};
  if (e.forward.kind == op_kind::attention || (!e.input_grad && !e.weight_grad)) return m;
  timing_stats backward;
  for (const auto& pass : {e.input_grad, e.weight_grad})
    if (pass) {
      const timing_stats t = time_operation(*pass, run);
      backward.median_us += t.median_us;
      backward.min_us += t.min_us;
      backward.max_us += t.max_us;
      backward.samples = t.samples;
    }
  m.backward = backward;
  return m;
}

}  // namespace cuda

AICB_END_NAMESPACE
