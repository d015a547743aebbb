// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb generate`: training workloads for SimAI (or aicb's CSV). Accepts aicb's
// SimAI_training_workload_generator flags verbatim (underscore names), the conveniences of aicb's
// megatron_workload_with_aiob.sh (-m, --tp, --pp, --sp, --ep, --aiob, --topk, …) and dashed long
// options; every descriptor field not covered by an aicb name is a flag too (--num-kv-heads,
// --virtual-pipeline, …).
//
// This file only turns flags into an aicb::generate_request and prints what aicb::generate_workload
// did: the job, its defaults and the file names are the library's (aicb/commands/generate.hpp).
#include "commands.hpp"
#include "generate_flags.hpp"
#include "job_set_commands.hpp"
#include "workload_output.hpp"

#include <aicb/commands/generate.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/units/bytes.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aicb_tool {
namespace {

// Before anything is written: the corrected SimAI job as resolved and how compute is timed, then
// what was decided for the user.
void print_plan(const aicb::generate_result& r, bool quiet) {
  if (quiet) return;
  if (r.format != aicb::workload_format::csv && r.job) {
    const aicb::job_spec& job = *r.job;
    std::printf("job: %s\n",
                std::string(job.model.name.empty() ? "(unnamed)" : job.model.name.view()).c_str());
    for (const auto& [k, v] : aicb::to_key_values(job.model))
      if (!v.empty() && v != "0" && v != "false" && k != "name") std::printf("  %s=%s", k.c_str(), v.c_str());
    std::printf("\n ");
    for (const auto& [k, v] : aicb::to_key_values(job.parallel))
      if (v != "0" && v != "false") std::printf(" %s=%s", k.c_str(), v.c_str());
    for (const auto& [k, v] : aicb::to_key_values(job.batch))
      std::printf(" %s=%s", k.c_str(), v.c_str());
    std::printf("\ncompute: %s\n", r.compute_model.c_str());
  }
  for (const std::string& n : r.notes)
    std::fprintf(stderr, "note: %s\n", n.c_str());
}

// `--jobs FILE`: every job of a set; the flags that describe one job are refused beside it.
int run_generate_jobs(const generate_options& o) {
  for (const auto* flags : {&o.aicb, &o.extra})
    for (const auto& [name, text] : *flags)
      refuse_beside_jobs(!text.empty(), name);
  refuse_beside_jobs(!o.model_size.empty() || !o.hf_config.empty() || !o.size.empty(), "model");
  refuse_beside_jobs(!o.cluster.empty(), "cluster");
  refuse_beside_jobs(o.compat != "none", "compat");
  refuse_beside_jobs(!o.ranks.empty() || o.stage.has_value() || !o.slow_ranks.empty(), "ranks");
  aicb::job_set_generate_request r{.file = o.jobs, .output = o.output, .iterations = o.iterations};
  aicb::parse_value("format", o.format, r.format);
  if (!o.compute.empty()) aicb::parse_value("compute", o.compute, r.compute);
  return run_generate_job_set(r, o.quiet, o.json);
}

int run_generate(const generate_options& o) {
  if (!o.jobs.empty()) return run_generate_jobs(o);
  const auto start = std::chrono::steady_clock::now();
  aicb::generate_events events;
  const bool text = !o.json;
  events.planned = [&](const aicb::generate_result& r) { print_plan(r, o.quiet || !text); };
  if (!o.quiet && text) {
    events.writing = print_writing;
    events.writing_set = [](const std::string& path, std::uint64_t traces, std::uint64_t bytes) {
      std::printf("writing %s/: %llu Chakra trace(s), about %s\n", path.c_str(),
                  static_cast<unsigned long long>(traces), aicb::to_iec_string(aicb::bytes{bytes}).c_str());
      std::fflush(stdout);
    };
  }
  return report_written(aicb::generate_workload(to_request(o), events), "generate", o.quiet, o.json, start,
                        true);
}

}  // namespace

void add_generate_command(CLI::App& app, action& chosen) {
  add_command<generate_options>(app, chosen, add_generate_options, run_generate);
}

}  // namespace aicb_tool
