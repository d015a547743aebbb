// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/dtype.hpp>

#include <catch2/catch.hpp>

TEST_CASE("dtype: sizes and names", "[dtype]") {
  STATIC_REQUIRE(aicb::size_of(aicb::dtype::bf16) == 2);
  STATIC_REQUIRE(aicb::size_of(aicb::dtype::fp16) == 2);
  STATIC_REQUIRE(aicb::size_of(aicb::dtype::fp32) == 4);
  STATIC_REQUIRE(aicb::size_of(aicb::dtype::fp8) == 1);
  for (aicb::dtype t : aicb::all_dtypes)
    CHECK(aicb::from_string<aicb::dtype>(aicb::to_string(t)) == t);
  CHECK(aicb::from_string<aicb::dtype>("bfloat16") == aicb::dtype::bf16);
  CHECK(aicb::from_string<aicb::dtype>("float32") == aicb::dtype::fp32);
  CHECK_FALSE(aicb::from_string<aicb::dtype>("int8").has_value());
}
