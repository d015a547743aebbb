// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb's generator flags — those of `SimAI_training_workload_generator.py`, with the conveniences of
/// its shell scripts (`-m`, `--tp`, `--pp`, `--sp`, `--ep`, `--aiob`, `--topk`, …) folded in as
/// spellings — as data: each flag's canonical name, the spellings accepted, whether it is a switch,
/// and the descriptor field it sets in the corrected mode. The command line registers them from this
/// table; aicb::aicb_flag_values holds what was given; aicb::aicb_args_from_flags and
/// aicb::megatron_args_from_flags turn them into aicb's own argument sets, as aicb's scripts would.
///
/// ```cpp
/// aicb::aicb_flag_values flags;
/// flags.set("world_size", "16");
/// flags.set("tensor_model_parallel_size", "2");
/// std::vector<std::string> notes;
/// const aicb::aicb_args args = aicb::aicb_args_from_flags(flags, "", notes);   // aicb's defaults for the
/// rest
/// ```

#include <aicb/compat/aicb_args.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <array>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

AICB_BEGIN_NAMESPACE

/// One of aicb's generator flags.
struct aicb_flag {
  std::string_view name;       ///< canonical (aicb's) name: the key in aicb_flag_values
  std::string_view spellings;  ///< comma-separated, as CLI11 takes them: aicb's, dashed, the scripts'
  bool is_switch;              ///< takes no value ("true" when given)
  std::string_view field;      ///< the descriptor field it sets in the corrected mode ("" for none)
  std::string_view help;
};

/// aicb's generator flags, the scripts' conveniences folded in as spellings.
inline constexpr aicb_flag aicb_flags[] = {
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

/// True when `spelling` ("--tp", "--world_size") is one of aicb's flags' spellings: a front end
/// that also offers the descriptors' own names offers them only where they do not clash.
[[nodiscard]] constexpr bool is_aicb_spelling(std::string_view spelling) {
  for (const aicb_flag& flag : aicb_flags)
    for (std::string_view rest = flag.spellings; !rest.empty();) {
      const std::size_t comma = rest.find(',');
      if (rest.substr(0, comma) == spelling) return true;
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
  return false;
}

/// aicb's flags as given: canonical name to text ("true" or "false" for a switch). A name that is
/// not one of aicb_flags is refused.
class aicb_flag_values {
 public:
  /// Records `text` for flag `name` (an empty text means "not given").
  void set(std::string_view name, std::string text) {
    if (!find(name)) AICB_THROW(config_error(std::string(name), text, "not one of aicb's generator flags"));
    values_[std::string(name)] = std::move(text);
  }
  /// Given, with a value.
  [[nodiscard]] bool given(std::string_view name) const {
    const auto it = values_.find(std::string(name));
    return it != values_.end() && !it->second.empty();
  }
  /// A switch that is given and not false.
  [[nodiscard]] bool on(std::string_view name) const {
    return given(name) && text(name) != "false" && text(name) != "0";
  }
  /// The text given ("" when not given).
  [[nodiscard]] const std::string& text(std::string_view name) const {
    static const std::string none;
    const auto it = values_.find(std::string(name));
    return it == values_.end() ? none : it->second;
  }
  /// The value as a non-negative integer; config_error naming the flag when it is not one.
  [[nodiscard]] std::uint64_t number(std::string_view name) const {
    const std::string& t = text(name);
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (t.empty() || error != std::errc{} || end != t.data() + t.size())
      AICB_THROW(config_error(std::string(name), t, "expected a non-negative integer"));
    return value;
  }
  /// The value as a number, when given.
  [[nodiscard]] std::optional<std::uint64_t> optional_number(std::string_view name) const {
    return given(name) ? std::optional<std::uint64_t>(number(name)) : std::nullopt;
  }
  /// The value as text, when given.
  [[nodiscard]] std::optional<std::string> optional_text(std::string_view name) const {
    return given(name) ? std::optional<std::string>(text(name)) : std::nullopt;
  }

  /// The flag called `name`, if aicb has one.
  [[nodiscard]] static const aicb_flag* find(std::string_view name) noexcept {
    for (const aicb_flag& f : aicb_flags)
      if (f.name == name) return &f;
    return nullptr;
  }

 private:
  std::map<std::string, std::string> values_;
};

namespace detail {

// The numeric options both of aicb's shell scripts read.
template <class ScriptArgs>
void read_script_numbers(const aicb_flag_values& f, ScriptArgs& s) {
  s.world_size = f.optional_number("world_size");
  s.tensor_model_parallel_size = f.optional_number("tensor_model_parallel_size");
  s.pipeline_model_parallel = f.optional_number("pipeline_model_parallel");
  s.micro_batch = f.optional_number("micro_batch");
  s.num_layers = f.optional_number("num_layers");
  s.seq_length = f.optional_number("seq_length");
  s.hidden_size = f.optional_number("hidden_size");
  s.num_attention_heads = f.optional_number("num_attention_heads");
  s.ffn_hidden_size = f.optional_number("ffn_hidden_size");
  s.epoch_num = f.optional_number("epoch_num");
  s.max_position_embeddings = f.optional_number("max_position_embeddings");
  s.num_experts = f.optional_number("num_experts");
  s.moe_router_topk = f.optional_number("moe_router_topk");
  s.expert_model_parallel_size = f.optional_number("expert_model_parallel_size");
}

inline void script_notes(const aicb_script_result& r, const std::string& fallback,
                         std::vector<std::string>& notes) {
  if (r.fell_back) notes.push_back(fallback);
  for (const std::string& change : r.overridden)
    notes.push_back("aicb: preset " + r.preset + " overrides " + change + " (aicb's script ignores it)");
}

}  // namespace detail

/// aicb's SimAI generator arguments from its flags, aicb's defaults for what is not given. With a
/// `model_size` (`-m`), as aicb's `megatron_workload_with_aiob.sh` builds them: its preset, which
/// overrides dimensions given beside it (each override a note).
[[nodiscard]] inline aicb_args aicb_args_from_flags(const aicb_flag_values& f, const std::string& model_size,
                                                    std::vector<std::string>& notes) {
  if (!model_size.empty()) {
    aicb_script_args s;
    s.model_size = model_size;
    detail::read_script_numbers(f, s);
    s.global_batch = f.optional_number("global_batch");
    s.frame = f.optional_text("frame");
    s.gpu_type = f.optional_text("gpu_type");
    s.comp_filepath = f.optional_text("comp_filepath");
    s.sequence_parallel = f.on("enable_sequence_parallel");
    s.aiob = f.on("aiob_enable");
    s.flash_attn = f.on("use_flash_attn");
    s.grouped_gemm = f.on("moe_grouped_gemm");
    s.recompute = f.on("recompute_activations");
    const aicb_script_result r = from_aicb_script(s);
    detail::script_notes(
        r, "aicb: model size " + model_size + " is not one of aicb's presets; aicb uses gpt_13B (as here)",
        notes);
    return r.args;
  }
  aicb_args a;
  if (f.given("frame")) a.frame = f.text("frame");
  if (f.given("gpu_type")) a.gpu_type = f.text("gpu_type");
  const auto set_u = [&](std::string_view name, std::uint64_t& field) {
    if (f.given(name)) field = f.number(name);
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
  a.ffn_hidden_size = f.optional_number("ffn_hidden_size");
  a.num_attention_heads = f.optional_number("num_attention_heads");
  a.model_name = f.optional_text("model_name");
  a.comp_filepath = f.optional_text("comp_filepath");
  if (f.given("dtype")) a.dtype = f.text("dtype");
  a.add_bias_linear = f.on("add_bias_linear");
  a.use_flash_attn = f.on("use_flash_attn");
  a.swiglu = f.on("swiglu");
  a.enable_sequence_parallel = f.on("enable_sequence_parallel");
  a.use_distributed_optimizer = f.on("use_distributed_optimizer");
  a.moe_enable = f.on("moe_enable");
  a.moe_grouped_gemm = f.on("moe_grouped_gemm");
  a.aiob_enable = f.on("aiob_enable");
  a.recompute_activations = f.on("recompute_activations");
  return a;
}

/// aicb's CSV (physical-cluster) arguments from its flags. With a `model_size`, as aicb's
/// `megatron_gpt.sh` builds them from its presets and its GPU count (`nnodes` x `nproc_per_node`);
/// otherwise as aicb_args_from_flags.
[[nodiscard]] inline aicb_args megatron_args_from_flags(const aicb_flag_values& f,
                                                        const std::string& model_size,
                                                        std::optional<std::uint64_t> nnodes,
                                                        std::optional<std::uint64_t> nproc_per_node,
                                                        std::vector<std::string>& notes) {
  aicb_args args;
  if (!model_size.empty()) {
    megatron_gpt_script_args s;
    s.model_size = model_size;
    detail::read_script_numbers(f, s);
    s.nproc_per_node = nproc_per_node;
    s.nnodes = nnodes;
    s.frame = f.optional_text("frame");
    s.sequence_parallel = f.on("enable_sequence_parallel");
    s.aiob = f.on("aiob_enable");
    s.flash_attn = f.on("use_flash_attn");
    s.swiglu = f.on("swiglu");
    s.moe = f.on("moe_enable");
    s.grouped_gemm = f.on("moe_grouped_gemm");
    if (f.given("global_batch"))
      notes.push_back(
          "aicb: megatron_gpt.sh ignores --global_batch; it uses 2 x data-parallel size x micro batch");
    const aicb_script_result r = from_megatron_gpt_script(s);
    detail::script_notes(
        r, "aicb: model size " + model_size + " is not one of the script's presets; it uses gpt_13B", notes);
    args = r.args;
  } else {
    args = aicb_args_from_flags(f, model_size, notes);
  }
  args.computation_enable = f.on("computation_enable");
  if (f.given("pp_rank"))
    args.pp_rank = f.text("pp_rank") == "-1" ? -1 : static_cast<std::int64_t>(f.number("pp_rank"));
  return args;
}

AICB_END_NAMESPACE
