// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb deepspeed`: DeepSpeed ZeRO stage 1, 2 or 3 workloads with aicb's flag names — the per-rank
// model of the job (aicb::deepspeed_job) as aicb's physical-cluster CSV (--format csv, the default) or
// as SimAI text (--format simai), the same operations in both; --compat aicb writes aicb's own CSV
// byte for byte (its mocked LLaMA's parameter walk).
#include "commands.hpp"
#include "process_stats.hpp"
#include "workload_output.hpp"

#include <aicb/compat/deepspeed_csv.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/generate/csv_projection.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/io/aicb_csv.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/io/workload_file.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

namespace aicb_tool {
namespace {

struct deepspeed_options {
  aicb::aicb_args args;
  std::string compat = "none", format = "csv", output, gpu = "H100";
  bool quiet = false, ignored = false, no_space_check = false;
};

void add_deepspeed_options(CLI::App& app, deepspeed_options& o, CLI::App*& command) {
  command = app.add_subcommand("deepspeed", "Write a DeepSpeed ZeRO-1/2/3 workload (aicb's flags accepted)");
  aicb::aicb_args& a = o.args;
  a.frame = "DeepSpeed";
  a.tensor_model_parallel_size = a.pipeline_model_parallel = 1;
  command->add_option("--compat", o.compat, "aicb: aicb's CSV byte for byte; none: corrected")
      ->check(CLI::IsMember({"aicb", "none"}))
      ->capture_default_str();
  command->add_option("--format", o.format, "csv: aicb's physical-cluster CSV; simai: SimAI text")
      ->check(CLI::IsMember({"csv", "simai"}))
      ->capture_default_str();
  command->add_option("-o,--output", o.output, "output file (default: aicb's name under results/)");
  command->add_option("--gpu_type,--gpu-type,--gpu", o.gpu, "SimAI form: roofline GPU")
      ->capture_default_str();
  command->add_flag("-q,--quiet", o.quiet, "print only errors");
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

// The same job as a SimAI workload: a LLaMA-shaped model on data parallelism only, with ZeRO.
int run_deepspeed_simai(const deepspeed_options& o) {
  const aicb::aicb_args& a = o.args;
  const aicb::job_spec job = aicb::deepspeed_job(a);
  const aicb::roofline_model compute(o.gpu);
  const aicb::simai_projection w(job, compute, {.iterations = a.epoch_num});
  for (const std::string& warning : w.warnings())
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  const std::string path =
      aicb::output_path_or_default(o.output, "results/workload", aicb::deepspeed_simai_file_name(a));
  (void)aicb::write_simai_file(w, path, file_options(path, w.size(), o.quiet, o.no_space_check));
  if (!o.quiet) {
    std::printf("wrote %s: %llu records (ZeRO-%llu, DP %llu, %llu micro batches per iteration)\n",
                path.c_str(), static_cast<unsigned long long>(w.size()),
                static_cast<unsigned long long>(a.stage), static_cast<unsigned long long>(a.world_size),
                static_cast<unsigned long long>(w.header().ga));
    if (const std::uint64_t kib = peak_memory_kib())
      std::printf("peak memory: %.1f MiB\n", static_cast<double>(kib) / 1024);
  }
  return 0;
}

// aicb's CSV, emulated (--compat aicb).
int run_deepspeed_aicb_csv(const deepspeed_options& o) {
  (void)aicb::derive(o.args);  // aicb's own checks first, before a file is created
  const std::string path = aicb::output_path_or_default(o.output, "results/mocked_workload",
                                                        aicb::deepspeed_csv_file_name(o.args));
  aicb::aicb_args one = o.args;
  one.epoch_num = 1;
  const aicb::compat_mode mode = aicb::compat_mode::aicb;
  if (!o.no_space_check)
    aicb::require_csv_space(
        path, [&](auto&& sink) { aicb::generate_deepspeed_csv(one, mode, sink); }, o.args.epoch_num);
  const std::uint64_t items =
      aicb::write_csv_file(path, [&](auto&& sink) { aicb::generate_deepspeed_csv(o.args, mode, sink); });
  if (!o.quiet)
    std::printf("wrote %s: %llu items (ZeRO-%llu, aicb)\n", path.c_str(),
                static_cast<unsigned long long>(items), static_cast<unsigned long long>(o.args.stage));
  if (const std::uint64_t kib = peak_memory_kib(); kib && !o.quiet)
    std::printf("peak memory: %.1f MiB\n", static_cast<double>(kib) / 1024);
  return 0;
}

// The corrected CSV: rank 0 of the per-rank model with ZeRO, the same operations the SimAI form has.
int run_deepspeed(const deepspeed_options& o) {
  if (o.format == "simai") return run_deepspeed_simai(o);
  if (o.compat == "aicb") return run_deepspeed_aicb_csv(o);
  const aicb::aicb_args& a = o.args;
  const aicb::job_spec job = aicb::deepspeed_job(a);
  const std::string path =
      aicb::output_path_or_default(o.output, "results/mocked_workload", aicb::deepspeed_csv_file_name(a));
  const aicb::csv_projection_options options{
      .iterations = a.epoch_num, .rank = 0, .computation = a.computation_enable};
  const aicb::csv_projection w(job, options);
  if (!o.no_space_check) aicb::require_csv_projection_space(job, options, path);
  const std::uint64_t items = aicb::write_csv_file(path, [&](auto&& sink) { w.generate(sink); });
  for (const std::string& warning : w.warnings())
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  if (!o.quiet)
    std::printf("wrote %s: %llu items (ZeRO-%llu, corrected: rank 0, DP %llu, %llu iteration(s))\n",
                path.c_str(), static_cast<unsigned long long>(items),
                static_cast<unsigned long long>(a.stage), static_cast<unsigned long long>(a.world_size),
                static_cast<unsigned long long>(a.epoch_num));
  if (const std::uint64_t kib = peak_memory_kib(); kib && !o.quiet)
    std::printf("peak memory: %.1f MiB\n", static_cast<double>(kib) / 1024);
  return 0;
}

}  // namespace

void add_deepspeed_command(CLI::App& app, action& chosen) {
  add_command<deepspeed_options>(app, chosen, add_deepspeed_options, run_deepspeed);
}

}  // namespace aicb_tool
