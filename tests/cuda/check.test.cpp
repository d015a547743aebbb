// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/cuda/check.hpp>

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("cuda check: a failing runtime call throws cuda_error with the call, file and line", "[cuda]") {
  const int line = __LINE__ + 2;
  try {
    AICB_CHECK_CUDA(cudaSetDevice(-1));  // an invalid device on every machine, GPU or not
    FAIL("cudaSetDevice(-1) succeeded");
  } catch (const aicb::cuda_error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("check.test.cpp:" + std::to_string(line)));
    CHECK_THAT(what, Catch::Contains("cudaSetDevice(-1) failed"));
    CHECK_THAT(what, Catch::Contains("cuda"));
  }
  // The failure was reported once: the next check of the runtime's last error is clean, so a later
  // kernel launch is not blamed for it. (Without a usable driver every call fails anew: nothing to see.)
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess) CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("cuda check: a failing cuBLAS status throws with the status name", "[cuda]") {
  CHECK_THROWS_WITH(AICB_CHECK_CUBLAS(CUBLAS_STATUS_INVALID_VALUE),
                    Catch::Contains("CUBLAS_STATUS_INVALID_VALUE"));
  CHECK_NOTHROW(AICB_CHECK_CUBLAS(CUBLAS_STATUS_SUCCESS));
}
