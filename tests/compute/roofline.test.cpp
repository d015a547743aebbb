// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/roofline.hpp>

#include <catch2/catch.hpp>

TEST_CASE("roofline: a 4096^3 BF16 GEMM on H100 and H200 falls in the documented interval",
          "[compute][roofline]") {
  // Bare peak: 2·4096³ / 989e12 = 139 us. The efficiency model documents that large GEMMs reach at
  // most 80% of peak and that a GEMM this size (137 GFLOP, far above the 2 GFLOP half point) runs
  // above 50%: the time must lie in [139/0.80, 139/0.50] us, plus the 3 us launch.
  const aicb::compute_op gemm{.kind = aicb::op_kind::gemm, .m = 4096, .n = 4096, .k = 4096};
  const double peak_us = gemm.flops() / 989e12 * 1e6;
  for (const char* gpu : {"H100", "H200"}) {
    INFO(gpu);
    const double us = static_cast<double>(aicb::roofline_model(gpu).duration(gemm).count()) / 1000;
    CHECK(us >= peak_us / 0.80 + 3);
    CHECK(us <= peak_us / 0.50 + 3);
    CHECK(us == Approx(179.2).margin(0.5));
  }
}

TEST_CASE("roofline: small and memory-bound operations are not absurdly fast", "[compute][roofline]") {
  const aicb::roofline_model h100("H100");
  const aicb::compute_op tiny{.kind = aicb::op_kind::gemm, .m = 16, .n = 16, .k = 16};
  CHECK(h100.duration(tiny).count() >= 3000);  // at least the launch
  // A LayerNorm over 4096 x 4096 bf16 values is memory-bound: 64 MiB in and out at <= 85% of 3.35 TB/s.
  const aicb::compute_op norm{.kind = aicb::op_kind::norm, .m = 4096, .n = 4096};
  const double floor_us = norm.bytes() / (3.35e12 * 0.85) * 1e6;
  CHECK(static_cast<double>(h100.duration(norm).count()) / 1000 > floor_us);
  // Faster GPUs are faster; the same op in FP8 on H100 is faster than in BF16.
  const aicb::compute_op big{.kind = aicb::op_kind::gemm, .m = 8192, .n = 8192, .k = 8192};
  CHECK(aicb::roofline_model("A100").duration(big) > h100.duration(big));
  CHECK(aicb::roofline_model("B200").duration(big) < h100.duration(big));
  auto fp8 = big;
  fp8.type = aicb::dtype::fp8;
  CHECK(h100.duration(fp8) < h100.duration(big));
}

TEST_CASE(
    "roofline: efficiency is adjustable; provenance names the GPU and the curve; unknown GPUs are errors",
    "[compute][roofline]") {
  const aicb::compute_op gemm{.kind = aicb::op_kind::gemm, .m = 8192, .n = 8192, .k = 8192};
  const aicb::roofline_model slow("H100", {.compute_fraction = 0.4});
  CHECK(slow.duration(gemm) > aicb::roofline_model("H100").duration(gemm));
  CHECK_THAT(slow.provenance(), Catch::Contains("NVIDIA H100") && Catch::Contains("compute 0.40"));
  CHECK_THROWS_WITH(aicb::roofline_model("V100"), Catch::Contains("gpu = V100") && Catch::Contains("H200"));
}

TEST_CASE("roofline: a loop of kernels costs each problem's own time, a grouped GEMM one kernel's",
          "[compute][roofline]") {
  // Eight experts' FC1 on one GPU, 512 tokens each: as a grouped GEMM one launch and the efficiency of
  // 8x the FLOPs; as Megatron's SequentialMLP eight launches, each at one problem's efficiency.
  const aicb::roofline_model h100("H100");
  aicb::compute_op grouped{.kind = aicb::op_kind::gemm, .batch = 8, .m = 512, .n = 14336, .k = 4096};
  aicb::compute_op loop = grouped;
  loop.one_kernel = false;
  aicb::compute_op one = grouped;
  one.batch = 1;
  CHECK(loop.flops() == grouped.flops());
  CHECK(h100.duration(loop).count() == 8 * h100.duration(one).count());
  CHECK(h100.duration(loop) > h100.duration(grouped));
  aicb::compute_op single = one;
  single.one_kernel = false;  // a loop of one is one kernel
  CHECK(h100.duration(single) == h100.duration(one));
}
