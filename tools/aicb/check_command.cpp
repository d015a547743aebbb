// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb check`: the whole-job consistency check (aicb::check_job): every transfer meets its
// counterpart and every collective its members, and nothing deadlocks; text, or aicb.check/1 with
// --json. Exit status 1 when the job is inconsistent.
#include "commands.hpp"
#include "job_flags.hpp"
#include "job_set_commands.hpp"

#include <aicb/schedule/job_check.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <string>

namespace aicb_tool {
namespace {

struct check_options {
  job_flags job;
  std::uint64_t joint_limit = 256;
  std::uint64_t stream_limit = aicb::job_check_options{}.stream_limit;
  std::string jobs;  // a job set document: every job of it
  bool batched_p2p = false, json = false;
};

void add_check_options(CLI::App& app, check_options& o, CLI::App*& command) {
  command = app.add_subcommand(
      "check",
      "Check a whole job: every transfer and collective matches across ranks, and nothing deadlocks");
  o.job.add_to(*command);
  command
      ->add_option("--joint-limit", o.joint_limit,
                   "run every rank jointly up to this world size; above it, stream every rank and run one "
                   "pipeline group")
      ->capture_default_str();
  command
      ->add_option("--stream-limit", o.stream_limit,
                   "the most ranks to stream (about 10,000 a second); a larger world is refused")
      ->capture_default_str();
  command->add_flag(
      "--batched-p2p", o.batched_p2p,
      "interleaved pipelines: one batched call per step instead of Megatron's overlapped calls");
  command->add_flag("--json", o.json, "print JSON (aicb.check/1, docs/schemas/check.schema.json)");
  command->add_option("--jobs", o.jobs, "a job set (aicb.jobs/1, docs/jobs.md): check every job of it");
}

int run_check(const check_options& o) {
  if (!o.jobs.empty()) {
    refuse_beside_jobs(o.job.any_given(), "model");
    return run_check_job_set(o.jobs, {.overlap_p2p = !o.batched_p2p},
                             {.joint_world_limit = o.joint_limit, .stream_limit = o.stream_limit}, o.json);
  }
  const aicb::job_spec job = o.job.job();
  const auto start = std::chrono::steady_clock::now();
  const auto progress = [&](std::uint64_t done, std::uint64_t world) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "aicb: check: %llu of %llu ranks streamed (%.0f s)\n",
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(world), s);
  };
  const aicb::job_check r = aicb::check_job(
      job, {.overlap_p2p = !o.batched_p2p},
      {.joint_world_limit = o.joint_limit, .stream_limit = o.stream_limit, .progress = progress});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (o.json) {
    std::fputs(aicb::job_check_json(r, job.parallel.world_size, seconds).c_str(), stdout);
    return r.ok ? 0 : 1;
  }
  if (!r.ok) {
    std::fprintf(stderr, "aicb: check failed: %s\n", r.problem.c_str());
    return 1;
  }
  std::printf("ok: %s\n", r.proved.c_str());
  std::printf(
      "%llu ranks streamed, %llu run jointly: %llu operations, %llu transfers, %llu collective calls "
      "(%.2f s)\n",
      static_cast<unsigned long long>(r.ranks_streamed), static_cast<unsigned long long>(r.ranks_run),
      static_cast<unsigned long long>(r.operations), static_cast<unsigned long long>(r.transfers),
      static_cast<unsigned long long>(r.collectives), seconds);
  return 0;
}

}  // namespace

void add_check_command(CLI::App& app, action& chosen) {
  add_command<check_options>(app, chosen, add_check_options, run_check);
}

}  // namespace aicb_tool
