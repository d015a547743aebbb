// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Concepts for generic code over aicb types. Only concepts live here.

#include <aicb/fwd.hpp>

#include <concepts>
#include <ranges>

AICB_BEGIN_NAMESPACE

/// A range whose elements can be read as workload records: what generators return and what
/// writers, linters and simulators consume. Any input range qualifies — lazy views included —
/// so a consumer never needs the whole workload in memory.
// clang-format 14 reads the concept's template arguments as comparisons: kept as written.
// clang-format off
template <class R>
concept RecordRange =
    std::ranges::input_range<R> && std::convertible_to<std::ranges::range_reference_t<R>, const record&>;
// clang-format on

/// Something that accepts records one at a time (a file writer, a counter, a simulator front end).
template <class S>
concept RecordSink = requires(S& sink, const record& r) {
  sink(r);
};

AICB_END_NAMESPACE
