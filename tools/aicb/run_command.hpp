// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb run`: replays a job's operations on a real cluster — one process per rank, started by
// mpirun — and measures them (docs/run.md). The work is `aicb-run` (run_main.cpp), the only program
// linked with MPI: `aicb run ARGS` becomes `aicb-run ARGS` in the same process. This file is its
// flags; what a run does is aicb::prepare_run and aicb::run_on (aicb/commands/run.hpp).
#pragma once

#include "estimate_flags.hpp"
#include "job_flags.hpp"
#include "vocabulary.hpp"

#include <aicb/commands/run.hpp>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace aicb_tool {

inline constexpr const char* run_description =
    "Replay a job (or a collective sweep) on a cluster with MPI and measure it: mpirun -np N aicb run ...";

// The flags as given; to_request() makes them an aicb::run_request.
struct run_options {
  job_flags job;
  std::vector<std::string> sweep;  // collectives of a sweep
  std::string sizes = "1KiB:64MiB", max_buffer = "4GiB", backend = "auto", format = "table";
  aicb::run_request request;  // the fields with no text form to parse
  bool quiet = false, json = false, calibrate = false;
};

inline void add_run_options(CLI::App& command, run_options& o) {
  aicb::run_request& r = o.request;
  o.job.add_to(command);
  command
      .add_option("--sweep", o.sweep,
                  "instead of a job: these collectives over every rank, one size after another "
                  "(all_reduce all_gather reduce_scatter all_to_all)")
      ->delimiter(',');
  command.add_option(
      "--chakra", r.chakra,
      "instead of the job flags: replay the Chakra set aicb generate --format chakra wrote in this "
      "directory (each rank its own trace, computation as the trace's durations)");
  command.add_option("--sizes", o.sizes, "sweep sizes: MIN:MAX, doubling (bytes; KiB, MiB, GiB)")
      ->capture_default_str();
  command
      .add_option("--backend", o.backend,
                  "mpi (CPU buffers, MPI collectives) or nccl (GPU buffers, NCCL; one GPU per rank); auto: "
                  "mpi where built with MPI, else nccl")
      ->check(CLI::IsMember({"auto", "mpi", "nccl"}))
      ->capture_default_str();
  command.add_option("--warmup", r.warmup, "untimed repetitions first")->capture_default_str();
  command.add_option("--repeat", r.repeat, "timed repetitions (of the job's iteration, or of each size)")
      ->capture_default_str();
  add_old_spelling(command, "--iterations", "--repeat", r.repeat);
  command
      .add_option("--compute-scale", r.compute_scale,
                  "computation as a busy wait of the roofline duration times this (0: communication only)")
      ->capture_default_str();
  command.add_option("--gpu", r.gpu, "GPU whose roofline prices the computation (default: the cluster's)");
  command.add_option(
      "--cluster", r.cluster,
      "cluster preset (aicb describe --help lists them) or cluster file (.json; --calibrate writes "
      "one), for the estimate printed beside a job's replay");
  command.add_flag(
      "--overlap", r.overlapped,
      "overlapped replay: collectives beside computation where the schedule lets them (the combined "
      "1F1B's chains, pipeline transfers), the gradient reductions during the last backward with "
      "--overlap-grad-reduce; default: every collective on its own");
  command.add_flag("--check", r.check,
                   "one untimed iteration that verifies every collective's and transfer's data");
  command.add_option("--timeout", r.timeout_s, "seconds one operation may take before the job is ended")
      ->capture_default_str();
  command.add_option("--max-buffer", o.max_buffer, "largest buffer one rank may allocate")
      ->capture_default_str();
  command.add_option("-o,--output", r.output,
                     "write the JSON summary here (aicb.run/2; rank 0); with --calibrate, the cluster file");
  command.add_flag(
      "--calibrate", o.calibrate,
      "with --sweep: measure each collective over the ranks of a node and over one rank per node, "
      "and write the cluster file fitted to the times to -o (aicb.cluster/1; docs/cluster.md); with "
      "job flags too, then replay the job in the same launch, its estimate on the file");
  command.add_option("--ranks-per-node", r.ranks_per_node,
                     "ranks per node for --calibrate, consecutive ranks filling a node (default: from the "
                     "ranks' host names)");
  command.add_option("--csv", r.csv,
                     "also write rank 0's results in aicb's result-CSV form (its columns, ms, and its own "
                     "bandwidths: GiB/s, all-to-all and transfers x 1)");
  command.add_option("--timeline", r.timeline,
                     "also write the last measured iteration as a timeline: an HTML page (.html) or "
                     "trace-event JSON; every rank up to 64, else the first rank of each pipeline stage");
  add_slowdown_option(
      command, "--slow-rank", "slow_rank",
      [&r](const aicb::slow_rank& s, const std::string& text) {
        if (s.communication != 1)
          throw CLI::ValidationError("--slow-rank", text + ": the replay slows a rank's computation only");
        r.slow_ranks[s.rank] = s.compute;
      },
      "RANK:FACTOR: a straggler, its computation that many times longer (e.g. 3:2); repeatable; the report "
      "names the slowest rank")
      ->type_name("R:C");
  command
      .add_option("--format", o.format,
                  "table: aicb's table; nccl-tests: the collectives as nccl-tests prints them (one table per "
                  "collective and group, its footer lines), for tools that read all_reduce_perf's output")
      ->check(CLI::IsMember({"table", "nccl-tests"}))
      ->capture_default_str();
  command.add_flag("--json", o.json, "print the summary document (aicb.run/2) instead of the table");
  command.add_flag("-q,--quiet", o.quiet, "no table");
}

// The request the flags make (config_error naming the flag when a value means nothing).
inline aicb::run_request to_request(const run_options& o) {
  aicb::run_request r = o.request;
  r.job = o.job.request();
  for (const std::string& name : o.sweep) {
    const auto kind = aicb::from_string<aicb::collective>(name);
    if (!kind)
      throw aicb::config_error("sweep", name,
                               "expected all_reduce, all_gather, reduce_scatter or all_to_all");
    r.sweep.push_back(*kind);
  }
  r.sizes = aicb::parse_size_range(o.sizes, "sizes");
  r.max_buffer = aicb::parse_byte_count(o.max_buffer, "max_buffer");
  aicb::parse_value("backend", o.backend, r.backend);
  if (o.calibrate) {
    if (r.output.empty())
      throw aicb::config_error("calibrate", "(no -o)",
                               "name the cluster file to write: --calibrate -o cluster.json");
    r.calibration = r.output;
    r.output.clear();
  }
  aicb::validate(r);
  return r;
}

}  // namespace aicb_tool
