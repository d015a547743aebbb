// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb inference`: one serving step as a workload. This file is its flags; what it writes is
// aicb::write_inference (aicb/commands/inference.hpp): the corrected model's step as SimAI text
// (default) or Chakra traces, its timeline with --timeline FILE; or with --compat aicb, aicb's
// inference file byte for byte, from its script's flags (-m -p -s -b -w -t -e) or its generator's
// command line (MODEL [CONFIG.json] --phase … --seq_length …), passed verbatim.
#include "commands.hpp"
#include "serving_flags.hpp"
#include "workload_output.hpp"

#include <aicb/commands/inference.hpp>
#include <aicb/model/reflect.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

namespace aicb_tool {
namespace {

struct inference_options {
  aicb::inference_request request;
  std::string compat = "none", format;
  std::uint64_t tensor_parallel = 1, expert_parallel = 1;
  serving_flags serving;
  bool quiet = false, json = false;
};

int run_inference(inference_options& o) {
  const auto start = std::chrono::steady_clock::now();
  aicb::inference_request& r = o.request;
  aicb::parse_value("compat", o.compat, r.compat);
  if (o.format == "timeline") {  // the old way to ask for a timeline: only the timeline, at -o
    std::fprintf(
        stderr,
        "warning: --format timeline is an old spelling of --timeline FILE (it still works, for now)\n");
    r.timeline = r.output.empty() ? "timeline.html" : r.output;
    r.workload = false;
  } else if (!o.format.empty()) {
    r.format = *aicb::from_string<aicb::workload_format>(o.format);
  }
  if (!o.serving.phase.empty()) {
    r.serving = o.serving.spec(o.tensor_parallel, o.expert_parallel);
    r.memory_fraction = o.serving.memory_fraction;
  }
  return report_written(aicb::write_inference(r), "inference", o.quiet, o.json, start);
}

}  // namespace

void add_inference_command(CLI::App& app, action& chosen) {
  auto options = std::make_shared<inference_options>();
  inference_options& o = *options;
  CLI::App* command = app.add_subcommand("inference",
                                         "Write an inference workload for SimAI (--compat aicb: aicb's, from "
                                         "its script's or generator's flags)");
  command->add_option("--compat", o.compat, "aicb: aicb's inference file byte for byte")
      ->check(CLI::IsMember({"aicb", "none"}))
      ->capture_default_str();
  command->add_option("-o,--output", o.request.output,
                      "output file (default: aicb's name under results/workload/)");
  command->add_flag("-q,--quiet", o.quiet, "print only errors");
  command->add_flag("--json", o.json, "print what was written as JSON (aicb.inference/1)");
  command->add_option("--model", o.request.model,
                      "a preset (aicb models), e.g. deepseek-v3, qwen3-235b-a22b");
  command->add_option("--hf-config", o.request.hf_config, "a Hugging Face config.json");
  command->add_option("--tp", o.tensor_parallel, "attention tensor parallelism")->capture_default_str();
  command->add_option("--ep", o.expert_parallel, "expert parallelism: 1, or every GPU")
      ->capture_default_str();
  command->add_option("--gpu", o.request.gpu, "GPU (catalogue name; default: the cluster's, or H100)");
  command->add_option("--cluster", o.request.cluster,
                      "cluster preset or cluster file (.json) (docs/cluster.md)");
  command
      ->add_option("--format", o.format,
                   "simai: rank 0's step as SimAI text (the default); chakra: every GPU's, for ASTRA-sim")
      ->check(CLI::Validator(
          [](const std::string& v) {  // timeline: the old spelling of --timeline, accepted, not shown
            return v == "simai" || v == "chakra" || v == "timeline" ? std::string{}
                                                                    : v + " not in {simai,chakra}";
          },
          "{simai,chakra}"));
  command->add_option(
      "--timeline", o.request.timeline,
      "also write the step as the estimate plays it: an HTML page (.html) or trace-event JSON");
  command->add_option("--ranks", o.request.ranks,
                      "--format chakra and --timeline: the GPUs to write, e.g. 0-7 (default: all)");
  o.serving.add_to(*command);
  command->allow_extras();
  command->footer(
      "With --compat aicb, aicb's flags, verbatim: its script's  -m deepseek-671B|qwen3-235B|qwen3-next-80B "
      "-p decode|prefill -s SEQ -b BATCH -w WORLD -t TP -e EP  or its generator's  MODEL [CONFIG.json] "
      "--phase --seq_length --micro_batch --world_size --tensor_model_parallel_size "
      "--expert_model_parallel_size --pipeline_model_parallel --moe_enable --result_dir");
  command->callback([&chosen, options, command] {
    options->request.aicb_flags = command->remaining();
    chosen = [options] { return run_inference(*options); };
  });
}

}  // namespace aicb_tool
