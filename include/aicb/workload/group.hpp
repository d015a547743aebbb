// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::comm_group — which ranks take part in a collective.
///
/// Groups follow Megatron's process groups. With world size W, tensor parallel TP, pipeline
/// parallel PP, context parallel CP and expert parallel EP, data parallel is DP = W / (TP·PP·CP)
/// and the expert-data-parallel group ("DP within EP") has DP·CP / EP ranks.

#include <aicb/config.hpp>
#include <aicb/enum_names.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// A communication group.
enum class comm_group : std::uint8_t {
  tp,     ///< tensor parallel (also carries sequence-parallel collectives)
  dp,     ///< data parallel (gradient reduction, distributed optimizer)
  pp,     ///< pipeline parallel (point-to-point between adjacent stages)
  ep,     ///< expert parallel (token dispatch and combine)
  dp_ep,  ///< data parallel among replicas of the same experts ("DP within EP")
  cp,     ///< context parallel (sequence shards of attention)
  world,  ///< all ranks
};

/// Every group, in declaration order.
inline constexpr std::array<comm_group, 7> all_comm_groups{
    comm_group::tp,    comm_group::dp, comm_group::pp,   comm_group::ep,
    comm_group::dp_ep, comm_group::cp, comm_group::world};

/// The library's names of the groups: "tp", "dp", "pp", "ep", "dp_ep", "cp", "world" (aicb::to_string,
/// aicb::from_string<comm_group>).
template <>
struct enum_names<comm_group> {
  static constexpr std::array<std::string_view, 7> value{"tp", "dp", "pp", "ep", "dp_ep", "cp", "world"};
};

AICB_END_NAMESPACE
