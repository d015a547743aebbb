// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb describe`: parameters, FLOPs, memory and communication of a job (text, or JSON with --json,
// a versioned document: docs/schemas/describe.schema.json).
#include "commands.hpp"
#include "job_flags.hpp"

#include <aicb/calc/report.hpp>

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace aicb_tool {
namespace {

struct describe_options {
  job_flags job;
  bool json = false;
};

int run_describe(const describe_options& o) {
  const aicb::job_report report = aicb::describe_job(o.job.job());
  if (o.json)
    std::cout << aicb::to_json(report);
  else
    std::cout << aicb::format_description(report);
  return 0;
}

}  // namespace

void add_describe_command(CLI::App& app, action& chosen) {
  auto options = std::make_shared<describe_options>();
  auto* command = app.add_subcommand("describe", "Show parameters, FLOPs, memory and communication of a job");
  command->add_flag("--json", options->json, "print JSON");
  options->job.add_to(*command);
  on_chosen(command, chosen, options, run_describe);
}

}  // namespace aicb_tool
