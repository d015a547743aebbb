// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::collective — the kinds of communication a workload record can carry.
///
/// These are the library's own names. How a file format spells them (SimAI's `ALLREDUCE`,
/// aicb CSV's `CommType.all_reduce`, Chakra's enum numbers) is each writer's business.

#include <aicb/config.hpp>
#include <aicb/enum_names.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// A communication operation among the ranks of one group.
enum class collective : std::uint8_t {
  none,            ///< no communication
  all_reduce,      ///< every rank ends with the reduction of all inputs
  all_gather,      ///< every rank ends with the concatenation of all inputs
  reduce_scatter,  ///< every rank ends with one shard of the reduction
  all_to_all,      ///< every rank sends a distinct shard to every other rank
  broadcast,       ///< one rank's buffer is copied to all
  reduce,          ///< the reduction lands on one rank
  send,            ///< point-to-point send (pipeline activations and gradients)
  recv,            ///< point-to-point receive
  barrier,         ///< synchronisation only
};

/// Every collective kind, in declaration order (for tables, tests and parsers).
inline constexpr std::array<collective, 10> all_collectives{
    collective::none,       collective::all_reduce, collective::all_gather, collective::reduce_scatter,
    collective::all_to_all, collective::broadcast,  collective::reduce,     collective::send,
    collective::recv,       collective::barrier};

/// The library's names of the collectives: "none", "all_reduce", "all_gather", … (aicb::to_string,
/// aicb::from_string<collective>).
template <>
struct enum_names<collective> {
  static constexpr std::array<std::string_view, 10> value{
      "none",      "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
      "broadcast", "reduce",     "send",       "recv",           "barrier"};
};

AICB_END_NAMESPACE
