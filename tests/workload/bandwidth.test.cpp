// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// nccl-tests' bandwidth definitions (doc/PERFORMANCE.md of nccl-tests): algbw = S / t in GB/s,
// busbw = algbw x 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all,
// 1 for broadcast, reduce and point-to-point.
#include <aicb/workload/bandwidth.hpp>

#include <catch2/catch.hpp>

TEST_CASE("run: bus bandwidth factors are nccl-tests'", "[run]") {
  using aicb::collective;
  STATIC_REQUIRE(aicb::busbw_factor(collective::all_reduce, 8) == 2.0 * 7 / 8);
  STATIC_REQUIRE(aicb::busbw_factor(collective::all_gather, 8) == 7.0 / 8);
  STATIC_REQUIRE(aicb::busbw_factor(collective::reduce_scatter, 4) == 3.0 / 4);
  STATIC_REQUIRE(aicb::busbw_factor(collective::all_to_all, 2) == 0.5);  // aicb's log analyzer uses 1
  STATIC_REQUIRE(aicb::busbw_factor(collective::broadcast, 16) == 1);
  STATIC_REQUIRE(aicb::busbw_factor(collective::send, 2) == 1);
  // A group of one moves nothing.
  STATIC_REQUIRE(aicb::busbw_factor(collective::all_reduce, 1) == 0);
  STATIC_REQUIRE(aicb::busbw_factor(collective::barrier, 8) == 0);
  // GB/s are 10^9 bytes per second (aicb's analyzer divides by 2^30).
  CHECK(aicb::algorithm_bandwidth(1e9, 0.5) == Approx(2.0));
  CHECK(aicb::bus_bandwidth(collective::all_reduce, 4, 1e9, 1.0) == Approx(1.5));
  CHECK(aicb::algorithm_bandwidth(1e9, 0) == 0);
}
