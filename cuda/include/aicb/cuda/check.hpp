// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Checked CUDA and cuBLAS calls: every failure throws aicb::cuda_error naming the call, the file
/// and the line, so a profile is never written from a run that silently failed.
///
/// Light on purpose: includes only the aicb core (no Spirit, no range-v3 — nvcc rejects both).

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

AICB_BEGIN_NAMESPACE

/// A CUDA runtime or cuBLAS call that failed.
class cuda_error : public error {
 public:
  using error::error;
};

namespace detail {

[[noreturn]] inline void throw_cuda_error(const char* call, const std::string& cause, const char* file,
                                          int line) {
  AICB_THROW(cuda_error(std::string(file) + ':' + std::to_string(line) + ": " + call + " failed: " + cause));
}

// A failure is reported once: the runtime also keeps it as its "last error", which the next
// cudaGetLastError() — after an unrelated kernel launch — would report again, so it is consumed here.
// (Sticky errors, which break the context, stay; they are reported by every later call anyway.)
inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw_cuda_error(call, std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")",
                     file, line);
  }
}

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_cuda_error(call,
                     std::string(cublasGetStatusName(status)) + " (" + cublasGetStatusString(status) + ")",
                     file, line);
}

}  // namespace detail

AICB_END_NAMESPACE

/// Calls a CUDA runtime function and throws aicb::cuda_error with file:line if it fails.
#define AICB_CHECK_CUDA(...) ::aicb::detail::check_cuda((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)
/// Calls a cuBLAS function and throws aicb::cuda_error with file:line if it fails.
#define AICB_CHECK_CUBLAS(...) ::aicb::detail::check_cublas((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)
