// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Configuration macros every aicb header relies on: the versioned namespace, host/device
/// annotations for code shared with `cuda/`, and how errors are raised.
///
/// This header includes nothing heavy and is safe in CUDA translation units.

#include <aicb/version.hpp>

#include <cstdlib>

// Two levels so the version macros expand before they are pasted together.
#define AICB_DETAIL_CONCAT6(a, b, c, d, e, f) a##b##c##d##e##f
#define AICB_DETAIL_ABI_NAME(ma, mi, pa) AICB_DETAIL_CONCAT6(v, ma, _, mi, _, pa)

/// The inline namespace that carries the version (`aicb::v0_1_0`). Users never spell it; it keeps
/// two versions linked into one program from violating the one-definition rule silently.
#ifndef AICB_ABI_NAMESPACE
#  define AICB_ABI_NAMESPACE AICB_DETAIL_ABI_NAME(AICB_VERSION_MAJOR, AICB_VERSION_MINOR, AICB_VERSION_PATCH)
#endif

/// Opens `namespace aicb { inline namespace v<major>_<minor>_<patch> {`. All aicb code lives
/// between this and AICB_END_NAMESPACE. Both macros may be predefined by a user who needs to.
#ifndef AICB_BEGIN_NAMESPACE
#  define AICB_BEGIN_NAMESPACE \
    namespace aicb {           \
    inline namespace AICB_ABI_NAMESPACE {
#endif
#ifndef AICB_END_NAMESPACE
#  define AICB_END_NAMESPACE \
    }                        \
    }
#endif

/// Marks functions callable from both host and device code. Without nvcc it expands to nothing,
/// so the light core headers (units, vocabulary) can be used inside CUDA kernels.
#if defined(__CUDACC__)
#  define AICB_HOST_DEVICE __host__ __device__
#else
#  define AICB_HOST_DEVICE
#endif

/// Raises an aicb exception, or aborts when exceptions are disabled (`-fno-exceptions`).
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#  define AICB_THROW(exception) throw exception
#else
#  define AICB_THROW(exception) std::abort()
#endif
