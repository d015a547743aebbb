// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb compatibility for inference: the SimAI file aliyun/aicb (commit 23eec3c) writes with its
/// `SimAI_inference_workload_generator` — reached through `scripts/inference_workload_with_aiob.sh`
/// (`-m deepseek-671B|qwen3-235B|qwen3-next-80B -p decode|prefill -s -b -w -t -e`) or directly
/// (`MODEL [CONFIG.json] --phase … --seq_length …`) — reproduced byte for byte on its path without
/// a profile, its defects included (docs/compatibility.md, "Inference"):
///
/// ```cpp
/// const aicb::aicb_inference_args a = aicb::parse_aicb_inference_script(
///     {"-m", "qwen3-235B", "-p", "decode", "-s", "1024", "-b", "32", "-w", "8", "-t", "1", "-e", "8"});
/// const aicb::aicb_inference_workload w(a);
/// std::string text = w.text();   // Qwen3-Moe-235B-world_size8-tp1-pp1-ep8-bs32-seq1024-decode.txt
/// ```
///
/// What aicb computes (m = the micro batch in decode, the sequence length in prefill; h the hidden
/// size, k the experts per token, t the TP size): a TP all-reduce of 2·m·h bytes after attention
/// (and after a dense MLP), none at t = 1; an EP all-to-all combine of ⌊2·m·h·k / t⌋ and a dispatch of
/// ⌊combine · 33/64⌋ (FP8 with a scale per 128 values, for every family); every compute time 1; the
/// pipeline's `pp_comm` 2·b·s·h when pp > 1. Where aicb fails (an unknown model, a world smaller than
/// TP or EP, a TP size DeepSeek's mock cannot divide by, no config for the generator's form, a
/// profile it would read), a config_error names the defect and nothing is written.

#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/io/simai_format.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The model families aicb's inference generator knows.
enum class aicb_inference_family : std::uint8_t { deepseek, qwen3_moe, qwen3_next };

/// What aicb's generator reads from a model's config (its JSON; the script's default JSONs are the
/// Hugging Face configs of DeepSeek-V3, Qwen3-235B-A22B and Qwen3-Next-80B-A3B).
struct aicb_inference_model {
  aicb_inference_family family = aicb_inference_family::deepseek;
  std::string name;                           ///< the class's fixed model_name ("DeepSeek-671B", …)
  std::uint64_t hidden_size = 0;              ///< h
  std::uint64_t num_layers = 0;               ///< num_hidden_layers
  std::uint64_t top_k = 0;                    ///< moe_router_topk, else num_experts_per_tok
  std::uint64_t first_dense_layers = 0;       ///< DeepSeek: first_k_dense_replace
  std::uint64_t shared_experts = 0;           ///< DeepSeek: n_shared_experts (records, not experts)
  std::uint64_t full_attention_interval = 0;  ///< Qwen3-Next: every n-th layer is full attention
};

/// The generator's arguments, as aicb's argparse reads them (its defaults), after the script's.
struct aicb_inference_args {
  std::string model;  ///< MODEL: the family is chosen by substring ("Qwen3-Moe", "Qwen3-Next", "DeepSeek")
  std::optional<aicb_inference_model> config;  ///< CONFIG.json's values (the script's default JSON)
  std::string phase = "decode";
  std::uint64_t seq_length = 1, micro_batch = 1, world_size = 1;
  std::uint64_t tensor_parallel = 1, expert_parallel = 1, pipeline_parallel = 1;
  bool aiob_enable = false;
  std::uint64_t aiob_forward_loops = 1;
  std::string moe_routing_strategy = "RoundRobin";
  std::string result_dir = "results/workload/";
};

/// The config of aicb's default JSON for a family (what `-m` selects in the script).
[[nodiscard]] inline aicb_inference_model aicb_inference_default_model(aicb_inference_family f) {
  switch (f) {
    case aicb_inference_family::deepseek:
      return {.family = f,
              .name = "DeepSeek-671B",
              .hidden_size = 7168,
              .num_layers = 61,
              .top_k = 8,
              .first_dense_layers = 3,
              .shared_experts = 1,
              .full_attention_interval = 0};
    case aicb_inference_family::qwen3_moe:
      return {.family = f,
              .name = "Qwen3-Moe-235B",
              .hidden_size = 4096,
              .num_layers = 94,
              .top_k = 8,
              .first_dense_layers = 0,
              .shared_experts = 0,
              .full_attention_interval = 0};
    case aicb_inference_family::qwen3_next:
      return {.family = f,
              .name = "Qwen3-Next-80B",
              .hidden_size = 2048,
              .num_layers = 48,
              .top_k = 10,
              .first_dense_layers = 0,
              .shared_experts = 0,
              .full_attention_interval = 4};
  }
  return {};
}

/// The family aicb chooses for MODEL: the first of "Qwen3-Moe", "Qwen3-Next", "DeepSeek" it contains.
[[nodiscard]] inline std::optional<aicb_inference_family> aicb_inference_family_of(std::string_view model) {
  if (model.find("Qwen3-Moe") != std::string_view::npos) return aicb_inference_family::qwen3_moe;
  if (model.find("Qwen3-Next") != std::string_view::npos) return aicb_inference_family::qwen3_next;
  if (model.find("DeepSeek") != std::string_view::npos) return aicb_inference_family::deepseek;
  return std::nullopt;
}

namespace detail {

inline std::uint64_t inference_number(std::string_view flag, std::string_view text) {
  std::uint64_t n = 0;
  if (text.empty()) AICB_THROW(config_error(std::string(flag), std::string(text), "expected a whole number"));
  for (const char c : text) {
    if (c < '0' || c > '9' || n > (~std::uint64_t{0} - 9) / 10)
      AICB_THROW(config_error(std::string(flag), std::string(text), "expected a whole number"));
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

// The generator's options (argparse, G:271-289), by name; `script` adds the script's short flags.
inline void parse_inference_options(aicb_inference_args& a, const std::vector<std::string>& argv,
                                    std::size_t from, bool script, std::vector<std::string>& positional) {
  for (std::size_t i = from; i < argv.size(); ++i) {
    std::string flag = argv[i], value;
    bool has_value = false;
    if (const std::size_t eq = flag.find('='); flag.starts_with("--") && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
      has_value = true;
    }
    const auto take = [&]() -> const std::string& {
      if (!has_value) {
        if (i + 1 >= argv.size())
          AICB_THROW(config_error(flag, "(none)", "expects a value (aicb's argparse exits with an error)"));
        value = argv[++i];
      }
      return value;
    };
    const auto is = [&](std::initializer_list<std::string_view> names) {
      for (const std::string_view n : names)
        if (flag == n) return true;
      return false;
    };
    if (!flag.starts_with("-")) {
      positional.push_back(flag);
    } else if (script && is({"-m"})) {
      a.model = take();
    } else if (is({"--phase"}) || (script && is({"-p"}))) {
      a.phase = take();
    } else if (is({"--seq_length"}) || (script && is({"-s"}))) {
      a.seq_length = inference_number(flag, take());
    } else if (is({"--micro_batch"}) || (script && is({"-b"}))) {
      a.micro_batch = inference_number(flag, take());
    } else if (is({"--world_size"}) || (script && is({"-w"}))) {
      a.world_size = inference_number(flag, take());
    } else if (is({"--tensor_model_parallel_size"}) || (script && is({"-t"}))) {
      a.tensor_parallel = inference_number(flag, take());
    } else if (is({"--expert_model_parallel_size"}) || (script && is({"-e"}))) {
      a.expert_parallel = inference_number(flag, take());
    } else if (is({"--pipeline_model_parallel"})) {
      a.pipeline_parallel = inference_number(flag, take());
    } else if (is({"--moe_enable"})) {
      // store_true with a default of True: it cannot be switched off (G:285).
    } else if (is({"--aiob_enable"})) {
      a.aiob_enable = true;
    } else if (is({"--aiob_forward_loops"})) {
      a.aiob_forward_loops = inference_number(flag, take());
    } else if (is({"--moe_routing_strategy"})) {
      a.moe_routing_strategy = take();
      if (a.moe_routing_strategy != "RoundRobin" && a.moe_routing_strategy != "UniformRandom")
        AICB_THROW(config_error(flag, a.moe_routing_strategy, "expected RoundRobin | UniformRandom"));
    } else if (is({"--result_dir"})) {
      a.result_dir = take();
    } else {
      AICB_THROW(config_error(
          flag, has_value ? value : "(flag)",
          script ? "not an option of aicb's inference script (which silently stops parsing at the first "
                   "unknown option: what follows it would be ignored); its options: -m -p -s -b -w -t -e and "
                   "the generator's --phase, --seq_length, … spelled with underscores"
                 : "not an option of aicb's inference generator (its argparse exits with an error)"));
    }
  }
  if (a.phase != "decode" && a.phase != "prefill")
    AICB_THROW(config_error("phase", a.phase, "expected decode | prefill"));
}

}  // namespace detail

/// aicb's inference script's command line (the arguments after the script's name), with the
/// script's defaults: decode, sequence 1024, batch 32, 8 GPUs, TP 1, EP 8, PP 1, and `-m` choosing
/// the model and its default config (SH:3-15, 129-145).
[[nodiscard]] inline aicb_inference_args parse_aicb_inference_script(const std::vector<std::string>& argv) {
  aicb_inference_args a{.model = "deepseek-671B",
                        .config = std::nullopt,
                        .phase = "decode",
                        .seq_length = 1024,
                        .micro_batch = 32,
                        .world_size = 8,
                        .tensor_parallel = 1,
                        .expert_parallel = 8,
                        .pipeline_parallel = 1,
                        .aiob_enable = false,
                        .aiob_forward_loops = 10};
  std::vector<std::string> positional;
  detail::parse_inference_options(a, argv, 0, true, positional);
  if (!positional.empty())
    AICB_THROW(config_error("argument", positional.front(),
                            "aicb's inference script takes options only (-m MODEL, -p PHASE, …)"));
  std::optional<aicb_inference_family> f;
  if (a.model == "deepseek-671B") f = aicb_inference_family::deepseek;
  if (a.model == "qwen3-235B") f = aicb_inference_family::qwen3_moe;
  if (a.model == "qwen3-next-80B") f = aicb_inference_family::qwen3_next;
  if (!f)
    AICB_THROW(config_error("-m", a.model,
                            "aicb's inference script knows deepseek-671B, qwen3-235B, qwen3-next-80B"));
  a.config = aicb_inference_default_model(*f);
  a.model = a.config->name;
  return a;
}

/// aicb's inference generator's command line (`MODEL [CONFIG] --phase …`); `config` is what the
/// caller read from CONFIG.json when one is given (aicb::aicb_inference_model's fields).
[[nodiscard]] inline aicb_inference_args parse_aicb_inference_generator(
    const std::vector<std::string>& argv, std::optional<aicb_inference_model> config) {
  aicb_inference_args a;
  std::vector<std::string> positional;
  detail::parse_inference_options(a, argv, 0, false, positional);
  if (positional.empty())
    AICB_THROW(config_error("MODEL", "(none)", "aicb's inference generator needs the model name first"));
  if (positional.size() > 2)
    AICB_THROW(config_error("argument", positional[2], "the generator takes MODEL and CONFIG only"));
  a.model = positional[0];
  a.config = std::move(config);
  return a;
}

/// aicb's inference workload for `args`. See the file comment.
class aicb_inference_workload {
 public:
  explicit aicb_inference_workload(aicb_inference_args args) : a_(std::move(args)) {
    const auto family = aicb_inference_family_of(a_.model);
    if (!family)
      AICB_THROW(
          config_error("MODEL", a_.model,
                       "aicb's inference generator exits: the name must contain Qwen3-Moe, Qwen3-Next or "
                       "DeepSeek"));
    if (!a_.config)
      AICB_THROW(
          config_error("CONFIG", "(none)",
                       "aicb's generator has no model defaults without a CONFIG.json and fails; give one, "
                       "or use the script's -m, which passes aicb's default config"));
    m_ = *a_.config;
    m_.family = *family;
    m_.name = aicb_inference_default_model(*family).name;  // the class fixes the name, whatever MODEL says
    if (m_.hidden_size == 0 || m_.num_layers == 0 || m_.top_k == 0)
      AICB_THROW(
          config_error("CONFIG", m_.name, "needs hidden_size, num_hidden_layers and the experts per token"));
    if (a_.world_size < a_.tensor_parallel || a_.world_size < a_.expert_parallel || a_.tensor_parallel == 0 ||
        a_.expert_parallel == 0 || a_.pipeline_parallel == 0)
      AICB_THROW(config_error("world_size", std::to_string(a_.world_size),
                              "aicb asserts world_size >= tensor_model_parallel_size and >= "
                              "expert_model_parallel_size (MockedModel)"));
    if (m_.family == aicb_inference_family::deepseek && 256 % a_.tensor_parallel != 0)
      AICB_THROW(
          config_error("tensor_model_parallel_size", std::to_string(a_.tensor_parallel),
                       "aicb's DeepSeek mock asserts that TP divides 129280, 24576, 16384, 4096 and 2048 "
                       "(TP a power of two up to 256)"));
    if (a_.aiob_enable)
      AICB_THROW(config_error("aiob_enable", "true",
                              "aicb times its inference kernels on a Hopper GPU with its own PyTorch code; "
                              "not reproduced (use the corrected mode's compute models)"));
    const std::uint64_t m = a_.phase == "decode" ? a_.micro_batch : a_.seq_length;
    tp_comm_ = checked_mul(checked_mul(2, m, "2 x tokens"), m_.hidden_size, "2 x tokens x hidden_size");
    combine_ = checked_mul(tp_comm_, m_.top_k, "the EP combine's bytes") / a_.tensor_parallel;
    // int(combine * 0.515625), in Python's doubles as aicb computes it.
    dispatch_ = static_cast<std::uint64_t>(static_cast<double>(combine_) * 0.515625);
    if (a_.pipeline_parallel > 1)
      pp_comm_ = checked_mul(checked_mul(checked_mul(2, a_.micro_batch, "pp_comm"), a_.seq_length, "pp_comm"),
                             m_.hidden_size, "pp_comm");
    if (pp_comm_ > simai_max_int)
      warnings_.push_back(
          "pp_comm " + std::to_string(pp_comm_) +
          " is beyond what SimAI reads from a header (std::stoi, 2147483647): SimAI aborts on "
          "this file, as on aicb's");
  }

  /// aicb's file name: `{model_name}-world_size{W}-tp{t}-pp{p}-ep{e}-bs{b}-seq{s}-{phase}.txt`.
  [[nodiscard]] std::string file_name() const {
    return m_.name + "-world_size" + std::to_string(a_.world_size) + "-tp" +
           std::to_string(a_.tensor_parallel) + "-pp" + std::to_string(a_.pipeline_parallel) + "-ep" +
           std::to_string(a_.expert_parallel) + "-bs" + std::to_string(a_.micro_batch) + "-seq" +
           std::to_string(a_.seq_length) + "-" + a_.phase + ".txt";
  }
  /// The header line aicb writes (its key order, with `mode: 1`, differs from training's).
  [[nodiscard]] std::string header_line() const {
    return "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: " + std::to_string(a_.tensor_parallel) +
           " ep: " + std::to_string(a_.expert_parallel) + " pp: " + std::to_string(a_.pipeline_parallel) +
           " all_gpus: " + std::to_string(a_.world_size) +
           " mode: 1 vpp: 1 ga: 1 checkpoints: 0 checkpoint_initiates: 0 pp_comm: " +
           std::to_string(pp_comm_);
  }
  /// Records per file.
  [[nodiscard]] std::uint64_t records() const {
    switch (m_.family) {
      case aicb_inference_family::deepseek: {
        const std::uint64_t dense = std::min(m_.first_dense_layers, m_.num_layers);
        return 2 * dense + (m_.num_layers - dense) * (3 + m_.shared_experts);
      }
      default:
        return 5 * m_.num_layers;
    }
  }
  /// The whole file.
  [[nodiscard]] std::string text() const {
    std::string out = header_line();
    out.append("\n").append(std::to_string(records())).append("\n");
    const auto record = [&](std::string_view name, std::string_view comm, std::uint64_t bytes, bool expert) {
      const char* tab = "\t";
      out.append(name).append(tab).append("-1").append(tab).append("1").append(tab);
      out.append(comm).append(tab).append(std::to_string(bytes)).append(tab).append(expert ? "1" : "0");
      out.append(tab).append("NONE\t0\t").append(expert ? "1" : "0").append("\tNONE\t0\t100\n");
    };
    const bool tp = a_.tensor_parallel > 1;  // at t = 1 the TP all-reduces are NONE 0 (G:141-144)
    const auto attention = [&](std::string_view name) {
      record(name, tp ? "ALLREDUCE" : "NONE", tp ? tp_comm_ : 0, false);
    };
    const auto experts = [&] {
      record("moe_route", "ALLTOALL_EP", dispatch_, true);
      record("moe_expert", "ALLTOALL_EP", combine_, true);
    };
    for (std::uint64_t i = 0; i < m_.num_layers; ++i) {
      switch (m_.family) {
        case aicb_inference_family::deepseek:
          attention("attention_layer");
          if (i < m_.first_dense_layers) {
            attention("dense_mlp");
            break;
          }
          for (std::uint64_t s = 0; s < m_.shared_experts; ++s)
            record("shared_experts", "NONE", 0, false);
          experts();
          break;
        case aicb_inference_family::qwen3_moe:
        case aicb_inference_family::qwen3_next: {
          record("attention_norm", "NONE", 0, false);
          const bool linear = m_.family == aicb_inference_family::qwen3_next &&
                              m_.full_attention_interval > 0 && (i + 1) % m_.full_attention_interval != 0;
          attention(linear ? "attention_gdn" : "attention_layer");
          record("moe_norm", "NONE", 0, false);
          experts();
          break;
        }
      }
    }
    return out;
  }

  [[nodiscard]] const aicb_inference_args& args() const noexcept { return a_; }
  /// What aicb writes without a word and SimAI will misread.
  [[nodiscard]] const std::vector<std::string>& warnings() const noexcept { return warnings_; }
  [[nodiscard]] const aicb_inference_model& model() const noexcept { return m_; }
  /// Bytes of the TP all-reduce, the EP dispatch and combine, and the header's pp_comm.
  [[nodiscard]] std::uint64_t tp_comm() const noexcept { return tp_comm_; }
  [[nodiscard]] std::uint64_t dispatch() const noexcept { return dispatch_; }
  [[nodiscard]] std::uint64_t combine() const noexcept { return combine_; }
  [[nodiscard]] std::uint64_t pp_comm() const noexcept { return pp_comm_; }

 private:
  aicb_inference_args a_;
  aicb_inference_model m_;
  std::uint64_t tp_comm_ = 0, combine_ = 0, dispatch_ = 0, pp_comm_ = 0;
  std::vector<std::string> warnings_;
};

AICB_END_NAMESPACE
