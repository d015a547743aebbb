// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb plan`: the parallel layouts of a model on N GPUs that fit in memory, ranked by estimated
// iteration time (aicb::plan_layouts, aicb/compute/layout_planner.hpp). Parallel and batch flags the
// user gives are kept; everything else is searched.
#include "commands.hpp"
#include "estimate_flags.hpp"
#include "job_flags.hpp"

#include <aicb/compute/layout_planner.hpp>
#include <aicb/io/cluster_file.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

namespace aicb_tool {
namespace {

struct plan_options {
  job_flags job;
  aicb::plan_request request;
  std::string gpu, cluster;
  std::size_t top = 10;
  std::uint64_t lost_gpus = 0;
  bool json = false;
};

int run_plan(plan_options& o) {
  o.job.require_model();
  const aicb::job_request flags = o.job.request();
  o.request.job = aicb::build_job(flags).job;
  for (const auto& [field, value] : flags.fields)
    o.request.fixed.push_back(field);
  o.request.cluster = aicb::resolve_cluster(o.gpu, o.cluster);
  if (o.lost_gpus > 0) {  // a restart on the GPUs left
    if (o.json)
      throw aicb::config_error("json", "true", "a restart plan is printed as text only; drop --json");
    std::cout << aicb::format_restart(aicb::plan_restart(o.request, o.lost_gpus));
    return 0;
  }
  const aicb::layout_plan plan = aicb::plan_layouts(o.request);
  if (o.json)
    std::cout << aicb::to_json(plan, o.request.cluster);
  else
    std::cout << aicb::format_plan(plan, o.request.cluster, o.top);
  // No layout is an answer, not a success: a script must not read an empty plan as one.
  if (plan.layouts.empty()) {
    std::fflush(stdout);
    std::fprintf(stderr, "aicb: plan: no layout of %llu considered fits (%llu valid, %llu in memory)\n",
                 static_cast<unsigned long long>(plan.candidates),
                 static_cast<unsigned long long>(plan.valid), static_cast<unsigned long long>(plan.fitting));
    return 1;
  }
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, action& chosen) {
  auto options = std::make_shared<plan_options>();
  auto* command = app.add_subcommand(
      "plan", "Rank the parallel layouts of a model on --world-size GPUs by estimated iteration time");
  command->add_flag("--json", options->json, "print JSON");
  // Handled before parsing (main.cpp): `aicb plan --serving` takes aicb serve's flags.
  bool serving = false;
  command->add_flag("--serving", serving,
                    "plan serving deployments for a traffic and an objective instead (takes aicb serve's "
                    "flags: see aicb serve --help)");
  command->add_option("--top", options->top, "layouts to print")->capture_default_str();
  command->add_option("--lost-gpus", options->lost_gpus,
                      "plan a restart after losing this many GPUs: the best layout before and after, and "
                      "what the loss costs");
  command
      ->add_option("--memory-fraction", options->request.memory_fraction,
                   "of the GPU's memory a layout may use")
      ->capture_default_str();
  command
      ->add_option("--estimate-limit", options->request.estimate_limit,
                   "candidates estimated after the memory filter")
      ->capture_default_str();
  add_estimate_flags(*command, options->gpu, options->cluster, options->request.overlap);
  options->job.add_to(*command);
  on_chosen(command, chosen, options, run_plan);
}

}  // namespace aicb_tool
