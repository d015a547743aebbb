// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::load_chakra_rank — one rank's operations read back from a Chakra set aicb wrote (`aicb
/// generate --format chakra`), for replay: the saved per-rank form, so a workload generated once
/// (and perhaps simulated) is the one measured.
///
/// ```cpp
/// const aicb::saved_rank saved = aicb::load_chakra_rank("traces", rank);
/// aicb::replay(transport, saved.ops, aicb::process_grid(saved.job), nullptr, options, saved.durations);
/// ```
///
/// What comes from where: the job (for the process groups) from manifest.json's `job`; each
/// operation from the rank's trace, node by node — a COMP node's `duration_micros` becomes its
/// duration (the compute model the set was written with), a collective's `pg_name` becomes its
/// group through manifest.json's `groups`, its `comm_size` its size (an all-gather's, ASTRA-sim's
/// per-rank input, times the group's size: aicb's gathered size), a send's or receive's peer, tag
/// and size; data dependencies become `after`. Refused, naming the file: a set without the job or
/// the rank, a node whose group the manifest does not name, more than 8 dependencies.

#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/input_file.hpp>
#include <aicb/error.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/operation.hpp>

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// One rank's saved operations, ready to replay. Move-only: the operations view `names`.
struct saved_rank {
  saved_rank() = default;
  saved_rank(const saved_rank&) = delete;
  saved_rank& operator=(const saved_rank&) = delete;
  saved_rank(saved_rank&&) = default;
  saved_rank& operator=(saved_rank&&) = default;

  job_spec job;                                     ///< the job the set was written from
  std::vector<operation> ops;                       ///< in the trace's order
  std::vector<std::chrono::nanoseconds> durations;  ///< per operation: computation times (0 for the rest)
  std::deque<std::string> names;                    ///< the operations' names (ops view them)
  std::uint64_t iterations = 1;                     ///< iterations the set holds
};

namespace detail {

[[nodiscard]] inline collective collective_of_chakra(std::uint64_t type, const std::string& where) {
  switch (static_cast<chakra_collective>(type)) {
    case chakra_collective::all_reduce:
      return collective::all_reduce;
    case chakra_collective::all_gather:
      return collective::all_gather;
    case chakra_collective::reduce_scatter:
      return collective::reduce_scatter;
    case chakra_collective::all_to_all:
      return collective::all_to_all;
    case chakra_collective::broadcast:
      return collective::broadcast;
    case chakra_collective::reduce:
      return collective::reduce;
    case chakra_collective::barrier:
      return collective::barrier;
    default:
      AICB_THROW(io_error(where, "comm_type " + std::to_string(type) + " is not a collective aicb replays"));
  }
}

// manifest.json's job, field by field (every value as text, as the command line gives it).
template <class T>
void read_fields(T& descriptor, const nlohmann::json& object, const std::string& where) {
  if (!object.is_object()) AICB_THROW(io_error(where, "the job's sections must be objects"));
  for (const auto& [key, value] : object.items()) {
    const std::string text = value.is_string() ? value.template get<std::string>() : value.dump();
    if (!set_field(descriptor, key, text)) AICB_THROW(io_error(where, "the job names no field " + key));
  }
}

}  // namespace detail

/// Rank `rank`'s operations from a set's manifest.json text and the rank's trace bytes (see the
/// file comment); the names say which files they are in errors. Throws aicb::error (io_error,
/// config_error, parse_error) for anything it cannot replay.
[[nodiscard]] inline saved_rank parse_chakra_rank(std::string_view manifest_text,
                                                  std::string_view trace_bytes, std::uint64_t rank,
                                                  const std::string& manifest_path,
                                                  const std::string& trace_path) {
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(manifest_text);
  } catch (const nlohmann::json::exception& e) {
    AICB_THROW(io_error(manifest_path, std::string("is not JSON: ") + e.what()));
  }
  const auto member = [&](const nlohmann::json& object, const char* key) -> const nlohmann::json* {
    if (!object.is_object()) return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  };
  const nlohmann::json* schema = member(manifest, "schema");
  const nlohmann::json* job = member(manifest, "job");
  const nlohmann::json* group_names = member(manifest, "groups");
  if (!schema || *schema != "aicb.chakra/1" || !job || !job->is_object() || !group_names ||
      !group_names->is_object())
    AICB_THROW(io_error(manifest_path,
                        "is not the manifest of a set aicb generate --format chakra wrote "
                        "(schema aicb.chakra/1 with the job and its groups)"));
  saved_rank saved;
  const nlohmann::json empty = nlohmann::json::object();
  const auto section = [&](const char* key) -> const nlohmann::json& {
    const nlohmann::json* s = member(*job, key);
    return s ? *s : empty;
  };
  detail::read_fields(saved.job.model, section("model"), manifest_path);
  detail::read_fields(saved.job.parallel, section("parallel"), manifest_path);
  detail::read_fields(saved.job.batch, section("batch"), manifest_path);
  validate(saved.job);
  if (rank >= saved.job.parallel.world_size)
    AICB_THROW(io_error(manifest_path, "the job has " + std::to_string(saved.job.parallel.world_size) +
                                           " ranks: no rank " + std::to_string(rank)));
  if (const nlohmann::json* n = member(manifest, "iterations"); n && n->is_number_unsigned())
    saved.iterations = n->get<std::uint64_t>();
  const process_grid grid(saved.job);
  std::map<std::string, group_id> groups;  // pg_name -> group
  for (const auto& [number, text] : group_names->items()) {
    const std::string name = text.is_string() ? text.get<std::string>() : std::string();
    const std::size_t open = name.find('[');
    const auto kind =
        open == std::string::npos ? std::nullopt : from_string<group_kind>(name.substr(0, open));
    std::uint64_t index = 0;
    const char* first = name.data() + (open == std::string::npos ? 0 : open + 1);
    const char* last = name.data() + name.size() - 1;
    const bool numeric =
        kind && name.back() == ']' && first < last && std::from_chars(first, last, index).ptr == last;
    if (!numeric) AICB_THROW(io_error(manifest_path, "group " + number + " is not KIND[INDEX]: " + name));
    groups[number] = {*kind, index};
  }

  const chakra_trace trace = read_chakra_trace(trace_bytes, trace_path);
  for (const chakra_node& node : trace.nodes) {
    operation op;
    op.index = saved.ops.size();
    saved.names.push_back(node.name);
    op.name = saved.names.back();
    if (node.data_deps.size() > op.after.size())
      AICB_THROW(io_error(trace_path, "node " + std::to_string(node.id) + " has more than 8 dependencies"));
    for (const std::uint64_t d : node.data_deps)
      op.after[op.after_count++] = d;
    std::chrono::nanoseconds duration{0};
    const auto number = [&](std::string_view attr) -> std::uint64_t {
      const chakra_attribute* a = node.attr(attr);
      if (!a)
        AICB_THROW(io_error(trace_path, "node " + std::to_string(node.id) + " lacks " + std::string(attr)));
      return a->number;
    };
    switch (node.type) {
      case chakra_node_type::compute:
        op.type = op_type::compute;
        if (node.duration_micros > (std::uint64_t{1} << 40))  // 12 days: no kernel; and ns must fit
          AICB_THROW(io_error(trace_path, "node " + std::to_string(node.id) + ": duration_micros " +
                                              std::to_string(node.duration_micros) +
                                              " is not a kernel's time"));
        duration = std::chrono::microseconds(static_cast<std::int64_t>(node.duration_micros));
        break;
      case chakra_node_type::collective: {
        op.type = op_type::collective;
        op.kind = detail::collective_of_chakra(number("comm_type"), trace_path);
        const chakra_attribute* pg = node.attr("pg_name");
        const auto g = pg ? groups.find(pg->text) : groups.end();
        if (g == groups.end())
          AICB_THROW(io_error(trace_path, "node " + std::to_string(node.id) + ": its group " +
                                              (pg ? pg->text : std::string("(none)")) +
                                              " is not in manifest.json"));
        op.group = g->second;
        const rank_group mine = grid.group(op.group.kind, rank);
        if (!mine.contains(rank) || mine.id() != op.group)
          AICB_THROW(io_error(trace_path, "node " + std::to_string(node.id) + ": group " +
                                              to_string(op.group) + " is not one of rank " +
                                              std::to_string(rank) + "'s groups"));
        op.group_size = mine.size();
        const std::uint64_t size = number("comm_size");
        const auto whole = product_within({size, op.kind == collective::all_gather ? op.group_size : 1});
        if (!whole)
          AICB_THROW(io_error(trace_path, "node " + std::to_string(node.id) + ": comm_size is too large"));
        op.size = bytes{*whole};
        break;
      }
      case chakra_node_type::send:
      case chakra_node_type::recv: {
        const bool send = node.type == chakra_node_type::send;
        op.type = send ? op_type::send : op_type::recv;
        op.peer = number(send ? "comm_dst" : "comm_src");
        if (op.peer >= saved.job.parallel.world_size || op.peer == rank)
          AICB_THROW(io_error(trace_path, "node " + std::to_string(node.id) + ": peer " +
                                              std::to_string(op.peer) + " is not another rank of the job"));
        op.tag = number("comm_tag");
        op.size = bytes{number("comm_size")};
        break;
      }
      default:
        AICB_THROW(
            io_error(trace_path, "node " + std::to_string(node.id) + " is of a type aicb does not replay"));
    }
    saved.ops.push_back(op);
    saved.durations.push_back(duration);
  }
  if (saved.ops.empty())
    AICB_THROW(io_error(trace_path, "holds no operations (only the trace's metadata): rank " +
                                        std::to_string(rank) + " would wait for peers that never come"));
  return saved;
}

/// The largest Chakra trace of one rank that aicb replays: about a million operations, which a
/// rank holds in memory (with their names) while it replays them.
inline constexpr std::uint64_t max_replayed_trace_bytes = std::uint64_t{64} << 20;

/// Reads rank `rank`'s operations from the Chakra set in `directory` (see the file comment).
[[nodiscard]] inline saved_rank load_chakra_rank(const std::string& directory, std::uint64_t rank) {
  const std::string manifest_path = directory + "/" + std::string(chakra_manifest_file);
  const detail::file_prefix manifest =
      detail::read_file_prefix(manifest_path, 64 << 20, "a Chakra set's manifest.json");
  if (!manifest.whole) AICB_THROW(io_error(manifest_path, "is larger than 64 MiB"));
  const std::string trace_path = directory + "/workload." + std::to_string(rank) + ".et";
  const detail::file_prefix trace =
      detail::read_file_prefix(trace_path, max_replayed_trace_bytes, "a Chakra trace");
  if (!trace.whole)
    AICB_THROW(io_error(trace_path,
                        "is larger than 64 MiB, the most aicb replays for one rank (about a "
                        "million operations); write the set with fewer iterations or micro batches"));
  return parse_chakra_rank(manifest.text, trace.text, rank, manifest_path, trace_path);
}

AICB_END_NAMESPACE
