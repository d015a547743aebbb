// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb's own arguments, for aicb compatibility mode: aicb::aicb_args mirrors aliyun/aicb's argument
/// parser (the defaults of `utils.get_params()`, shared by its SimAI generator, its CSV generators
/// for Megatron, DeepSeek and DeepSpeed, and its collective tests), and
/// aicb::aicb_script_args emulates `scripts/megatron_workload_with_aiob.sh` — its own defaults, its
/// option names and its presets, which overwrite model dimensions given on the command line.
///
/// derive() applies aicb's validation and derivations in aicb's order; where aicb fails (an
/// assertion, or a crash further on) it throws aicb::config_error naming what aicb would trip on.

#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/generate/file_names.hpp>
#include <aicb/workload/modes.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The arguments of aicb's SimAI training workload generator, with aicb's defaults.
struct aicb_args {
  std::string frame = "Megatron";       ///< Megatron | DeepSeek | DeepSpeed | collective_test
  std::optional<std::string> gpu_type;  ///< only in the file name ("None" when absent)
  std::uint64_t world_size = 1;
  std::uint64_t tensor_model_parallel_size = 1;
  std::uint64_t pipeline_model_parallel = 1;
  std::uint64_t global_batch = 4;
  std::uint64_t micro_batch = 1;
  std::uint64_t epoch_num = 1;  ///< aicb: forward iterations when profiling; unused here
  std::optional<std::uint64_t> ffn_hidden_size;
  std::optional<std::string> model_name;
  std::uint64_t hidden_size = 1024;
  std::uint64_t num_layers = 24;
  std::uint64_t seq_length = 2048;
  std::optional<std::uint64_t> num_attention_heads;
  std::uint64_t vocab_size = 32000;
  std::uint64_t max_position_embeddings = 4096;
  bool add_bias_linear = false;
  bool use_flash_attn = false;
  bool swiglu = false;
  bool enable_sequence_parallel = false;
  bool use_distributed_optimizer = false;
  std::uint64_t make_vocab_size_divisible_by = 128;
  bool moe_enable = false;
  std::uint64_t expert_model_parallel_size = 1;
  std::uint64_t num_experts = 1;
  std::uint64_t moe_router_topk = 1;
  bool moe_grouped_gemm = false;
  bool aiob_enable = false;
  std::optional<std::string> comp_filepath;
  bool recompute_activations = false;
  std::string dtype = "bfloat16";
  // DeepSeek
  std::uint64_t n_dense_layers = 3;
  std::uint64_t n_shared_expert = 2;
  std::uint64_t qk_rope_dim = 64;
  std::uint64_t qk_nope_dim = 128;
  std::uint64_t q_lora_rank = 1536;
  std::uint64_t kv_lora_rank = 512;
  std::uint64_t v_head_dim = 128;
  // The physical-cluster CSV generators.
  bool computation_enable = false;  ///< computation items in the CSV (implied by aiob_enable)
  std::int64_t pp_rank = -1;        ///< Megatron CSV: the stage whose init() holds the embedding all-reduces
  // DeepSpeed ZeRO (sizes in elements, as DeepSpeed's config).
  std::uint64_t stage = 3;
  bool amp_enabled = false;
  std::uint64_t reduce_bucket_size = 500'000'000;
  std::uint64_t allgather_bucket_size = 500'000'000;
  bool contiguous_gradients = false;
  std::uint64_t param_persistence_threshold = 100'000;
  std::uint64_t model_persistence_threshold = 9'223'372'036'854'775'807ULL;  // Python's sys.maxsize
  std::uint64_t max_live_parameters = 1'000'000'000;
  std::uint64_t prefetch_bucket_size = 1'000'000'000;
  // Collective tests.
  std::uint64_t begin_size = 1'048'576;
  std::uint64_t end_size = 1'048'576;
  std::string test_comm = "all_reduce";
  std::uint64_t iter_num = 500;
  bool multi_all_reduce_enable = false;
};

/// What aicb derives from its arguments (utils.get_params, in aicb's order).
struct aicb_derived {
  std::uint64_t dp = 0;            ///< world_size / (tp · pp) — CP is not in the denominator
  std::uint64_t microbatches = 0;  ///< global_batch / (micro_batch · dp), floor (may be 0)
  std::uint64_t heads = 0;         ///< num_attention_heads, or num_layers when not given (aicb BUG-01)
  std::uint64_t padded_vocab = 0;  ///< vocab padded to a multiple of make_vocab_size_divisible_by · tp
  std::uint64_t ffn = 0;           ///< ffn_hidden_size, or aicb's default
  std::uint64_t layers = 0;        ///< layers of the pipeline stage: num_layers / pp, floor
};

/// aicb's derivations and assertions. Throws config_error where aicb stops with an error.
[[nodiscard]] inline aicb_derived derive(const aicb_args& a) {
  const auto fail = [](const char* field, std::uint64_t value, const std::string& rule) {
    AICB_THROW(config_error(field, std::to_string(value), "aicb fails here: " + rule));
  };
  if (a.frame != "Megatron" && a.frame != "DeepSeek" && a.frame != "DeepSpeed" &&
      a.frame != "collective_test")
    AICB_THROW(config_error("frame", a.frame,
                            "aicb's frames are Megatron, DeepSeek, DeepSpeed and collective_test"));
  // aicb computes with Python's unbounded integers; here sizes are 64-bit, so every input and the
  // products that sizes are made of stay within max_derived_size (2^50) — beyond it, a refusal, never
  // a wrapped number.
  for (const auto& [field, value] : {std::pair<const char*, std::uint64_t>{"world_size", a.world_size},
                                     {"tensor_model_parallel_size", a.tensor_model_parallel_size},
                                     {"pipeline_model_parallel", a.pipeline_model_parallel},
                                     {"global_batch", a.global_batch},
                                     {"micro_batch", a.micro_batch},
                                     {"seq_length", a.seq_length},
                                     {"hidden_size", a.hidden_size},
                                     {"num_layers", a.num_layers},
                                     {"vocab_size", a.vocab_size},
                                     {"ffn_hidden_size", a.ffn_hidden_size.value_or(0)},
                                     {"num_attention_heads", a.num_attention_heads.value_or(0)},
                                     {"max_position_embeddings", a.max_position_embeddings},
                                     {"make_vocab_size_divisible_by", a.make_vocab_size_divisible_by},
                                     {"num_experts", a.num_experts},
                                     {"moe_router_topk", a.moe_router_topk},
                                     {"expert_model_parallel_size", a.expert_model_parallel_size},
                                     {"epoch_num", a.epoch_num},
                                     {"q_lora_rank", a.q_lora_rank},
                                     {"kv_lora_rank", a.kv_lora_rank},
                                     {"qk_rope_dim", a.qk_rope_dim},
                                     {"qk_nope_dim", a.qk_nope_dim},
                                     {"v_head_dim", a.v_head_dim},
                                     {"n_shared_expert", a.n_shared_expert},
                                     {"n_dense_layers", a.n_dense_layers}})
    if (value > max_derived_size)
      AICB_THROW(
          config_error(field, std::to_string(value), "must not exceed 2^50 (aicb's sizes are 64-bit)"));
  const auto times = [](std::uint64_t x, std::uint64_t y) {
    return product_within({x, y}).value_or(max_u64);
  };
  const std::uint64_t widest =
      std::max({a.hidden_size, times(a.ffn_hidden_size.value_or(4 * a.hidden_size), 2),
                a.vocab_size + times(a.make_vocab_size_divisible_by, a.tensor_model_parallel_size),
                a.num_experts, times(a.moe_router_topk, a.hidden_size),
                times(a.q_lora_rank + a.kv_lora_rank + a.qk_rope_dim + a.qk_nope_dim + a.v_head_dim,
                      a.num_attention_heads.value_or(a.num_layers))});
  for (const auto& [field, value, what] :
       {std::tuple<const char*, std::uint64_t, std::optional<std::uint64_t>>{
            "seq_length", a.seq_length,
            product_within({a.micro_batch, a.seq_length, widest}, max_derived_size)},
        {"hidden_size", a.hidden_size,
         product_within({a.num_layers, a.hidden_size, widest}, max_derived_size)},
        {"global_batch", a.global_batch, product_within({a.global_batch, a.seq_length}, max_derived_size)},
        {"tensor_model_parallel_size", a.tensor_model_parallel_size,
         product_within({a.tensor_model_parallel_size, a.pipeline_model_parallel,
                         std::max<std::uint64_t>(a.make_vocab_size_divisible_by, 1), a.micro_batch},
                        max_derived_size)}})
    if (!what)
      AICB_THROW(config_error(field, std::to_string(value),
                              "the sizes derived from it (micro_batch x seq_length x the widest activation, "
                              "layers x hidden_size x width, global_batch x seq_length, the parallel "
                              "products) must not exceed 2^50 (aicb's sizes are 64-bit)"));
  const std::uint64_t t = a.tensor_model_parallel_size, p = a.pipeline_model_parallel;
  if (t == 0 || p == 0)
    fail(t == 0 ? "tensor_model_parallel_size" : "pipeline_model_parallel", 0, "sizes must be positive");
  if (a.micro_batch == 0) fail("micro_batch", 0, "micro_batch must be positive (aicb divides by it)");
  if (a.world_size % (t * p) != 0)
    fail("world_size", a.world_size,
         "world_size % (tensor_model_parallel_size * pipeline_model_parallel) == 0");
  if (a.moe_enable && !a.enable_sequence_parallel)
    fail("enable_sequence_parallel", 0,
         "moe must be enabled with sequence parallel (--enable_sequence_parallel)");
  aicb_derived d;
  d.dp = a.world_size / (t * p);
  if (d.dp == 0) fail("world_size", a.world_size, "no data-parallel rank");
  d.microbatches = a.global_batch / (d.dp * a.micro_batch);
  d.heads = a.num_attention_heads.value_or(a.num_layers);
  const std::uint64_t multiple = a.make_vocab_size_divisible_by * t;
  d.padded_vocab = (a.vocab_size + multiple - 1) / multiple * multiple;
  d.ffn = a.ffn_hidden_size ? *a.ffn_hidden_size
          : a.swiglu        ? (4 * a.hidden_size * 2 / 3) / 64 * 64
                            : 4 * a.hidden_size;
  if (a.expert_model_parallel_size > 1) {
    if (a.num_experts % a.expert_model_parallel_size != 0)
      fail("num_experts", a.num_experts, "num_experts % expert_model_parallel_size == 0");
    if (a.dtype == "float16")
      fail("expert_model_parallel_size", a.expert_model_parallel_size, "expert parallel needs bfloat16");
  }
  if (a.moe_grouped_gemm && a.dtype != "bfloat16")
    fail("moe_grouped_gemm", 1, "grouped GEMM needs --dtype bfloat16");
  d.layers = a.num_layers / p;
  if (d.heads == 0) fail("num_attention_heads", 0, "a zero head count divides by zero");
  return d;
}

/// The file aicb writes: results/workload/{gpu_type}-{model_name}-world_size…-flash_attn-{bool}.txt,
/// with Python's None/True/False spellings (aicb::simai_file_name).
[[nodiscard]] inline std::string aicb_file_name(const aicb_args& a) {
  return simai_file_name({.gpu = a.gpu_type,
                          .model = a.model_name,
                          .world_size = a.world_size,
                          .tensor_parallel = a.tensor_model_parallel_size,
                          .pipeline_parallel = a.pipeline_model_parallel,
                          .expert_parallel = a.expert_model_parallel_size,
                          .global_batch = a.global_batch,
                          .micro_batch = a.micro_batch,
                          .seq_length = a.seq_length,
                          .moe = a.moe_enable,
                          .grouped_gemm = a.moe_grouped_gemm,
                          .flash_attention = a.use_flash_attn});
}

/// The CSV file aicb's physical-cluster generators write (aicb::csv_file_name). `generator`:
/// "megatron", "deepspeed_stage2", ….
[[nodiscard]] inline std::string aicb_csv_file_name(std::string_view generator, const aicb_args& a) {
  return csv_file_name({.generator = generator,
                        .model = a.model_name,
                        .sequence_parallel = a.enable_sequence_parallel,
                        .iterations = a.epoch_num,
                        .computation = a.computation_enable || a.aiob_enable,
                        .world_size = a.world_size});
}

/// The options of aicb's `scripts/megatron_workload_with_aiob.sh` (those given are set).
struct aicb_script_args {
  std::optional<std::string> model_size;  ///< -m / --model_size (default "13")
  std::optional<std::string> frame, gpu_type, comp_filepath;
  std::optional<std::uint64_t> world_size, tensor_model_parallel_size, pipeline_model_parallel, global_batch,
      micro_batch, num_layers, seq_length, hidden_size, num_attention_heads, ffn_hidden_size, epoch_num,
      max_position_embeddings, num_experts, moe_router_topk, expert_model_parallel_size;
  bool sequence_parallel = false, aiob = false, flash_attn = false, grouped_gemm = false, recompute = false;
};

/// A preset that overwrote dimensions given on the command line, as aicb's script silently does.
struct aicb_script_result {
  aicb_args args;
  std::string preset;                   ///< the model_name the preset chose
  std::vector<std::string> overridden;  ///< options the preset overwrote ("num_layers 10 -> 40")
  bool fell_back = false;               ///< an unknown -m became gpt_13B
};

namespace detail {

// Applies one of aicb's shell-script model presets over the options, as the scripts do (after option
// parsing), noting every option it overwrites.
// One `-m` preset of aicb's scripts: the shape it sets, and the layout (0: left as it is).
struct script_shape {
  std::string_view key;  // -m's value
  const char* name;      // the model name aicb gives it
  std::uint64_t layers, hidden, heads;
  std::uint64_t ffn = 0, tp = 0, pp = 0;
  bool moe = false;  // MoE with grouped GEMMs
};

// megatron_workload_with_aiob.sh's presets (its DeepSeek ones set MLA too: from_aicb_script).
inline constexpr script_shape aicb_script_shapes[] = {
    {"175", "gpt_175B", 96, 12288, 96, 0, 8},
    {"22", "gpt_22B", 48, 6144, 64, 0, 8},
    {"13", "gpt_13B", 40, 5120, 40},
    {"7", "gpt_7B", 36, 4096, 32, 0, 4},
    {"405", "llama_405B", 128, 16384, 128, 53248},
    {"moe", "Mixtral_8*7B", 32, 4096, 32, 14336, 4, 0, true},
};

// megatron_gpt.sh's presets: other layouts for the same names, and a 65B.
inline constexpr script_shape megatron_gpt_script_shapes[] = {
    {"175", "gpt_175B", 96, 12288, 96, 0, 8},
    {"22", "gpt_22B", 48, 6144, 64, 0, 8},
    {"13", "gpt_13B", 40, 5120, 40},
    {"7", "gpt_7B", 36, 4096, 32},
    {"405", "llama_405B", 128, 16384, 128, 53248, 8, 16},
    {"65", "llama_65B", 80, 8192, 64, 28672, 8, 2},
    {"moe", "Mixtral_8*7B", 32, 4096, 32, 14336, 2, 0, true},
};

template <class ScriptArgs>
struct script_preset {
  const ScriptArgs& given;
  aicb_script_result& r;

  void set(const char* name, std::uint64_t& field, std::uint64_t value, bool was_given) {
    if (was_given && field != value)
      r.overridden.push_back(std::string(name) + " " + std::to_string(field) + " -> " +
                             std::to_string(value));
    field = value;
  }
  void shape(const char* name, std::uint64_t layers, std::uint64_t hidden, std::uint64_t heads) {
    aicb_args& a = r.args;
    r.preset = name;
    a.model_name = name;
    set("num_layers", a.num_layers, layers, given.num_layers.has_value());
    set("hidden_size", a.hidden_size, hidden, given.hidden_size.has_value());
    std::uint64_t h = *a.num_attention_heads;
    set("num_attention_heads", h, heads, given.num_attention_heads.has_value());
    a.num_attention_heads = h;
  }
  void ffn(std::uint64_t value) {
    std::uint64_t f = r.args.ffn_hidden_size.value_or(value);
    set("ffn_hidden_size", f, value, given.ffn_hidden_size.has_value());
    r.args.ffn_hidden_size = f;
  }
  void tp(std::uint64_t value) {
    set("tensor_model_parallel_size", r.args.tensor_model_parallel_size, value,
        given.tensor_model_parallel_size.has_value());
  }
  void pp(std::uint64_t value) {
    set("pipeline_model_parallel", r.args.pipeline_model_parallel, value,
        given.pipeline_model_parallel.has_value());
  }
  // A row of a script's table, in the script's order: shape, MLP width, TP, PP, MoE switches.
  void apply(const script_shape& row) {
    shape(row.name, row.layers, row.hidden, row.heads);
    if (row.ffn) ffn(row.ffn);
    if (row.tp) tp(row.tp);
    if (row.pp) pp(row.pp);
    if (row.moe) r.args.moe_enable = r.args.moe_grouped_gemm = true;
  }
};

// The row of `table` that `-m key` names, or none.
template <std::size_t N>
[[nodiscard]] constexpr const script_shape* find_shape(const script_shape (&table)[N], std::string_view key) {
  for (const script_shape& row : table)
    if (row.key == key) return &row;
  return nullptr;
}

}  // namespace detail

/// What aicb's script passes to the generator: its defaults, then the options, then the preset.
[[nodiscard]] inline aicb_script_result from_aicb_script(const aicb_script_args& s) {
  aicb_script_result r;
  aicb_args& a = r.args;
  // The script's defaults (lines 4-27).
  a.frame = s.frame.value_or("Megatron");
  a.world_size = s.world_size.value_or(32);
  a.tensor_model_parallel_size = s.tensor_model_parallel_size.value_or(8);
  a.pipeline_model_parallel = s.pipeline_model_parallel.value_or(1);
  a.global_batch = s.global_batch.value_or(1024);
  a.micro_batch = s.micro_batch.value_or(1);
  a.num_layers = s.num_layers.value_or(40);
  a.seq_length = s.seq_length.value_or(4096);
  a.hidden_size = s.hidden_size.value_or(5120);
  a.epoch_num = s.epoch_num.value_or(1);
  a.num_attention_heads = s.num_attention_heads.value_or(40);
  a.max_position_embeddings = s.max_position_embeddings.value_or(4096);
  a.vocab_size = 50257;
  a.num_experts = s.num_experts.value_or(1);
  a.gpu_type = s.gpu_type;  // "None" when absent
  a.ffn_hidden_size = s.ffn_hidden_size;
  if (s.moe_router_topk) a.moe_router_topk = *s.moe_router_topk;
  if (s.expert_model_parallel_size) a.expert_model_parallel_size = *s.expert_model_parallel_size;
  a.enable_sequence_parallel = s.sequence_parallel;
  a.aiob_enable = s.aiob;
  a.use_flash_attn = s.flash_attn;
  a.moe_grouped_gemm = s.grouped_gemm;
  a.recompute_activations = s.recompute;
  a.comp_filepath = s.comp_filepath;
  a.use_distributed_optimizer = true;

  // The preset case (lines 124-237) runs after option parsing and overwrites.
  detail::script_preset<aicb_script_args> preset{s, r};
  const auto deepseek = [&](const char* name, std::uint64_t layers, std::uint64_t hidden, std::uint64_t heads,
                            std::uint64_t f, std::uint64_t q_lora, std::uint64_t experts,
                            std::uint64_t shared, std::uint64_t dense) {
    preset.shape(name, layers, hidden, heads);
    preset.ffn(f);
    preset.tp(1);
    a.frame = "DeepSeek";
    a.moe_enable = true;
    a.q_lora_rank = q_lora;
    a.kv_lora_rank = 512;
    a.qk_nope_dim = 128;
    a.qk_rope_dim = 64;
    a.v_head_dim = 128;
    preset.set("num_experts", a.num_experts, experts, s.num_experts.has_value());
    a.n_shared_expert = shared;
    a.n_dense_layers = dense;
  };
  const std::string m = s.model_size.value_or("13");
  if (const detail::script_shape* row = detail::find_shape(detail::aicb_script_shapes, m)) {
    preset.apply(*row);
  } else if (m == "deepseek671") {
    deepseek("DeepSeek_671B", 61, 18432, 128, 2048, 1536, 256, 1, 3);
  } else if (m == "deepseek236") {
    deepseek("DeepSeek_236B", 60, 12288, 128, 1536, 1536, 160, 2, 1);
  } else if (m == "deepseek16") {
    deepseek("DeepSeek_16B", 27, 10944, 16, 1408, 0, 64, 2, 1);
  } else if (m == "deepseek") {
    r.preset = "DeepSeek";
    a.model_name = "DeepSeek";
    a.frame = "DeepSeek";
    a.moe_enable = true;
  } else {
    // "Only support model size 175, 22,13 or 7; using default size 13"
    r.fell_back = true;
    preset.shape("gpt_13B", 40, 5120, 40);
  }
  return r;
}

/// The options of aicb's `scripts/megatron_gpt.sh`, the front end of its CSV generator (those given
/// are set). Unlike megatron_workload_with_aiob.sh it counts GPUs as `--nnodes` × `--nproc_per_node`
/// (GPUs per node, taken from nvidia-smi when not given: none on a machine without a GPU), and it
/// always computes the global batch itself: 2 micro-batches × data-parallel size × micro batch, where
/// the data-parallel size comes from `--world_size` alone (0 when that is not given).
struct megatron_gpt_script_args {
  std::optional<std::string> model_size;  ///< -m / --model_size (default "13")
  std::optional<std::string> frame;
  std::optional<std::uint64_t> world_size, nnodes, nproc_per_node, tensor_model_parallel_size,
      pipeline_model_parallel, micro_batch, num_layers, seq_length, hidden_size, num_attention_heads,
      ffn_hidden_size, epoch_num, max_position_embeddings, num_experts, moe_router_topk,
      expert_model_parallel_size;
  bool sequence_parallel = false, aiob = false, flash_attn = false, swiglu = false, grouped_gemm = false,
       moe = false;
};

/// What aicb's megatron_gpt.sh passes to its CSV generator: its defaults, the options, the preset.
[[nodiscard]] inline aicb_script_result from_megatron_gpt_script(const megatron_gpt_script_args& s) {
  aicb_script_result r;
  aicb_args& a = r.args;
  a.frame = s.frame.value_or("Megatron");
  a.tensor_model_parallel_size = s.tensor_model_parallel_size.value_or(8);
  a.pipeline_model_parallel = s.pipeline_model_parallel.value_or(1);
  a.micro_batch = s.micro_batch.value_or(1);
  a.num_layers = s.num_layers.value_or(40);
  a.seq_length = s.seq_length.value_or(2048);
  a.hidden_size = s.hidden_size.value_or(5120);
  a.epoch_num = s.epoch_num.value_or(1);
  a.num_attention_heads = s.num_attention_heads.value_or(40);
  a.max_position_embeddings = s.max_position_embeddings.value_or(4096);
  a.vocab_size = 50257;
  a.num_experts = s.num_experts.value_or(1);
  a.ffn_hidden_size = s.ffn_hidden_size;
  if (s.moe_router_topk) a.moe_router_topk = *s.moe_router_topk;
  if (s.expert_model_parallel_size) a.expert_model_parallel_size = *s.expert_model_parallel_size;
  a.enable_sequence_parallel = s.sequence_parallel;
  a.aiob_enable = s.aiob;
  a.use_flash_attn = s.flash_attn;
  a.swiglu = s.swiglu;
  a.moe_enable = s.moe;
  a.moe_grouped_gemm = s.grouped_gemm;
  a.use_distributed_optimizer = true;
  detail::script_preset<megatron_gpt_script_args> preset{s, r};
  const std::string m = s.model_size.value_or("13");
  if (const detail::script_shape* row = detail::find_shape(detail::megatron_gpt_script_shapes, m)) {
    preset.apply(*row);
  } else {
    r.fell_back = true;
    preset.shape("gpt_13B", 40, 5120, 40);
  }
  const std::uint64_t tp = a.tensor_model_parallel_size;
  if (tp == 0 || a.pipeline_model_parallel == 0)
    AICB_THROW(config_error("tensor_model_parallel_size", std::to_string(tp),
                            "aicb's script fails here: it divides world_size by tp and pp"));
  const std::uint64_t dp = s.world_size.value_or(0) / tp / a.pipeline_model_parallel;
  a.global_batch = 2 * dp * a.micro_batch;
  a.world_size = s.nnodes.value_or(1) * s.nproc_per_node.value_or(0);
  return r;
}

AICB_END_NAMESPACE
