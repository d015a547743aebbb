// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::job_request — a job as a person describes it: where the model comes from (one of a preset,
/// a Hugging Face config.json, or a parameter count) and the fields they set on top, by name, as
/// text. aicb::build_job turns it into a job_spec, the same way for every caller (the command line's
/// subcommands and library users alike):
///
/// 1. the model source: `model` is a preset key (`aicb models`), one of aicb's own model names
///    (`7 13 22 175` its GPT shapes, `65 405 moe deepseek671 deepseek236 deepseek16` the real models
///    they stand for) or a parameter count (`15`, `15B`, `1.3B`, `350M`: a bare number is billions);
///    `hf_config` a config.json; `size` a parameter count — at most one of the three;
/// 2. every field of `fields`, in order (model, parallel and batch fields by their names; an unknown
///    name is an error that suggests the nearest);
/// 3. for a parameter count, the standard shape of `family` closest to it, chosen last so that it
///    fits the fields given (activation, vocabulary, sequence length) — and named for its size unless
///    a name was given.
///
/// The job is not validated here (aicb::validate does that): a request may describe part of a job
/// that other code completes.
///
/// ```cpp
/// aicb::job_request r{.model = "llama3-70b", .fields = {{"world_size", "64"}, {"tensor_parallel", "8"}}};
/// aicb::job_spec job = aicb::build_job(r).job;
/// ```

#include <aicb/calc/params.hpp>
#include <aicb/calc/sizing.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/edit_distance.hpp>
#include <aicb/error.hpp>
#include <aicb/model/hf_config.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/model/reflect.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// A job as described: a model source and fields by name. See the file comment.
struct job_request {
  std::string model{};              ///< a preset key, one of aicb's model names, or a parameter count
  std::string hf_config{};          ///< a Hugging Face config.json to import
  bool allow_unknown_keys = false;  ///< accept config.json keys aicb does not know
  std::string size{};               ///< a parameter count (15B, 1.3B, 350M)
  std::string family = "llama";     ///< the family of a shape chosen by size: gpt | llama
  /// Field names and values as text (`hidden_size` = `5120`), applied in order after the model.
  std::vector<std::pair<std::string, std::string>> fields{};
};

/// The command line's short names for job fields (in the spirit of aicb's shell scripts), each for
/// one field: `--tp 2` is `--tensor-parallel 2`. A job set's jobs take them too.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 9> job_field_aliases{{
    {"tp", "tensor_parallel"},
    {"pp", "pipeline_parallel"},
    {"ep", "expert_parallel"},
    {"cp", "context_parallel"},
    {"vpp", "virtual_pipeline"},
    {"sp", "sequence_parallel"},
    {"mbs", "micro_batch"},
    {"gbs", "global_batch"},
    {"seq", "seq_length"},
}};

/// The field a flag names, as the command line spells it: "--hidden-size", "hidden_size" and
/// "tp" all name their field ("hidden_size", "tensor_parallel"); other names come back as written,
/// dashes made underscores.
[[nodiscard]] inline std::string job_field_of_flag(std::string_view flag) {
  while (flag.starts_with("-"))
    flag.remove_prefix(1);
  for (const auto& [alias, field] : job_field_aliases)
    if (alias == flag) return std::string(field);
  std::string name(flag);
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

/// The job a request describes, and what build_job decided on the user's behalf (one line each).
struct built_job {
  job_spec job;
  std::vector<std::string> notes;
};

namespace detail {

// aicb's model names (its shell scripts' -m): the GPT shapes stay aicb's; the others are the real
// models they are named after.
[[nodiscard]] inline const model_spec* aicb_model_name(std::string_view name) {
  static const std::pair<std::string_view, model_spec> names[] = {{"7", presets::aicb_gpt_7b},
                                                                  {"13", presets::aicb_gpt_13b},
                                                                  {"22", presets::aicb_gpt_22b},
                                                                  {"175", presets::aicb_gpt_175b},
                                                                  {"65", presets::llama_65b},
                                                                  {"405", presets::llama3_1_405b},
                                                                  {"moe", presets::mixtral_8x7b},
                                                                  {"deepseek671", presets::deepseek_v3},
                                                                  {"deepseek236", presets::deepseek_v2},
                                                                  {"deepseek16", presets::deepseek_v2_lite}};
  for (const auto& [key, model] : names)
    if (key == name) return &model;
  return nullptr;
}

// A parameter count as written after -m: "15", "15B", "1.3b", "350M".
[[nodiscard]] inline bool looks_like_size(std::string_view text) {
  if (text.empty() || (text.front() < '0' || text.front() > '9')) return false;
  const char last = text.back();
  const std::string_view digits =
      last == 'B' || last == 'b' || last == 'M' || last == 'm' ? text.substr(0, text.size() - 1) : text;
  return !digits.empty() && digits.find_first_not_of("0123456789.") == std::string_view::npos;
}

}  // namespace detail

/// Where a request's model comes from: the model, and for a parameter count the target (the shape is
/// chosen by fit_size once the job's other fields are known).
struct model_choice {
  model_spec model;                   ///< the preset or import; for a size, the family's template
  std::optional<std::uint64_t> size;  ///< the parameter count asked for
  std::string size_text;              ///< as written
};

/// Step 1 of build_job: the model source of `request`. Throws as build_job.
[[nodiscard]] inline model_choice select_model(const job_request& request) {
  model_choice out;
  const int sources = !request.model.empty() + !request.hf_config.empty() + !request.size.empty();
  if (sources > 1)
    AICB_THROW(config_error("model", request.model + request.hf_config + request.size,
                            "give only one model source: a model (preset, aicb name or size), a "
                            "config.json, or a size"));
  out.size_text = request.size;
  if (!request.model.empty()) {
    if (const preset* p = find_preset(request.model)) {
      out.model = p->model;
    } else if (const model_spec* m = detail::aicb_model_name(request.model)) {
      out.model = *m;
    } else if (detail::looks_like_size(request.model)) {
      const char last = request.model.back();
      out.size_text = last >= '0' && last <= '9' ? request.model + "B" : request.model;
    } else {
      std::vector<std::string_view> keys;
      for (const auto& p : all_presets)
        keys.push_back(p.key);
      const std::string_view near = detail::nearest(request.model, keys);
      AICB_THROW(config_error(
          "model", request.model,
          "unknown model" + (near.empty() ? std::string() : "; did you mean " + std::string(near) + "?") +
              " (`aicb models` lists the presets; a number is a size in billions)"));
    }
  } else if (!request.hf_config.empty()) {
    out.model = load_hf_config(request.hf_config, {request.allow_unknown_keys}).model;
  }
  if (!out.size_text.empty()) {
    const auto family = from_string<model_family>(request.family);
    if (!family) AICB_THROW(config_error("family", request.family, "expected gpt | llama"));
    out.size = parse_param_count(out.size_text);
    out.model = family_template(*family);
  }
  return out;
}

/// Step 3 of build_job: for a size, the standard shape of `family` closest to it, for the job as its
/// fields describe it. Returns the note that says what was chosen (empty when no size was asked).
[[nodiscard]] inline std::string fit_size(job_spec& job, const model_choice& choice,
                                          std::string_view family) {
  if (!choice.size) return {};
  const spec_name given = job.model.name;
  job.model = shape_for_size(job.model, *choice.size, job.batch.seq_length);
  const std::uint64_t count = count_params(job.model, job.batch.seq_length).total();
  job.model.name = given.empty() ? shape_name(family, count) : given;
  return "size " + choice.size_text + ": the standard " + std::string(family) + " shape " +
         std::string(shape_name(family, count).view()) + ", " + std::to_string(job.model.num_layers) +
         " layers x hidden " + std::to_string(job.model.hidden_size) + ", " + std::to_string(count) +
         " parameters as this job has them (" + std::string(to_string(job.model.activation)) +
         ", vocabulary " + std::to_string(job.model.vocab_size) + ")";
}

/// A job field set by name from text (model, parallel or batch). Throws config_error for an unknown
/// name (suggesting the nearest) or a bad value.
inline void set_job_field(job_spec& job, const std::string& field, const std::string& text) {
  if (set_field(job.model, field, text) || set_field(job.parallel, field, text) ||
      set_field(job.batch, field, text))
    return;
  std::vector<std::string_view> names;
  for (auto f : field_names<model_spec>())
    names.push_back(f);
  for (auto f : field_names<parallel_spec>())
    names.push_back(f);
  for (auto f : field_names<batch_spec>())
    names.push_back(f);
  const std::string_view near = detail::nearest(field, names);
  AICB_THROW(config_error(field, text,
                          "no such field of a job" +
                              (near.empty() ? std::string() : "; did you mean " + std::string(near) + "?")));
}

/// The job `request` describes (not validated). Throws config_error for an unknown model or field, a
/// bad value, or more than one model source; io_error / parse_error for a config.json it cannot use.
[[nodiscard]] inline built_job build_job(const job_request& request) {
  built_job out;
  const model_choice choice = select_model(request);
  out.job.model = choice.model;
  for (const auto& [field, text] : request.fields)
    set_job_field(out.job, field, text);
  if (std::string note = fit_size(out.job, choice, request.family); !note.empty())
    out.notes.push_back(std::move(note));
  return out;
}

AICB_END_NAMESPACE
