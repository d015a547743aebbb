// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb generate`: training workloads for SimAI. Accepts aicb's SimAI_training_workload_generator
// flags verbatim (underscore names), the conveniences of aicb's megatron_workload_with_aiob.sh
// (-m, --tp, --pp, --sp, --ep, --aiob, --topk, …) and dashed long options; every descriptor field
// not covered by an aicb name is a flag too (--num-kv-heads, --virtual-pipeline, …).
//
// --compat aicb reproduces aicb's file byte for byte (aicb's defaults; with -m, its shell script's
// defaults and presets). By default the corrected generator runs: presets never override explicit
// dimensions, and the resolved job is printed.
#pragma once

#include "deepspeed_command.hpp"
#include "job_flags.hpp"
#include "process_stats.hpp"
#include "workload_output.hpp"

#include <aicb/compat/aicb_simai.hpp>
#include <aicb/compat/megatron_csv.hpp>
#include <aicb/compute/aiob_model.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/generate/csv_projection.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/io/aiob_reader.hpp>
#include <aicb/io/json_writer.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/model/job_request.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/model/sizing.hpp>
#include <aicb/version.hpp>

#include <CLI/CLI.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace aicb_tool {

// One aicb option: its canonical (aicb) name, the spellings accepted, whether it is a flag, and
// the descriptor field it sets in the corrected mode ("" when it has no field).
struct aicb_option {
  const char* name;
  const char* spellings;
  bool flag;
  const char* field;
  const char* help;
};

// aicb's generator options, the script's conveniences folded in as spellings.
inline const std::vector<aicb_option> aicb_options{
    {"frame", "--frame", false, "", "Megatron | DeepSeek (aicb)"},
    {"gpu_type", "--gpu_type,--gpu-type,--gpu", false, "", "GPU: roofline catalogue entry and file name"},
    {"world_size", "--world_size,--world-size", false, "world_size", "number of GPUs"},
    {"tensor_model_parallel_size",
     "--tensor_model_parallel_size,--tensor-model-parallel-size,--tp,--tensor-parallel", false,
     "tensor_parallel", "tensor-parallel size"},
    {"pipeline_model_parallel",
     "--pipeline_model_parallel,--pipeline-model-parallel,--pp,--pipeline-parallel", false,
     "pipeline_parallel", "pipeline-parallel size"},
    {"context_parallel_size", "--context-parallel-size,--context_parallel_size,--cp,--context-parallel",
     false, "context_parallel", "context-parallel size"},
    {"pp_rank", "--pp_rank", false, "", "CSV: the pipeline stage (aicb: only its set-up items)"},
    {"global_batch", "--global_batch,--global-batch,--gbs", false, "global_batch",
     "global batch (sequences)"},
    {"micro_batch", "--micro_batch,--micro-batch,--mbs", false, "micro_batch", "micro batch (sequences)"},
    {"epoch_num", "--epoch_num,--epoch-num", false, "",
     "training iterations in the file, as --iterations (aicb's SimAI generator ignores it; its CSV repeats "
     "iterations)"},
    {"computation_enable", "--computation_enable", true, "", "CSV: GEMM computation items"},
    {"dtype", "--dtype", false, "dtype", "bfloat16 | float16 | float32"},
    {"ffn_hidden_size", "--ffn_hidden_size,--ffn-hidden-size", false, "ffn_hidden_size",
     "MLP intermediate size"},
    {"enable_visual", "--enable_visual", true, "", "accepted for aicb compatibility (no effect)"},
    {"workload_only", "--workload_only", true, "", "accepted for aicb compatibility (no effect)"},
    {"model_name", "--model_name,--model-name", false, "name", "model name (file name)"},
    {"hidden_size", "--hidden_size,--hidden-size", false, "hidden_size", "hidden size"},
    {"num_layers", "--num_layers,--num-layers", false, "num_layers", "transformer layers"},
    {"seq_length", "--seq_length,--seq-length,--seq", false, "seq_length", "sequence length"},
    {"num_attention_heads", "--num_attention_heads,--num-attention-heads", false, "num_attention_heads",
     "attention heads"},
    {"vocab_size", "--vocab_size,--vocab-size", false, "vocab_size", "vocabulary size"},
    {"max_position_embeddings", "--max_position_embeddings,--max-position-embeddings", false,
     "max_position_embeddings", "learned position table size"},
    {"add_bias_linear", "--add_bias_linear,--add-bias-linear", true, "linear_bias",
     "biases on linear layers"},
    {"use_flash_attn", "--use_flash_attn,--use-flash-attn,--flash_attn", true, "",
     "fused attention (aicb: profile keys)"},
    {"swiglu", "--swiglu", true, "", "SwiGLU MLP"},
    {"enable_sequence_parallel", "--enable_sequence_parallel,--enable-sequence-parallel,--sp,--sp-enable",
     true, "sequence_parallel", "sequence parallelism"},
    {"use_distributed_optimizer", "--use-distributed-optimizer,--use_distributed_optimizer", true,
     "distributed_optimizer", "distributed optimizer"},
    {"make_vocab_size_divisible_by", "--make_vocab_size_divisible_by,--make-vocab-size-divisible-by", false,
     "vocab_divisible_by", "vocabulary padding multiple"},
    {"overlap_grad_reduce", "--overlap_grad_reduce,--overlap-grad-reduce", true, "overlap_grad_reduce",
     "reduce gradients bucket by bucket during the backward (per-rank schedules; aicb: no effect)"},
    {"moe_enable", "--moe_enable,--moe-enable", true, "", "mixture of experts"},
    {"expert_model_parallel_size", "--expert_model_parallel_size,--expert-model-parallel-size,--ep", false,
     "expert_parallel", "expert-parallel size"},
    {"num_experts", "--num_experts,--num-experts,--experts", false, "num_experts", "routed experts"},
    {"moe_router_topk", "--moe_router_topk,--moe-router-topk,--topk", false, "moe_top_k",
     "experts per token"},
    {"moe_grouped_gemm", "--moe_grouped_gemm,--moe-grouped-gemm,--grouped_gemm", true, "moe_grouped_gemm",
     "experts as one grouped GEMM, otherwise one GEMM per expert (aicb: file name and AIOB kernels)"},
    {"activation_func", "--activation_func", false, "", "accepted for aicb compatibility (no effect)"},
    {"aiob_enable", "--aiob_enable,--aiob-enable,--aiob", true, "", "time compute with an AIOB profile"},
    {"comp_filepath", "--comp_filepath,--comp-filepath", false, "", "the AIOB profile"},
    {"recompute_activations", "--recompute_activations,--recompute-activations,--recompute", true, "",
     "selective activation recomputation"},
    {"n_dense_layers", "--n_dense_layers,--n_dense_layer,--n-dense-layers", false, "first_dense_layers",
     "DeepSeek: leading dense layers"},
    {"n_shared_expert", "--n_shared_expert,--n-shared-expert", false, "num_shared_experts",
     "DeepSeek: shared experts"},
    {"qk_rope_dim", "--qk_rope_dim,--qk-rope-dim", false, "qk_rope_head_dim",
     "DeepSeek: rotary q/k head size"},
    {"qk_nope_dim", "--qk_nope_dim,--qk-nope-dim", false, "qk_nope_head_dim",
     "DeepSeek: q/k head size without rope"},
    {"q_lora_rank", "--q_lora_rank,--q-lora-rank", false, "q_lora_rank", "DeepSeek: query rank"},
    {"kv_lora_rank", "--kv_lora_rank,--kv-lora-rank", false, "kv_lora_rank", "DeepSeek: key/value rank"},
    {"v_head_dim", "--v_head_dim,--v-head-dim", false, "v_head_dim", "DeepSeek: value head size"},
};

struct generate_options {
  std::map<std::string, std::string> aicb;   // canonical aicb name -> value ("true" for flags)
  std::map<std::string, std::string> extra;  // descriptor fields without an aicb name
  std::string model_size;                    // -m
  std::string compat = "none";
  std::string output;
  std::string compute;  // aiob | roofline | constant (default: by the flags)
  std::string family;   // gpt | llama; empty: llama, with a note (generate's default was gpt)
  std::string hf_config, size;
  bool allow_unknown_keys = false;
  std::uint64_t iterations = 1;
  std::optional<std::uint64_t> stage;
  bool strict = false, no_sidecar = false, quiet = false, no_space_check = false;
  std::string format = "simai";
  std::optional<std::uint64_t> nproc_per_node, nnodes;  // megatron_gpt.sh's GPU count (CSV, with -m)
};

inline void add_generate_command(CLI::App& app, generate_options& o, CLI::App*& command) {
  command = app.add_subcommand("generate", "Write a training workload for SimAI (aicb's flags accepted)");
  command
      ->add_option("--compat", o.compat,
                   "aicb: reproduce aliyun/aicb's output byte for byte; none: corrected")
      ->check(CLI::IsMember({"aicb", "none"}))
      ->capture_default_str();
  command->add_option("-o,--output", o.output, "output file (default: aicb's name under results/workload/)");
  command
      ->add_option("--format", o.format,
                   "simai: SimAI text; csv: aicb's physical-cluster CSV (with -m, as aicb's megatron_gpt.sh)")
      ->check(CLI::IsMember({"simai", "csv"}))
      ->capture_default_str();
  command->add_option("--nproc_per_node", o.nproc_per_node, "CSV with -m: GPUs per node (megatron_gpt.sh)")
      ->group("aicb options");
  command->add_option("--nnodes", o.nnodes, "CSV with -m: nodes (megatron_gpt.sh)")->group("aicb options");
  command->add_option("--iterations", o.iterations, "consecutive training iterations in the file")
      ->capture_default_str();
  command->add_option("--pp-stage,--pipeline-stage", o.stage, "pipeline stage to emit (default: the last)");
  command->add_option("--compute", o.compute, "compute model: aiob | roofline | constant")
      ->check(CLI::IsMember({"aiob", "roofline", "constant"}));
  command->add_flag("--strict", o.strict, "refuse a profile whose provenance does not match the job");
  command->add_flag("--no-sidecar", o.no_sidecar, "do not write FILE.json next to the workload");
  command->add_flag("--no-space-check", o.no_space_check,
                    "write even when the estimated size exceeds the free space");
  command->add_flag("-q,--quiet", o.quiet, "print only errors");
  command->add_option(
      "-m,--model_size,--model-size,--model", o.model_size,
      "preset: aicb's 7 | 13 | 22 | 175 | 65 | 405 | moe | deepseek671 | deepseek236 | deepseek16 | "
      "deepseek, any `aicb models` key, or a size (15 = 15B)");
  command->add_option("--family", o.family, "family of a shape chosen by size: gpt | llama (default: llama)");
  command->add_option("--hf-config", o.hf_config, "start from a Hugging Face config.json");
  command->add_flag("--allow-unknown-keys", o.allow_unknown_keys,
                    "accept config.json keys aicb does not know");
  command->add_option("--size", o.size, "start from a standard shape of this many parameters (e.g. 15B)");
  for (const aicb_option& opt : aicb_options) {
    std::string& target = o.aicb[opt.name];
    auto* option = opt.flag ? command->add_flag(opt.spellings, target, opt.help)
                            : command->add_option(opt.spellings, target, opt.help);
    option->group("aicb options");
  }
  // Descriptor fields aicb has no name for.
  const auto add_extra = [&](std::string_view field, std::string_view help, bool is_bool) {
    for (const aicb_option& opt : aicb_options)
      if (field == opt.field) return;
    if (field == "name" || field == "recompute" || field == "activation" || field == "sequence_parallel")
      return;
    std::string dashed(field);
    for (char& c : dashed)
      if (c == '_') c = '-';
    const std::string names = "--" + dashed + (dashed != field ? ",--" + std::string(field) : std::string());
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

// ---- aicb compatibility --------------------------------------------------------------------------

inline std::uint64_t to_u64(const std::string& name, const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size())
    throw aicb::config_error(name, text, "expected a non-negative integer");
  return value;
}
inline bool given(const generate_options& o, const char* name) {
  const auto it = o.aicb.find(name);
  return it != o.aicb.end() && !it->second.empty();
}
inline bool flag_on(const generate_options& o, const char* name) {
  return given(o, name) && o.aicb.at(name) != "false" && o.aicb.at(name) != "0";
}

// An aicb option given as a number, into an optional script field.
inline void opt_u(const generate_options& o, const char* name, std::optional<std::uint64_t>& field) {
  if (given(o, name)) field = to_u64(name, o.aicb.at(name));
}

// The numeric options both of aicb's shell scripts read.
template <class ScriptArgs>
void read_script_numbers(const generate_options& o, ScriptArgs& s) {
  opt_u(o, "world_size", s.world_size);
  opt_u(o, "tensor_model_parallel_size", s.tensor_model_parallel_size);
  opt_u(o, "pipeline_model_parallel", s.pipeline_model_parallel);
  opt_u(o, "micro_batch", s.micro_batch);
  opt_u(o, "num_layers", s.num_layers);
  opt_u(o, "seq_length", s.seq_length);
  opt_u(o, "hidden_size", s.hidden_size);
  opt_u(o, "num_attention_heads", s.num_attention_heads);
  opt_u(o, "ffn_hidden_size", s.ffn_hidden_size);
  opt_u(o, "epoch_num", s.epoch_num);
  opt_u(o, "max_position_embeddings", s.max_position_embeddings);
  opt_u(o, "num_experts", s.num_experts);
  opt_u(o, "moe_router_topk", s.moe_router_topk);
  opt_u(o, "expert_model_parallel_size", s.expert_model_parallel_size);
}

// aicb's generator arguments from the options (aicb's defaults for what is not given).
inline aicb::aicb_args compat_args(const generate_options& o, std::vector<std::string>& notes) {
  const auto u = [&](const char* name) { return to_u64(name, o.aicb.at(name)); };
  if (!o.model_size.empty()) {
    aicb::aicb_script_args s;
    s.model_size = o.model_size;
    read_script_numbers(o, s);
    opt_u(o, "global_batch", s.global_batch);
    if (given(o, "frame")) s.frame = o.aicb.at("frame");
    if (given(o, "gpu_type")) s.gpu_type = o.aicb.at("gpu_type");
    if (given(o, "comp_filepath")) s.comp_filepath = o.aicb.at("comp_filepath");
    s.sequence_parallel = flag_on(o, "enable_sequence_parallel");
    s.aiob = flag_on(o, "aiob_enable");
    s.flash_attn = flag_on(o, "use_flash_attn");
    s.grouped_gemm = flag_on(o, "moe_grouped_gemm");
    s.recompute = flag_on(o, "recompute_activations");
    aicb::aicb_script_result r = aicb::from_aicb_script(s);
    if (r.fell_back)
      notes.push_back("aicb: model size " + o.model_size +
                      " is not one of aicb's presets; aicb uses gpt_13B (as here)");
    for (const std::string& change : r.overridden)
      notes.push_back("aicb: preset " + r.preset + " overrides " + change + " (aicb's script ignores it)");
    return r.args;
  }
  aicb::aicb_args a;
  if (given(o, "frame")) a.frame = o.aicb.at("frame");
  if (given(o, "gpu_type")) a.gpu_type = o.aicb.at("gpu_type");
  const auto set_u = [&](const char* name, std::uint64_t& field) {
    if (given(o, name)) field = u(name);
  };
  set_u("world_size", a.world_size);
  set_u("tensor_model_parallel_size", a.tensor_model_parallel_size);
  set_u("pipeline_model_parallel", a.pipeline_model_parallel);
  set_u("global_batch", a.global_batch);
  set_u("micro_batch", a.micro_batch);
  set_u("epoch_num", a.epoch_num);
  set_u("hidden_size", a.hidden_size);
  set_u("num_layers", a.num_layers);
  set_u("seq_length", a.seq_length);
  set_u("vocab_size", a.vocab_size);
  set_u("max_position_embeddings", a.max_position_embeddings);
  set_u("make_vocab_size_divisible_by", a.make_vocab_size_divisible_by);
  set_u("expert_model_parallel_size", a.expert_model_parallel_size);
  set_u("num_experts", a.num_experts);
  set_u("moe_router_topk", a.moe_router_topk);
  set_u("n_dense_layers", a.n_dense_layers);
  set_u("n_shared_expert", a.n_shared_expert);
  set_u("qk_rope_dim", a.qk_rope_dim);
  set_u("qk_nope_dim", a.qk_nope_dim);
  set_u("q_lora_rank", a.q_lora_rank);
  set_u("kv_lora_rank", a.kv_lora_rank);
  set_u("v_head_dim", a.v_head_dim);
  if (given(o, "ffn_hidden_size")) a.ffn_hidden_size = u("ffn_hidden_size");
  if (given(o, "num_attention_heads")) a.num_attention_heads = u("num_attention_heads");
  if (given(o, "model_name")) a.model_name = o.aicb.at("model_name");
  if (given(o, "comp_filepath")) a.comp_filepath = o.aicb.at("comp_filepath");
  if (given(o, "dtype")) a.dtype = o.aicb.at("dtype");
  a.add_bias_linear = flag_on(o, "add_bias_linear");
  a.use_flash_attn = flag_on(o, "use_flash_attn");
  a.swiglu = flag_on(o, "swiglu");
  a.enable_sequence_parallel = flag_on(o, "enable_sequence_parallel");
  a.use_distributed_optimizer = flag_on(o, "use_distributed_optimizer");
  a.moe_enable = flag_on(o, "moe_enable");
  a.moe_grouped_gemm = flag_on(o, "moe_grouped_gemm");
  a.aiob_enable = flag_on(o, "aiob_enable");
  a.recompute_activations = flag_on(o, "recompute_activations");
  return a;
}

// ---- corrected mode --------------------------------------------------------------------------------

inline aicb::job_spec corrected_job(const generate_options& o, std::vector<std::string>& notes) {
  aicb::job_spec job;
  // aicb's defaults for what no flag gives (utils.get_params), then the preset, then every flag.
  job.parallel.world_size = 1;
  job.batch.global_batch = 4;
  job.batch.seq_length = 2048;
  // The model source, as every subcommand reads it (aicb::select_model): -m (a preset, one of aicb's
  // names, a size), --hf-config or --size; aicb's `-m deepseek` is its DeepSeek frame's defaults.
  aicb::job_request request;
  request.model = o.model_size == "deepseek" ? std::string() : o.model_size;
  request.hf_config = o.hf_config;
  request.allow_unknown_keys = o.allow_unknown_keys;
  request.size = o.size;
  request.family = o.family.empty() ? "llama" : o.family;
  const aicb::model_choice choice = aicb::select_model(request);
  if (!request.model.empty() || !request.hf_config.empty() || !request.size.empty()) {
    job.model = choice.model;
  } else {
    job.model.hidden_size = 1024;
    job.model.num_layers = 24;
    job.model.vocab_size = 32000;
    job.model.max_position_embeddings = 4096;
  }
  const bool deepseek = o.model_size == "deepseek" || (given(o, "frame") && o.aicb.at("frame") == "DeepSeek");
  if (deepseek && job.model.kv_lora_rank == 0) {  // aicb's MLA defaults
    job.model.q_lora_rank = 1536;
    job.model.kv_lora_rank = 512;
    job.model.qk_nope_head_dim = 128;
    job.model.qk_rope_head_dim = 64;
    job.model.v_head_dim = 128;
  }
  const auto set = [&](const std::string& field, const std::string& text) {
    aicb::set_job_field(job, field, text);
  };
  for (const aicb_option& opt : aicb_options)
    if (given(o, opt.name) && std::string_view(opt.field) != "") {
      std::string value = o.aicb.at(opt.name);
      if (std::string_view(opt.name) == "dtype") {
        const auto t = aicb::dtype_from_string(value);
        if (!t) throw aicb::config_error("dtype", value, "expected bfloat16 | float16 | float32 | fp8");
        value = std::string(aicb::to_string(*t));
      }
      set(opt.field, value);
    }
  if (flag_on(o, "swiglu")) job.model.activation = aicb::activation_kind::swiglu;
  if (flag_on(o, "recompute_activations")) job.parallel.recompute = aicb::recompute_kind::selective;
  const bool moe = flag_on(o, "moe_enable") || (o.model_size == "deepseek");
  if (moe && !job.model.is_moe()) {
    if (!given(o, "num_experts"))
      throw aicb::config_error("num_experts", "1",
                               "--moe_enable needs --num_experts (aicb's default of 1 expert is not MoE)");
    if (job.model.moe_top_k == 0) job.model.moe_top_k = 1;
    if (deepseek && !given(o, "n_shared_expert")) job.model.num_shared_experts = 2;
    if (deepseek && !given(o, "n_dense_layers")) job.model.first_dense_layers = 3;
  }
  if (!moe && !job.model.is_moe()) {  // aicb's DeepSeek-only options mean nothing for a dense model
    job.model.num_shared_experts = 0;
    job.model.first_dense_layers = 0;
    job.model.num_experts = 0;
    job.model.moe_top_k = 0;
    job.parallel.expert_parallel = given(o, "expert_model_parallel_size") ? job.parallel.expert_parallel : 1;
  }
  for (const auto& [field, text] : o.extra)
    if (!text.empty()) set(field, text);
  if (choice.size) {
    if (o.family.empty())
      notes.push_back(
          "--family defaults to llama in every subcommand now (generate used gpt before); give "
          "--family gpt for a GPT shape");
    notes.push_back(aicb::fit_size(job, choice, request.family));
  }
  if (job.model.num_attention_heads == 0) {  // aicb BUG-01 (heads = layers) fixed: heads of 128, or 64
    const std::uint64_t h = job.model.hidden_size;
    job.model.num_attention_heads = h % 128 == 0 ? h / 128 : h / 64;
    notes.push_back("num_attention_heads not given: " + std::to_string(job.model.num_attention_heads) +
                    " (heads of " + std::to_string(h % 128 == 0 ? 128 : 64) + ")");
  }
  if (given(o, "model_name")) job.model.name = aicb::spec_name::from(o.aicb.at("model_name"));
  return job;
}

// Training iterations in the file: --iterations, or aicb's --epoch_num when --iterations is not given.
inline std::uint64_t iterations_of(const generate_options& o) {
  if (o.iterations == 1 && given(o, "epoch_num")) return to_u64("epoch_num", o.aicb.at("epoch_num"));
  return o.iterations;
}

// ---- output -----------------------------------------------------------------------------------------

// The files the command reads: an output may not be one of them.
inline std::vector<std::string> inputs(const generate_options& o) {
  std::vector<std::string> files;
  if (given(o, "comp_filepath")) files.push_back(o.aicb.at("comp_filepath"));
  return files;
}

inline std::string output_path(const generate_options& o, const std::string& aicb_name) {
  if (!o.output.empty()) return o.output;
  make_output_folder("results/workload");
  return "results/workload/" + aicb_name;
}

inline std::string sidecar_json(const std::string& path, const std::string& mode, const written& result,
                                const aicb::simai_header& header, const std::string& provenance,
                                const std::function<void(aicb::json_writer&)>& job, std::uint64_t iterations,
                                std::optional<std::uint64_t> stage) {
  aicb::json_writer w;
  w.begin_object().member("aicb_version", AICB_VERSION_STRING).member("generator", "aicb generate");
  w.member("mode", mode).member("workload", std::filesystem::path(path).filename().string());
  w.member("format", "SimAI HYBRID_TRANSFORMER_FWD_IN_BCKWD text; times in ns, sizes in bytes");
  w.member("holds", std::to_string(iterations) + " training iteration(s) of one pipeline stage, " +
                        std::to_string(header.ga) + " micro batches each");
  w.member("iterations", iterations).member("records", result.records);
  if (stage) w.member("pipeline_stage", *stage);
  w.key("header").begin_object();
  w.member("model_parallel_NPU_group", header.tensor_parallel).member("ep", header.expert_parallel);
  w.member("pp", header.pipeline_parallel).member("vpp", header.vpp).member("ga", header.ga);
  w.member("all_gpus", header.all_gpus).member("pp_comm", header.pp_comm).end_object();
  w.member("compute_model", provenance);
  w.key("job");
  job(w);
  w.key("bytes_by_group").begin_object();
  for (aicb::comm_group g : aicb::all_comm_groups)
    if (const auto n = result.bytes_by_group[static_cast<std::size_t>(g)]) w.member(aicb::to_string(g), n);
  w.end_object();
  w.key("warnings").begin_array();
  for (const std::string& warning : result.warnings)
    w.value(warning);
  w.end_array().end_object();
  return w.str() + "\n";
}

inline void print_summary(const generate_options& o, const std::string& path, const written& result,
                          const aicb::simai_header& header, std::uint64_t iterations, double seconds) {
  if (o.quiet) return;
  std::printf("wrote %s: %llu records (%llu iteration(s) x %llu micro batches), %.3f s\n", path.c_str(),
              static_cast<unsigned long long>(result.records), static_cast<unsigned long long>(iterations),
              static_cast<unsigned long long>(header.ga), seconds);
  for (aicb::comm_group g : aicb::all_comm_groups)
    if (const auto n = result.bytes_by_group[static_cast<std::size_t>(g)])
      std::printf("  %-6s %s in collectives\n", std::string(aicb::to_string(g)).c_str(),
                  aicb::to_iec_string(aicb::bytes{n}).c_str());
  if (!o.no_sidecar) std::printf("wrote %s.json: what the file holds and how it was made\n", path.c_str());
  for (const std::string& w : result.warnings)
    std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (const std::uint64_t kib = peak_memory_kib())
    std::printf("peak memory: %.1f MiB\n", static_cast<double>(kib) / 1024);
  std::printf(
      "next: aicb lint %s (checks it as SimAI's parser reads it); give the file to SimAI as its workload\n",
      path.c_str());
}

// `--format csv` in the default (corrected) mode: the representative rank's operation graph as aicb's
// physical-cluster CSV.
inline int run_generate_corrected_csv(const generate_options& o) {
  std::vector<std::string> notes;
  aicb::job_spec job = corrected_job(o, notes);
  aicb::validate(job);
  std::optional<std::uint64_t> stage = o.stage;
  if (!stage && given(o, "pp_rank") && o.aicb.at("pp_rank") != "-1")
    stage = to_u64("pp_rank", o.aicb.at("pp_rank"));
  if (stage && *stage >= job.parallel.pipeline_parallel)
    throw aicb::config_error("pipeline_stage", std::to_string(*stage),
                             "a stage index must be below pipeline_parallel");
  // Iterations: --iterations, or aicb's --epoch_num.
  const std::uint64_t iterations = iterations_of(o);
  aicb::csv_projection_options options{
      .iterations = iterations, .computation = flag_on(o, "computation_enable") || flag_on(o, "aiob_enable")};
  if (stage) options.rank = aicb::first_rank_of_stage(job, *stage);
  const aicb::csv_projection w(job, options);
  for (const std::string& n : notes)
    if (!o.quiet) std::fprintf(stderr, "note: %s\n", n.c_str());
  aicb::aicb_args names;  // aicb's naming scheme
  names.model_name =
      job.model.name.empty() ? std::nullopt : std::optional<std::string>(std::string(job.model.name.view()));
  names.enable_sequence_parallel = job.parallel.sequence_parallel;
  names.epoch_num = iterations;
  names.computation_enable = options.computation;
  names.world_size = job.parallel.world_size;
  const std::string path = csv_output_path(o.output, aicb::megatron_csv_file_name(names));
  aicb::csv_projection_options one = options;
  one.iterations = 1;
  const aicb::csv_projection one_iteration(job, one);
  check_csv_size(
      path, [&](auto&& sink) { one_iteration.generate(sink); }, iterations, o.no_space_check);
  const std::uint64_t items = write_csv_file(
      path, [&](auto&& sink) { w.generate(sink); }, inputs(o));
  for (const std::string& warning : w.warnings())
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  if (!o.quiet)
    std::printf(
        "wrote %s: %llu items (corrected: rank %llu, pipeline stage %llu, %llu iteration(s))\n", path.c_str(),
        static_cast<unsigned long long>(items), static_cast<unsigned long long>(w.rank()),
        static_cast<unsigned long long>(w.pipeline_stage()), static_cast<unsigned long long>(iterations));
  return 0;
}

// `--format csv --compat aicb`: aicb's Megatron / DeepSeek physical-cluster CSV, byte for byte.
inline int run_generate_csv(const generate_options& o) {
  if (o.compat != "aicb") return run_generate_corrected_csv(o);
  std::vector<std::string> notes;
  aicb::aicb_args args;
  if (!o.model_size.empty()) {
    aicb::megatron_gpt_script_args s;
    s.model_size = o.model_size;
    read_script_numbers(o, s);
    s.nproc_per_node = o.nproc_per_node;
    s.nnodes = o.nnodes;
    if (given(o, "frame")) s.frame = o.aicb.at("frame");
    s.sequence_parallel = flag_on(o, "enable_sequence_parallel");
    s.aiob = flag_on(o, "aiob_enable");
    s.flash_attn = flag_on(o, "use_flash_attn");
    s.swiglu = flag_on(o, "swiglu");
    s.moe = flag_on(o, "moe_enable");
    s.grouped_gemm = flag_on(o, "moe_grouped_gemm");
    if (given(o, "global_batch"))
      notes.push_back(
          "aicb: megatron_gpt.sh ignores --global_batch; it uses 2 x data-parallel size x micro batch");
    aicb::aicb_script_result r = aicb::from_megatron_gpt_script(s);
    if (r.fell_back)
      notes.push_back("aicb: model size " + o.model_size +
                      " is not one of the script's presets; it uses gpt_13B");
    for (const std::string& change : r.overridden)
      notes.push_back("aicb: preset " + r.preset + " overrides " + change + " (aicb's script ignores it)");
    args = r.args;
  } else {
    args = compat_args(o, notes);
  }
  args.computation_enable = flag_on(o, "computation_enable");
  if (given(o, "pp_rank")) {
    const std::string& text = o.aicb.at("pp_rank");
    args.pp_rank = text == "-1" ? -1 : static_cast<std::int64_t>(to_u64("pp_rank", text));
  }
  if (o.iterations != 1) args.epoch_num = o.iterations;
  const aicb::megatron_csv_workload w(args);
  for (const std::string& n : notes)
    if (!o.quiet) std::fprintf(stderr, "note: %s\n", n.c_str());
  const std::string path = csv_output_path(o.output, aicb::megatron_csv_file_name(w.args()));
  aicb::aicb_args one = args;
  one.epoch_num = 1;
  const aicb::megatron_csv_workload one_epoch(one);
  check_csv_size(
      path, [&](auto&& sink) { one_epoch.generate(sink); }, args.epoch_num, o.no_space_check);
  const std::uint64_t items = write_csv_file(
      path, [&](auto&& sink) { w.generate(sink); }, inputs(o));
  if (!o.quiet)
    std::printf("wrote %s: %llu items (aicb, pipeline stage %llu)\n", path.c_str(),
                static_cast<unsigned long long>(items), static_cast<unsigned long long>(w.pipeline_stage()));
  return 0;
}

inline int run_generate(const generate_options& o) {
  if (o.compat == "aicb" && (!o.hf_config.empty() || !o.size.empty()))
    throw aicb::config_error(
        o.hf_config.empty() ? "size" : "hf_config", o.hf_config.empty() ? o.size : o.hf_config,
        "aicb has no such option: --compat aicb takes aicb's flags (-m, or the dimensions)");
  if (o.format == "csv") return run_generate_csv(o);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> notes;
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  if (o.compat == "aicb") {
    const aicb::aicb_args args = compat_args(o, notes);
    std::optional<aicb::aiob_profile> profile;
    if (args.aiob_enable && args.comp_filepath) profile = aicb::read_aiob_file(*args.comp_filepath);
    const aicb::aicb_workload w(args, profile);
    for (const std::string& n : notes)
      if (!o.quiet) std::fprintf(stderr, "note: %s\n", n.c_str());
    const std::string path = output_path(o, w.file_name());
    if (o.iterations != 1)
      throw aicb::config_error("iterations", std::to_string(o.iterations),
                               "aicb compatibility writes one iteration, as aicb does");
    const auto sidecar = [&](const written& result) {
      return sidecar_json(
          path, "aicb", result, w.header(),
          args.aiob_enable ? "aiob (aicb arithmetic): " + args.comp_filepath.value_or("")
                           : "constant: aicb's placeholder, 1 ns per item",
          [&](aicb::json_writer& j) {
            j.begin_object().member("frame", args.frame).member("world_size", args.world_size);
            j.member("tensor_model_parallel_size", args.tensor_model_parallel_size);
            j.member("pipeline_model_parallel", args.pipeline_model_parallel);
            j.member("global_batch", args.global_batch).member("micro_batch", args.micro_batch);
            j.member("num_layers", args.num_layers).member("hidden_size", args.hidden_size);
            j.member("seq_length", args.seq_length).end_object();
          },
          1, std::nullopt);
    };
    const written result = write_workload(w, path, false, {o.quiet, o.no_space_check}, inputs(o),
                                          o.no_sidecar ? sidecar_text{} : sidecar_text{sidecar});
    print_summary(o, path, result, w.header(), 1, elapsed());
    return 0;
  }

  aicb::job_spec job = corrected_job(o, notes);
  aicb::validate(job);
  // The compute model: a profile when given, else the roofline of the named GPU (H100 by default).
  std::string compute = o.compute;
  if (compute.empty()) compute = flag_on(o, "aiob_enable") || given(o, "comp_filepath") ? "aiob" : "roofline";
  const std::string gpu = given(o, "gpu_type") ? o.aicb.at("gpu_type") : "H100";
  std::unique_ptr<aicb::compute_model> fallback, model;
  if (compute == "constant") {
    model = std::make_unique<aicb::constant_model>();
  } else if (compute == "roofline") {
    model = std::make_unique<aicb::roofline_model>(gpu);
  } else {
    if (!given(o, "comp_filepath"))
      throw aicb::config_error("comp_filepath", "(none)", "--compute aiob needs a profile");
    const std::string file = o.aicb.at("comp_filepath");
    aicb::aiob_profile profile = aicb::read_aiob_file(file);
    for (const std::string& m :
         aicb::profile_mismatches(profile, job, given(o, "gpu_type") ? gpu : std::string()))
      (o.strict ? notes.push_back("error: " + m) : notes.push_back("profile: " + m));
    if (o.strict &&
        !aicb::profile_mismatches(profile, job, given(o, "gpu_type") ? gpu : std::string()).empty())
      throw aicb::config_error("comp_filepath", file,
                               "the profile does not match the job (see above; --strict)");
    fallback = std::make_unique<aicb::roofline_model>(gpu);
    model = std::make_unique<aicb::aiob_model>(std::move(profile), file, fallback.get());
  }
  // The corrected workload: the representative rank's operation graph, projected onto SimAI's records.
  const std::uint64_t iterations = iterations_of(o);
  const aicb::simai_projection w(job, *model, {.iterations = iterations, .pipeline_stage = o.stage});
  aicb::aicb_args names;  // the output file keeps aicb's naming scheme
  // The GPU whose roofline (or profile) times it, and the model's name: "custom" for a model given by
  // its dimensions alone (aicb would write "None").
  names.gpu_type =
      given(o, "gpu_type") || compute == "roofline" ? std::optional<std::string>(gpu) : std::nullopt;
  names.model_name = std::string(job.model.name.empty() ? "custom" : job.model.name.view());
  names.world_size = job.parallel.world_size;
  names.tensor_model_parallel_size = job.parallel.tensor_parallel;
  names.pipeline_model_parallel = job.parallel.pipeline_parallel;
  names.expert_model_parallel_size = job.parallel.expert_parallel;
  names.global_batch = aicb::global_batch(job);
  names.micro_batch = job.batch.micro_batch;
  names.seq_length = job.batch.seq_length;
  names.moe_enable = job.model.is_moe();
  names.moe_grouped_gemm = flag_on(o, "moe_grouped_gemm");
  names.use_flash_attn = flag_on(o, "use_flash_attn");
  const std::string path = output_path(o, aicb::aicb_file_name(names));
  if (!o.quiet) {
    std::printf("job: %s\n",
                std::string(w.job().model.name.empty() ? "(unnamed)" : w.job().model.name.view()).c_str());
    for (const auto& [k, v] : aicb::to_key_values(w.job().model))
      if (v != "0" && v != "false" && k != "name") std::printf("  %s=%s", k.c_str(), v.c_str());
    std::printf("\n ");
    for (const auto& [k, v] : aicb::to_key_values(w.job().parallel))
      if (v != "0" && v != "false") std::printf(" %s=%s", k.c_str(), v.c_str());
    for (const auto& [k, v] : aicb::to_key_values(w.job().batch))
      std::printf(" %s=%s", k.c_str(), v.c_str());
    std::printf("\ncompute: %s\n", model->provenance().c_str());
    for (const std::string& n : notes)
      std::fprintf(stderr, "note: %s\n", n.c_str());
  }
  std::vector<std::string> warnings = w.warnings();
  if (const auto* aiob = dynamic_cast<const aicb::aiob_model*>(model.get()))
    for (aicb::op_role role : aiob->missing_roles())
      warnings.push_back("the profile has no section for " + std::string(aicb::to_string(role)) +
                         "; timed by the roofline model");
  const auto sidecar = [&](written result) {
    result.warnings = warnings;
    return sidecar_json(
        path, "corrected", result, w.header(), model->provenance(),
        [&](aicb::json_writer& j) {
          j.begin_object();
          j.key("model");
          aicb::write_json(j, w.job().model);
          j.key("parallel");
          aicb::write_json(j, w.job().parallel);
          j.key("batch");
          aicb::write_json(j, w.job().batch);
          j.end_object();
        },
        iterations, w.pipeline_stage());
  };
  written result = write_workload(w, path, true, {o.quiet, o.no_space_check}, inputs(o),
                                  o.no_sidecar ? sidecar_text{} : sidecar_text{sidecar});
  result.warnings = warnings;
  print_summary(o, path, result, w.header(), iterations, elapsed());
  return 0;
}

}  // namespace aicb_tool
