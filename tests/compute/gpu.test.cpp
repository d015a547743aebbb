// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/gpu.hpp>

#include <catch2/catch.hpp>

TEST_CASE("gpu: the catalogue has the GPUs training runs on, with datasheet figures", "[compute][gpu]") {
  for (const char* name :
       {"V100", "A100-40GB", "A100", "A800", "H100", "H800", "H200", "H20", "B200", "GB200", "L40S"}) {
    INFO(name);
    const aicb::gpu_spec* g = aicb::find_gpu(name);
    REQUIRE(g != nullptr);
    CHECK(g->name == name);
    CHECK(g->bf16_tflops > 0);
    CHECK(g->memory_gb_per_s > 0);
    CHECK(g->sm_count > 0);
  }
  CHECK(aicb::find_gpu("V100")->peak_flops(aicb::dtype::fp16) == 125e12);
  CHECK(aicb::find_gpu("A100-40GB")->memory_bytes_per_s() == 1.555e12);
  CHECK(aicb::find_gpu("H100")->peak_flops(aicb::dtype::bf16) == 989e12);
  CHECK(aicb::find_gpu("H200")->memory_bytes_per_s() == 4.8e12);
  CHECK(aicb::find_gpu("A100")->peak_flops(aicb::dtype::fp8) == 312e12);  // no FP8: falls back to BF16
}

TEST_CASE("gpu: device names as drivers report them find their entry", "[compute][gpu]") {
  CHECK(aicb::find_gpu("NVIDIA H200")->name == "H200");  // not H20
  CHECK(aicb::find_gpu("NVIDIA H100 80GB HBM3")->name == "H100");
  CHECK(aicb::find_gpu("nvidia a800-sxm4-80gb")->name == "A800");
  CHECK(aicb::find_gpu("Tesla V100-SXM2-32GB")->name == "V100");
  CHECK(aicb::find_gpu("Tesla P100") == nullptr);
  CHECK(aicb::find_gpu("NVIDIA A100-SXM4-80GB")->name == "A100");
  CHECK(aicb::find_gpu("NVIDIA GB200")->name == "GB200");  // not B200
}

TEST_CASE("gpu: a key inside a longer product name is not that product", "[compute][gpu]") {
  // A Grace Hopper or Grace Blackwell superchip's GPU has its own memory and power: reading it as the
  // H200 or B200 entry would price it with another GPU's figures and say nothing.
  CHECK(aicb::find_gpu("NVIDIA GH200 480GB") == nullptr);
  CHECK(aicb::find_gpu("GB300") == nullptr);
  CHECK(aicb::find_gpu("H1000") == nullptr);
  CHECK_THROWS_WITH(aicb::require_gpu("GH200"), Catch::Contains("expected a GPU of the catalogue"));
}

TEST_CASE("gpu: a GB200 is a B200 at a higher power limit, its measured fractions borrowed",
          "[compute][gpu]") {
  const aicb::gpu_spec& b200 = aicb::require_gpu("B200");
  const aicb::gpu_spec& gb200 = aicb::require_gpu("GB200");
  // The architecture brief's dense peaks at 1200 W against 1000 W: 10/9 the tensor-core rates.
  CHECK(gb200.peak_flops(aicb::dtype::bf16) == 2500e12);
  CHECK(gb200.peak_flops(aicb::dtype::fp8) == 5000e12);
  CHECK(gb200.peak_flops(aicb::dtype::bf16) / b200.peak_flops(aicb::dtype::bf16) == Approx(10.0 / 9));
  // An NVL72 rack's 13.4 TB and 576 TB/s over its 72 GPUs.
  CHECK(gb200.memory_gb == Approx(13400.0 / 72).margin(0.5));
  CHECK(gb200.memory_bytes_per_s() == Approx(576e12 / 72));
  CHECK(gb200.sm_count == b200.sm_count);
  CHECK(gb200.gemm_efficiency == b200.gemm_efficiency);
  CHECK(gb200.fp8_gemm_efficiency == b200.fp8_gemm_efficiency);
  CHECK(gb200.attention.forward == b200.attention.forward);
  CHECK(gb200.wide_head_attention.backward == b200.wide_head_attention.backward);
  CHECK(gb200.grouped_gemm_exposes_weights == b200.grouped_gemm_exposes_weights);
}

TEST_CASE("gpu: the memory an engine allocates from is the driver's total, the datasheet's GB being binary",
          "[compute][gpu]") {
  for (const aicb::gpu_spec& g : aicb::gpu_catalogue) {
    INFO(g.name);
    const double binary = g.memory_gb * 1073741824.0;
    // The driver keeps back well under 1% of the HBM; the bytes are never the decimal reading's.
    CHECK(g.memory_bytes() <= binary);
    CHECK(g.memory_bytes() >= 0.99 * binary);
    CHECK(g.memory_bytes() > 1.06 * g.memory_gb * 1e9);
  }
  // Where no driver figure is recorded, the binary capacity itself.
  CHECK(aicb::require_gpu("A100").memory_bytes() == 80.0 * 1073741824.0);
  CHECK(aicb::require_gpu("H200").memory_bytes() == 143771.0 * 1048576.0);
}
