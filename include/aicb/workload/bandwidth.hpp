// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Bandwidths of a measured collective, with nccl-tests' definitions and units, so that numbers
/// from `aicb run` compare directly with `all_reduce_perf` and friends:
/// - size S: the whole buffer as aicb::operation counts it — an all-reduce's buffer, an
///   all-gather's gathered output, a reduce-scatter's input, an all-to-all's send buffer, a
///   transfer's message;
/// - algorithm bandwidth algbw = S / time, in GB/s (10^9 bytes);
/// - bus bandwidth busbw = algbw × a factor that makes it comparable with the hardware's peak:
///   2(n−1)/n for all-reduce, (n−1)/n for all-gather, reduce-scatter and all-to-all, 1 for
///   broadcast, reduce, send and receive (n ranks in the group). A group of one moves nothing: 0.
///
/// ```cpp
/// const double bus = aicb::bus_bandwidth(aicb::collective::all_reduce, 8, 1 << 30, 0.010);
/// ```

#include <aicb/config.hpp>
#include <aicb/workload/collective.hpp>

#include <cstdint>

AICB_BEGIN_NAMESPACE

/// nccl-tests' bus-bandwidth factor of `kind` over `n` ranks (see the file comment).
[[nodiscard]] constexpr double busbw_factor(collective kind, std::uint64_t n) noexcept {
  const double ranks = static_cast<double>(n);
  switch (kind) {
    case collective::all_reduce:
      return n <= 1 ? 0.0 : 2.0 * (ranks - 1) / ranks;
    case collective::all_gather:
    case collective::reduce_scatter:
    case collective::all_to_all:
      return n <= 1 ? 0.0 : (ranks - 1) / ranks;
    case collective::broadcast:
    case collective::reduce:
    case collective::send:
    case collective::recv:
      return n <= 1 ? 0.0 : 1.0;
    case collective::none:
    case collective::barrier:
      return 0.0;
  }
  return 0.0;
}

/// Algorithm bandwidth, GB/s: `bytes` in `seconds` (0 when no time was measured).
[[nodiscard]] constexpr double algorithm_bandwidth(double bytes, double seconds) noexcept {
  return seconds > 0 ? bytes / seconds / 1e9 : 0.0;
}

/// Bus bandwidth, GB/s: algorithm_bandwidth × busbw_factor.
[[nodiscard]] constexpr double bus_bandwidth(collective kind, std::uint64_t n, double bytes,
                                             double seconds) noexcept {
  return algorithm_bandwidth(bytes, seconds) * busbw_factor(kind, n);
}

AICB_END_NAMESPACE
