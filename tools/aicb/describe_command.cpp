// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb describe`: parameters, FLOPs, memory and communication of a job, and the estimate of one
// iteration on a cluster (text, or JSON with --json, a versioned document:
// docs/schemas/describe.schema.json). The work is aicb::describe (aicb/commands/describe.hpp).
#include "commands.hpp"
#include "estimate_flags.hpp"
#include "job_flags.hpp"
#include "job_set_commands.hpp"
#include "serving_flags.hpp"

#include <aicb/commands/describe_serving.hpp>
#include <aicb/compute/roofline.hpp>

#include <aicb/commands/describe.hpp>

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace aicb_tool {
namespace {

struct describe_options {
  job_flags job;
  aicb::describe_request request;
  serving_flags serving;
  std::string jobs;  // a job set document: its jobs side by side
  bool json = false, no_estimate = false, explain = false;
};

// With --phase: one serving step of the job's model, its TP and EP (aicb::describe_serving).
int run_describe_serving(describe_options& o) {
  const aicb::job_spec job = o.job.job();
  const aicb::serving_spec s = o.serving.spec(job.parallel.tensor_parallel, job.parallel.expert_parallel);
  // A serving step's GPUs are TP x DP-attention: a --world-size that says otherwise is not ignored.
  for (const auto& [field, text] : o.job.request().fields)
    if (field == "world_size" && text != std::to_string(s.gpus()))
      throw aicb::config_error("world_size", text,
                               "a serving step runs on --tp x --dp-attention GPUs (" +
                                   std::to_string(s.gpus()) + "): give --dp-attention " +
                                   "for more GPUs, or leave --world-size out");
  const aicb::cluster_spec machines = aicb::resolve_cluster(o.request.gpu, o.request.cluster);
  const aicb::serving_report r = aicb::describe_serving(job.model, s, aicb::roofline_model(machines.gpu),
                                                        machines, o.serving.memory_fraction);
  std::cout << (o.json ? aicb::to_json(r) : aicb::format_serving(r));
  return 0;
}

int run_describe(describe_options& o) {
  if (!o.jobs.empty()) {
    refuse_beside_jobs(o.job.any_given(), "model");
    refuse_beside_jobs(!o.request.gpu.empty() || !o.request.cluster.empty(), "cluster");
    refuse_beside_jobs(!o.serving.phase.empty() || o.no_estimate, "phase");
    return run_describe_job_set(o.jobs, o.request.overlap, o.json);
  }
  o.job.require_model();
  if (!o.serving.phase.empty()) return run_describe_serving(o);
  o.request.job = o.job.job();
  o.request.estimate = !o.no_estimate;
  const aicb::describe_result d = aicb::describe(o.request);
  if (o.json)
    std::cout << aicb::to_json(d);
  else
    std::cout << aicb::format_description(d);
  if (o.explain && !o.json) std::cout << aicb::format_explanation(d, o.request.cluster);
  return 0;
}

}  // namespace

void add_describe_command(CLI::App& app, action& chosen) {
  auto options = std::make_shared<describe_options>();
  auto* command = app.add_subcommand(
      "describe", "Show parameters, FLOPs, memory and communication of a job, and estimate an iteration");
  command->add_flag("--json", options->json, "print JSON");
  command->add_flag("--no-estimate", options->no_estimate, "skip the iteration estimate");
  command->add_flag(
      "--explain", options->explain,
      "after the estimate, where each of its figures comes from: the GPU's datasheet, the compute "
      "model, each network figure (a preset, or a cluster file's measurement), the defaults");
  command->add_option(
      "--jobs", options->jobs,
      "a job set (aicb.jobs/1, docs/jobs.md): every job's iteration alone and beside the others, "
      "sharing the network");
  add_estimate_flags(*command, options->request.gpu, options->request.cluster, options->request.overlap);
  options->serving.add_to(*command);
  options->job.add_to(*command);
  on_chosen(command, chosen, options, run_describe);
}

}  // namespace aicb_tool
