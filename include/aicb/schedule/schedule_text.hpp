// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// One rank's schedule as text for a person — what `aicb schedule` prints: the rank's coordinates,
/// its process groups (the first members and the last of a large one), then a row per operation
/// (index, type, phase, micro batch, chunk, layer, name, and what it does). Streamed like
/// aicb::write_schedule_json, its JSON counterpart.
///
/// ```cpp
/// aicb::rank_schedule schedule(job, 5);
/// aicb::write_schedule_text(schedule.grid(), 5, schedule | aicb::views::collectives, 100,
///                           [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout);
///                           });
/// ```

#include <aicb/config.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/schedule/schedule_json.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// A group's members as text: all of them up to 16, else the first 8, "...", the last and the count.
[[nodiscard]] inline std::string group_members_text(const rank_group& g) {
  // Appended piece by piece: g++ 12 warns falsely (-Wrestrict, PR 105329) on chained operator+ here.
  std::string text = "[";
  const std::uint64_t n = g.size(), shown = n <= 16 ? n : 8;
  for (std::uint64_t i = 0; i < shown; ++i) {
    if (i > 0) text.append(1, ' ');
    text.append(std::to_string(g.member(i)));
  }
  if (shown < n)
    text.append(" ... ")
        .append(std::to_string(g.last()))
        .append("] (")
        .append(std::to_string(n))
        .append(" ranks)");
  else
    text.append("]");
  return text;
}

/// What an operation does, in a few words: a computation's kind, pass, shape, FLOP and bytes; a
/// collective's kind, group and size; a transfer's peer, tag and size.
[[nodiscard]] inline std::string operation_details(const operation& op) {
  char text[256];
  switch (op.type) {
    case op_type::compute:
      std::snprintf(
          text, sizeof text, "%s %s b=%llu m=%llu n=%llu k=%llu %.4g FLOP %.4g B",
          std::string(to_string(op.compute.kind)).c_str(), std::string(to_string(op.compute.pass)).c_str(),
          static_cast<unsigned long long>(op.compute.batch), static_cast<unsigned long long>(op.compute.m),
          static_cast<unsigned long long>(op.compute.n), static_cast<unsigned long long>(op.compute.k),
          op.compute.flops(), op.compute.bytes());
      if (op.compute.one_kernel) return text;
      if (op.compute.kernels_per_problem > 1)
        return std::string(text) + " (" + std::to_string(op.compute.kernels_per_problem) +
               " kernels per problem)";
      return op.compute.batch == 1 ? std::string(text) : std::string(text) + " (one kernel per problem)";
    case op_type::collective:
      return std::string(to_string(op.kind)) + " " + to_string(op.group) + "/" +
             std::to_string(op.group_size) + " " + std::to_string(op.size.count()) + " B";
    case op_type::send:
    case op_type::recv:
      return std::string(op.type == op_type::send ? "to " : "from ") + std::to_string(op.peer) + " tag " +
             std::to_string(op.tag) + " " + std::to_string(op.size.count()) + " B";
  }
  return {};
}

/// Streams rank `rank`'s schedule as text to `sink`: the header from `grid`, then each of
/// `operations` (any range of aicb::operation), at most `limit`, with a last line saying the rest was
/// cut. Returns the operations written.
template <class Operations, class Sink>
std::uint64_t write_schedule_text(const process_grid& grid, std::uint64_t rank, Operations&& operations,
                                  std::uint64_t limit, Sink&& sink) {
  char line[512];
  const auto emit = [&](int length) {
    sink(std::string_view(line, static_cast<std::size_t>(std::min<int>(length, sizeof line - 1))));
  };
  const rank_coordinates c = grid.coordinates(rank);
  emit(std::snprintf(line, sizeof line,
                     "rank %llu of %llu: tp %llu, cp %llu, dp %llu, pp %llu (expert grid: etp %llu, ep %llu, "
                     "edp %llu)\n",
                     static_cast<unsigned long long>(rank),
                     static_cast<unsigned long long>(grid.world_size()),
                     static_cast<unsigned long long>(c.tp), static_cast<unsigned long long>(c.cp),
                     static_cast<unsigned long long>(c.dp), static_cast<unsigned long long>(c.pp),
                     static_cast<unsigned long long>(c.etp), static_cast<unsigned long long>(c.ep),
                     static_cast<unsigned long long>(c.edp)));
  for (const group_kind kind : schedule_groups)
    if (grid.in_group(kind, rank)) {
      const rank_group g = grid.group(kind, rank);
      sink(std::string_view("  "));
      std::string id = to_string(g.id());
      id.resize(std::max<std::size_t>(id.size(), 12), ' ');
      sink(std::string_view(id.append(" ").append(group_members_text(g)).append("\n")));
    }
  emit(std::snprintf(line, sizeof line, "\n%7s %-10s %-9s %4s %3s %5s  %-30s %s\n", "index", "type", "phase",
                     "mb", "ch", "layer", "name", "details"));
  std::uint64_t n = 0;
  for (const operation& op : operations) {
    if (n == limit) {
      emit(std::snprintf(line, sizeof line, "... (--limit %llu)\n", static_cast<unsigned long long>(limit)));
      break;
    }
    ++n;
    const std::string layer = op.layer == no_layer ? "-" : std::to_string(op.layer);
    emit(std::snprintf(line, sizeof line, "%7llu %-10s %-9s %4llu %3llu %5s  %-30s %s\n",
                       static_cast<unsigned long long>(op.index), std::string(to_string(op.type)).c_str(),
                       std::string(to_string(op.phase)).c_str(),
                       static_cast<unsigned long long>(op.microbatch),
                       static_cast<unsigned long long>(op.chunk), layer.c_str(), std::string(op.name).c_str(),
                       operation_details(op).c_str()));
  }
  return n;
}

AICB_END_NAMESPACE
