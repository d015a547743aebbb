// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The umbrella header: everything aicb offers, in one include.
///
/// ```cpp
/// #include <aicb/aicb.hpp>
/// ```
///
/// It is also the root of the generated single header (`single_include/aicb/aicb.hpp`), which
/// keeps this include path, so the same `#include` works with either tree.
///
/// Compile-time-sensitive code should include the fine-grained headers instead: `docs/headers.md`
/// lists what each provides and what it costs to compile. The CUDA headers (`cuda/`) are never
/// included from here.

#include <aicb/concepts.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/fwd.hpp>
#include <aicb/units/bytes.hpp>
#include <aicb/units/duration.hpp>
#include <aicb/units/rate.hpp>
#include <aicb/version.hpp>
#include <aicb/workload/collective.hpp>
#include <aicb/workload/group.hpp>
#include <aicb/workload/record.hpp>
