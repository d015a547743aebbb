// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The library version: the single source of truth. CMake parses the three `#define` lines below
/// into `project(VERSION ...)`, and the single-header banner repeats them.

// Two different copies of aicb in one translation unit would silently mix definitions; say so.
#if defined(AICB_VERSION_MAJOR)
#  if AICB_VERSION_MAJOR != 0 || AICB_VERSION_MINOR != 1 || AICB_VERSION_PATCH != 0
#    warning "aicb: a different version of aicb was already included; mixing versions is unsupported"
#  endif
#  undef AICB_VERSION_MAJOR
#  undef AICB_VERSION_MINOR
#  undef AICB_VERSION_PATCH
#  undef AICB_VERSION
#  undef AICB_VERSION_STRING
#endif

#define AICB_VERSION_MAJOR 0
#define AICB_VERSION_MINOR 1
#define AICB_VERSION_PATCH 0

/// One integer for comparisons in `#if`: major * 10000 + minor * 100 + patch.
#define AICB_VERSION (AICB_VERSION_MAJOR * 10000 + AICB_VERSION_MINOR * 100 + AICB_VERSION_PATCH)

#define AICB_DETAIL_STRINGIFY2(x) #x
#define AICB_DETAIL_STRINGIFY(x) AICB_DETAIL_STRINGIFY2(x)

/// "major.minor.patch", for banners, provenance strings and `aicb --version`.
#define AICB_VERSION_STRING                 \
  AICB_DETAIL_STRINGIFY(AICB_VERSION_MAJOR) \
  "." AICB_DETAIL_STRINGIFY(AICB_VERSION_MINOR) "." AICB_DETAIL_STRINGIFY(AICB_VERSION_PATCH)
