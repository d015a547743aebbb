// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::record — one step of a training workload, the unit every generator produces and every
/// writer consumes.
///
/// A record is a layer-like item with three phases, matching how simulators replay training:
///
/// - `forward`      — forward compute, then its collective (e.g. TP all-reduce of the output);
/// - `input_grad`   — backward compute of the input gradient, then its collective;
/// - `weight_grad`  — backward compute of the weight gradient, then its collective (e.g. the DP
///                    gradient reduction);
///
/// plus `update`, a fixed delay after the record's collectives complete.
///
/// Times are integer nanoseconds, sizes are bytes. A phase "has no collective" when its kind is
/// collective::none. Its size is then normally zero; aicb compatibility mode reproduces aicb's files
/// in which a `NONE` column still carries a size, so the size is kept rather than forced to zero.
///
/// The SimAI text format is one writer of this type (its 12 columns map one to one); it is not
/// the definition.

#include <aicb/units/bytes.hpp>
#include <aicb/units/duration.hpp>
#include <aicb/workload/collective.hpp>
#include <aicb/workload/group.hpp>

#include <string>

AICB_BEGIN_NAMESPACE

/// A collective of `kind` over `group` moving `size` bytes.
///
/// Size convention (SimAI's): the whole buffer of one rank — the input of an all-reduce or
/// reduce-scatter, the *output* of an all-gather, the send buffer of an all-to-all.
struct collective_op {
  collective kind = collective::none;
  comm_group group = comm_group::tp;
  bytes size{};

  /// True when this is an actual collective (kind is not collective::none).
  [[nodiscard]] constexpr bool active() const noexcept { return kind != collective::none; }

  [[nodiscard]] friend constexpr bool operator==(const collective_op&,
                                                 const collective_op&) noexcept = default;
};

/// One phase of a record: compute, then (optionally) a collective.
struct phase {
  nanoseconds compute{};
  collective_op comm{};

  [[nodiscard]] friend bool operator==(const phase&, const phase&) noexcept = default;
};

/// One workload step: a name, three phases and an update delay.
struct record {
  std::string name;
  phase forward;
  phase input_grad;
  phase weight_grad;
  nanoseconds update{};

  [[nodiscard]] friend bool operator==(const record&, const record&) = default;
};

AICB_END_NAMESPACE
