// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// nvcc compiles the light core of include/aicb and cuda/ in device code: units used inside a
// kernel, exceptions from checked calls on the host.
#include <aicb/config.hpp>
#include <aicb/cuda/check.hpp>
#include <aicb/units/bytes.hpp>
#include <aicb/workload/collective.hpp>

#include "../skip.hpp"

#include <catch2/catch.hpp>

using namespace aicb::literals;

namespace {
__global__ void message_sizes(unsigned long long* out) {
  // Host-and-device: literals, arithmetic and count() all run on the GPU.
  out[threadIdx.x] = ((1_MiB * (threadIdx.x + 1)) / 2).count();
}

// Number of CUDA devices, or -1 when the runtime reports none (every CI machine).
int device_count() {
  int count = 0;
  try {
    AICB_CHECK_CUDA(cudaGetDeviceCount(&count));
  } catch (const aicb::cuda_error&) {
    return -1;
  }
  return count;
}
}  // namespace

TEST_CASE("cuda: units are constant expressions in a CUDA translation unit", "[cuda]") {
  STATIC_REQUIRE((16_MiB / 2).count() == 8ULL << 20);
}

TEST_CASE("cuda: on a GPU, units used in a kernel give the host's results", "[cuda]") {
  if (device_count() <= 0)
    aicb_test::skip_test("no GPU here: the kernel compiled; running it needs a device");
  unsigned long long* device = nullptr;
  AICB_CHECK_CUDA(cudaMalloc(&device, 4 * sizeof(unsigned long long)));
  message_sizes<<<1, 4>>>(device);
  AICB_CHECK_CUDA(cudaGetLastError());
  unsigned long long host[4] = {};
  AICB_CHECK_CUDA(cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost));
  AICB_CHECK_CUDA(cudaFree(device));
  for (unsigned i = 0; i < 4; ++i)
    CHECK(host[i] == ((1_MiB * (i + 1)) / 2).count());
}
