// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb schedule`: what one rank of a job does — its coordinates, its process groups and its
// operations in order (text, or JSON with --json). `aicb check`: the whole-job consistency check.
#include "commands.hpp"
#include "exit_status.hpp"
#include "job_flags.hpp"
#include "vocabulary.hpp"

#include <aicb/json_writer.hpp>
#include <aicb/schedule/job_check.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/schedule/schedule_json.hpp>
#include <aicb/version.hpp>

#include <range/v3/view/filter.hpp>

#include <CLI/CLI.hpp>

#include <memory>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

namespace aicb_tool {
namespace {

struct schedule_options {
  job_flags job;
  std::uint64_t rank = 0;
  std::uint64_t iterations = 1;
  std::optional<std::uint64_t> limit;       // operations printed at most
  std::string only;                         // compute | collective | transfer: one type of operation
  std::optional<std::uint64_t> microbatch;  // one micro batch's passes
  bool json = false;
  bool batched_p2p = false;
};

void add_schedule_options(CLI::App& app, schedule_options& o, CLI::App*& command) {
  command = app.add_subcommand("schedule",
                               "Show what one rank of a job does: its groups and its operations in order");
  o.job.add_to(*command);
  command->add_option("--ranks", o.rank, "the global rank to show (one)")->capture_default_str();
  add_old_spelling(*command, "--rank", "--ranks", o.rank);
  command->add_option("--iterations", o.iterations, "consecutive training iterations")->capture_default_str();
  command->add_option("--limit", o.limit, "print at most this many operations");
  command->add_option("--only", o.only, "one type of operation: compute | collective | transfer")
      ->check(CLI::IsMember({"compute", "collective", "transfer"}));
  command->add_option("--microbatch", o.microbatch,
                      "only this micro batch's forward, backward and recomputation (no finalize)");
  command->add_flag("--json", o.json, "print JSON: the rank, its groups, then one object per operation");
  command->add_flag(
      "--batched-p2p", o.batched_p2p,
      "interleaved pipelines: one batched call per step instead of Megatron's overlapped calls");
}

namespace detail {

// A group's members as text, the first few and the last when there are many.
std::string members_text(const aicb::rank_group& g) {
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

std::string op_details(const aicb::operation& op) {
  char text[256];
  switch (op.type) {
    case aicb::op_type::compute:
      std::snprintf(text, sizeof text, "%s %s b=%llu m=%llu n=%llu k=%llu %.4g FLOP %.4g B",
                    std::string(aicb::to_string(op.compute.kind)).c_str(),
                    std::string(aicb::to_string(op.compute.pass)).c_str(),
                    static_cast<unsigned long long>(op.compute.batch),
                    static_cast<unsigned long long>(op.compute.m),
                    static_cast<unsigned long long>(op.compute.n),
                    static_cast<unsigned long long>(op.compute.k), op.compute.flops(), op.compute.bytes());
      return op.compute.one_kernel || op.compute.batch == 1 ? std::string(text)
                                                            : std::string(text) + " (one kernel per problem)";
    case aicb::op_type::collective:
      return std::string(aicb::to_string(op.kind)) + " " + aicb::to_string(op.group) + "/" +
             std::to_string(op.group_size) + " " + std::to_string(op.size.count()) + " B";
    case aicb::op_type::send:
    case aicb::op_type::recv:
      return std::string(op.type == aicb::op_type::send ? "to " : "from ") + std::to_string(op.peer) +
             " tag " + std::to_string(op.tag) + " " + std::to_string(op.size.count()) + " B";
  }
  return {};
}

}  // namespace detail

int run_schedule(const schedule_options& o) {
  const aicb::job_spec job = o.job.job();
  aicb::validate(job);
  if (o.microbatch && *o.microbatch >= aicb::microbatches(job))
    throw aicb::config_error("microbatch", std::to_string(*o.microbatch),
                             "must be below the job's micro batches per iteration (" +
                                 std::to_string(aicb::microbatches(job)) + ")");
  aicb::rank_schedule schedule(job, o.rank, {.iterations = o.iterations, .overlap_p2p = !o.batched_p2p});
  const aicb::process_grid& grid = schedule.grid();
  const aicb::rank_coordinates& c = schedule.coordinates();
  const std::uint64_t limit = o.limit.value_or(~std::uint64_t{0});
  // The operations shown: a range-v3 pipeline over the rank's stream.
  const auto keep = [&o](const aicb::operation& op) {
    if (o.microbatch && (op.phase == aicb::op_phase::finalize || op.microbatch != *o.microbatch))
      return false;
    if (o.only == "compute") return op.type == aicb::op_type::compute;
    if (o.only == "collective") return op.type == aicb::op_type::collective;
    if (o.only == "transfer") return op.type == aicb::op_type::send || op.type == aicb::op_type::recv;
    return true;
  };
  auto shown = schedule | ranges::views::filter(keep);
  if (o.json) {
    aicb::write_schedule_json(grid, o.rank, shown, limit, [](std::string_view text) { std::cout << text; });
    return 0;
  }
  std::printf(
      "rank %llu of %llu: tp %llu, cp %llu, dp %llu, pp %llu (expert grid: etp %llu, ep %llu, edp %llu)\n",
      static_cast<unsigned long long>(o.rank), static_cast<unsigned long long>(grid.world_size()),
      static_cast<unsigned long long>(c.tp), static_cast<unsigned long long>(c.cp),
      static_cast<unsigned long long>(c.dp), static_cast<unsigned long long>(c.pp),
      static_cast<unsigned long long>(c.etp), static_cast<unsigned long long>(c.ep),
      static_cast<unsigned long long>(c.edp));
  for (const aicb::group_kind kind : aicb::schedule_groups)
    if (grid.in_group(kind, o.rank)) {
      const aicb::rank_group g = grid.group(kind, o.rank);
      std::printf("  %-12s %s\n", aicb::to_string(g.id()).c_str(), detail::members_text(g).c_str());
    }
  std::printf("\n%7s %-10s %-9s %4s %3s %5s  %-30s %s\n", "index", "type", "phase", "mb", "ch", "layer",
              "name", "details");
  std::uint64_t n = 0;
  for (const aicb::operation& op : shown) {
    if (n++ == limit) {
      std::printf("... (--limit %llu)\n", static_cast<unsigned long long>(limit));
      break;
    }
    std::printf("%7llu %-10s %-9s %4llu %3llu %5s  %-30s %s\n", static_cast<unsigned long long>(op.index),
                std::string(aicb::to_string(op.type)).c_str(), std::string(aicb::to_string(op.phase)).c_str(),
                static_cast<unsigned long long>(op.microbatch), static_cast<unsigned long long>(op.chunk),
                op.layer == aicb::no_layer ? "-" : std::to_string(op.layer).c_str(),
                std::string(op.name).c_str(), detail::op_details(op).c_str());
  }
  return 0;
}

struct check_options {
  job_flags job;
  std::uint64_t joint_limit = 256;
  std::uint64_t stream_limit = aicb::job_check_options{}.stream_limit;
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
}

int run_check(const check_options& o) {
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
    aicb::json_writer w;
    w.begin_object().member("schema", "aicb.check/1").member("aicb_version", AICB_VERSION_STRING);
    w.member("world_size", job.parallel.world_size).member("ok", r.ok);
    if (r.ok)
      w.member("proved", r.proved);
    else
      w.member("problem", r.problem);
    w.member("ranks_streamed", r.ranks_streamed).member("ranks_run", r.ranks_run);
    w.member("operations", r.operations)
        .member("transfers", r.transfers)
        .member("collectives", r.collectives);
    w.member("seconds", seconds).end_object();
    std::cout << w.str() << "\n";
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

void add_schedule_commands(CLI::App& app, action& chosen) {
  add_command<schedule_options>(app, chosen, add_schedule_options, run_schedule);
  add_command<check_options>(app, chosen, add_check_options, run_check);
}

}  // namespace aicb_tool
