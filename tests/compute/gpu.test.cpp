// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/gpu.hpp>

#include <catch2/catch.hpp>

TEST_CASE("gpu: the catalogue has the GPUs training runs on, with datasheet figures", "[compute][gpu]") {
  for (const char* name :
       {"V100", "A100-40GB", "A100", "A800", "H100", "H800", "H200", "H20", "B200", "L40S"}) {
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
}
