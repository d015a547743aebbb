// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/model.hpp>

#include <catch2/catch.hpp>

TEST_CASE("model: the constant model answers the same for every operation and says so", "[compute][model]") {
  const aicb::constant_model aicb_placeholder;
  const aicb::compute_op big{.m = 8192, .n = 8192, .k = 8192}, small{.m = 1, .n = 1, .k = 1};
  CHECK(aicb_placeholder.duration(big) == aicb::nanoseconds{1});
  CHECK(aicb_placeholder.duration(small) == aicb::nanoseconds{1});
  CHECK(aicb_placeholder.provenance() == "constant: every operation 1 ns (no compute model)");
  const aicb::compute_model& as_interface = aicb::constant_model{aicb::nanoseconds{7}};
  CHECK(as_interface.duration(big) == aicb::nanoseconds{7});
}
