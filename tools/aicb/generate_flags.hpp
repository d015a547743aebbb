// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The flags of `aicb generate` (generate_command.cpp): aicb's generator flags under every spelling
// aicb's scripts use (aicb::aicb_flags), the descriptors' own names where they do not clash, and the
// request they make (aicb::generate_request).
#pragma once

#include "commands.hpp"
#include "job_flags.hpp"

#include <aicb/commands/generate.hpp>
#include <aicb/compat/aicb_flags.hpp>
#include <aicb/model/reflect.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aicb_tool {

struct generate_options {
  std::map<std::string, std::string> aicb;   // aicb's flags by canonical name ("true" for switches)
  std::map<std::string, std::string> extra;  // descriptor fields without an aicb name
  std::string model_size;                    // -m
  std::string compat = "none";
  std::string output;
  std::string compute;  // aiob | roofline | constant (default: by the flags)
  std::string cluster;  // a cluster preset: its GPU and machines
  std::string family;   // gpt | llama; empty: llama, with a note (generate's default was gpt)
  std::string hf_config, size;
  bool allow_unknown_keys = false;
  std::uint64_t iterations = 1;
  std::optional<std::uint64_t> stage;
  std::string ranks;
  std::string jobs;                     // a job set document: every job of it
  std::vector<std::string> slow_ranks;  // R:C (compute only)
  bool strict = false, no_sidecar = false, quiet = false, no_space_check = false, json = false;
  std::string format = "simai";
  std::optional<std::uint64_t> nproc_per_node, nnodes;  // megatron_gpt.sh's GPU count: the world size
};

inline void add_generate_options(CLI::App& app, generate_options& o, CLI::App*& command) {
  command = app.add_subcommand("generate", "Write a training workload for SimAI (aicb's flags accepted)");
  command
      ->add_option("--compat", o.compat,
                   "aicb: reproduce aliyun/aicb's output byte for byte; none: corrected")
      ->check(CLI::IsMember({"aicb", "none"}))
      ->capture_default_str();
  command->add_option("-o,--output", o.output, "output file (default: aicb's name under results/workload/)");
  command
      ->add_option(
          "--format", o.format,
          "simai: SimAI text; csv: aicb's physical-cluster CSV (with -m, as aicb's megatron_gpt.sh); "
          "chakra: one Chakra trace per rank for ASTRA-sim, into the directory -o names")
      ->check(CLI::IsMember({"simai", "csv", "chakra"}))
      ->capture_default_str();
  command
      ->add_option("--nproc_per_node", o.nproc_per_node,
                   "GPUs per node: with --nnodes, the world size (megatron_gpt.sh)")
      ->group("aicb options");
  command->add_option("--nnodes", o.nnodes, "nodes: with --nproc_per_node, the world size (megatron_gpt.sh)")
      ->group("aicb options");
  command->add_option("--iterations", o.iterations, "consecutive training iterations in the file")
      ->capture_default_str();
  command->add_option("--pp-stage,--pipeline-stage", o.stage, "pipeline stage to emit (default: the last)");
  command->add_option("--ranks", o.ranks, "--format chakra: the ranks to write, e.g. 0-7,12 (default: all)");
  command->add_option("--jobs", o.jobs,
                      "a job set (aicb.jobs/1, docs/jobs.md): --format chakra writes one set for the whole "
                      "cluster, --format simai a file per job and a manifest, into the directory -o names");
  command
      ->add_option("--slow-rank", o.slow_ranks,
                   "--format chakra: RANK:COMPUTE, a straggler whose computations take that many times as "
                   "long (e.g. 5:1.5); repeatable")
      ->type_name("R:C");
  command->add_option("--compute", o.compute, "compute model: aiob | roofline | constant")
      ->check(CLI::IsMember({"aiob", "roofline", "constant"}));
  command->add_option("--cluster", o.cluster,
                      "cluster preset (aicb describe --help lists them) or cluster file (.json): its GPU "
                      "times the computation "
                      "unless --gpu_type names one, and the SimAI command line printed runs on it");
  command->add_flag("--strict", o.strict, "refuse a profile whose provenance does not match the job");
  command->add_flag("--no-sidecar", o.no_sidecar, "do not write FILE.json next to the workload");
  command->add_flag("--no-space-check", o.no_space_check,
                    "write even when the estimated size exceeds the free space");
  command->add_flag("-q,--quiet", o.quiet, "print only errors");
  command->add_flag("--json", o.json,
                    "print what was written as JSON instead of text (aicb.generate/1, "
                    "docs/schemas/generate.schema.json)");
  command->add_option(
      "-m,--model_size,--model-size,--model", o.model_size,
      "preset: aicb's 7 | 13 | 22 | 175 | 65 | 405 | moe | deepseek671 | deepseek236 | deepseek16 | "
      "deepseek, any `aicb models` key, or a size (15 = 15B)");
  command->add_option("--family", o.family, "family of a shape chosen by size: gpt | llama (default: llama)");
  command->add_option("--hf-config", o.hf_config, "start from a Hugging Face config.json");
  command->add_flag("--allow-unknown-keys", o.allow_unknown_keys,
                    "accept config.json keys aicb does not know");
  command->add_option("--size", o.size, "start from a standard shape of this many parameters (e.g. 15B)");
  // Every spelling aicb's flags use, so that the descriptor's own names (those of describe, plan and
  // timeline) can be added where they do not clash: --linear-bias beside --add_bias_linear, --vpp.
  const auto free = [](const std::string& spelling) { return !aicb::is_aicb_spelling(spelling); };
  const auto descriptor_spellings = [&](std::string_view field) {
    std::string out, dashed(field);
    for (char& c : dashed)
      if (c == '_') c = '-';
    for (const std::string& name : {"--" + dashed, "--" + std::string(field)})
      if (free(name) && (out + ",").find("," + name + ",") == std::string::npos) out.append(",").append(name);
    for (const auto& [alias, target_field] : aicb::job_field_aliases)
      if (target_field == field && free("--" + std::string(alias))) out.append(",--").append(alias);
    return out;
  };
  for (const aicb::aicb_flag& flag : aicb::aicb_flags) {
    std::string& target = o.aicb[std::string(flag.name)];
    std::string spellings(flag.spellings);
    if (!flag.field.empty()) spellings += descriptor_spellings(flag.field);
    const std::string help(flag.help);
    auto* option = flag.is_switch ? command->add_flag(spellings, target, help)
                                  : command->add_option(spellings, target, help);
    option->group("aicb options");
  }
  // Descriptor fields aicb has no name for.
  const auto add_extra = [&](std::string_view field, std::string_view help, bool is_bool) {
    for (const aicb::aicb_flag& flag : aicb::aicb_flags)
      if (field == flag.field) return;
    if (field == "name" || field == "recompute" || field == "activation" || field == "sequence_parallel")
      return;
    const std::string spellings = descriptor_spellings(field);
    if (spellings.empty()) return;                  // every name is aicb's, for another flag
    const std::string names = spellings.substr(1);  // without the leading comma
    std::string& target = o.extra[std::string(field)];
    (is_bool ? command->add_flag(names, target, std::string(help))
             : command->add_option(names, target, std::string(help)))
        ->group("model and layout");
  };
  for (auto f : aicb::field_names<aicb::model_spec>())
    add_extra(f, aicb::model_spec::help(f), is_bool_field<aicb::model_spec>(f));
  for (auto f : aicb::field_names<aicb::parallel_spec>())
    add_extra(f, aicb::parallel_spec::help(f), is_bool_field<aicb::parallel_spec>(f));
  for (auto f : aicb::field_names<aicb::batch_spec>())
    add_extra(f, aicb::batch_spec::help(f), is_bool_field<aicb::batch_spec>(f));
  command->add_option("--activation", o.extra["activation"], "MLP activation: gelu | swiglu")
      ->group("model and layout");
  command->add_option("--recompute-granularity", o.extra["recompute"], "none | selective | full")
      ->group("model and layout");
}

// The request the flags make.
inline aicb::generate_request to_request(const generate_options& o) {
  aicb::generate_request r;
  r.command = invoked_command();
  r.job.model = o.model_size;
  r.job.hf_config = o.hf_config;
  r.job.allow_unknown_keys = o.allow_unknown_keys;
  r.job.size = o.size;
  r.job.family = o.family;
  for (const auto& [field, text] : o.extra)
    if (!text.empty()) r.job.fields.emplace_back(field, text);
  for (const auto& [name, text] : o.aicb)
    if (!text.empty()) r.flags.set(name, text);
  aicb::parse_value("compat", o.compat, r.compat);
  aicb::parse_value("format", o.format, r.format);
  r.output = o.output;
  if (!o.compute.empty()) aicb::parse_value("compute", o.compute, r.compute);
  r.cluster = o.cluster;
  r.iterations = o.iterations;
  r.stage = o.stage;
  r.ranks = o.ranks;
  for (const std::string& text : o.slow_ranks)
    r.slow_ranks.push_back(aicb::parse_slowdown(text, "slow_rank"));
  r.strict = o.strict;
  r.sidecar = !o.no_sidecar;
  r.check_space = !o.no_space_check;
  r.nproc_per_node = o.nproc_per_node;
  r.nnodes = o.nnodes;
  return r;
}

}  // namespace aicb_tool
