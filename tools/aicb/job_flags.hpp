// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Command-line flags for a job, derived from the descriptors' field lists: every field of
// model_spec, parallel_spec and batch_spec is a flag (`--hidden-size`, also `--hidden_size`), with
// the field's help text. A model comes from a preset or size (--model), a Hugging Face config.json
// (--hf-config), a target size (--size with --family) or from the flags alone; explicit flags
// always win over the preset (aicb::build_job), and the resolved job is what the tool prints.
#pragma once

#include <aicb/calc/job_request.hpp>
#include <aicb/calc/sizing.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/reflect.hpp>

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aicb_tool {

/// True when field `name` of T is a bool: its flag takes no value (`--sequence-parallel`), though
/// `--sequence-parallel=false` still works.
template <class T>
bool is_bool_field(std::string_view name) {
  bool is_bool = false;
  const T sample{};
  aicb::for_each_field(sample, [&](std::string_view n, const auto& v) {
    if (n == name) is_bool = std::is_same_v<std::remove_cvref_t<decltype(v)>, bool>;
  });
  return is_bool;
}

class job_flags {
 public:
  /// Adds the job flags to `app`.
  void add_to(CLI::App& app) {
    app.add_option("-m,--model", model_,
                   "start from a preset (`aicb models`), one of aicb's model names (7 13 22 175 65 405 moe "
                   "deepseek671 deepseek236 deepseek16) or a size (15 = 15B)");
    app.add_option("--hf-config", hf_config_, "start from a Hugging Face config.json");
    app.add_flag("--allow-unknown-keys", allow_unknown_keys_, "accept config.json keys aicb does not know");
    app.add_option("--size", size_, "start from a standard shape of this many parameters (e.g. 15B)");
    app.add_option("--family", family_, "family of the --size shape: gpt | llama")->capture_default_str();
    add_fields<aicb::model_spec>(app, "model");
    add_fields<aicb::parallel_spec>(app, "parallel layout");
    add_fields<aicb::batch_spec>(app, "batch");
  }

  /// The request the flags make: the model source and every field given, in field order.
  [[nodiscard]] aicb::job_request request() const {
    aicb::job_request r;
    r.model = model_;
    r.hf_config = hf_config_;
    r.allow_unknown_keys = allow_unknown_keys_;
    r.size = size_;
    r.family = family_;
    for (const auto& [field, text] : values_)
      if (!text.empty()) r.fields.emplace_back(field, text);
    return r;
  }
  /// Refuses flags that name no model at all — no --model, --hf-config or --size, and none of a
  /// model's fields — for the commands that have no default model (the message a user needs is
  /// this one, not that hidden_size is 0).
  void require_model() const {
    if (!model_.empty() || !hf_config_.empty() || !size_.empty()) return;
    for (std::string_view name : aicb::field_names<aicb::model_spec>())
      if (const auto it = values_.find(std::string(name)); it != values_.end() && !it->second.empty()) return;
    throw aicb::config_error("model", "(none)",
                             "no model given: name one with --model (`aicb models` lists them), "
                             "--hf-config or --size, or give its fields (--hidden-size, --num-layers, ...)");
  }
  /// Whether any of the flags was given (a model source or a field).
  [[nodiscard]] bool any_given() const {
    if (!model_.empty() || !hf_config_.empty() || !size_.empty()) return true;
    for (const auto& [name, text] : values_)
      if (!text.empty()) return true;
    return false;
  }
  /// The job the flags describe (not yet validated), with what was decided for the user.
  [[nodiscard]] aicb::built_job built() const { return aicb::build_job(request()); }
  [[nodiscard]] aicb::job_spec job() const { return built().job; }

 private:
  template <class T>
  void add_fields(CLI::App& app, const std::string& group) {
    for (std::string_view name : aicb::field_names<T>()) {
      std::string flags = "--" + dashed(name);
      if (dashed(name) != name) flags += ",--" + std::string(name);
      for (const auto& [alias, field] : aicb::job_field_aliases)
        if (field == name) flags = "--" + std::string(alias) + "," + flags;
      std::string& target = values_[std::string(name)];
      const std::string help(T::help(name));
      auto* option =
          is_bool_field<T>(name) ? app.add_flag(flags, target, help) : app.add_option(flags, target, help);
      option->group(group);
    }
  }
  static std::string dashed(std::string_view name) {
    std::string s(name);
    for (char& c : s)
      if (c == '_') c = '-';
    return s;
  }

  std::string model_, hf_config_, size_, family_ = "llama";
  bool allow_unknown_keys_ = false;
  std::map<std::string, std::string> values_;
};

}  // namespace aicb_tool
