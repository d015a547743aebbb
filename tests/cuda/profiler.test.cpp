// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The CUDA profiler from host code. Without a GPU (every CI machine) it must say why it cannot run;
// on a GPU every kernel must match its float64 reference and timings must be sane.
#include <aicb/cuda/check.hpp>
#include <aicb/cuda/measurement.hpp>
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

TEST_CASE("cuda profiler: a profile's provenance names the device and its versions", "[cuda][profiler]") {
  CHECK(aicb::cuda::version_text(12040) == "12.4");
  CHECK(aicb::cuda::version_text(13000) == "13.0");
  aicb::cuda::device_info d;
  d.name = "NVIDIA H200";
  d.major = 9;
  d.sm_count = 132;
  d.memory_bytes = 150'000'000'000;
  d.driver_version = 13000;
  d.runtime_version = 12080;
  d.sm_clock_mhz = 1980;
  d.memory_clock_mhz = 3201;
  const aicb::device_provenance p = aicb::cuda::provenance_of(d);
  CHECK(p.gpu == "NVIDIA H200");
  CHECK(p.compute_capability == "9.0");
  CHECK(p.sm_count == 132u);
  CHECK(p.driver == "13.0");
  CHECK(p.cuda == "12.8");
  CHECK(p.clocks == "sm 1980 MHz, memory 3201 MHz");
}
