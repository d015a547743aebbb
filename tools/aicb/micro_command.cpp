// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb micro`: collective micro-benchmarks with aicb's flag names. This file is its flags; what it
// writes is aicb::write_micro (aicb/commands/micro.hpp): a sweep SimAI-Analytical runs (--format
// simai, the default), aicb's collective-test CSV (csv) or aicb's MICRO file (micro).
#include "commands.hpp"
#include "vocabulary.hpp"
#include "workload_output.hpp"

#include <aicb/commands/micro.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace aicb_tool {
namespace {

struct micro_options {
  aicb::micro_request request;
  std::string format;
  std::vector<std::string> test_comm;
  std::uint64_t multi_all_reduce = 0;
  bool quiet = false, no_space_check = false, json = false;
};

void add_micro_options(CLI::App& app, micro_options& o, CLI::App*& command) {
  command = app.add_subcommand("micro", "Write a collective micro-benchmark sweep (aicb's flags accepted)");
  aicb::aicb_args& a = o.request.args;
  command
      ->add_option("--format", o.format,
                   "simai: a sweep SimAI-Analytical runs (the default); csv: aicb's collective-test CSV; "
                   "micro: aicb's MICRO file (SimAI-Analytical cannot run it)")
      ->check(CLI::IsMember({"simai", "csv", "micro"}));
  command->add_option("-o,--output", o.request.output, "output file (default: aicb's name under results/)");
  command->add_flag("-q,--quiet", o.quiet, "print only errors");
  command->add_flag("--json", o.json, "print what was written as JSON (aicb.micro/1)");
  command->add_flag("--no-space-check", o.no_space_check,
                    "write even when the estimated size exceeds the free space");
  command->add_option("--frame", a.frame, "collective_test (aicb)")->capture_default_str();
  command->add_option("--world_size,--world-size", a.world_size, "GPUs in the group")->capture_default_str();
  command
      ->add_option("--tensor_model_parallel_size,--tp", a.tensor_model_parallel_size,
                   "aicb: the test runs on world_size / (tp · pp) GPUs")
      ->capture_default_str();
  command
      ->add_option("--pipeline_model_parallel,--pipeline_model_parallel_size,--pp", a.pipeline_model_parallel,
                   "aicb: the pipeline group of --multi_all_reduce_enable")
      ->capture_default_str();
  command
      ->add_option("--test_comm,--test-comm", o.test_comm,
                   "collectives: all_reduce, all_gather, reduce_scatter, all_to_all (simai: several, comma "
                   "separated)")
      ->delimiter(',');
  command->add_option("--begin_size,--begin-size", a.begin_size, "first message size (bytes)")
      ->capture_default_str();
  command->add_option("--end_size,--end-size", a.end_size, "last message size at most (bytes)")
      ->capture_default_str();
  command->add_option("--repeat,--iter_num", o.request.repeat,
                      "runs per size (csv: default 500, as aicb; simai: default 1 record per size)");
  add_old_spelling(*command, "--iterations", "--repeat", o.request.repeat);
  command->add_option("--epoch_num,--epoch-num", a.epoch_num, "csv: sweeps in the file")
      ->capture_default_str();
  command
      ->add_option("--multi_all_reduce_enable", o.multi_all_reduce,
                   "aicb: run the test on the pipeline group")
      ->capture_default_str();
}

int run_micro(micro_options& o) {
  const auto start = std::chrono::steady_clock::now();
  aicb::micro_request& r = o.request;
  r.args.multi_all_reduce_enable = o.multi_all_reduce != 0;
  r.collectives.clear();
  for (const std::string& name : o.test_comm) {
    const auto kind = aicb::from_string<aicb::collective>(name);
    if (!kind)
      throw aicb::config_error("test_comm", name,
                               "not a collective (all_reduce, all_gather, reduce_scatter, all_to_all, ...)");
    r.collectives.push_back(*kind);
  }
  if (!o.format.empty()) r.format = *aicb::from_string<aicb::workload_format>(o.format);
  r.check_space = !o.no_space_check;
  if (!o.quiet && !o.json) r.writing = print_writing;
  return report_written(aicb::write_micro(r), "micro", o.quiet, o.json, start);
}

}  // namespace

void add_micro_command(CLI::App& app, action& chosen) {
  add_command<micro_options>(app, chosen, add_micro_options, run_micro);
}

}  // namespace aicb_tool
