// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb deepspeed`: DeepSpeed ZeRO stage 1, 2 or 3 workloads with aicb's flag names. This file is
// its flags; what it writes is aicb::write_deepspeed (aicb/commands/deepspeed.hpp): SimAI text by
// default, aicb's physical-cluster CSV with --format csv, aicb's own CSV byte for byte with --compat
// aicb (whose default format is that CSV).
#include "commands.hpp"
#include "process_stats.hpp"
#include "workload_output.hpp"

#include <aicb/commands/deepspeed.hpp>
#include <aicb/model/reflect.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

namespace aicb_tool {
namespace {

struct deepspeed_options {
  aicb::deepspeed_request request;
  std::string compat = "none", format;
  bool quiet = false, ignored = false, no_space_check = false, json = false;
};

void add_deepspeed_options(CLI::App& app, deepspeed_options& o, CLI::App*& command) {
  command = app.add_subcommand("deepspeed", "Write a DeepSpeed ZeRO-1/2/3 workload (aicb's flags accepted)");
  aicb::aicb_args& a = o.request.args;
  command->add_option("--compat", o.compat, "aicb: aicb's CSV byte for byte; none: corrected")
      ->check(CLI::IsMember({"aicb", "none"}))
      ->capture_default_str();
  command
      ->add_option("--format", o.format,
                   "simai: SimAI text (the default); csv: aicb's physical-cluster CSV (the default with "
                   "--compat aicb)")
      ->check(CLI::IsMember({"csv", "simai"}));
  command->add_option("-o,--output", o.request.output, "output file (default: aicb's name under results/)");
  command->add_option("--gpu_type,--gpu-type,--gpu", o.request.gpu, "SimAI form: roofline GPU")
      ->capture_default_str();
  command->add_flag("-q,--quiet", o.quiet, "print only errors");
  command->add_flag("--json", o.json, "print what was written as JSON (aicb.deepspeed/1)");
  command->add_flag("--no-space-check", o.no_space_check,
                    "write even when the estimated size exceeds the free space");
  const auto number = [&](const char* names, std::uint64_t& field, const char* help) {
    command->add_option(names, field, help)->capture_default_str()->group("aicb options");
  };
  command->add_option("--frame", a.frame, "DeepSpeed (aicb)")->capture_default_str()->group("aicb options");
  number("--world_size,--world-size", a.world_size, "GPUs (all data-parallel)");
  number("--global_batch,--global-batch", a.global_batch, "global batch (sequences)");
  number("--micro_batch,--micro-batch", a.micro_batch, "micro batch (sequences)");
  number("--seq_length,--seq-length", a.seq_length, "sequence length");
  number("--num_layers,--num-layers", a.num_layers, "transformer layers");
  number("--hidden_size,--hidden-size", a.hidden_size, "hidden size");
  command->add_option("--num_attention_heads,--num-attention-heads", a.num_attention_heads, "attention heads")
      ->group("aicb options");
  command->add_option("--ffn_hidden_size,--ffn-hidden-size", a.ffn_hidden_size, "MLP intermediate size")
      ->group("aicb options");
  number("--vocab_size,--vocab-size", a.vocab_size, "vocabulary size");
  number("--epoch_num,--epoch-num", a.epoch_num, "iterations in the file");
  command->add_option("--model_name,--model-name", a.model_name, "model name (file name)")
      ->group("aicb options");
  number("--stage,--zero-stage", a.stage, "ZeRO stage: 1, 2 or 3");
  number("--reduce_bucket_size", a.reduce_bucket_size, "gradient bucket (elements)");
  number("--allgather_bucket_size", a.allgather_bucket_size,
         "stages 1-2: weight all-gather shard (elements)");
  number("--prefetch_bucket_size", a.prefetch_bucket_size, "stage 3: prefetch bucket (elements)");
  number("--max_live_parameters", a.max_live_parameters, "stage 3: gathered elements at most");
  number("--param_persistence_threshold", a.param_persistence_threshold,
         "stage 3: tensors this small stay gathered (elements)");
  number("--model_persistence_threshold", a.model_persistence_threshold,
         "stage 3: persistent elements at most");
  command
      ->add_flag("--contiguous_gradients", a.contiguous_gradients, "stage 2: reduce into owners' partitions")
      ->group("aicb options");
  command->add_flag("--amp_enabled", a.amp_enabled, "mixed precision through AMP (no initial broadcast)")
      ->group("aicb options");
  command->add_flag("--computation_enable", a.computation_enable, "CSV: GEMM computation items")
      ->group("aicb options");
  command->add_flag("--enable_sequence_parallel", a.enable_sequence_parallel, "accepted (file name only)")
      ->group("aicb options");
  command->add_flag("--swiglu", a.swiglu, "SwiGLU MLP width when --ffn_hidden_size is not given")
      ->group("aicb options");
  command
      ->add_flag("--workload_only,--enable_visual", o.ignored, "accepted for aicb compatibility (no effect)")
      ->group("aicb options");
}

int run_deepspeed(deepspeed_options& o) {
  const auto start = std::chrono::steady_clock::now();
  aicb::deepspeed_request& r = o.request;
  aicb::parse_value("compat", o.compat, r.compat);
  if (!o.format.empty()) r.format = *aicb::from_string<aicb::workload_format>(o.format);
  r.check_space = !o.no_space_check;
  if (!o.quiet && !o.json) r.writing = print_writing;
  const aicb::written_workload w = aicb::write_deepspeed(r);
  return report_written(w, "deepspeed", o.quiet, o.json, start);
}

}  // namespace

void add_deepspeed_command(CLI::App& app, action& chosen) {
  add_command<deepspeed_options>(app, chosen, add_deepspeed_options, run_deepspeed);
}

}  // namespace aicb_tool
