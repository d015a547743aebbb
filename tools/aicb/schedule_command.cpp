// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb schedule`: what one rank of a job does — its coordinates, its process groups and its
// operations in order: aicb::write_schedule_text, or aicb::write_schedule_json with --json, over a
// range-v3 view of the rank's aicb::rank_schedule.
#include "commands.hpp"
#include "exit_status.hpp"
#include "job_flags.hpp"
#include "vocabulary.hpp"

#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/schedule/schedule_json.hpp>
#include <aicb/schedule/schedule_text.hpp>

#include <range/v3/view/filter.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

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

int run_schedule(const schedule_options& o) {
  const aicb::job_spec job = o.job.job();
  aicb::validate(job);
  if (o.microbatch && *o.microbatch >= aicb::microbatches(job))
    throw aicb::config_error("microbatch", std::to_string(*o.microbatch),
                             "must be below the job's micro batches per iteration (" +
                                 std::to_string(aicb::microbatches(job)) + ")");
  aicb::rank_schedule schedule(job, o.rank, {.iterations = o.iterations, .overlap_p2p = !o.batched_p2p});
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
  const auto print = [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); };
  if (o.json)
    aicb::write_schedule_json(schedule.grid(), o.rank, shown, limit, print);
  else
    aicb::write_schedule_text(schedule.grid(), o.rank, shown, limit, print);
  return 0;
}

}  // namespace

void add_schedule_commands(CLI::App& app, action& chosen) {
  add_command<schedule_options>(app, chosen, add_schedule_options, run_schedule);
  add_check_command(app, chosen);
}

}  // namespace aicb_tool
