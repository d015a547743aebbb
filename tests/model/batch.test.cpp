// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/batch.hpp>

#include <catch2/catch.hpp>

TEST_CASE("batch: defaults and designated initialisation", "[model][batch]") {
  constexpr aicb::batch_spec b{.micro_batch = 2, .seq_length = 4096};
  STATIC_REQUIRE(b.global_batch == 0);  // 0 = one micro batch per data-parallel rank
  STATIC_REQUIRE(b.dtype == aicb::dtype::bf16);
  STATIC_REQUIRE(b.grad_dtype == aicb::dtype::fp32);
  STATIC_REQUIRE(b == aicb::batch_spec{.micro_batch = 2, .seq_length = 4096});
  CHECK_FALSE(aicb::batch_spec::help("grad_dtype").empty());
}
