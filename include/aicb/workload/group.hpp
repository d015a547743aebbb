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

/// The library's name of a group: "tp", "dp", "pp", "ep", "dp_ep", "cp", "world".
[[nodiscard]] constexpr std::string_view to_string(comm_group g) noexcept {
  switch (g) {
    case comm_group::tp:
      return "tp";
    case comm_group::dp:
      return "dp";
    case comm_group::pp:
      return "pp";
    case comm_group::ep:
      return "ep";
    case comm_group::dp_ep:
      return "dp_ep";
    case comm_group::cp:
      return "cp";
    case comm_group::world:
      return "world";
  }
  return "?";
}

/// The group named `name` (as to_string spells it), or nothing.
[[nodiscard]] constexpr std::optional<comm_group> comm_group_from_string(std::string_view name) noexcept {
  for (comm_group g : all_comm_groups)
    if (to_string(g) == name) return g;
  return std::nullopt;
}

AICB_END_NAMESPACE
