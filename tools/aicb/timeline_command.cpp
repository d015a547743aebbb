// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb timeline`: one iteration of a job, as the estimate plays it, as a Chrome/Perfetto trace-event
// JSON file (aicb::write_trace_events, aicb/io/trace_events.hpp) — a process per pipeline stage or
// chosen rank, a thread per stream — or as a self-contained HTML page that draws it
// (aicb::write_timeline_html, aicb/io/timeline_html.hpp).
#include "commands.hpp"
#include "estimate_flags.hpp"
#include "job_flags.hpp"
#include "job_set_commands.hpp"

#include <aicb/checked.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/cluster_file.hpp>
#include <aicb/io/timeline_html.hpp>
#include <aicb/io/trace_events.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace aicb_tool {
namespace {

struct timeline_options {
  job_flags job;
  std::string gpu, cluster, output = "timeline.json", format, ranks;
  std::string jobs;  // a job set document: its jobs side by side
  aicb::estimate_options overlap;
};

// html for a name ending in .html or .htm, json otherwise, unless --format says.
std::string format_of(const timeline_options& o) {
  if (!o.format.empty()) return o.format;
  return o.output.ends_with(".html") || o.output.ends_with(".htm") ? "html" : "json";
}

int run_timeline(const timeline_options& o) {
  if (!o.jobs.empty()) {
    refuse_beside_jobs(o.job.any_given(), "model");
    refuse_beside_jobs(!o.gpu.empty() || !o.cluster.empty(), "cluster");
    refuse_beside_jobs(!o.ranks.empty(), "ranks");
    return run_timeline_job_set(o.jobs, o.output, format_of(o), o.overlap);
  }
  o.job.require_model();
  const aicb::job_spec job = o.job.job();
  aicb::validate(job);
  const aicb::cluster_spec machines = aicb::resolve_cluster(o.gpu, o.cluster);
  const aicb::roofline_model compute(machines.gpu);
  // A timeline is for a person to look at: beyond a thousand ranks no viewer draws it, and the file
  // would be gigabytes (every rank's operations: aicb generate --format chakra is for that).
  constexpr std::size_t most_ranks = 1024;
  const std::vector<std::uint64_t> ranks =
      o.ranks.empty() ? std::vector<std::uint64_t>{}
                      : aicb::parse_ranks(o.ranks, job.parallel.world_size, most_ranks);
  const std::string format = format_of(o);
  aicb::iteration_estimate e;
  if (ranks.size() > 8 && o.output != "-") {
    // Its size, from one rank's events, against the free space before anything is written.
    std::uint64_t one = 0;
    (void)aicb::write_trace_events([&](std::string_view text) { one += text.size(); }, job, compute, machines,
                                   o.overlap, std::vector<std::uint64_t>{ranks.front()});
    aicb::require_free_space(o.output, aicb::checked_mul(one, ranks.size(), "bytes of the timeline"));
  }
  const auto produce = [&](auto&& write) {
    if (format == "json") {
      e = aicb::write_trace_events(write, job, compute, machines, o.overlap, ranks);
      return;
    }
    std::string title(job.model.name.empty() ? "custom model" : job.model.name.view());
    title.append(" on ").append(std::to_string(job.parallel.world_size)).append(" ");
    title.append(machines.gpu).append(": one iteration, estimated");
    aicb::write_timeline_html(write, title, [&](const auto& sink) {
      e = aicb::write_trace_events(sink, job, compute, machines, o.overlap, ranks);
    });
  };
  if (o.output == "-") {  // to standard output, for a pipe
    produce([](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); });
    return 0;
  }
  aicb::atomic_file out(o.output);  // the whole file or nothing
  produce([&](std::string_view text) { out.write(text); });
  out.commit();
  std::printf("wrote %s: %s, %s, iteration %.4g s on %s (%s)\n", o.output.c_str(),
              format == "html" ? "an HTML timeline" : "a trace-event JSON timeline",
              ranks.empty() ? (std::to_string(e.stages.size()) + " pipeline stage(s)").c_str()
                            : (std::to_string(ranks.size()) + " rank(s)").c_str(),
              e.iteration_s, std::string(machines.name).c_str(), std::string(machines.gpu).c_str());
  if (format == "html")
    std::printf("next: open it in a browser (no server needed)\n");
  else
    std::printf("next: open it in https://ui.perfetto.dev or chrome://tracing\n");
  return 0;
}

}  // namespace

void add_timeline_command(CLI::App& app, action& chosen) {
  auto options = std::make_shared<timeline_options>();
  auto* command = app.add_subcommand("timeline",
                                     "Write one iteration, as the estimate plays it, as a timeline: "
                                     "trace-event JSON (Perfetto) or an HTML page");
  command
      ->add_option("-o,--output", options->output,
                   "the file to write (- for standard output); a name ending in .html gets the HTML view")
      ->capture_default_str();
  command
      ->add_option("--format", options->format,
                   "json (trace events, for Perfetto) | html (a page that draws them)")
      ->check(CLI::IsMember({"json", "html"}));
  command->add_option(
      "--ranks", options->ranks,
      "ranks to show, each as its own process, e.g. 0-7,56 or all (default: one per pipeline stage)");
  command->add_option("--jobs", options->jobs,
                      "a job set (aicb.jobs/1, docs/jobs.md): its jobs side by side, a process per job and "
                      "stage");
  add_estimate_flags(*command, options->gpu, options->cluster, options->overlap);
  options->job.add_to(*command);
  on_chosen(command, chosen, options, run_timeline);
}

}  // namespace aicb_tool
