// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb inference`: one serving step as a SimAI workload — the corrected model (aicb::inference_step,
// projected by aicb::inference_records; the step described as `aicb describe --phase` does), or with
// --compat aicb, aicb's inference generator byte for byte (aicb::aicb_inference_workload), from its
// script's flags (-m -p -s -b -w -t -e) or its generator's command line (MODEL [CONFIG.json] --phase
// … --seq_length …), passed verbatim.
#include "commands.hpp"
#include "serving_flags.hpp"

#include <aicb/calc/job_request.hpp>
#include <aicb/commands/describe_serving.hpp>
#include <aicb/compat/aicb_inference.hpp>
#include <aicb/compat/aicb_inference_config.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/generate/inference_projection.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/io/timeline_html.hpp>
#include <aicb/io/trace_events.hpp>
#include <aicb/io/workload_file.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace aicb_tool {
namespace {

struct inference_options {
  std::string compat = "none", output;
  bool quiet = false;
  std::vector<std::string> flags;  // aicb's, verbatim
  // The corrected model's.
  std::string model, hf_config, gpu, cluster, format = "simai", ranks;
  std::uint64_t tensor_parallel = 1, expert_parallel = 1;
  serving_flags serving;
};

// The corrected step: its SimAI file, and what it is.
int run_corrected(const inference_options& o) {
  if (!o.flags.empty())
    throw aicb::config_error(o.flags.front(), "(flag)",
                             "not an option of aicb inference (aicb's own flags need --compat aicb)");
  if (o.serving.phase.empty()) throw aicb::config_error("phase", "(none)", "give --phase prefill or decode");
  if (o.model.empty() && o.hf_config.empty())
    throw aicb::config_error("model", "(none)", "give --model PRESET or --hf-config FILE");
  aicb::job_request request;
  request.model = o.model;
  request.hf_config = o.hf_config;
  const aicb::model_spec model = aicb::build_job(request).job.model;
  const aicb::serving_spec s = o.serving.spec(o.tensor_parallel, o.expert_parallel);
  const aicb::cluster_spec machines = aicb::choose_cluster(o.gpu, o.cluster);
  const aicb::roofline_model compute(machines.gpu);
  if (o.format == "chakra") {  // every GPU's step, for ASTRA-sim
    std::string dir = std::string(model.name.empty() ? "custom" : model.name.view()) + "-" +
                      std::string(aicb::to_string(s.phase)) + "-gpus" + std::to_string(s.gpus());
    dir = aicb::output_path_or_default(o.output, "results/inference", dir);
    aicb::chakra_set_options options;
    if (!o.ranks.empty()) options.ranks = aicb::parse_ranks(o.ranks, s.gpus());
    const aicb::chakra_set_result r = aicb::write_inference_chakra_set(dir, model, s, compute, options);
    if (!o.quiet)
      std::printf(
          "wrote %s/: %llu Chakra traces (workload.RANK.et, %llu nodes: one %s step), comm_groups.json, "
          "manifest.json\n",
          dir.c_str(), static_cast<unsigned long long>(r.files), static_cast<unsigned long long>(r.nodes),
          std::string(aicb::to_string(s.phase)).c_str());
    return 0;
  }
  // The step as the estimate plays it: HTML for a .html name, else trace-event JSON.
  if (o.format == "timeline") {
    const std::vector<std::uint64_t> ranks =
        o.ranks.empty() ? std::vector<std::uint64_t>{} : aicb::parse_ranks(o.ranks, s.gpus());
    const std::string path = o.output.empty() ? "timeline.html" : o.output;
    const bool html = path.ends_with(".html") || path.ends_with(".htm");
    aicb::atomic_file out(path);
    const auto write = [&](std::string_view text) { out.write(text); };
    aicb::serving_timing t;
    if (html) {
      const std::string title = std::string(model.name.empty() ? "custom model" : model.name.view()) +
                                ": one " + std::string(aicb::to_string(s.phase)) + " step on " +
                                std::to_string(s.gpus()) + " " + std::string(machines.gpu) + ", estimated";
      aicb::write_timeline_html(write, title, [&](const auto& sink) {
        t = aicb::write_serving_trace_events(sink, model, s, compute, machines, ranks);
      });
    } else {
      t = aicb::write_serving_trace_events(write, model, s, compute, machines, ranks);
    }
    out.commit();
    if (!o.quiet)
      std::printf("wrote %s: %s, one %s step, %.3f ms (compute %.3f, communication %.3f)\n", path.c_str(),
                  html ? "an HTML timeline" : "a trace-event JSON timeline",
                  std::string(aicb::to_string(s.phase)).c_str(), t.step_us() / 1000, t.compute_us / 1000,
                  t.communication_us / 1000);
    return 0;
  }
  if (!o.ranks.empty())
    throw aicb::config_error(
        "ranks", o.ranks, "only --format chakra and timeline take chosen ranks (the SimAI file is rank 0's)");
  const aicb::inference_step step(model, s);
  const aicb::inference_workload w = aicb::inference_records(step, compute);
  const std::string name = std::string(model.name.empty() ? "custom" : model.name.view()) + "-" +
                           std::string(aicb::to_string(s.phase)) + "-gpus" + std::to_string(s.gpus()) +
                           "-tp" + std::to_string(s.tensor_parallel) + "-dp" +
                           std::to_string(s.attention_data_parallel) + "-ep" +
                           std::to_string(s.expert_parallel) + "-bs" + std::to_string(s.batch) + ".txt";
  const std::string path = aicb::output_path_or_default(o.output, "results/inference", name);
  aicb::simai_writer out(path, w.header, w.records.size());
  for (const aicb::record& r : w.records)
    out.write(r);
  out.finish();
  if (o.quiet) return 0;
  const aicb::serving_report report =
      aicb::describe_serving(model, s, compute, machines, o.serving.memory_fraction);
  std::printf("wrote %s: %llu records, one %s step of rank 0 (%s)\n", path.c_str(),
              static_cast<unsigned long long>(w.records.size()),
              std::string(aicb::to_string(s.phase)).c_str(), std::string(machines.gpu).c_str());
  std::fputs(aicb::format_serving(report).c_str(), stdout);
  std::printf("simulate: %s   (SimAI plays the step forward, then an empty backward: docs/inference.md)\n",
              aicb::simai_command_line(machines, s.gpus(), path).c_str());
  return 0;
}

int run_inference(const inference_options& o) {
  if (o.compat != "aicb") return run_corrected(o);
  // The corrected model's flags that aicb shares (--phase) go back to aicb's parser.
  std::vector<std::string> flags = o.flags;
  if (!o.serving.phase.empty()) flags.push_back("--phase=" + o.serving.phase);
  // The generator's form starts with MODEL; the script's with its options.
  const bool generator = !flags.empty() && !flags.front().starts_with("-");
  aicb::aicb_inference_args args;
  if (generator) {
    std::optional<aicb::aicb_inference_model> config;
    if (flags.size() > 1 && !flags[1].starts_with("-")) config = aicb::read_aicb_inference_config(flags[1]);
    args = aicb::parse_aicb_inference_generator(flags, config);
  } else {
    args = aicb::parse_aicb_inference_script(flags);
  }
  const aicb::aicb_inference_workload w(args);
  const std::string name = w.file_name();
  // aicb would time compute from its own AIOB output when one is there (G:334-341): not reproduced.
  const std::string profile = "results/aiob_outputs/" + name.substr(0, name.find("-bs")) + "-bpg" +
                              std::to_string(args.micro_batch) + "-seq" + std::to_string(args.seq_length) +
                              "-" + args.phase + ".txt";
  if (std::filesystem::exists(profile))
    throw aicb::config_error("aiob_outputs", profile,
                             "aicb would read its compute times from this file; reproducing that is not "
                             "supported: move it away, or use the corrected mode");
  std::string dir = args.result_dir;
  while (dir.size() > 1 && dir.ends_with('/'))
    dir.pop_back();
  const std::string path = aicb::output_path_or_default(o.output, dir, name);
  aicb::atomic_file out(path);
  out.write(w.text());
  out.commit();
  for (const std::string& warning : w.warnings())
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  if (!o.quiet)
    std::printf("wrote %s: %llu records (aicb, %s, %s)\n", path.c_str(),
                static_cast<unsigned long long>(w.records()), w.model().name.c_str(), args.phase.c_str());
  return 0;
}

}  // namespace

void add_inference_command(CLI::App& app, action& chosen) {
  auto options = std::make_shared<inference_options>();
  CLI::App* command = app.add_subcommand("inference",
                                         "Write an inference workload for SimAI (--compat aicb: aicb's, from "
                                         "its script's or generator's flags)");
  command->add_option("--compat", options->compat, "aicb: aicb's inference file byte for byte")
      ->check(CLI::IsMember({"aicb", "none"}))
      ->capture_default_str();
  command->add_option("-o,--output", options->output,
                      "output file (default: aicb's name under results/workload/)");
  command->add_flag("-q,--quiet", options->quiet, "print only errors");
  command->add_option("--model", options->model, "a preset (aicb models), e.g. deepseek-v3, qwen3-235b-a22b");
  command->add_option("--hf-config", options->hf_config, "a Hugging Face config.json");
  command->add_option("--tp", options->tensor_parallel, "attention tensor parallelism")
      ->capture_default_str();
  command->add_option("--ep", options->expert_parallel, "expert parallelism: 1, or every GPU")
      ->capture_default_str();
  command->add_option("--gpu", options->gpu, "GPU (catalogue name; default: the cluster's, or H100)");
  command->add_option("--cluster", options->cluster, "cluster preset (docs/cluster.md)");
  command
      ->add_option(
          "--format", options->format,
          "simai: rank 0's step as SimAI text; chakra: every GPU's, for ASTRA-sim; timeline: the step "
          "as played (-o NAME.html: a page, else trace-event JSON)")
      ->check(CLI::IsMember({"simai", "chakra", "timeline"}))
      ->capture_default_str();
  command->add_option("--ranks", options->ranks,
                      "--format chakra: the GPUs to write, e.g. 0-7 (default: all)");
  options->serving.add_to(*command);
  command->allow_extras();
  command->footer(
      "With --compat aicb, aicb's flags, verbatim: its script's  -m deepseek-671B|qwen3-235B|qwen3-next-80B "
      "-p decode|prefill -s "
      "SEQ "
      "-b BATCH -w WORLD -t TP -e EP  or its generator's  MODEL [CONFIG.json] --phase --seq_length "
      "--micro_batch "
      "--world_size --tensor_model_parallel_size --expert_model_parallel_size --pipeline_model_parallel "
      "--moe_enable --result_dir");
  command->callback([&chosen, options, command] {
    options->flags = command->remaining();
    chosen = [options] { return run_inference(*options); };
  });
}

}  // namespace aicb_tool
