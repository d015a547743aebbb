// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The CUDA profiler from host code. Without a GPU (every CI machine) it must say why it cannot run;
// on a GPU every kernel must match its float64 reference and timings must be sane.
#include <aicb/cuda/check.hpp>
#include <aicb/cuda/profiler.hpp>
#include <aicb/error.hpp>

#include "../skip.hpp"

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("cuda profiler: device availability is reported with a reason", "[cuda][profiler]") {
  std::string why;
  if (!aicb::cuda::device_available(why)) {
    CHECK_FALSE(why.empty());
    CHECK_THROWS_AS(aicb::cuda::query_device(), aicb::cuda_error);
    return;
  }
  const aicb::cuda::device_info d = aicb::cuda::query_device();
  CHECK_FALSE(d.name.empty());
  CHECK(d.sm_count > 0);
  CHECK(d.l2_bytes > 0);
  CHECK_FALSE(aicb::cuda::device_available(why, 1 << 20));
  CHECK_THAT(why, Catch::Contains("does not exist"));
}

TEST_CASE("cuda profiler: on a GPU, every kernel matches its float64 reference", "[cuda][profiler]") {
  std::string why;
  if (!aicb::cuda::device_available(why)) aicb_test::skip_test("no usable GPU: " + why);
  for (const aicb::dtype type : {aicb::dtype::bf16, aicb::dtype::fp16, aicb::dtype::fp32})
    for (const aicb::cuda::check_result& r : aicb::cuda::check_kernels(type)) {
      INFO(r.kernel << " (" << aicb::to_string(type) << "): max error " << r.max_error << ", tolerance "
                    << r.tolerance);
      CHECK(r.passed());
    }
}

TEST_CASE("cuda profiler: on a GPU, timings are positive and ordered", "[cuda][profiler]") {
  std::string why;
  if (!aicb::cuda::device_available(why)) aicb_test::skip_test("no usable GPU: " + why);
  aicb::compute_op gemm;
  gemm.kind = aicb::op_kind::gemm;
  gemm.m = gemm.n = gemm.k = 2048;
  const aicb::timing_stats t = aicb::cuda::time_operation(gemm, {.warmup = 3, .iterations = 10});
  CHECK(t.samples == 10);
  CHECK(t.min_us > 0);
  CHECK(t.min_us <= t.median_us);
  CHECK(t.median_us <= t.max_us);
  gemm.type = aicb::dtype::fp8;
  CHECK_THROWS_AS(aicb::cuda::time_operation(gemm, {}), aicb::error);
}
