// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// What `aicb run` does, as library calls: a typed aicb::run_request (a job, a collective sweep or a
/// saved Chakra set; the replay's options; the files to write), aicb::prepare_run (what one rank
/// replays) and aicb::run_on (replays it over a transport the caller owns — MPI, NCCL, a test's
/// threads — and on rank 0 writes the JSON summary `aicb.run/2`, aicb's result CSV and a timeline).
///
/// ```cpp
/// aicb::run_request r;
/// r.sweep = {aicb::collective::all_reduce};
/// r.sizes = aicb::parse_size_range("1KiB:1MiB", "sizes");
/// const aicb::prepared_run p = aicb::prepare_run(r, transport.world(), transport.rank());
/// const aicb::run_outcome done = aicb::run_on(transport, r, p);
/// if (transport.rank() == 0) std::fputs(aicb::format_run_table(done, p, r).c_str(), stdout);
/// ```
///
/// The job is resolved and validated once, in prepare_run; a run over N ranks spans N ranks unless
/// the request names another world size (then it is refused: the ranks started are the job's).

#include <aicb/calc/job_request.hpp>
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/config.hpp>
#include <aicb/enum_names.hpp>
#include <aicb/error.hpp>
#include <aicb/generate/csv_projection.hpp>
#include <aicb/io/aicb_csv.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/cluster_file.hpp>
#include <aicb/io/timeline_html.hpp>
#include <aicb/io/trace_events.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/run/replay.hpp>
#include <aicb/run/saved_workload.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/version.hpp>
#include <aicb/workload/bandwidth.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Where a run's operations execute: MPI collectives on CPU buffers, or NCCL on one GPU per rank;
/// `automatic` is MPI where the program has it, else NCCL.
enum class run_backend : std::uint8_t { automatic, mpi, nccl };

template <>
struct enum_names<run_backend> {
  static constexpr std::array<std::string_view, 3> value{"auto", "mpi", "nccl"};
};

/// A sweep's message sizes: `low`, doubling, up to `high`.
struct size_range {
  std::uint64_t low = 1024;
  std::uint64_t high = std::uint64_t{64} << 20;
};

/// "64MiB" → bytes: a number with an optional B, KiB (K), MiB (M) or GiB (G); from 1 B to 1 PB.
/// config_error naming `field` otherwise.
[[nodiscard]] inline std::uint64_t parse_byte_count(const std::string& text, const char* field) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (...) {
    AICB_THROW(config_error(field, text, "expected a size: a number with an optional KiB, MiB or GiB"));
  }
  const std::string unit = text.substr(used);
  const double scale = unit.empty() || unit == "B"    ? 1
                       : unit == "KiB" || unit == "K" ? 1024.0
                       : unit == "MiB" || unit == "M" ? 1024.0 * 1024
                       : unit == "GiB" || unit == "G" ? 1024.0 * 1024 * 1024
                                                      : -1;
  if (scale < 0 || !(value >= 1) || value * scale > 1e15)
    AICB_THROW(config_error(field, text, "expected a size of 1 B to 1 PB: a number with B, KiB, MiB or GiB"));
  return static_cast<std::uint64_t>(value * scale);
}

/// "MIN:MAX" (or one size) → a size_range; config_error naming `field` when MIN exceeds MAX.
[[nodiscard]] inline size_range parse_size_range(const std::string& text, const char* field) {
  const std::size_t colon = text.find(':');
  size_range r;
  r.low = parse_byte_count(text.substr(0, colon), field);
  r.high = colon == std::string::npos ? r.low : parse_byte_count(text.substr(colon + 1), field);
  if (r.high < r.low) AICB_THROW(config_error(field, text, "MIN must not exceed MAX"));
  return r;
}

/// What `aicb run` is asked: one of three workloads (a job; `sweep` collectives; a saved `chakra`
/// set), how to replay it, and what rank 0 writes.
struct run_request {
  job_request job{};                ///< the job (without world_size: the ranks started)
  std::vector<collective> sweep{};  ///< instead of a job: these collectives over every rank
  size_range sizes{};               ///< the sweep's sizes
  std::string chakra{};             ///< instead of a job: the directory of a saved Chakra set
  run_backend backend = run_backend::automatic;
  std::uint64_t warmup = 2;  ///< untimed repetitions first
  std::uint64_t repeat = 5;  ///< timed repetitions (of the job's iteration, or of each size)
  double compute_scale = 1;  ///< computation: a busy wait of the roofline duration × this
  double timeout_s = 120;    ///< seconds one operation may take before the job is ended
  std::uint64_t max_buffer = std::uint64_t{4} << 30;  ///< largest buffer one rank may allocate
  bool check = false;                                 ///< one untimed iteration verifying every buffer's data
  std::string gpu{};                                  ///< the roofline's GPU; empty: the cluster's
  std::string cluster{};                              ///< cluster preset; empty: the GPU's
  std::string output{};                               ///< rank 0's JSON summary (aicb.run/2); empty: none
  std::string csv{};                                  ///< rank 0's results as aicb's result CSV; empty: none
  std::string timeline{};     ///< the last measured iteration: .html a page, else trace-event JSON
  std::string fingerprint{};  ///< the configuration every rank must share (the command line)
  /// Stragglers: a rank's computation this many times longer (aicb::replay_options::slow_ranks).
  std::map<std::uint64_t, double> slow_ranks{};
  /// The overlapped replay (aicb::replay_options::overlapped): collectives beside computation where the
  /// schedule lets them, the gradient reductions during the last backward with --overlap-grad-reduce.
  /// Jobs and saved sets only: a sweep (and a calibration's) times each size on its own.
  bool overlapped = false;
  /// A sweep that calibrates: each collective over the ranks of a node and over one rank per node,
  /// and rank 0 writes the cluster file fitted to the times here (aicb.cluster/1; empty: none).
  std::string calibration{};
  /// Ranks per node, consecutive ranks filling a node (0: from the ranks' host names,
  /// aicb::node_of_ranks). A calibration's placements follow it.
  std::uint64_t ranks_per_node = 0;
};

/// Refuses, naming the field, a request no replay can mean: a timeout or compute scale out of range
/// (before it is converted: a timeout of 1e308 s has no millisecond count), no repetition, a sweep
/// of collectives a sweep cannot time, two workloads at once.
inline void validate(const run_request& r) {
  if (!(r.timeout_s > 0 && r.timeout_s <= 7 * 24 * 3600.0))
    AICB_THROW(config_error("timeout", std::to_string(r.timeout_s),
                            "expected seconds, more than 0 and at most a week (604800)"));
  if (!(r.compute_scale >= 0 && r.compute_scale <= max_replay_compute_scale))
    AICB_THROW(config_error("compute_scale", std::to_string(r.compute_scale),
                            "expected a finite factor from 0 (communication only) to 10^6"));
  if (r.repeat == 0) AICB_THROW(config_error("repeat", "0", "at least one repetition is measured"));
  if (r.sizes.low == 0 || r.sizes.high < r.sizes.low)
    AICB_THROW(config_error("sizes", std::to_string(r.sizes.low) + ":" + std::to_string(r.sizes.high),
                            "expected 1 <= MIN <= MAX"));
  for (const collective kind : r.sweep)
    if (kind != collective::all_reduce && kind != collective::all_gather &&
        kind != collective::reduce_scatter && kind != collective::all_to_all)
      AICB_THROW(config_error("sweep", std::string(to_string(kind)),
                              "expected all_reduce, all_gather, reduce_scatter or all_to_all"));
  if (r.calibration.empty() && !r.sweep.empty() &&
      (!r.job.model.empty() || !r.job.hf_config.empty() || !r.job.size.empty() || !r.job.fields.empty()))
    AICB_THROW(
        config_error("sweep", "with a job",
                     "a run replays a sweep or a job: give job flags with --sweep only to --calibrate (the "
                     "job is then replayed on the cluster just measured)"));
  if (!r.calibration.empty() && r.sweep.empty())
    AICB_THROW(
        config_error("calibrate", r.calibration,
                     "a calibration is a sweep: name the collectives to measure (--sweep all_reduce,...)"));
  if (!r.sweep.empty() && !r.chakra.empty())
    AICB_THROW(config_error("chakra", r.chakra, "a run replays a sweep or a saved set, not both"));
  if (!r.chakra.empty()) {
    const job_request& given = r.job;
    if (!given.model.empty() || !given.hf_config.empty() || !given.size.empty() || !given.fields.empty())
      AICB_THROW(config_error(
          "chakra", r.chakra,
          "a saved set carries its own job: give no model or job flags with --chakra (" +
              (given.fields.empty() ? std::string("--model") : "--" + given.fields.front().first) + ")"));
    if (!r.csv.empty())
      AICB_THROW(config_error("csv", r.csv, "the result CSV is written for jobs and sweeps, not saved sets"));
  }
}

/// What one rank replays: its operations of one iteration, the job they come from, what it is.
struct prepared_run {
  std::vector<operation> ops{};
  job_spec job{};
  std::string what{};                                 ///< "llama3-8b job", "collective sweep", …
  std::vector<std::chrono::nanoseconds> durations{};  ///< a saved set's computation times
  std::deque<std::string> names{};                    ///< a saved set's operation names (ops view them)
  bool sweep = false;
};

namespace detail {

// The job whose groups a sweep runs over: a placeholder model over `world` ranks, `tp` of them (a
// node's, when calibrating) to a tensor-parallel group.
[[nodiscard]] inline job_spec sweep_job(std::uint64_t world, std::uint64_t tp) {
  job_spec job;
  job.model = {.hidden_size = 64 * tp, .num_layers = 1, .num_attention_heads = tp, .vocab_size = 64 * tp};
  job.parallel.world_size = world;
  job.parallel.tensor_parallel = tp;
  return job;
}

}  // namespace detail

/// How many times a calibration runs each size back to back (as nccl-tests loops on one size): the
/// first pays for switching sizes (caches, protocols) and is dropped, the rest give the median.
inline constexpr std::uint64_t calibration_burst = 4;

/// The sweep of `r` as rank `rank`'s operations, each collective through every size: over the world
/// group; or, calibrating with `ranks_per_node` ranks per node, over the ranks of this rank's node (the
/// tensor-parallel group of a grid whose TP is a node) and over one rank per node (its data-parallel
/// group), each where it has two ranks or more, each size calibration_burst times in a row.
[[nodiscard]] inline std::vector<operation> sweep_operations(const run_request& r, std::uint64_t world,
                                                             std::uint64_t rank = 0) {
  const std::uint64_t per_node = r.ranks_per_node ? r.ranks_per_node : world;
  std::vector<std::pair<group_id, std::uint64_t>> groups;
  if (r.calibration.empty()) {
    groups.push_back({{group_kind::world, 0}, world});
  } else {
    const process_grid grid(detail::sweep_job(world, per_node));
    if (per_node > 1) groups.push_back({grid.group(group_kind::tp, rank).id(), per_node});
    if (world / per_node > 1) groups.push_back({grid.group(group_kind::dp, rank).id(), world / per_node});
  }
  std::vector<operation> ops;
  for (const collective kind : r.sweep)
    for (const auto& [group, members] : groups)
      for (std::uint64_t size = r.sizes.low; size <= r.sizes.high; size *= 2) {
        operation op;
        op.index = ops.size();
        op.type = op_type::collective;
        op.name = to_string(kind);
        op.phase = op_phase::finalize;
        op.kind = kind;
        op.group = group;
        op.group_size = members;
        op.size = bytes{size};
        for (std::uint64_t i = 0; i < (r.calibration.empty() ? 1 : calibration_burst); ++i) {
          op.index = ops.size();
          ops.push_back(op);
        }
        if (size > r.sizes.high / 2) break;
      }
  return ops;
}

/// The workload of rank `rank` of `world`, validated; config_error when the request describes none,
/// or a job whose world size is not `world`.
[[nodiscard]] inline prepared_run prepare_run(const run_request& r, std::uint64_t world, std::uint64_t rank) {
  validate(r);
  prepared_run p;
  if (!r.sweep.empty()) {
    if (!r.calibration.empty()) {
      if (world < 2)
        AICB_THROW(config_error("calibrate", r.calibration, "a calibration needs 2 ranks or more"));
      if (r.ranks_per_node == 0 || world % r.ranks_per_node != 0)
        AICB_THROW(config_error("ranks_per_node", std::to_string(r.ranks_per_node),
                                "expected a divisor of the " + std::to_string(world) +
                                    " ranks: every node runs as many ranks, consecutive ranks on one node"));
    }
    p.ops = sweep_operations(r, world, rank);
    p.job = detail::sweep_job(world, r.calibration.empty() ? 1 : r.ranks_per_node);
    p.what = r.calibration.empty() ? "collective sweep" : "calibration sweep";
    p.sweep = true;
    return p;
  }
  const auto named = [](const job_spec& job) {
    return std::string(job.model.name.empty() ? "custom model" : job.model.name.view());
  };
  if (!r.chakra.empty()) {
    saved_rank saved = load_chakra_rank(r.chakra, rank);
    p.job = saved.job;
    p.ops = std::move(saved.ops);
    p.durations = std::move(saved.durations);
    p.names = std::move(saved.names);
    p.what = "Chakra set " + r.chakra + " (" + named(p.job) + ")";
  } else {
    job_request request = r.job;
    if (std::none_of(request.fields.begin(), request.fields.end(),
                     [](const auto& f) { return f.first == "world_size"; }))
      request.fields.emplace_back("world_size", std::to_string(world));
    p.job = build_job(request).job;
    if (p.job.parallel.world_size == world)
      for (const operation& op : rank_schedule(p.job, rank))
        p.ops.push_back(op);
    p.what = named(p.job) + " job";
  }
  if (p.job.parallel.world_size != world)
    AICB_THROW(config_error("world_size", std::to_string(p.job.parallel.world_size),
                            "must equal the ranks started (" + std::to_string(world) + ")"));
  return p;
}

/// A replay's measurements with how computation was timed.
struct run_outcome {
  replay_result result{};
  std::string compute{};  ///< the compute model's provenance
  run_backend backend = run_backend::automatic;
  /// Rank 0, a job's replay: aicb's estimate of the same job's iteration on the cluster the request
  /// names, its computation scaled as the replay's and its slow ranks as slow (aicb::estimate_iteration),
  /// seconds; and that cluster's name. Printed beside the measured iteration: on the cluster it
  /// describes, the two should agree; elsewhere (the CPU backend) the gap is the network's.
  std::optional<double> estimate_s{};
  std::string estimate_cluster{};
  /// Rank 0, a calibration: the cluster file written (aicb::calibrate_cluster).
  std::optional<cluster_descriptor> calibrated{};
  /// Rank 0: what produced the results (aicb::run_provenance).
  std::map<std::string, std::string> provenance{};
};

/// The ranks per node of a job launched as `node` says (aicb::node_of_ranks of aicb::host_hashes): every node
/// must run as many ranks, consecutive ones — config_error otherwise (a calibration could not tell its
/// placements apart).
[[nodiscard]] inline std::uint64_t ranks_per_node_of(const std::vector<std::uint64_t>& node) {
  std::uint64_t per_node = 0;
  while (per_node < node.size() && node[per_node] == node[0])
    ++per_node;
  for (std::size_t r = 0; r < node.size(); ++r)
    if (node[r] != r / std::max<std::uint64_t>(per_node, 1) ||
        (r + 1 == node.size() && per_node && node.size() % per_node != 0))  // the last node runs fewer
      AICB_THROW(config_error("ranks_per_node",
                              "rank " + std::to_string(r) + " on node " + std::to_string(node[r]),
                              "ranks must fill nodes in order, as many on each (mpirun --map-by core, -N " +
                                  std::to_string(per_node) + "), or give --ranks-per-node"));
  return per_node;
}

/// What a calibration with job flags replays next, in the same launch (the machines' state — which
/// pages, which links — is the calibration's): the job, its estimate on the cluster file just written
/// (`calibration`), the GPU the calibration's estimate assumed. No files of its own.
[[nodiscard]] inline run_request job_after_calibration(const run_request& calibration) {
  run_request job = calibration;
  job.gpu = std::string(resolve_cluster(calibration.gpu, calibration.cluster).gpu);
  job.cluster = calibration.calibration;
  job.sweep.clear();
  job.calibration.clear();
  job.output.clear();
  job.csv.clear();
  job.timeline.clear();
  return job;
}

/// The cluster file a calibration sweep's measurements make (rank 0's operations: a node group and a
/// rail group through every size, each size a burst): one curve per collective and placement from each
/// size's median time, fitted band by band (aicb::fit_bands); the figures of `base` the curves measure
/// replaced — NVLink from the node all-reduce (else the first node curve), the NIC from the rail one — and
/// every figure's source recorded; `provenance` as given, with the generator.
[[nodiscard]] inline cluster_descriptor calibrate_cluster(const replay_result& r,
                                                          std::uint64_t ranks_per_node,
                                                          const cluster_spec& base,
                                                          std::map<std::string, std::string> provenance) {
  cluster_descriptor d = descriptor_of(base);
  d.measured = {};
  const std::uint64_t nodes = ranks_per_node ? r.world / ranks_per_node : 1;
  d.name = "measured";
  d.gpus_per_node = ranks_per_node;
  d.sources["gpus_per_node"] = "measured: ranks per host name";
  // A size's burst: consecutive operations of one kind, group and size; its first dropped (when it has
  // more than one), the median of the rest's medians taken.
  for (std::size_t i = 0; i < r.operations.size();) {
    const operation& op = r.operations[i].op;
    std::size_t end = i + 1;
    while (end < r.operations.size() && r.operations[end].op.kind == op.kind &&
           r.operations[end].op.group == op.group && r.operations[end].op.size == op.size)
      ++end;
    std::vector<double> times;
    for (std::size_t k = end - i > 1 ? i + 1 : i; k < end; ++k)
      times.push_back(r.operations[k].p50_us);
    const double us = detail::nearest_rank(times, 0.5);
    i = end;
    if (op.type != op_type::collective) continue;
    const link_class where = op.group.kind == group_kind::dp ? link_class::rail : link_class::node;
    auto curve = std::find_if(d.measured.curves.begin(), d.measured.curves.end(),
                              [&](const measured_curve& c) { return c.kind == op.kind && c.where == where; });
    if (curve == d.measured.curves.end()) {
      d.measured.curves.push_back({.kind = op.kind, .where = where, .group_size = op.group_size});
      curve = d.measured.curves.end() - 1;
    }
    curve->points.push_back({op.size.count(), std::max(us, 1e-3)});
  }
  for (measured_curve& c : d.measured.curves)
    c.bands = fit_bands(c);
  const auto describe = [](const measured_curve& c) {
    char text[160];
    std::snprintf(text, sizeof text, "measured: %s over %llu ranks %s, %.4g GB/s bus bandwidth at %llu B",
                  std::string(to_string(c.kind)).c_str(), static_cast<unsigned long long>(c.group_size),
                  c.where == link_class::node ? "of a node" : "one per node", c.peak_busbw_gb_per_s(),
                  static_cast<unsigned long long>(c.points.back().bytes));
    return std::string(text);
  };
  // A curve's smallest time as the estimate's per-step latency: all-reduce takes 2·log2 n steps, the rest
  // log2 n.
  const auto step_latency = [](const measured_curve& c) {
    const double steps = std::ceil(std::log2(static_cast<double>(c.group_size)));
    return c.points.front().us / ((c.kind == collective::all_reduce ? 2 : 1) * std::max(steps, 1.0));
  };
  const auto figure_source = [&](link_class where) -> const measured_curve* {
    if (const measured_curve* c = d.measured.find(collective::all_reduce, where)) return c;
    for (const measured_curve& c : d.measured.curves)
      if (c.where == where && !c.bands.empty()) return &c;
    return nullptr;
  };
  if (const measured_curve* c = figure_source(link_class::node)) {
    d.nvlink_gb_per_s = c->peak_busbw_gb_per_s();
    d.nvlink_latency_us = step_latency(*c);
    d.sources["nvlink_gb_per_s"] = describe(*c);
    d.sources["nvlink_latency_us"] = "measured: the smallest size's time per step";
  }
  if (const measured_curve* c = figure_source(link_class::rail)) {
    d.nic_gb_per_s = c->peak_busbw_gb_per_s() * static_cast<double>(ranks_per_node) /
                     static_cast<double>(std::max<std::uint64_t>(d.nics_per_node, 1));
    d.nic_latency_us = step_latency(*c);
    d.sources["nic_gb_per_s"] = describe(*c) + ", shared by the node's NICs";
    d.sources["nic_latency_us"] = "measured: the smallest size's time per step";
  }
  char text[200];
  std::snprintf(text, sizeof text, "measured by aicb run: %llu ranks on %llu node%s of %llu",
                static_cast<unsigned long long>(r.world), static_cast<unsigned long long>(nodes),
                nodes == 1 ? "" : "s", static_cast<unsigned long long>(ranks_per_node));
  d.description = text;
  provenance["generator"] = "aicb " AICB_VERSION_STRING;
  d.provenance = std::move(provenance);
  return d;
}

/// The curves of a calibration, one line each, and where the file went.
[[nodiscard]] inline std::string format_calibration(const cluster_descriptor& d, const std::string& path) {
  std::string out = "\ncalibration (median times, fitted band by band within 5%):\n";
  char line[256];
  for (const measured_curve& c : d.measured.curves) {
    std::snprintf(line, sizeof line,
                  "  %-15s %-4s %5llu ranks  %zu band%s  max fit error %.1f%%  busbw %.3g GB/s at %llu B\n",
                  std::string(to_string(c.kind)).c_str(), std::string(to_string(c.where)).c_str(),
                  static_cast<unsigned long long>(c.group_size), c.bands.size(),
                  c.bands.size() == 1 ? " " : "s", 100 * c.max_error(), c.peak_busbw_gb_per_s(),
                  static_cast<unsigned long long>(c.points.back().bytes));
    out += line;
  }
  std::snprintf(line, sizeof line, "  NVLink %.4g GB/s, %.3g us per step; NIC %.4g GB/s, %.3g us per step\n",
                d.nvlink_gb_per_s, d.nvlink_latency_us, d.nic_gb_per_s, d.nic_latency_us);
  out += line;
  out += "wrote " + path + " (use it: aicb describe --cluster " + path + " ...)\n";
  return out;
}

namespace detail {

// A compute model's durations times a factor (the replay's compute_scale), for the estimate that runs
// beside a replay.
class scaled_compute final : public compute_model {
 public:
  scaled_compute(const compute_model& base, double scale) : base_(base), scale_(scale) {}
  [[nodiscard]] nanoseconds duration(const compute_op& op) const override {
    return nanoseconds{static_cast<std::int64_t>(static_cast<double>(base_.duration(op).count()) * scale_)};
  }
  [[nodiscard]] std::string provenance() const override {
    return base_.provenance() + " x " + std::to_string(scale_);
  }

 private:
  const compute_model& base_;
  double scale_;
};

}  // namespace detail

/// aicb's bus-bandwidth factor (its log analyzer's, not nccl-tests'): all-reduce 2(n-1)/n,
/// all-gather and reduce-scatter (n-1)/n, everything else 1.
[[nodiscard]] inline double aicb_busbw_factor(csv_op op, std::uint64_t n) {
  const double ranks = static_cast<double>(n ? n : 1);
  if (op == csv_op::all_reduce) return 2 * (ranks - 1) / ranks;
  if (op == csv_op::all_gather || op == csv_op::reduce_scatter) return (ranks - 1) / ranks;
  return 1;
}

/// The summary document `aicb.run/2` (docs/run.md): the options, each measured iteration (the
/// slowest rank's), the check, and rank 0's operations with their times and bandwidths.
[[nodiscard]] inline std::string run_json(const run_outcome& o, const prepared_run& p) {
  const replay_result& r = o.result;
  json_writer j;
  j.begin_object().member("schema", "aicb.run/2").member("aicb_version", AICB_VERSION_STRING);
  j.member("workload", p.what).member("world", r.world).member("backend", to_string(o.backend));
  j.member("compute", o.compute);
  if (!o.provenance.empty()) {
    j.key("provenance").begin_object();
    for (const auto& [key, value] : o.provenance)
      j.member(key, value);
    j.end_object();
  }
  j.key("options").begin_object();
  j.member("warmup", r.options.warmup).member("iterations", r.options.iterations);
  j.member("compute_scale", r.options.compute_scale).member("check", r.options.check);
  j.member("overlapped", r.options.overlapped);
  j.end_object();
  j.key("iterations_us").begin_array();
  for (const double us : r.slowest_iteration_us)
    j.value(us);
  j.end_array();
  std::vector<double> iterations = r.slowest_iteration_us;
  j.member("iteration_p50_us", detail::nearest_rank(iterations, 0.5));
  j.member("iteration_p99_us", detail::nearest_rank(iterations, 0.99));
  if (!r.rank_mean_iteration_us.empty()) {
    j.member("slowest_rank", r.slowest_rank);
    j.key("rank_mean_iteration_us").begin_array();
    for (const double us : r.rank_mean_iteration_us)
      j.value(us);
    j.end_array();
    j.key("rank_compute_us").begin_array();
    for (const double us : r.rank_compute_us)
      j.value(us);
    j.end_array();
  }
  if (o.estimate_s)
    j.key("estimate")
        .begin_object()
        .member("cluster", o.estimate_cluster)
        .member("iteration_us", *o.estimate_s * 1e6)
        .end_object();
  if (r.options.check)
    j.key("check").begin_object().member("elements", r.checked).member("wrong", r.wrong).end_object();
  j.key("operations").begin_array();
  for (const replayed_operation& m : r.operations) {
    j.begin_object().member("index", m.op.index).member("name", std::string(m.op.name));
    j.member("type", to_string(m.op.type));
    if (m.uneven) j.member("uneven", true);
    if (m.op.type == op_type::collective)
      j.member("collective", to_string(m.op.kind))
          .member("group", to_string(m.op.group))
          .member("group_size", m.op.group_size);
    if (m.op.is_transfer()) j.member("peer", m.op.peer);
    if (m.op.is_communication()) j.member("bytes", m.op.size.count());
    if (m.op.type == op_type::compute) j.member("modelled_us", m.modelled_us);
    j.member("mean_us", m.mean_us).member("min_us", m.min_us).member("max_us", m.max_us);
    j.member("p50_us", m.p50_us).member("p99_us", m.p99_us);
    j.member("slowest_rank", m.slowest_rank).member("slowest_mean_us", m.slowest_mean_us);
    j.member("fastest_mean_us", m.fastest_mean_us);
    if (m.op.is_communication()) j.member("algbw_gb_per_s", m.algbw).member("busbw_gb_per_s", m.busbw);
    j.end_object();
  }
  j.end_array().end_object();
  return j.str() + "\n";
}

/// Rank 0's collectives as nccl-tests prints them (`aicb run --format nccl-tests`), so that tools
/// written for `all_reduce_perf` and friends read them: one table per collective and group — its
/// sizes with count, type, redop, root, then time (µs, the mean of the measured repetitions on rank
/// 0, as `-a 0`), algbw, busbw (GB/s, nccl-tests' definitions) and #wrong — closed by nccl-tests'
/// footer lines. aicb times one placement of each collective, the one Megatron uses: all-reduce and
/// all-gather in place, reduce-scatter and all-to-all out of place; the other placement's columns are
/// blank, as nccl-tests leaves them when it replays a trace. Elements are 16 bits ("half").
[[nodiscard]] inline std::string format_nccl_tests(const run_outcome& o, const prepared_run& p,
                                                   const run_request& request) {
  const replay_result& r = o.result;
  struct row {
    double total_us = 0;
    std::uint64_t count = 0;
  };
  struct table {
    collective kind{};
    std::string group;
    std::uint64_t ranks = 0;
    std::map<std::uint64_t, row> sizes;
  };
  std::vector<table> tables;
  for (const replayed_operation& m : r.operations) {
    // A group of one moves nothing; it is shown only where the whole run is one rank (a sweep on one
    // GPU), as nccl-tests shows its single-GPU rows (bus bandwidth 0).
    if (m.op.type != op_type::collective || (m.op.group_size < 2 && r.world > 1)) continue;
    const std::string group(to_string(m.op.group.kind));
    auto t = std::find_if(tables.begin(), tables.end(), [&](const table& x) {
      return x.kind == m.op.kind && x.group == group && x.ranks == m.op.group_size;
    });
    if (t == tables.end()) {
      tables.push_back({m.op.kind, group, m.op.group_size, {}});
      t = tables.end() - 1;
    }
    row& each = t->sizes[m.op.size.count()];
    each.total_us += m.mean_us;
    ++each.count;
  }
  std::string out;
  char line[512];
  std::uint64_t low = UINT64_MAX, high = 0;
  for (const table& t : tables)
    for (const auto& [size, _] : t.sizes) {
      low = std::min(low, size);
      high = std::max(high, size);
    }
  std::snprintf(
      line, sizeof line,
      "# aicb run: %s on %llu ranks (%s)\n# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: 2(factor) "
      "warmup iters: %llu iters: %llu agg iters: 1 validation: %d graph: 0\n#\n",
      p.what.c_str(), static_cast<unsigned long long>(r.world), std::string(to_string(o.backend)).c_str(),
      static_cast<unsigned long long>(tables.empty() ? 0 : low), static_cast<unsigned long long>(high),
      static_cast<unsigned long long>(request.warmup), static_cast<unsigned long long>(request.repeat),
      request.check ? 1 : 0);
  out += line;
  const auto number = [](double value, int width) {  // nccl-tests' getFloatStr: 2 decimals, fewer if wide
    char text[32];
    for (const char* format : {"%*.2f", "%*.1f", "%*.0f"})
      if (std::snprintf(text, sizeof text, format, width, value) <= width) return std::string(text);
    std::snprintf(text, sizeof text, width >= 7 ? "%*.1e" : "%*.0e", width, value);
    return std::string(text);
  };
  for (const table& t : tables) {
    const bool in_place = t.kind == collective::all_reduce || t.kind == collective::all_gather;
    const bool reduces = t.kind == collective::all_reduce || t.kind == collective::reduce_scatter;
    std::snprintf(line, sizeof line, "# %s over %s, %llu ranks\n#\n", std::string(to_string(t.kind)).c_str(),
                  t.group.c_str(), static_cast<unsigned long long>(t.ranks));
    out += line;
    std::snprintf(
        line, sizeof line,
        "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "",
        "", "", "", "");
    out += line;
    std::snprintf(line, sizeof line, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n",
                  "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
                  "algbw", "busbw", "#wrong");
    out += line;
    std::snprintf(line, sizeof line, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n",
                  "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
                  "");
    out += line;
    double bus_sum = 0;
    for (const auto& [size, each] : t.sizes) {
      const double us = each.total_us / static_cast<double>(each.count);
      const double alg = algorithm_bandwidth(static_cast<double>(size), us * 1e-6);
      const double bus = bus_bandwidth(t.kind, t.ranks, static_cast<double>(size), us * 1e-6);
      bus_sum += bus;
      // nccl-tests counts an all-gather's and a reduce-scatter's elements per rank.
      const std::uint64_t elements =
          (t.kind == collective::all_gather || t.kind == collective::reduce_scatter) ? size / 2 / t.ranks
                                                                                     : size / 2;
      std::snprintf(line, sizeof line, "%12llu  %12llu  %8s  %6s  %6d", static_cast<unsigned long long>(size),
                    static_cast<unsigned long long>(elements), "half", reduces ? "sum" : "none", -1);
      out += line;
      std::string body = "  " + number(us, 7) + "  " + number(alg, 6) + "  " + number(bus, 6);
      if (request.check && r.wrong == 0)
        body += "       0";
      else
        body += "    N/A";
      const std::string blank(32, ' ');
      out += in_place ? blank + body : body + blank;
      out += "\n";
    }
    std::snprintf(line, sizeof line, "# %-20s : %llu %s\n", "Out of bounds values",
                  static_cast<unsigned long long>(r.wrong), r.wrong ? "FAILED" : "OK");
    out += line;
    std::snprintf(line, sizeof line, "# %-20s : %g \n#\n# Collective test concluded: %s_perf\n#\n",
                  "Avg bus bandwidth", t.sizes.empty() ? 0.0 : bus_sum / static_cast<double>(t.sizes.size()),
                  t.kind == collective::all_to_all ? "alltoall" : std::string(to_string(t.kind)).c_str());
    out += line;
  }
  return out;
}

/// Rank 0's communication by collective, group and size with nccl-tests' columns, then the
/// iteration's time and the check: what `aicb run` prints.
[[nodiscard]] inline std::string format_run_table(const run_outcome& o, const prepared_run& p) {
  const replay_result& r = o.result;
  std::string out;
  char line[256];
  std::snprintf(
      line, sizeof line, "aicb run: %s on %llu ranks (%s%s), %llu warm-up + %llu measured iterations\n",
      p.what.c_str(), static_cast<unsigned long long>(r.world), std::string(to_string(o.backend)).c_str(),
      r.options.overlapped ? ", overlapped" : "", static_cast<unsigned long long>(r.options.warmup),
      static_cast<unsigned long long>(r.options.iterations));
  out += line;
  struct row {
    collective kind{};
    std::uint64_t count = 0;
    double total_us = 0;
  };
  std::map<std::tuple<std::string, std::string, std::uint64_t, std::uint64_t>, row> rows;
  for (const replayed_operation& m : r.operations) {
    if (!m.op.is_communication()) continue;
    const collective kind = communication_kind(m.op);
    const std::string group =
        m.op.type == op_type::collective ? std::string(to_string(m.op.group.kind)) : "pp";
    row& each = rows[{std::string(to_string(kind)), group, communication_ranks(m.op), m.op.size.count()}];
    each.kind = kind;
    ++each.count;
    each.total_us += m.mean_us;
  }
  std::snprintf(line, sizeof line, "\n%-15s %-10s %5s %14s %6s %12s %10s %10s\n", "operation", "group",
                "ranks", "size (B)", "count", "time (us)", "algbw GB/s", "busbw GB/s");
  out += line;
  for (const auto& [key, each] : rows) {
    const auto& [name, group, n, size] = key;
    const double us = each.total_us / static_cast<double>(each.count), s = us * 1e-6;
    std::snprintf(line, sizeof line, "%-15s %-10s %5llu %14llu %6llu %12.2f %10.3f %10.3f\n", name.c_str(),
                  group.c_str(), static_cast<unsigned long long>(n), static_cast<unsigned long long>(size),
                  static_cast<unsigned long long>(each.count), us,
                  algorithm_bandwidth(static_cast<double>(size), s),
                  bus_bandwidth(each.kind, n, static_cast<double>(size), s));
    out += line;
  }
  if (!r.slowest_iteration_us.empty()) {
    const auto [low, high] =
        std::minmax_element(r.slowest_iteration_us.begin(), r.slowest_iteration_us.end());
    double sum = 0;
    for (const double us : r.slowest_iteration_us)
      sum += us;
    std::vector<double> iterations = r.slowest_iteration_us;
    std::snprintf(
        line, sizeof line,
        "\niteration (slowest rank): mean %.3f ms, min %.3f ms, max %.3f ms, p50 %.3f ms, p99 %.3f ms\n",
        sum / static_cast<double>(r.slowest_iteration_us.size()) / 1000, *low / 1000, *high / 1000,
        detail::nearest_rank(iterations, 0.5) / 1000, detail::nearest_rank(iterations, 0.99) / 1000);
    out += line;
  }
  if (o.estimate_s && !r.slowest_iteration_us.empty()) {
    double measured = 0;
    for (const double us : r.slowest_iteration_us)
      measured += us;
    measured /= static_cast<double>(r.slowest_iteration_us.size());
    std::snprintf(line, sizeof line,
                  "estimate of the same job on %s (computation x %g): %.3f ms per iteration, measured / "
                  "estimate %.2f\n",
                  o.estimate_cluster.c_str(), r.options.compute_scale, *o.estimate_s * 1e3,
                  *o.estimate_s > 0 ? measured * 1e-6 / *o.estimate_s : 0.0);
    out += line;
  }
  if (r.rank_compute_us.size() > 1) {
    const auto fastest = std::min_element(r.rank_compute_us.begin(), r.rank_compute_us.end());
    std::snprintf(line, sizeof line,
                  "slowest rank: %llu (computation %.3f ms per iteration; the fastest, rank %llu, %.3f ms)\n",
                  static_cast<unsigned long long>(r.slowest_rank), r.rank_compute_us[r.slowest_rank] / 1000,
                  static_cast<unsigned long long>(fastest - r.rank_compute_us.begin()), *fastest / 1000);
    out += line;
  }
  if (r.options.check) {
    std::snprintf(line, sizeof line, "check: %llu elements verified, %llu wrong\n",
                  static_cast<unsigned long long>(r.checked), static_cast<unsigned long long>(r.wrong));
    out += line;
  }
  return out;
}

/// Rank 0's results as aicb's run writes its log: an item per operation of one iteration (mean time
/// in ms, aicb's bandwidths in GiB/s; count = the measured iterations), then an epoch_end per
/// measured iteration carrying its time (the slowest rank's).
inline void write_run_csv(const std::string& path, const prepared_run& p, const replay_result& r) {
  csv_writer out(path);
  std::optional<csv_projection> projection;
  if (!p.sweep) projection.emplace(p.job, csv_projection_options{.rank = 0, .computation = true});
  for (const replayed_operation& m : r.operations) {
    std::optional<csv_item> item;
    if (projection) {
      item = projection->item(m.op);
    } else {  // a sweep: every rank's group
      item.emplace();
      item->op = *from_string<csv_op>(to_string(m.op.kind));
      item->group = csv_group::all;
      item->group_size = m.op.group_size;
      item->msg_size = m.op.size.count();
      item->stage = "sweep";
    }
    if (!item) continue;
    item->elapsed_time = m.mean_us / 1000;
    item->count = r.options.iterations;
    if (m.op.is_communication() && m.mean_us > 0) {
      const double gib_per_s =
          static_cast<double>(m.op.size.count()) / (m.mean_us * 1e-6) / (1024.0 * 1024 * 1024);
      item->algbw = gib_per_s;
      item->busbw = gib_per_s * aicb_busbw_factor(item->op, item->group_size.value_or(1));
    }
    out.write(*item);
  }
  for (const double us : r.slowest_iteration_us) {
    csv_item end;
    end.elapsed_time = us / 1000;
    out.write(end);
  }
  out.finish();
}

/// A run's provenance: generator, the command (`aicb run` and the flags every rank was given), the
/// backend and its library, the hosts (hashed, distinct, in rank order) and the date (UTC).
[[nodiscard]] inline std::map<std::string, std::string> run_provenance(
    const run_request& request, const std::vector<std::uint64_t>& hosts, const std::string& library) {
  std::string joined, command = "aicb run";
  std::vector<std::uint64_t> distinct;
  for (const std::uint64_t h : hosts) {
    if (std::find(distinct.begin(), distinct.end(), h) != distinct.end()) continue;
    distinct.push_back(h);
    char hex[20];
    std::snprintf(hex, sizeof hex, "%012llx", static_cast<unsigned long long>(h));
    joined += (joined.empty() ? "" : ",") + std::string(hex);
  }
  for (std::size_t at = 0; at < request.fingerprint.size();) {
    const std::size_t end = std::min(request.fingerprint.find('\n', at), request.fingerprint.size());
    command += " " + request.fingerprint.substr(at, end - at);
    at = end + 1;
  }
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return {{"generator", "aicb " AICB_VERSION_STRING},
          {"command", command},
          {"backend", std::string(to_string(request.backend))},
          {"library", library},
          {"hosts", joined},
          {"date", date}};
}

/// The last measured iteration of the ranks shown (every rank up to 64, else the first rank of each
/// pipeline stage) as a timeline on rank 0: `times[r]` holds rank r's (start, duration) per
/// operation; the other ranks' operations are prepared again here. HTML for a .html name.
inline void write_run_timeline(const run_request& request, const prepared_run& rank0,
                               const std::vector<std::vector<double>>& times, const cluster_spec& machines,
                               const std::string& compute, double iteration_s) {
  const std::uint64_t world = times.size();
  std::vector<std::uint64_t> shown;
  if (world <= 64 || rank0.sweep) {
    for (std::uint64_t r = 0; r < std::min<std::uint64_t>(world, 64); ++r)
      shown.push_back(r);
  } else {
    for (std::uint64_t s = 0; s < rank0.job.parallel.pipeline_parallel; ++s)
      shown.push_back(first_rank_of_stage(rank0.job, s));
  }
  const auto stream_of = [](const operation& op) -> std::size_t {
    if (op.type == op_type::compute) return 0;
    if (op.is_transfer()) return 3;
    return is_data_parallel(op.group.kind) ? 2 : 1;
  };
  const auto produce = [&](auto&& write) {
    detail::trace_document<std::remove_reference_t<decltype(write)>> doc(write);
    const process_grid grid(rank0.job);
    for (const std::uint64_t r : shown) {
      const std::uint64_t stage = rank0.sweep ? 0 : grid.coordinates(r).pp;
      doc.name_process(r, "rank " + std::to_string(r) + " (stage " + std::to_string(stage) + ")",
                       stage * world + r, 4);
      const std::vector<operation> ops = r == 0 ? rank0.ops : prepare_run(request, world, r).ops;
      for (std::size_t i = 0; i < ops.size() && 2 * i + 1 < times[r].size(); ++i) {
        const double dur = times[r][2 * i + 1];
        if (dur <= 0) continue;
        const std::size_t tid = stream_of(ops[i]);
        doc.emit(
            detail::operation_event(ops[i], ops[i].name, trace_streams[tid], r, tid, times[r][2 * i], dur));
      }
    }
    doc.finish(machines, compute, iteration_s, 0, 0);
  };
  atomic_file out(request.timeline);  // the whole file or nothing
  const auto write = [&](std::string_view text) { out.write(text); };
  if (request.timeline.ends_with(".html") || request.timeline.ends_with(".htm")) {
    std::string title = rank0.what;
    title.append(" on ").append(std::to_string(world)).append(" ranks: one iteration, measured");
    write_timeline_html(write, title, [&](const auto& sink) { produce(sink); });
  } else {
    produce(write);
  }
  out.commit();
}

/// Replays `p` over `transport` (every rank calls it, with the same request) and, on rank 0, writes
/// the files the request names. `progress` is told each phase on every rank (the caller prints
/// rank 0's). The measurements come back on every rank; rank 0's operations are in result.operations.
[[nodiscard]] inline run_outcome run_on(replay_transport& transport, const run_request& request,
                                        const prepared_run& p,
                                        std::function<void(std::string_view)> progress = {}) {
  const process_grid grid(p.job);
  // A cluster file is read where the estimate is made, on rank 0 (the other ranks' machines need not
  // see it); they take the GPU named, else the file's.
  const cluster_spec machines =
      names_cluster_file(request.cluster) && transport.rank() != 0 && !request.gpu.empty()
          ? choose_cluster(request.gpu, "")
          : resolve_cluster(request.gpu, request.cluster);
  const roofline_model compute(machines.gpu);
  replay_options options{
      .warmup = request.warmup,
      .iterations = request.repeat,
      .compute_scale = request.compute_scale,
      .check = request.check,
      .timeout = std::chrono::milliseconds(static_cast<std::int64_t>(request.timeout_s * 1000)),
      .fingerprint = request.fingerprint,
      .max_buffer_bytes = request.max_buffer,
      .slow_ranks = request.slow_ranks,
      .overlapped = request.overlapped && !p.sweep,  // a sweep times each size on its own
      .overlap_grad_reduce = p.job.parallel.overlap_grad_reduce,
      .all_to_all_skew = p.job.model.is_moe() ? std::max(0.0, p.job.model.moe_load_factor() - 1) : 0.0,
      .progress = std::move(progress)};
  run_outcome o{.result = replay(transport, p.ops, grid, &compute, options, p.durations),
                .compute = compute.provenance(),
                .backend = request.backend};
  const replay_result& r = o.result;
  if (transport.rank() == 0 && !p.sweep && request.chakra.empty()) {
    estimate_options side{};
    for (const auto& [rank, factor] : request.slow_ranks)
      side.slow_ranks.push_back({.rank = rank, .compute = factor});
    const detail::scaled_compute scaled(compute, request.compute_scale);
    o.estimate_s = estimate_iteration(p.job, scaled, machines, side).iteration_s;
    o.estimate_cluster = machines.name;
  }
  if (!request.timeline.empty()) {  // every rank's last iteration, gathered on rank 0
    std::vector<double> mine;
    for (const replayed_operation& m : r.operations) {
      mine.push_back(m.last_start_us);
      mine.push_back(m.last_us);
    }
    const std::vector<std::vector<double>> times = transport.gather_to_first(mine);
    double mean_s = 0;
    for (const double us : r.slowest_iteration_us)
      mean_s += us * 1e-6;
    if (!r.slowest_iteration_us.empty()) mean_s /= static_cast<double>(r.slowest_iteration_us.size());
    if (transport.rank() == 0) write_run_timeline(request, p, times, machines, o.compute, mean_s);
  }
  // What produced the results (every file written records it): the command, the library, the
  // hashed host names (gathered from every rank), the date.
  const std::vector<std::uint64_t> hosts = host_hashes(transport);
  if (transport.rank() == 0) {
    o.provenance = run_provenance(request, hosts, transport.library());
    if (!request.calibration.empty()) {
      std::map<std::string, std::string> provenance = o.provenance;
      std::string sweep;
      for (const collective kind : request.sweep)
        sweep += (sweep.empty() ? "" : ",") + std::string(to_string(kind));
      sweep += " sizes " + std::to_string(request.sizes.low) + ":" + std::to_string(request.sizes.high) +
               " B, " + std::to_string(request.warmup) + " warm-up + " + std::to_string(request.repeat) +
               " measured, medians";
      provenance["sweep"] = sweep;
      o.calibrated = calibrate_cluster(r, request.ranks_per_node, machines, std::move(provenance));
      write_cluster_file(*o.calibrated, request.calibration);
    }
  }
  if (transport.rank() == 0) {
    if (!request.csv.empty()) write_run_csv(request.csv, p, r);
    if (!request.output.empty()) write_file_atomically(request.output, run_json(o, p));
  }
  return o;
}

AICB_END_NAMESPACE
