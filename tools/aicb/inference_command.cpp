// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb inference`: inference workloads for SimAI. With --compat aicb, aicb's inference generator
// byte for byte (aicb::aicb_inference_workload), from its script's flags (-m -p -s -b -w -t -e) or
// its generator's command line (MODEL [CONFIG.json] --phase … --seq_length …), passed verbatim.
#include "commands.hpp"

#include <aicb/compat/aicb_inference.hpp>
#include <aicb/compat/aicb_inference_config.hpp>
#include <aicb/io/atomic_file.hpp>
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
};

int run_inference(const inference_options& o) {
  if (o.compat != "aicb")
    throw aicb::config_error(
        "compat", o.compat,
        "the corrected inference model is not built yet; --compat aicb writes aicb's file "
        "(its defects listed in docs/compatibility.md)");
  // The generator's form starts with MODEL; the script's with its options.
  const bool generator = !o.flags.empty() && !o.flags.front().starts_with("-");
  aicb::aicb_inference_args args;
  if (generator) {
    std::optional<aicb::aicb_inference_model> config;
    if (o.flags.size() > 1 && !o.flags[1].starts_with("-"))
      config = aicb::read_aicb_inference_config(o.flags[1]);
    args = aicb::parse_aicb_inference_generator(o.flags, config);
  } else {
    args = aicb::parse_aicb_inference_script(o.flags);
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
  command->allow_extras();
  command->footer(
      "aicb's flags, verbatim: its script's  -m deepseek-671B|qwen3-235B|qwen3-next-80B -p decode|prefill -s "
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
