// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb timeline`: one iteration of a job, as the estimate plays it, as a Chrome/Perfetto trace-event
// JSON file (aicb::write_trace_events, aicb/io/trace_events.hpp): a process per pipeline stage, a
// thread per stream. Open it in https://ui.perfetto.dev or chrome://tracing.
#include "commands.hpp"
#include "estimate_flags.hpp"
#include "job_flags.hpp"

#include <aicb/compute/roofline.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/trace_events.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>

namespace aicb_tool {
namespace {

struct timeline_options {
  job_flags job;
  std::string gpu, cluster, output = "timeline.json";
  aicb::estimate_options overlap;
};

int run_timeline(const timeline_options& o) {
  const aicb::job_spec job = o.job.job();
  aicb::validate(job);
  const aicb::cluster_spec machines = aicb::choose_cluster(o.gpu, o.cluster);
  const aicb::roofline_model compute(machines.gpu);
  if (o.output == "-") {  // to standard output, for a pipe
    (void)aicb::write_trace_events(
        [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); }, job, compute,
        machines, o.overlap);
    return 0;
  }
  aicb::atomic_file out(o.output);  // the whole file or nothing
  const aicb::iteration_estimate e = aicb::write_trace_events([&](std::string_view text) { out.write(text); },
                                                              job, compute, machines, o.overlap);
  out.commit();
  std::printf("wrote %s: %llu pipeline stage(s), iteration %.4g s on %s (%s)\n", o.output.c_str(),
              static_cast<unsigned long long>(e.stages.size()), e.iteration_s,
              std::string(machines.name).c_str(), std::string(machines.gpu).c_str());
  std::printf("next: open it in https://ui.perfetto.dev or chrome://tracing\n");
  return 0;
}

}  // namespace

void add_timeline_command(CLI::App& app, action& chosen) {
  auto options = std::make_shared<timeline_options>();
  auto* command = app.add_subcommand(
      "timeline", "Write one iteration, as the estimate plays it, as a trace-event JSON timeline (Perfetto)");
  command->add_option("-o,--output", options->output, "the JSON file to write (- for standard output)")
      ->capture_default_str();
  add_estimate_flags(*command, options->gpu, options->cluster, options->overlap);
  options->job.add_to(*command);
  on_chosen(command, chosen, options, run_timeline);
}

}  // namespace aicb_tool
