// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Chakra execution traces (MLCommons' format, what ASTRA-sim 2.0 replays): one file per rank, each
/// the rank's operation graph (aicb::rank_schedule) node for node — compute, collectives, sends and
/// receives, with their dependencies — written with aicb's own protobuf encoder
/// (aicb/io/protobuf_wire.hpp); and the reader for such files.
///
/// ```cpp
/// std::string et;
/// aicb::write_chakra_rank([&](std::string_view s) { et += s; }, job, 5, aicb::roofline_model("H100"));
/// const aicb::chakra_trace t = aicb::read_chakra_trace(et, "rank 5");
/// ```
///
/// A file is a stream of length-delimited messages: a `GlobalMetadata` (version "0.0.4"), then one
/// `Node` per operation, in schedule order. What ASTRA-sim's feeder reads, with the field types it
/// reads (docs/chakra.md):
/// - `id` = the operation's index in the rank's stream (`aicb schedule --ranks R` lists the same
///   numbers), `name` = the operation's name, `data_deps` = what it waits for;
/// - compute (COMP_NODE): `duration_micros` from the compute model, rounded so that the rank's
///   running total stays within half a microsecond of the exact one (a run of sub-microsecond kernels
///   does not vanish), `num_ops` (int64, FLOPs) and `tensor_size` (uint64, bytes) for ASTRA-sim's
///   roofline mode, `is_cpu_op` = false;
/// - a collective (COMM_COLL_NODE): `comm_type` (int64, Chakra's CollectiveCommType), `comm_size`
///   (int64, bytes), `pg_name` (a string holding the communicator group's number, see chakra_groups);
/// - a send or receive (COMM_SEND_NODE, COMM_RECV_NODE): `comm_dst` or `comm_src` (int32, the peer),
///   `comm_tag` (int32), `comm_size` (int64).
///
/// Sizes: aicb's operations (like SimAI's and aicb's files) give an all-gather's size as the gathered
/// output; ASTRA-sim reads an all-gather's `comm_size` as each rank's input. The writer converts:
/// an all-gather's `comm_size` is the size divided by the group's size (aicb::operation::
/// per_rank_size). All-reduce (the buffer), reduce-scatter (the whole input) and all-to-all (the send
/// buffer) mean the same in both and are written as they are.

#include <aicb/checked.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/input_file.hpp>
#include <aicb/error.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/protobuf_wire.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/model/serving.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/inference_step.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/version.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The Chakra schema version the files declare.
inline constexpr std::string_view chakra_version = "0.0.4";

/// Chakra's node types (et_def.proto's NodeType).
enum class chakra_node_type : std::uint8_t {
  invalid = 0,
  metadata = 1,
  mem_load = 2,
  mem_store = 3,
  compute = 4,     ///< COMP_NODE
  send = 5,        ///< COMM_SEND_NODE
  recv = 6,        ///< COMM_RECV_NODE
  collective = 7,  ///< COMM_COLL_NODE
};

/// Chakra's collective types (et_def.proto's CollectiveCommType).
enum class chakra_collective : std::uint8_t {
  all_reduce = 0,
  reduce = 1,
  all_gather = 2,
  gather = 3,
  scatter = 4,
  broadcast = 5,
  all_to_all = 6,
  reduce_scatter = 7,
  reduce_scatter_block = 8,
  barrier = 9,
};

/// Chakra's collective type for an aicb collective; nothing for point-to-point and `none`.
[[nodiscard]] constexpr std::optional<chakra_collective> to_chakra(collective c) noexcept {
  switch (c) {
    case collective::all_reduce:
      return chakra_collective::all_reduce;
    case collective::all_gather:
      return chakra_collective::all_gather;
    case collective::reduce_scatter:
      return chakra_collective::reduce_scatter;
    case collective::all_to_all:
      return chakra_collective::all_to_all;
    case collective::broadcast:
      return chakra_collective::broadcast;
    case collective::reduce:
      return chakra_collective::reduce;
    case collective::barrier:
      return chakra_collective::barrier;
    default:
      return std::nullopt;
  }
}

/// The `comm_size` ASTRA-sim reads for a collective (see the file comment): an all-gather's input
/// per rank, the operation's size otherwise.
[[nodiscard]] constexpr std::uint64_t chakra_comm_size(const operation& op) noexcept {
  if (op.type == op_type::collective && op.kind == collective::all_gather) return op.per_rank_size().count();
  return op.size.count();
}

/// The communicator groups of a job, numbered for `pg_name` and the `--comm-group-configuration`
/// file: every group of every kind, kinds in aicb::group_kind's order, groups of a kind in Megatron's
/// enumeration — group `index` of the k-th kind is 1 + (groups of the kinds before) + index. Numbers
/// start at 1: ASTRA-sim reads "0" and "" as "all ranks".
class chakra_groups {
 public:
  explicit chakra_groups(const job_spec& job) : grid_(job) {
    std::uint64_t next = 1;
    for (std::size_t k = 0; k < first_.size(); ++k) {
      first_[k] = next;
      next += grid_.group_count(static_cast<group_kind>(k));
    }
    end_ = next;
  }

  /// The number of a group.
  [[nodiscard]] std::uint64_t id(group_id g) const noexcept {
    return first_[static_cast<std::size_t>(g.kind)] + g.index;
  }
  /// The group a number names, or nothing.
  [[nodiscard]] std::optional<group_id> group_of(std::uint64_t id) const noexcept {
    if (id == 0 || id >= end_) return std::nullopt;
    std::size_t k = first_.size();
    while (first_[k - 1] > id)
      --k;
    return group_id{static_cast<group_kind>(k - 1), id - first_[k - 1]};
  }
  /// The group's members, ascending.
  [[nodiscard]] rank_group members(group_id g) const { return grid_.group_at(g.kind, g.index); }
  [[nodiscard]] const process_grid& grid() const noexcept { return grid_; }
  /// How many numbers there are (every group of every kind).
  [[nodiscard]] std::uint64_t count() const noexcept { return end_ - 1; }

 private:
  process_grid grid_;
  std::array<std::uint64_t, enum_names<group_kind>::value.size()> first_{};
  std::uint64_t end_ = 1;
};

/// What one rank's file holds.
struct chakra_rank_summary {
  std::uint64_t rank = 0;
  std::uint64_t nodes = 0, compute = 0, collectives = 0, sends = 0, recvs = 0;
  std::uint64_t bytes = 0;       ///< the file's size
  std::uint64_t compute_us = 0;  ///< the sum of the compute nodes' durations
  std::vector<group_id> groups;  ///< the groups its collectives use, ascending
};

namespace detail {

// One attribute (AttributeProto: name = 1, then one member of its `value` oneof).
struct chakra_attr_field {
  static constexpr std::uint32_t int32_val = 7, int64_val = 9, uint64_val = 13, bool_val = 27,
                                 string_val = 29;
};

inline void add_attr(protobuf_message& node, protobuf_message& scratch, std::string_view name,
                     std::uint32_t field, std::uint64_t value) {
  scratch.clear();
  scratch.add_string(1, name).add_uint(field, value);
  node.add_message(10, scratch);
}
inline void add_attr(protobuf_message& node, protobuf_message& scratch, std::string_view name,
                     std::string_view value) {
  scratch.clear();
  scratch.add_string(1, name).add_string(chakra_attr_field::string_val, value);
  node.add_message(10, scratch);
}

// ASTRA-sim asserts on tags and peers beyond int32.
inline std::uint64_t checked_int32(std::uint64_t value, std::string_view what, std::uint64_t rank,
                                   const operation& op) {
  if (value > 0x7fffffffu)
    AICB_THROW(error("rank " + std::to_string(rank) + ", operation " + std::to_string(op.index) + " (" +
                     std::string(op.name) + "): its " + std::string(what) + " " + std::to_string(value) +
                     " does not fit Chakra's int32 field"));
  return value;
}

}  // namespace detail

/// Where one job's ranks sit among the NPUs of a larger set of traces (several jobs on one cluster,
/// aicb/io/chakra_job_set.hpp): the NPU each rank runs on, the set's NPU count and what is added to
/// the job's group numbers so that no two jobs share one. The default places a job alone.
struct chakra_placement {
  std::span<const std::uint64_t> npus{};  ///< the NPU of each of the job's ranks; empty: its rank
  std::uint64_t world = 0;                ///< the set's NPUs; 0: the job's world
  std::uint64_t group_offset = 0;         ///< added to every group number of the job

  [[nodiscard]] std::uint64_t npu(std::uint64_t rank) const { return npus.empty() ? rank : npus[rank]; }
};

/// Writes the Chakra trace of rank `rank` of `world` ranks whose operations `operations` holds (any
/// range of aicb::operation in stream order: a rank_schedule, an inference_step's) through
/// `write(std::string_view)`; groups numbered by `numbers`, compute durations from `compute`, each
/// `compute_pace` times as long (a slow rank, a straggler). With `at`, the file is NPU
/// `at.npu(rank)`'s of `at.world`, its peers NPUs and its groups renumbered (a job among others).
template <class Write, class Operations>
chakra_rank_summary write_chakra_operations(Write&& write, Operations&& operations, std::uint64_t rank,
                                            std::uint64_t world, const chakra_groups& numbers,
                                            const compute_model& compute, double compute_pace = 1,
                                            const chakra_placement& at = {}) {
  chakra_rank_summary s{.rank = rank, .groups = {}};
  std::string buffer;
  buffer.reserve(1 << 16);
  protobuf_message message, attr;
  const auto flush = [&](bool force) {
    if (buffer.size() >= (1 << 16) || (force && !buffer.empty())) {
      write(std::string_view(buffer));
      s.bytes += buffer.size();
      buffer.clear();
    }
  };
  {  // GlobalMetadata { version = 1; attr = 2 }
    message.add_string(1, chakra_version);
    attr.clear();
    attr.add_string(1, "generator")
        .add_string(detail::chakra_attr_field::string_val, std::string("aicb ") + AICB_VERSION_STRING);
    message.add_message(2, attr);
    attr.clear();
    attr.add_string(1, "rank").add_uint(detail::chakra_attr_field::uint64_val, at.npu(rank));
    message.add_message(2, attr);
    attr.clear();
    attr.add_string(1, "world_size")
        .add_uint(detail::chakra_attr_field::uint64_val, at.world ? at.world : world);
    message.add_message(2, attr);
    append_delimited(buffer, message);
  }
  double exact_ns = 0;           // the compute nodes' exact total so far
  std::uint64_t written_us = 0;  // what their durations add up to
  std::array<std::uint64_t, 8> deps{};
  std::string pg;
  for (const operation& op : operations) {
    message.clear();
    message.add_uint(1, op.index).add_string(2, op.name);
    for (std::uint8_t i = 0; i < op.after_count; ++i)
      deps[i] = op.after[i];
    switch (op.type) {
      case op_type::compute: {
        message.add_uint(3, static_cast<std::uint64_t>(chakra_node_type::compute));
        message.add_packed(5, std::span(deps.data(), op.after_count));
        exact_ns += static_cast<double>(compute.duration(op.compute).count()) * compute_pace;
        const auto total_us = static_cast<std::uint64_t>(std::llround(exact_ns / 1000));
        const std::uint64_t us = total_us > written_us ? total_us - written_us : 0;
        written_us += us;
        if (us > 0) message.add_uint(7, us);
        detail::add_attr(message, attr, "is_cpu_op", detail::chakra_attr_field::bool_val, 0);
        detail::add_attr(message, attr, "num_ops", detail::chakra_attr_field::int64_val,
                         static_cast<std::uint64_t>(std::llround(op.compute.flops())));
        detail::add_attr(message, attr, "tensor_size", detail::chakra_attr_field::uint64_val,
                         static_cast<std::uint64_t>(std::llround(op.compute.bytes())));
        ++s.compute;
        break;
      }
      case op_type::collective: {
        const auto type = to_chakra(op.kind);
        if (!type)
          AICB_THROW(error("rank " + std::to_string(rank) + ", operation " + std::to_string(op.index) +
                           ": a collective Chakra has no type for"));
        message.add_uint(3, static_cast<std::uint64_t>(chakra_node_type::collective));
        message.add_packed(5, std::span(deps.data(), op.after_count));
        detail::add_attr(message, attr, "is_cpu_op", detail::chakra_attr_field::bool_val, 0);
        detail::add_attr(message, attr, "comm_type", detail::chakra_attr_field::int64_val,
                         static_cast<std::uint64_t>(*type));
        detail::add_attr(message, attr, "comm_size", detail::chakra_attr_field::int64_val,
                         chakra_comm_size(op));
        pg = std::to_string(at.group_offset + numbers.id(op.group));
        detail::add_attr(message, attr, "pg_name", pg);
        const auto at = std::lower_bound(s.groups.begin(), s.groups.end(), op.group);
        if (at == s.groups.end() || *at != op.group) s.groups.insert(at, op.group);
        ++s.collectives;
        break;
      }
      case op_type::send:
      case op_type::recv: {
        const bool send = op.type == op_type::send;
        message.add_uint(3,
                         static_cast<std::uint64_t>(send ? chakra_node_type::send : chakra_node_type::recv));
        message.add_packed(5, std::span(deps.data(), op.after_count));
        detail::add_attr(message, attr, "is_cpu_op", detail::chakra_attr_field::bool_val, 0);
        detail::add_attr(message, attr, send ? "comm_dst" : "comm_src", detail::chakra_attr_field::int32_val,
                         detail::checked_int32(at.npu(op.peer), "peer", rank, op));
        detail::add_attr(message, attr, "comm_tag", detail::chakra_attr_field::int32_val,
                         detail::checked_int32(op.tag, "tag", rank, op));
        detail::add_attr(message, attr, "comm_size", detail::chakra_attr_field::int64_val, op.size.count());
        ++(send ? s.sends : s.recvs);
        break;
      }
    }
    append_delimited(buffer, message);
    ++s.nodes;
    flush(false);
  }
  flush(true);
  s.compute_us = written_us;
  return s;
}

/// Writes rank `rank`'s Chakra trace of `job` through `write(std::string_view)` (see the file
/// comment); compute durations from `compute`. Streams: memory holds one pipeline step.
template <class Write>
chakra_rank_summary write_chakra_rank(Write&& write, const job_spec& job, std::uint64_t rank,
                                      const compute_model& compute,
                                      const rank_schedule_options& options = {}) {
  rank_schedule schedule(job, rank, options);
  return write_chakra_operations(write, schedule, rank, job.parallel.world_size, chakra_groups(job), compute);
}

/// One attribute as read: its name, the oneof member it was written in (AttributeProto's field
/// number: 7 int32, 9 int64, 13 uint64, 27 bool, 29 string, …) and its value.
struct chakra_attribute {
  std::string name;
  std::uint32_t field = 0;
  std::uint64_t number = 0;  ///< integer and bool members
  std::string text;          ///< string and bytes members
};

/// One node as read (the fields aicb writes; other fields are skipped).
struct chakra_node {
  std::uint64_t id = 0;
  std::string name;
  chakra_node_type type = chakra_node_type::invalid;
  std::vector<std::uint64_t> data_deps, ctrl_deps;
  std::uint64_t duration_micros = 0;
  std::vector<chakra_attribute> attrs;

  /// The attribute called `name`, or null.
  [[nodiscard]] const chakra_attribute* attr(std::string_view name) const noexcept {
    for (const chakra_attribute& a : attrs)
      if (a.name == name) return &a;
    return nullptr;
  }
};

/// A whole file as read: the metadata's version and attributes, then the nodes in file order.
struct chakra_trace {
  std::string version;
  std::vector<chakra_attribute> metadata;
  std::vector<chakra_node> nodes;
};

namespace detail {

inline chakra_attribute read_chakra_attribute(std::string_view bytes, const std::string& where) {
  chakra_attribute a;
  protobuf_fields fields(bytes, where);
  protobuf_field f;
  while (fields.next(f)) {
    if (f.field == 1 && f.type == wire_type::length_delimited) {
      a.name = std::string(f.bytes);
    } else if (f.field >= 3 && f.field != 2) {
      a.field = f.field;
      if (f.type == wire_type::length_delimited)
        a.text = std::string(f.bytes);
      else
        a.number = f.number;
    }
  }
  return a;
}

}  // namespace detail

/// Reads a Chakra file's bytes (see the file comment); `name` names it in errors. Refuses, naming the
/// record, what is not a stream of well-formed messages.
[[nodiscard]] inline chakra_trace read_chakra_trace(std::string_view bytes, const std::string& name) {
  chakra_trace t;
  protobuf_fields records(bytes, name);
  bool first = true;
  while (!records.done()) {
    const std::size_t at = records.offset();
    const std::uint64_t size = records.varint();
    if (size > bytes.size() - records.offset())
      AICB_THROW(error(name + ", byte " + std::to_string(at) + ": a record of " + std::to_string(size) +
                       " bytes runs past the end of the file (cut off?)"));
    const std::string_view record = bytes.substr(records.offset(), static_cast<std::size_t>(size));
    const std::string where = first ? name + ", metadata" : name + ", node " + std::to_string(t.nodes.size());
    protobuf_fields fields(record, where);
    protobuf_field f;
    if (first) {
      while (fields.next(f)) {
        if (f.field == 1 && f.type == wire_type::length_delimited) t.version = std::string(f.bytes);
        if (f.field == 2 && f.type == wire_type::length_delimited)
          t.metadata.push_back(detail::read_chakra_attribute(f.bytes, where));
      }
      first = false;
    } else {
      chakra_node n;
      while (fields.next(f)) {
        switch (f.field) {
          case 1:
            n.id = f.number;
            break;
          case 2:
            if (f.type == wire_type::length_delimited) n.name = std::string(f.bytes);
            break;
          case 3:
            n.type = f.number <= 7 ? static_cast<chakra_node_type>(f.number) : chakra_node_type::invalid;
            break;
          case 4:
            for_each_packed(
                f, [&](std::uint64_t v) { n.ctrl_deps.push_back(v); }, where);
            break;
          case 5:
            for_each_packed(
                f, [&](std::uint64_t v) { n.data_deps.push_back(v); }, where);
            break;
          case 7:
            n.duration_micros = f.number;
            break;
          case 10:
            if (f.type == wire_type::length_delimited)
              n.attrs.push_back(detail::read_chakra_attribute(f.bytes, where));
            break;
          default:
            break;
        }
      }
      t.nodes.push_back(std::move(n));
    }
    records.skip(static_cast<std::size_t>(size));
  }
  if (first) AICB_THROW(error(name + ": empty (a Chakra trace starts with its metadata record)"));
  return t;
}

/// What write_chakra_set writes.
struct chakra_set_options {
  std::string name = "workload";       ///< the files' prefix: NAME.RANK.et (ASTRA-sim's workload path)
  std::vector<std::uint64_t> ranks{};  ///< the ranks to write; empty: every rank
  rank_schedule_options schedule{};
  /// More members of manifest.json (the job, the compute model), written by the caller.
  std::function<void(json_writer&)> about{};
  /// Called after each rank's file: ranks done, ranks in all.
  std::function<void(std::uint64_t, std::uint64_t)> progress{};
  /// Slow ranks (stragglers): rank → how many times longer its computations take. A slow link is
  /// not the trace's to say: ASTRA-sim's network configuration sets bandwidths.
  std::map<std::uint64_t, double> compute_pace{};
};

/// What write_chakra_set wrote.
struct chakra_set_result {
  std::string directory;
  std::uint64_t files = 0, nodes = 0, bytes = 0;
  std::uint64_t compute = 0, collectives = 0, sends = 0, recvs = 0;
  std::uint64_t groups = 0;  ///< communicator groups in comm_groups.json

  /// Counts one rank's file.
  void add(const chakra_rank_summary& s) noexcept {
    ++files;
    nodes += s.nodes;
    bytes += s.bytes;
    compute += s.compute;
    collectives += s.collectives;
    sends += s.sends;
    recvs += s.recvs;
  }
};

/// The name of the communicator-group file of a set (ASTRA-sim's `--comm-group-configuration`).
inline constexpr std::string_view chakra_comm_groups_file = "comm_groups.json";
/// The name of a set's manifest (what was written, with which job and conventions).
inline constexpr std::string_view chakra_manifest_file = "manifest.json";

namespace detail {

// The text of top-level member `key` of a manifest as json_writer prints it ("\n  \"key\": VALUE"
// on one line, or an array over several): the value's text, or nullopt when it is not there.
inline std::optional<std::string_view> manifest_member(std::string_view text, std::string_view key) {
  const std::string marker = "\n  \"" + std::string(key) + "\": ";
  const std::size_t at = text.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + marker.size());
  if (rest.starts_with("[")) return rest.substr(0, std::min(rest.find(']'), rest.size() - 1) + 1);
  return rest.substr(0, std::min({rest.find(",\n"), rest.find('\n'), rest.size()}));
}

// A decimal below 2^63 (the manifest's numbers), or nullopt.
inline std::optional<std::uint64_t> manifest_number(std::string_view t) {
  std::uint64_t v = 0;
  if (t.empty() || t.size() > 18 || t.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  for (const char c : t)
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  return v;
}

// Why directory `dir` is not a Chakra set that write_chakra_set wrote and nobody changed since —
// its manifest.json of schema aicb.chakra/1 names the traces' prefix, the world and the ranks,
// and the directory holds exactly comm_groups.json, manifest.json and one NAME.RANK.et per rank
// listed, all regular files — or "" when it is one (and may be replaced whole).
inline std::string why_not_a_previous_chakra_set(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path manifest_path = dir / std::string(chakra_manifest_file);
  const fs::file_status manifest_status = fs::symlink_status(manifest_path, ec);
  if (ec || !fs::is_regular_file(manifest_status)) return "no manifest.json of a set aicb wrote";
  std::string text;
  try {
    detail::file_prefix in = detail::read_file_prefix(manifest_path.string(), 64 << 20, "manifest.json");
    if (!in.whole) return "manifest.json is not one aicb wrote";
    text = std::move(in.text);
  } catch (const io_error&) {
    return "manifest.json cannot be read";
  }
  const auto member = [&](std::string_view key) { return manifest_member(text, key); };
  const auto schema = member("schema");
  const auto generator = member("generator");
  if (!text.starts_with("{") || !schema || *schema != "\"aicb.chakra/1\"" || !generator ||
      !generator->starts_with("\"aicb "))
    return "manifest.json is not the manifest of an aicb.chakra/1 set";
  const auto workload = member("workload");
  const auto world_text = member("world_size");
  const auto files_text = member("files");
  const auto ranks_text = member("ranks");
  const std::optional<std::uint64_t> world_size = world_text ? manifest_number(*world_text) : std::nullopt;
  const std::optional<std::uint64_t> file_count = files_text ? manifest_number(*files_text) : std::nullopt;
  // The prefix is a JSON string of a file name: quoted, with no quote, escape or path separator in it.
  const bool quoted_name =
      workload && workload->size() >= 3 && workload->starts_with('"') && workload->ends_with('"') &&
      workload->substr(1, workload->size() - 2).find_first_of("\"\\/") == std::string_view::npos;
  if (!quoted_name || !world_size || !file_count || !ranks_text)
    return "manifest.json lacks the set's prefix, world size, ranks or file count";
  const std::uint64_t world = *world_size, files = *file_count;
  const std::string prefix = std::string(workload->substr(1, workload->size() - 2)) + ".";
  std::set<std::uint64_t> listed;  // the ranks the manifest lists; empty with "all"
  const bool all = *ranks_text == "\"all\"";
  if (!all) {
    std::string_view list = *ranks_text;
    if (!list.starts_with("[")) return "manifest.json's ranks are not a list";
    list.remove_prefix(1);
    while (!list.empty()) {
      const std::size_t digit = list.find_first_of("0123456789");
      if (digit == std::string_view::npos) break;
      list.remove_prefix(digit);
      const std::size_t stop = std::min(list.find_first_not_of("0123456789"), list.size());
      const auto r = manifest_number(list.substr(0, stop));
      if (!r || *r >= world) return "manifest.json lists a rank outside its world";
      listed.insert(*r);
      list.remove_prefix(stop);
    }
  }
  const std::uint64_t expected_traces = all ? world : listed.size();
  if (files != expected_traces) return "manifest.json's file count does not match its ranks";
  std::uint64_t traces = 0;
  bool groups = false;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    std::error_code type_error;
    const fs::file_status status = fs::symlink_status(it->path(), type_error);
    if (type_error || !fs::is_regular_file(status)) return "\"" + entry + "\" is not a file the set holds";
    if (entry == chakra_manifest_file) continue;
    if (entry == chakra_comm_groups_file) {
      groups = true;
      continue;
    }
    std::optional<std::uint64_t> rank;
    if (entry.starts_with(prefix) && entry.ends_with(".et"))
      rank = manifest_number(std::string_view(entry).substr(prefix.size(), entry.size() - prefix.size() - 3));
    if (!rank || *rank >= world || (!all && !listed.contains(*rank)) ||
        std::to_string(*rank) != entry.substr(prefix.size(), entry.size() - prefix.size() - 3))
      return "\"" + entry + "\" is not a file the manifest lists";
    ++traces;
  }
  if (ec) return "the directory cannot be listed: " + ec.message();
  if (!groups || traces != expected_traces) return "files the manifest lists are missing";
  return {};
}

// A set of `world` ranks' traces (see write_chakra_set): `write_rank(write, rank)` writes one rank's.
// Refuses a rank list with a rank outside the world or a rank twice.
inline void check_chakra_ranks(const std::vector<std::uint64_t>& ranks, std::uint64_t world) {
  std::vector<std::uint64_t> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] >= world)
      AICB_THROW(config_error("ranks", std::to_string(sorted[i]),
                              "a rank must be below world_size (" + std::to_string(world) + ")"));
    if (i > 0 && sorted[i] == sorted[i - 1])
      AICB_THROW(config_error("ranks", std::to_string(sorted[i]), "a rank is listed twice"));
  }
}

// The bytes of comm_groups.json for groups of `size` members, `count` of them, in a world of `world`.
inline std::uint64_t chakra_group_file_bytes(std::uint64_t count, std::uint64_t size, std::uint64_t world) {
  const std::uint64_t digits = std::to_string(world).size() + 2;  // "N, "
  return checked_add(checked_mul(checked_mul(count, size, "comm_groups.json"), digits, "comm_groups.json"),
                     32, "comm_groups.json");
}

// comm_groups.json, one group at a time ({"<number>": [members...], ...}), streamed: a data-parallel
// group of a large world has millions of members.
class chakra_comm_groups_writer {
 public:
  explicit chakra_comm_groups_writer(const std::string& path)
      : file_(path, {.remove_stale_temporaries = false}, 1 << 16) {}
  // Group `number`, its members each as `npu` places it (a job's rank → its NPU in a set).
  void add(std::uint64_t number, const rank_group& members, const chakra_placement& npu = {}) {
    text_.append(first_ ? "{\n  \"" : ",\n  \"").append(std::to_string(number)).append("\": [");
    for (std::uint64_t j = 0; j < members.size(); ++j) {
      text_.append(j ? ", " : "").append(std::to_string(npu.npu(members.member(j))));
      if (text_.size() >= (1 << 16)) {
        file_.write(text_);
        text_.clear();
      }
    }
    text_.append("]");
    first_ = false;
  }
  void commit() {
    text_.append(first_ ? "{\n}\n" : "\n}\n");
    file_.write(text_);
    file_.commit();
  }

 private:
  atomic_file file_;
  std::string text_;
  bool first_ = true;
};

// A set of `world` ranks' traces (see write_chakra_set): `write_rank(write, rank)` writes one rank's.
// `estimated_bytes` (0: not estimated) is checked against the free space before anything is written.
// Memory holds one rank at a time, never a list of every rank or every group's members.
template <class WriteRank>
chakra_set_result write_chakra_set_of(const std::string& directory, std::uint64_t world,
                                      const chakra_groups& numbers, const chakra_set_options& options,
                                      WriteRank&& write_rank, std::uint64_t estimated_bytes = 0) {
  if (options.name.empty() || options.name.find('/') != std::string::npos || options.name == "." ||
      options.name == "..")
    AICB_THROW(config_error("name", options.name, "the traces' prefix must be a plain file name"));
  check_chakra_ranks(options.ranks, world);
  const bool all_ranks = options.ranks.empty();
  const std::uint64_t rank_count = all_ranks ? world : options.ranks.size();
  atomic_directory out(directory, why_not_a_previous_chakra_set);
  if (estimated_bytes > 0) require_free_space(directory, estimated_bytes);
  chakra_set_result result{.directory = directory};
  std::set<group_id> groups;
  for (std::uint64_t i = 0; i < rank_count; ++i) {
    const std::uint64_t rank = all_ranks ? i : options.ranks[i];
    atomic_file file(out.file(options.name + "." + std::to_string(rank) + ".et"),
                     {.remove_stale_temporaries = false}, 1 << 16);
    const chakra_rank_summary s = write_rank([&](std::string_view bytes) { file.write(bytes); }, rank);
    file.commit();
    result.add(s);
    groups.insert(s.groups.begin(), s.groups.end());
    if (options.progress) options.progress(result.files, rank_count);
  }
  chakra_comm_groups_writer group_file(out.file(chakra_comm_groups_file));
  for (const group_id& g : groups)  // ascending kind and index: ascending numbers
    group_file.add(numbers.id(g), numbers.members(g));
  group_file.commit();
  result.groups = groups.size();
  json_writer m;
  m.begin_object()
      .member("schema", "aicb.chakra/1")
      .member("generator", std::string("aicb ") + AICB_VERSION_STRING);
  m.member("chakra_version", chakra_version).member("workload", options.name);
  m.member("comm_group_configuration", chakra_comm_groups_file).member("world_size", world);
  m.member("files", result.files).member("nodes", result.nodes).member("bytes", result.bytes);
  if (options.ranks.empty()) {
    m.member("ranks", "all");
  } else {
    m.key("ranks").begin_array();
    for (const std::uint64_t r : options.ranks)
      m.value(r);
    m.end_array();
  }
  m.member("all_gather_comm_size",
           "per-rank input (ASTRA-sim's convention: aicb's gathered size / group size)");
  m.key("groups").begin_object();
  for (const group_id& g : groups)
    m.member(std::to_string(numbers.id(g)), to_string(g));
  m.end_object();
  if (options.about) options.about(m);
  m.end_object();
  write_file_atomically(out.file(chakra_manifest_file), m.str() + "\n", {.remove_stale_temporaries = false});
  out.commit();
  return result;
}

}  // namespace detail

/// About the bytes write_chakra_set writes for `job` and `options`: one iteration of the first
/// chosen rank of each pipeline stage, counted (not written), times the iterations and the stage's
/// chosen ranks, plus comm_groups.json's members. config_error when that exceeds 2^64 − 1 bytes
/// (an absurd iteration count, say); the writer checks it against the free space before writing.
template <class = void>
[[nodiscard]] std::uint64_t estimate_chakra_set_bytes(const job_spec& job, const chakra_groups& numbers,
                                                      const compute_model& compute,
                                                      const chakra_set_options& options) {
  const process_grid& grid = numbers.grid();
  const std::uint64_t world = job.parallel.world_size, stages = job.parallel.pipeline_parallel;
  detail::check_chakra_ranks(options.ranks, world);
  // The chosen ranks of each stage, and the first of them.
  std::vector<std::uint64_t> count(stages, 0), first(stages, world);
  if (options.ranks.empty()) {
    for (std::uint64_t s = 0; s < stages; ++s) {
      count[s] = world / stages;
      first[s] = first_rank_of_stage(job, s);
    }
  } else {
    for (const std::uint64_t r : options.ranks) {
      const std::uint64_t s = grid.coordinates(r).pp;
      ++count[s];
      first[s] = std::min(first[s], r);
    }
  }
  rank_schedule_options once = options.schedule;
  once.iterations = 1;
  const std::uint64_t iterations = std::max<std::uint64_t>(options.schedule.iterations, 1);
  std::uint64_t total = 0;
  std::set<group_kind> kinds;
  for (std::uint64_t s = 0; s < stages; ++s) {
    if (count[s] == 0) continue;
    rank_schedule schedule(job, first[s], once);
    const chakra_rank_summary one =
        write_chakra_operations([](std::string_view) {}, schedule, first[s], world, numbers, compute);
    const std::uint64_t per_rank =
        checked_mul(one.bytes, iterations, "bytes of a rank's trace (x iterations)");
    total = checked_add(total, checked_mul(per_rank, count[s], "bytes of the traces"), "bytes of the traces");
    for (const group_id& g : one.groups)
      kinds.insert(g.kind);
  }
  const std::uint64_t chosen = options.ranks.empty() ? world : options.ranks.size();
  for (const group_kind k : kinds)
    total =
        checked_add(total,
                    detail::chakra_group_file_bytes(std::min(chosen, grid.group_count(k)),
                                                    grid.group(k, first_rank_of_stage(job, 0)).size(), world),
                    "bytes of the set");
  return total;
}

/// Writes the Chakra traces of `job`'s ranks into `directory`: NAME.RANK.et for each rank,
/// comm_groups.json (`{"<pg_name>": [members…]}` for every group the files name) and manifest.json
/// (schema "aicb.chakra/1"). The directory is built under a temporary name and renamed into place
/// when complete (aicb::atomic_directory): a set lands whole or not at all. Memory holds one rank's
/// pipeline step at a time and the set of groups named.
template <class = void>
chakra_set_result write_chakra_set(const std::string& directory, const job_spec& job,
                                   const compute_model& compute, const chakra_set_options& options = {}) {
  const validated_job checked(job);  // once: every rank's schedule below starts from it
  for (const auto& [rank, pace] : options.compute_pace)
    if (rank >= job.parallel.world_size || !(pace >= 1) || !(pace < 1e6))
      AICB_THROW(config_error("slow_rank", std::to_string(rank),
                              "a slow rank must be below world_size (" +
                                  std::to_string(job.parallel.world_size) +
                                  ") and its factor at least 1 and finite"));
  const chakra_groups numbers(job);
  // The manifest names the job (what a replay rebuilds the groups from), then the caller's keys.
  chakra_set_options with_job = options;
  with_job.about = [&](json_writer& j) {
    j.key("job");
    write_json(j, job);
    if (options.about) options.about(j);
  };
  return detail::write_chakra_set_of(
      directory, job.parallel.world_size, numbers, with_job,
      [&](auto&& write, std::uint64_t rank) {
        rank_schedule schedule(checked, rank, options.schedule);
        const auto pace = options.compute_pace.find(rank);
        return write_chakra_operations(write, schedule, rank, job.parallel.world_size, numbers, compute,
                                       pace == options.compute_pace.end() ? 1.0 : pace->second);
      },
      estimate_chakra_set_bytes(job, numbers, compute, options));
}

/// The Chakra traces of one serving step (aicb::inference_step) on every GPU of `serving` (or the
/// ranks `options` chooses), as write_chakra_set writes a training job's.
template <class = void>
chakra_set_result write_inference_chakra_set(const std::string& directory, const model_spec& model,
                                             const serving_spec& serving, const compute_model& compute,
                                             const chakra_set_options& options = {}) {
  validate_serving(resolve(model), serving);
  const chakra_groups numbers(serving_layout_job(resolve(model), serving));
  return detail::write_chakra_set_of(
      directory, serving.gpus(), numbers, options, [&](auto&& write, std::uint64_t rank) {
        const inference_step step(model, serving, rank);
        return write_chakra_operations(write, step.operations(), rank, serving.gpus(), numbers, compute);
      });
}

AICB_END_NAMESPACE
