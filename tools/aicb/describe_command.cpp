// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb describe`: parameters, FLOPs, memory and communication of a job, and the estimate of one
// iteration on a cluster (text, or JSON with --json, a versioned document:
// docs/schemas/describe.schema.json). The work is aicb::describe (aicb/commands/describe.hpp).
#include "commands.hpp"
#include "estimate_flags.hpp"
#include "job_flags.hpp"

#include <aicb/commands/describe.hpp>

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace aicb_tool {
namespace {

struct describe_options {
  job_flags job;
  aicb::describe_request request;
  bool json = false, no_estimate = false;
};

int run_describe(describe_options& o) {
  o.request.job = o.job.job();
  o.request.estimate = !o.no_estimate;
  const aicb::describe_result d = aicb::describe(o.request);
  if (o.json)
    std::cout << aicb::to_json(d);
  else
    std::cout << aicb::format_description(d);
  return 0;
}

}  // namespace

void add_describe_command(CLI::App& app, action& chosen) {
  auto options = std::make_shared<describe_options>();
  auto* command = app.add_subcommand(
      "describe", "Show parameters, FLOPs, memory and communication of a job, and estimate an iteration");
  command->add_flag("--json", options->json, "print JSON");
  command->add_flag("--no-estimate", options->no_estimate, "skip the iteration estimate");
  add_estimate_flags(*command, options->request.gpu, options->request.cluster, options->request.overlap);
  options->job.add_to(*command);
  on_chosen(command, chosen, options, run_describe);
}

}  // namespace aicb_tool
