// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb run`: replays a job's operations on a real cluster — one process per rank, started by
// mpirun — and measures them (docs/run.md). The work is `aicb-run` (run_main.cpp), the only program
// linked with MPI: `aicb run ARGS` becomes `aicb-run ARGS` in the same process.
//
// Two workloads: a job (the job flags; each rank replays its own aicb::rank_schedule, so pipeline
// sends meet their receives), or a collective sweep (--sweep all_reduce,all_gather --sizes 1KiB:64MiB,
// over every rank). Results on rank 0: a table, and with -o a JSON summary (aicb.run/1).
#pragma once

#include "job_flags.hpp"
#include "vocabulary.hpp"

#include <aicb/compute/cluster.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/generate/csv_projection.hpp>
#include <aicb/io/aicb_csv.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/timeline_html.hpp>
#include <aicb/io/trace_events.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/run/replay.hpp>
#include <aicb/run/saved_workload.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace aicb_tool {

inline constexpr const char* run_description =
    "Replay a job (or a collective sweep) on a cluster with MPI and measure it: mpirun -np N aicb run ...";

struct run_options {
  job_flags job;
  std::vector<std::string> sweep;  // collectives of a sweep
  std::string sizes = "1KiB:64MiB";
  std::string output, gpu, cluster, timeline, csv;
  std::string chakra;   // a saved set to replay instead of the job flags
  std::string backend;  // mpi | nccl; empty: mpi where built with MPI, else nccl
  std::uint64_t warmup = 2, iterations = 5;
  double compute_scale = 1, timeout_s = 120;
  std::string max_buffer = "4GiB";
  bool check = false, quiet = false;
  std::vector<std::string> command_line;  // for the fingerprint
};

inline void add_run_options(CLI::App& command, run_options& o) {
  o.job.add_to(command);
  command
      .add_option("--sweep", o.sweep,
                  "instead of a job: these collectives over every rank, one size after another "
                  "(all_reduce all_gather reduce_scatter all_to_all)")
      ->delimiter(',');
  command.add_option(
      "--chakra", o.chakra,
      "instead of the job flags: replay the Chakra set aicb generate --format chakra wrote in this "
      "directory (each rank its own trace, computation as the trace's durations)");
  command.add_option("--sizes", o.sizes, "sweep sizes: MIN:MAX, doubling (bytes; KiB, MiB, GiB)")
      ->capture_default_str();
  command
      .add_option(
          "--backend", o.backend,
          "mpi (CPU buffers, MPI collectives; the default where built with MPI) or nccl (GPU buffers, "
          "NCCL; one GPU per rank)")
      ->check(CLI::IsMember({"mpi", "nccl"}));
  command.add_option("--warmup", o.warmup, "untimed repetitions first")->capture_default_str();
  command.add_option("--repeat", o.iterations, "timed repetitions (of the job's iteration, or of each size)")
      ->capture_default_str();
  add_old_spelling(command, "--iterations", "--repeat", o.iterations);
  command
      .add_option("--compute-scale", o.compute_scale,
                  "computation as a busy wait of the roofline duration times this (0: communication only)")
      ->capture_default_str();
  command.add_option("--gpu", o.gpu, "GPU whose roofline prices the computation (default: the cluster's)");
  command.add_option("--cluster", o.cluster, "cluster preset (aicb describe --help lists them)");
  command.add_flag("--check", o.check,
                   "one untimed iteration that verifies every collective's and transfer's data");
  command.add_option("--timeout", o.timeout_s, "seconds one operation may take before the job is ended")
      ->capture_default_str();
  command.add_option("--max-buffer", o.max_buffer, "largest buffer one rank may allocate")
      ->capture_default_str();
  command.add_option("-o,--output", o.output, "write the JSON summary here (rank 0)");
  command.add_option("--csv", o.csv,
                     "also write rank 0's results in aicb's result-CSV form (its columns, ms, and its own "
                     "bandwidths: GiB/s, all-to-all and transfers x 1)");
  command.add_option(
      "--timeline", o.timeline,
      "write the last measured iteration as a timeline: an HTML page (.html) or trace-event JSON; "
      "every rank up to 64, else the first rank of each pipeline stage");
  command.add_flag("-q,--quiet", o.quiet, "no table");
}

namespace detail {

// "64MiB" -> bytes.
inline std::uint64_t parse_run_bytes(const std::string& text, const char* field) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (...) {
    throw aicb::config_error(field, text, "expected a size: a number with an optional KiB, MiB or GiB");
  }
  const std::string unit = text.substr(used);
  const double scale = unit.empty() || unit == "B"    ? 1
                       : unit == "KiB" || unit == "K" ? 1024.0
                       : unit == "MiB" || unit == "M" ? 1024.0 * 1024
                       : unit == "GiB" || unit == "G" ? 1024.0 * 1024 * 1024
                                                      : -1;
  if (scale < 0 || !(value >= 1) || value * scale > 1e15)
    throw aicb::config_error(field, text, "expected a size of 1 B to 1 PB: a number with B, KiB, MiB or GiB");
  return static_cast<std::uint64_t>(value * scale);
}

// The sweep as operations over the world group.
inline std::vector<aicb::operation> sweep_operations(const run_options& o, std::uint64_t world) {
  const std::size_t colon = o.sizes.find(':');
  const std::uint64_t low = parse_run_bytes(o.sizes.substr(0, colon), "sizes");
  const std::uint64_t high =
      colon == std::string::npos ? low : parse_run_bytes(o.sizes.substr(colon + 1), "sizes");
  if (high < low) throw aicb::config_error("sizes", o.sizes, "MIN must not exceed MAX");
  std::vector<aicb::operation> ops;
  for (const std::string& name : o.sweep) {
    const auto kind = aicb::from_string<aicb::collective>(name);
    if (!kind || (*kind != aicb::collective::all_reduce && *kind != aicb::collective::all_gather &&
                  *kind != aicb::collective::reduce_scatter && *kind != aicb::collective::all_to_all))
      throw aicb::config_error("sweep", name,
                               "expected all_reduce, all_gather, reduce_scatter or all_to_all");
    for (std::uint64_t size = low; size <= high; size *= 2) {
      aicb::operation op;
      op.index = ops.size();
      op.type = aicb::op_type::collective;
      op.name = aicb::to_string(*kind);
      op.phase = aicb::op_phase::finalize;
      op.kind = *kind;
      op.group = {aicb::group_kind::world, 0};
      op.group_size = world;
      op.size = aicb::bytes{size};
      ops.push_back(op);
      if (size > high / 2) break;
    }
  }
  return ops;
}

inline void write_run_json(const aicb::replay_result& r, const run_options& o, const std::string& what,
                           const std::string& compute) {
  aicb::json_writer j;
  j.begin_object().member("schema", "aicb.run/1").member("aicb_version", AICB_VERSION_STRING);
  j.member("workload", what).member("world", r.world).member("backend", o.backend).member("compute", compute);
  j.key("options").begin_object();
  j.member("warmup", r.options.warmup).member("iterations", r.options.iterations);
  j.member("compute_scale", r.options.compute_scale).member("check", r.options.check);
  j.end_object();
  j.key("iterations_us").begin_array();
  for (const double us : r.slowest_iteration_us)
    j.value(us);
  j.end_array();
  if (r.options.check)
    j.key("check").begin_object().member("elements", r.checked).member("wrong", r.wrong).end_object();
  j.key("operations").begin_array();  // rank 0's
  for (const aicb::replayed_operation& m : r.operations) {
    j.begin_object().member("index", m.op.index).member("name", std::string(m.op.name));
    j.member("type", aicb::to_string(m.op.type));
    if (m.op.type == aicb::op_type::collective)
      j.member("collective", aicb::to_string(m.op.kind))
          .member("group", aicb::to_string(m.op.group))
          .member("group_size", m.op.group_size);
    if (m.op.is_transfer()) j.member("peer", m.op.peer);
    if (m.op.is_communication()) j.member("bytes", m.op.size.count());
    if (m.op.type == aicb::op_type::compute) j.member("modelled_us", m.modelled_us);
    j.member("mean_us", m.mean_us).member("min_us", m.min_us).member("max_us", m.max_us);
    if (m.op.is_communication()) j.member("algbw_gb_per_s", m.algbw).member("busbw_gb_per_s", m.busbw);
    j.end_object();
  }
  j.end_array().end_object();
  aicb::atomic_file out(o.output);
  out.write(j.str() + "\n");
  out.commit();
}

inline void print_run_table(const aicb::replay_result& r, const std::string& what,
                            const std::string& backend) {
  std::printf("aicb run: %s on %llu ranks (%s), %llu warm-up + %llu measured iterations\n", what.c_str(),
              static_cast<unsigned long long>(r.world), backend.c_str(),
              static_cast<unsigned long long>(r.options.warmup),
              static_cast<unsigned long long>(r.options.iterations));
  // Rank 0's communication, by collective, group and size: nccl-tests' columns.
  struct row {
    aicb::collective kind{};
    std::uint64_t count = 0;
    double total_us = 0;
  };
  std::map<std::tuple<std::string, std::string, std::uint64_t, std::uint64_t>, row> rows;
  for (const aicb::replayed_operation& m : r.operations) {
    if (!m.op.is_communication()) continue;
    const aicb::collective kind = aicb::communication_kind(m.op);
    const std::string group =
        m.op.type == aicb::op_type::collective ? std::string(aicb::to_string(m.op.group.kind)) : "pp";
    row& each =
        rows[{std::string(aicb::to_string(kind)), group, aicb::communication_ranks(m.op), m.op.size.count()}];
    each.kind = kind;
    ++each.count;
    each.total_us += m.mean_us;
  }
  std::printf("\n%-15s %-10s %5s %14s %6s %12s %10s %10s\n", "operation", "group", "ranks", "size (B)",
              "count", "time (us)", "algbw GB/s", "busbw GB/s");
  for (const auto& [key, each] : rows) {
    const auto& [name, group, n, size] = key;
    const double us = each.total_us / static_cast<double>(each.count), s = us * 1e-6;
    std::printf("%-15s %-10s %5llu %14llu %6llu %12.2f %10.3f %10.3f\n", name.c_str(), group.c_str(),
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(size),
                static_cast<unsigned long long>(each.count), us,
                aicb::algorithm_bandwidth(static_cast<double>(size), s),
                aicb::bus_bandwidth(each.kind, n, static_cast<double>(size), s));
  }
  double sum = 0, low = 1e300, high = 0;
  for (const double us : r.slowest_iteration_us) {
    sum += us;
    low = std::min(low, us);
    high = std::max(high, us);
  }
  if (!r.slowest_iteration_us.empty())
    std::printf("\niteration (slowest rank): mean %.3f ms, min %.3f ms, max %.3f ms\n",
                sum / static_cast<double>(r.slowest_iteration_us.size()) / 1000, low / 1000, high / 1000);
  if (r.options.check)
    std::printf("check: %llu elements verified, %llu wrong\n", static_cast<unsigned long long>(r.checked),
                static_cast<unsigned long long>(r.wrong));
}

}  // namespace detail

// What a rank replays: its operations of one iteration, the job they come from, what it is.
struct prepared_run {
  std::vector<aicb::operation> ops;
  aicb::job_spec job;
  std::string what;
  std::vector<std::chrono::nanoseconds> durations;  // a saved set's computation times
  std::deque<std::string> names;                    // a saved set's operation names (ops view them)
};

// The options as numbers a replay can use: every float finite and in range (before it is
// converted: a timeout of inf or 1e308 seconds has no millisecond count).
inline void validate_run_options(const run_options& o) {
  if (!(o.timeout_s > 0 && o.timeout_s <= 7 * 24 * 3600.0))
    throw aicb::config_error("timeout", std::to_string(o.timeout_s),
                             "expected seconds, more than 0 and at most a week (604800)");
  if (!(o.compute_scale >= 0 && o.compute_scale <= aicb::max_replay_compute_scale))
    throw aicb::config_error("compute_scale", std::to_string(o.compute_scale),
                             "expected a finite factor from 0 (communication only) to 10^6");
  if (o.iterations == 0) throw aicb::config_error("iterations", "0", "at least one iteration is measured");
}

// The job or sweep of rank `rank` of `world`; config_error when the flags do not describe one.
inline prepared_run prepare_run(const run_options& o, std::uint64_t world, std::uint64_t rank) {
  validate_run_options(o);
  prepared_run p;
  if (!o.sweep.empty()) {
    p.ops = detail::sweep_operations(o, world);
    p.job.model = {.hidden_size = 64, .num_layers = 1, .num_attention_heads = 1, .vocab_size = 64};
    p.job.parallel.world_size = world;
    p.what = "collective sweep";
    return p;
  }
  if (!o.chakra.empty()) {
    const aicb::job_request given = o.job.request();
    if (!given.model.empty() || !given.hf_config.empty() || !given.size.empty() || !given.fields.empty())
      throw aicb::config_error(
          "chakra", o.chakra,
          "a saved set carries its own job: give no model or job flags with --chakra (" +
              (given.fields.empty() ? std::string("--model") : "--" + given.fields.front().first) + ")");
    if (!o.csv.empty())
      throw aicb::config_error("csv", o.csv, "the result CSV is written for jobs and sweeps, not saved sets");
    aicb::saved_rank saved = aicb::load_chakra_rank(o.chakra, rank);
    p.job = saved.job;
    p.ops = std::move(saved.ops);
    p.durations = std::move(saved.durations);
    p.names = std::move(saved.names);
    p.what = "Chakra set " + o.chakra + " (" +
             std::string(p.job.model.name.empty() ? "custom model" : p.job.model.name.view()) + ")";
  } else {
    aicb::job_request request = o.job.request();
    // Without --world-size the job spans the ranks that were started.
    if (std::none_of(request.fields.begin(), request.fields.end(),
                     [](const auto& f) { return f.first == "world_size"; }))
      request.fields.emplace_back("world_size", std::to_string(world));
    p.job = aicb::build_job(request).job;
    if (p.job.parallel.world_size == world) {
      aicb::rank_schedule schedule(p.job, rank);
      for (const aicb::operation& op : schedule)
        p.ops.push_back(op);
    }
    p.what = std::string(p.job.model.name.empty() ? "custom model" : p.job.model.name.view()) + " job";
  }
  if (p.job.parallel.world_size != world)
    throw aicb::config_error("world_size", std::to_string(p.job.parallel.world_size),
                             "must equal the ranks mpirun started (" + std::to_string(world) + ")");
  return p;
}

namespace detail {

// aicb's bus-bandwidth factor (its log analyzer): all-reduce 2(n-1)/n, all-gather and
// reduce-scatter (n-1)/n, everything else 1.
inline double aicb_busbw_factor(aicb::csv_op op, std::uint64_t n) {
  const double ranks = static_cast<double>(n ? n : 1);
  if (op == aicb::csv_op::all_reduce) return 2 * (ranks - 1) / ranks;
  if (op == aicb::csv_op::all_gather || op == aicb::csv_op::reduce_scatter) return (ranks - 1) / ranks;
  return 1;
}

// Rank 0's results as aicb's run writes its log: an item per operation of one iteration (mean
// time in ms, aicb's bandwidths; count = the measured iterations), then an epoch_end per measured
// iteration carrying its time (the slowest rank's).
inline void write_run_csv(const run_options& o, const prepared_run& p, const aicb::replay_result& r) {
  aicb::csv_writer out(o.csv);
  std::optional<aicb::csv_projection> projection;
  if (o.sweep.empty())
    projection.emplace(p.job, aicb::csv_projection_options{.rank = 0, .computation = true});
  for (const aicb::replayed_operation& m : r.operations) {
    std::optional<aicb::csv_item> item;
    if (projection) {
      item = projection->item(m.op);
    } else {  // a sweep: every rank's group
      item.emplace();
      item->op = *aicb::from_string<aicb::csv_op>(aicb::to_string(m.op.kind));
      item->group = aicb::csv_group::all;
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
    aicb::csv_item end;
    end.elapsed_time = us / 1000;
    out.write(end);
  }
  out.finish();
}

// The last measured iteration of the ranks shown, as a trace-event document (rank 0): `times[r]`
// holds rank r's (start, duration) per operation, its operations regenerated here.
inline void write_run_timeline(const run_options& o, const prepared_run& rank0,
                               const std::vector<std::vector<double>>& times,
                               const aicb::cluster_spec& machines, const std::string& compute,
                               double iteration_s);

}  // namespace detail

// Replays `p` over `transport`; prints and writes on rank 0. Exit status 0, or 1 when the check
// found wrong data.
inline int run_replay(aicb::replay_transport& transport, const run_options& o, const prepared_run& p) {
  const aicb::process_grid grid(p.job);
  const aicb::cluster_spec machines = aicb::choose_cluster(o.gpu, o.cluster);
  const aicb::roofline_model compute(machines.gpu);
  aicb::replay_options options{
      .warmup = o.warmup,
      .iterations = o.iterations,
      .compute_scale = o.compute_scale,
      .check = o.check,
      .timeout = std::chrono::milliseconds(static_cast<std::int64_t>(o.timeout_s * 1000)),
      .fingerprint = {},
      .max_buffer_bytes = detail::parse_run_bytes(o.max_buffer, "max_buffer"),
      .progress = {}};
  if (transport.rank() == 0 && !o.quiet)
    options.progress = [](std::string_view phase) {
      std::printf("aicb run: %.*s\n", static_cast<int>(phase.size()), phase.data());
      std::fflush(stdout);  // under mpirun stdout is a pipe: unflushed, nothing shows until the end
    };
  for (const std::string& arg : o.command_line)
    options.fingerprint.append(arg).append(1, '\n');
  const aicb::replay_result r = aicb::replay(transport, p.ops, grid, &compute, options, p.durations);
  if (!o.timeline.empty()) {  // every rank's last iteration, gathered on rank 0
    std::vector<double> mine;
    for (const aicb::replayed_operation& m : r.operations) {
      mine.push_back(m.last_start_us);
      mine.push_back(m.last_us);
    }
    const std::vector<std::vector<double>> times = transport.gather_to_first(mine);
    double mean_s = 0;
    for (const double us : r.slowest_iteration_us)
      mean_s += us * 1e-6;
    if (!r.slowest_iteration_us.empty()) mean_s /= static_cast<double>(r.slowest_iteration_us.size());
    if (transport.rank() == 0)
      detail::write_run_timeline(o, p, times, machines, compute.provenance(), mean_s);
  }
  if (transport.rank() == 0 && !o.csv.empty()) detail::write_run_csv(o, p, r);
  if (transport.rank() == 0) {
    if (!o.quiet) detail::print_run_table(r, p.what, o.backend);
    if (!o.output.empty()) detail::write_run_json(r, o, p.what, compute.provenance());
  }
  if (r.options.check && r.wrong > 0) {
    if (transport.rank() == 0)
      std::fprintf(stderr, "aicb: run: the check found %llu wrong elements\n",
                   static_cast<unsigned long long>(r.wrong));
    return 1;
  }
  return 0;
}

namespace detail {

inline void write_run_timeline(const run_options& o, const prepared_run& rank0,
                               const std::vector<std::vector<double>>& times,
                               const aicb::cluster_spec& machines, const std::string& compute,
                               double iteration_s) {
  const std::uint64_t world = times.size();
  std::vector<std::uint64_t> shown;
  if (world <= 64 || !o.sweep.empty()) {
    for (std::uint64_t r = 0; r < std::min<std::uint64_t>(world, 64); ++r)
      shown.push_back(r);
  } else {
    for (std::uint64_t s = 0; s < rank0.job.parallel.pipeline_parallel; ++s)
      shown.push_back(aicb::first_rank_of_stage(rank0.job, s));
  }
  const auto stream_of = [](const aicb::operation& op) -> std::size_t {
    if (op.type == aicb::op_type::compute) return 0;
    if (op.is_transfer()) return 3;
    return aicb::is_data_parallel(op.group.kind) ? 2 : 1;
  };
  const auto produce = [&](auto&& write) {
    aicb::detail::trace_document<std::remove_reference_t<decltype(write)>> doc(write);
    const aicb::process_grid grid(rank0.job);
    for (const std::uint64_t r : shown) {
      const std::uint64_t stage = o.sweep.empty() ? grid.coordinates(r).pp : 0;
      doc.name_process(r, "rank " + std::to_string(r) + " (stage " + std::to_string(stage) + ")",
                       stage * world + r, 4);
      const std::vector<aicb::operation> ops = r == 0 ? rank0.ops : prepare_run(o, world, r).ops;
      for (std::size_t i = 0; i < ops.size() && 2 * i + 1 < times[r].size(); ++i) {
        const aicb::operation& op = ops[i];
        const double dur = times[r][2 * i + 1];
        if (dur <= 0) continue;
        const std::size_t tid = stream_of(op);
        doc.emit(aicb::detail::operation_event(op, op.name, aicb::trace_streams[tid], r, tid, times[r][2 * i],
                                               dur));
      }
    }
    doc.finish(machines, compute, iteration_s, 0, 0);
  };
  aicb::atomic_file out(o.timeline);  // the whole file or nothing
  const auto write = [&](std::string_view text) { out.write(text); };
  if (o.timeline.ends_with(".html") || o.timeline.ends_with(".htm")) {
    std::string title = rank0.what;
    title.append(" on ").append(std::to_string(world)).append(" ranks: one iteration, measured");
    aicb::write_timeline_html(write, title, [&](const auto& sink) { produce(sink); });
  } else {
    produce(write);
  }
  out.commit();
}

}  // namespace detail

}  // namespace aicb_tool
