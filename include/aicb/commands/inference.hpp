// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// What `aicb inference` does, as a library call: one serving step of the corrected model
/// (aicb::inference_step) written as rank 0's SimAI text (the default format) or as every GPU's
/// Chakra trace, and on request its timeline as the estimate plays it; or, under compat_mode::aicb,
/// aicb's inference file byte for byte from aicb's own flags (its script's `-m -p -s -b -w -t -e` or
/// its generator's `MODEL [CONFIG.json] --phase …`), passed verbatim.
///
/// ```cpp
/// aicb::inference_request r;
/// r.model = "deepseek-v3";
/// r.serving = {.phase = aicb::inference_phase::decode, .batch = 64, .context = 2048,
///              .attention_data_parallel = 8, .expert_parallel = 8};
/// const aicb::written_workload w = aicb::write_inference(r);
/// ```

#include <aicb/calc/job_request.hpp>
#include <aicb/commands/describe_serving.hpp>
#include <aicb/commands/written.hpp>
#include <aicb/compat/aicb_inference.hpp>
#include <aicb/compat/aicb_inference_config.hpp>
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/generate/inference_projection.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/io/cluster_file.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/io/timeline_html.hpp>
#include <aicb/io/trace_events.hpp>
#include <aicb/io/workload_file.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/workload/modes.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

AICB_BEGIN_NAMESPACE

/// What `aicb inference` is asked.
struct inference_request {
  compat_mode compat = compat_mode::corrected;  ///< aicb: aicb's file from `aicb_flags`
  std::vector<std::string> aicb_flags{};        ///< aicb's command line, verbatim (compat_mode::aicb)
  std::string model{};                          ///< a preset (corrected)
  std::string hf_config{};                      ///< or a Hugging Face config.json
  std::optional<serving_spec> serving{};        ///< the step (corrected; its phase is required)
  std::string gpu{}, cluster{};                 ///< the machines that time it
  double memory_fraction = 0.9;                 ///< share of GPU memory for weights and KV cache
  std::optional<workload_format> format{};      ///< simai | chakra; none: aicb::default_format
  bool workload = true;                         ///< write the workload (false: only the timeline)
  std::string output{};                         ///< the file (chakra: directory); empty: aicb's name
  std::string ranks{};                          ///< chakra and timeline: the GPUs ("0-7"); empty: all
  std::string timeline{};                       ///< also the step as played: .html a page, else JSON
};

namespace detail {

// The step's timeline: HTML for a .html name, else trace-event JSON; what it says, one line.
inline std::string write_inference_timeline(const inference_request& r, const model_spec& model,
                                            const serving_spec& s, const roofline_model& compute,
                                            const cluster_spec& machines) {
  const std::vector<std::uint64_t> ranks =
      r.ranks.empty() ? std::vector<std::uint64_t>{} : parse_ranks(r.ranks, s.gpus());
  const bool html = r.timeline.ends_with(".html") || r.timeline.ends_with(".htm");
  atomic_file out(r.timeline);
  const auto write = [&](std::string_view text) { out.write(text); };
  serving_timing t;
  if (html) {
    const std::string title = std::string(model.name.empty() ? "custom model" : model.name.view()) +
                              ": one " + std::string(to_string(s.phase)) + " step on " +
                              std::to_string(s.gpus()) + " " + std::string(machines.gpu) + ", estimated";
    write_timeline_html(write, title, [&](const auto& sink) {
      t = write_serving_trace_events(sink, model, s, compute, machines, ranks);
    });
  } else {
    t = write_serving_trace_events(write, model, s, compute, machines, ranks);
  }
  out.commit();
  char line[256];
  std::snprintf(line, sizeof line, "wrote %s: %s, one %s step, %.3f ms (compute %.3f, communication %.3f)\n",
                r.timeline.c_str(), html ? "an HTML timeline" : "a trace-event JSON timeline",
                std::string(to_string(s.phase)).c_str(), t.step_us() / 1000, t.compute_us / 1000,
                t.communication_us / 1000);
  return line;
}

// aicb's inference file, emulated.
inline written_workload write_aicb_inference(const inference_request& r) {
  std::vector<std::string> flags = r.aicb_flags;
  if (r.serving) flags.push_back("--phase=" + std::string(to_string(r.serving->phase)));
  // The generator's form starts with MODEL; the script's with its options.
  aicb_inference_args args;
  if (!flags.empty() && !flags.front().starts_with("-")) {
    std::optional<aicb_inference_model> config;
    if (flags.size() > 1 && !flags[1].starts_with("-")) config = read_aicb_inference_config(flags[1]);
    args = parse_aicb_inference_generator(flags, config);
  } else {
    args = parse_aicb_inference_script(flags);
  }
  const aicb_inference_workload w(args);
  const std::string name = w.file_name();
  // aicb would time compute from its own AIOB output when one is there: not reproduced.
  const std::string profile = "results/aiob_outputs/" + name.substr(0, name.find("-bs")) + "-bpg" +
                              std::to_string(args.micro_batch) + "-seq" + std::to_string(args.seq_length) +
                              "-" + args.phase + ".txt";
  if (std::filesystem::exists(profile))
    AICB_THROW(config_error("aiob_outputs", profile,
                            "aicb would read its compute times from this file; reproducing that is not "
                            "supported: move it away, or use the corrected mode"));
  std::string dir = args.result_dir;
  while (dir.size() > 1 && dir.ends_with('/'))
    dir.pop_back();
  written_workload out;
  out.mode = compat_mode::aicb;
  out.path = output_path_or_default(r.output, dir, name);
  atomic_file file(out.path);
  file.write(w.text());
  file.commit();
  out.written.records = w.records();
  out.warnings = w.warnings();
  out.about = "aicb, " + w.model().name + ", " + args.phase;
  return out;
}

}  // namespace detail

/// Writes what `r` asks for and says what it wrote; config_error naming the field otherwise.
inline written_workload write_inference(const inference_request& r) {
  if (r.compat == compat_mode::aicb) {
    if (r.format && *r.format != workload_format::simai)
      AICB_THROW(config_error("format", std::string(to_string(*r.format)), "aicb writes SimAI text only"));
    if (!r.timeline.empty())
      AICB_THROW(
          config_error("timeline", r.timeline, "a timeline is the corrected model's: drop --compat aicb"));
    return detail::write_aicb_inference(r);
  }
  if (!r.aicb_flags.empty())
    AICB_THROW(config_error(r.aicb_flags.front(), "(flag)",
                            "not an option of aicb inference (aicb's own flags need --compat aicb)"));
  if (!r.serving) AICB_THROW(config_error("phase", "(none)", "give --phase prefill or decode"));
  if (r.model.empty() && r.hf_config.empty())
    AICB_THROW(config_error("model", "(none)", "give --model PRESET or --hf-config FILE"));
  written_workload out;
  out.format = r.format.value_or(default_format(compat_mode::corrected));
  if (out.format != workload_format::simai && out.format != workload_format::chakra)
    AICB_THROW(
        config_error("format", std::string(to_string(out.format)), "inference writes simai or chakra"));
  if (!r.ranks.empty() && out.format != workload_format::chakra && (r.workload || r.timeline.empty()))
    AICB_THROW(
        config_error("ranks", r.ranks,
                     "only --format chakra and --timeline take chosen ranks (the SimAI file is rank 0's)"));
  job_request request;
  request.model = r.model;
  request.hf_config = r.hf_config;
  const model_spec model = build_job(request).job.model;
  const serving_spec& s = *r.serving;
  const cluster_spec machines = resolve_cluster(r.gpu, r.cluster);
  const roofline_model compute(machines.gpu);
  out.compute_model = compute.provenance();
  const std::string phase(to_string(s.phase));
  const std::string name = std::string(model.name.empty() ? "custom" : model.name.view()) + "-" + phase +
                           "-gpus" + std::to_string(s.gpus());
  if (!r.timeline.empty()) {
    out.timeline = r.timeline;
    out.details += detail::write_inference_timeline(r, model, s, compute, machines);
  }
  if (!r.workload) return out;                  // no path: nothing but the timeline
  if (out.format == workload_format::chakra) {  // every GPU's step, for ASTRA-sim
    out.path = output_path_or_default(r.output, "results/inference", name);
    chakra_set_options options;
    if (!r.ranks.empty()) options.ranks = parse_ranks(r.ranks, s.gpus());
    const chakra_set_result written = write_inference_chakra_set(out.path, model, s, compute, options);
    out.files = written.files;
    out.items = written.nodes;
    out.about = "workload.RANK.et, comm_groups.json, manifest.json: one " + phase + " step";
    return out;
  }
  const inference_workload w = inference_records(inference_step(model, s), compute);
  out.path = output_path_or_default(
      r.output, "results/inference",
      name + "-tp" + std::to_string(s.tensor_parallel) + "-dp" + std::to_string(s.attention_data_parallel) +
          "-ep" + std::to_string(s.expert_parallel) + "-bs" + std::to_string(s.batch) + ".txt");
  simai_writer file(out.path, w.header, w.records.size());
  for (const record& each : w.records)
    file.write(each);
  file.finish();
  out.header = w.header;
  out.written.records = w.records.size();
  out.about = "one " + phase + " step of rank 0, " + std::string(machines.gpu);
  out.details += format_serving(describe_serving(model, s, compute, machines, r.memory_fraction));
  out.simai_command = simai_command_line(machines, s.gpus(), out.path);
  out.details += "simulate: " + out.simai_command +
                 "   (SimAI plays the step forward, then an empty backward: docs/inference.md)\n";
  return out;
}

AICB_END_NAMESPACE
