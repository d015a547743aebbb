// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// One rank's schedule as a versioned JSON document (`"schema": "aicb.schedule/1"`, described by
/// docs/schemas/schedule.schema.json): the rank, its coordinates, its process groups with their
/// members, then its operations in order, one object per line — streamed, so a schedule of millions
/// of operations never sits in memory. This is what `aicb schedule --json` prints.
///
/// ```cpp
/// aicb::rank_schedule schedule(job, 5);
/// aicb::write_schedule_json(schedule.grid(), 5, schedule, ~std::uint64_t{0},
///                           [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout);
///                           });
/// ```

#include <aicb/config.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/operation.hpp>

#include <cstdint>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The schema a schedule document names.
inline constexpr std::string_view schedule_schema = "aicb.schedule/1";

/// The groups a schedule document lists, when the rank belongs to them.
inline constexpr group_kind schedule_groups[] = {
    group_kind::tp, group_kind::cp,  group_kind::dp,     group_kind::pp,  group_kind::dp_cp,
    group_kind::ep, group_kind::etp, group_kind::etp_ep, group_kind::edp, group_kind::embedding};

/// One operation as a JSON object on one line: what it is, where it belongs, its shape (compute),
/// group and sizes (collective) or peer (send, recv), and the operations it waits for.
[[nodiscard]] inline std::string operation_json(const operation& op) {
  json_writer x;
  x.begin_object().member("index", op.index).member("type", to_string(op.type)).member("name", op.name);
  x.member("phase", to_string(op.phase)).member("microbatch", op.microbatch).member("chunk", op.chunk);
  if (op.layer != no_layer) x.member("layer", op.layer);
  if (op.paired) x.member("paired", true);  // DualPipe: part of an overlapped forward-backward pair
  if (op.type == op_type::compute) {
    x.member("kind", to_string(op.compute.kind)).member("pass", to_string(op.compute.pass));
    x.member("batch", op.compute.batch).member("m", op.compute.m).member("n", op.compute.n);
    x.member("k", op.compute.k).member("one_kernel", op.compute.one_kernel);
    if (!op.compute.one_kernel && op.compute.kernels_per_problem > 1)
      x.member("kernels_per_problem", op.compute.kernels_per_problem);
    x.member("dtype", to_string(op.compute.type));
    if (op.compute.kind == op_kind::attention || op.compute.role == op_role::rotary)
      x.member("fused", op.compute.fused);
    if (op.compute.kind == op_kind::elementwise && op.compute.role == op_role::logits)
      x.member("loss", to_string(op.compute.loss));
    x.member("flops", op.compute.flops()).member("bytes", op.compute.bytes());
  } else if (op.type == op_type::collective) {
    x.member("collective", to_string(op.kind)).member("group", to_string(op.group));
    x.member("group_size", op.group_size).member("size", op.size.count());
    x.member("per_rank_size", op.per_rank_size().count());
  } else {
    x.member("peer", op.peer).member("tag", op.tag).member("size", op.size.count());
  }
  x.key("after").begin_array();
  for (std::uint8_t i = 0; i < op.after_count; ++i)
    x.value(op.after[i]);
  x.end_array().end_object();
  std::string flat;
  for (const char c : x.str())
    if (c != '\n') flat += c;
  return flat;
}

/// Streams rank `rank`'s document: the header from `grid`, then each of `operations` (any range of
/// aicb::operation: a rank_schedule, or a view of one), at most `limit`, each handed to `sink` as
/// text. Returns the operations written.
template <class Operations, class Sink>
std::uint64_t write_schedule_json(const process_grid& grid, std::uint64_t rank, Operations&& operations,
                                  std::uint64_t limit, Sink&& sink) {
  const rank_coordinates c = grid.coordinates(rank);
  json_writer w;
  w.begin_object()
      .member("schema", schedule_schema)
      .member("rank", rank)
      .member("world_size", grid.world_size());
  w.key("coordinates")
      .begin_object()
      .member("tp", c.tp)
      .member("cp", c.cp)
      .member("dp", c.dp)
      .member("pp", c.pp);
  w.member("etp", c.etp).member("ep", c.ep).member("edp", c.edp).end_object();
  w.key("groups").begin_object();
  for (const group_kind kind : schedule_groups) {
    if (!grid.in_group(kind, rank)) continue;
    const rank_group g = grid.group(kind, rank);
    w.key(to_string(kind)).begin_object().member("id", to_string(g.id())).member("size", g.size());
    w.key("members").begin_array();
    for (std::uint64_t i = 0; i < g.size(); ++i)
      w.value(g.member(i));
    w.end_array().end_object();
  }
  w.end_object().end_object();
  // The operations stream after the header, inside the same object: its closing brace goes last.
  std::string head = w.str();
  while (!head.empty() && head.back() != '}')
    head.pop_back();
  if (!head.empty()) head.pop_back();
  while (!head.empty() && (head.back() == '\n' || head.back() == ' '))
    head.pop_back();
  head += ",\n  \"operations\": [\n";
  sink(std::string_view(head));
  std::uint64_t n = 0;
  for (const operation& op : operations) {
    if (n == limit) break;
    // Appended, not `literal + string`: g++ 12 warns falsely (-Wrestrict, PR 105329) on the latter.
    std::string line(n ? ",\n    " : "    ");
    line.append(operation_json(op));
    sink(std::string_view(line));
    ++n;
  }
  sink(std::string_view("\n  ]\n}\n"));
  return n;
}

AICB_END_NAMESPACE
