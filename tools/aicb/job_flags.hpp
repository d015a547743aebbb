// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Command-line flags for a job, derived from the descriptors' field lists: every field of
// model_spec, parallel_spec and batch_spec is a flag (`--hidden-size`, also `--hidden_size`), with
// the field's help text. A model comes from a preset (--model), a Hugging Face config.json
// (--hf-config), a target size (--size with --family) or from the flags alone; explicit flags
// always win over the preset, and the resolved job is what the tool prints.
#pragma once

#include <aicb/model/hf_config.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/model/sizing.hpp>

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aicb_tool {

/// Short aliases in the spirit of aicb's shell scripts; each maps to one field.
inline const std::vector<std::pair<std::string, std::string>> short_aliases{
    {"tp", "tensor_parallel"},  {"pp", "pipeline_parallel"}, {"ep", "expert_parallel"},
    {"cp", "context_parallel"}, {"vpp", "virtual_pipeline"}, {"sp", "sequence_parallel"},
    {"mbs", "micro_batch"},     {"gbs", "global_batch"},     {"seq", "seq_length"}};

class job_flags {
 public:
  /// Adds the job flags to `app`.
  void add_to(CLI::App& app) {
    app.add_option("-m,--model", model_, "start from a preset (see `aicb models`)");
    app.add_option("--hf-config", hf_config_, "start from a Hugging Face config.json");
    app.add_flag("--allow-unknown-keys", allow_unknown_keys_, "accept config.json keys aicb does not know");
    app.add_option("--size", size_, "start from a standard shape of this many parameters (e.g. 15B)");
    app.add_option("--family", family_, "family of the --size shape: gpt | llama")->capture_default_str();
    add_fields<aicb::model_spec>(app, "model");
    add_fields<aicb::parallel_spec>(app, "parallel layout");
    add_fields<aicb::batch_spec>(app, "batch");
  }

  /// The job the flags describe (not yet validated).
  [[nodiscard]] aicb::job_spec job() const {
    aicb::job_spec job;
    const int sources = !model_.empty() + !hf_config_.empty() + !size_.empty();
    if (sources > 1)
      throw aicb::config_error("model", model_ + hf_config_ + size_,
                               "give only one of --model, --hf-config, --size");
    if (!model_.empty()) {
      const aicb::preset* p = aicb::find_preset(model_);
      if (!p) {
        std::vector<std::string_view> keys;
        for (const auto& q : aicb::all_presets)
          keys.push_back(q.key);
        const auto near = aicb::detail::nearest(model_, keys);
        throw aicb::config_error(
            "model", model_,
            "unknown preset" + (near.empty() ? std::string{} : "; did you mean " + std::string(near) + "?") +
                " (`aicb models` lists them)");
      }
      job.model = p->model;
    } else if (!hf_config_.empty()) {
      job.model = aicb::load_hf_config(hf_config_, {allow_unknown_keys_}).model;
    } else if (!size_.empty()) {
      // The family's template, dimensions free: the shape is chosen below, for the job as the flags
      // describe it (activation, vocabulary, sequence length …).
      const auto family = aicb::from_string<aicb::model_family>(family_);
      if (!family) throw aicb::config_error("family", family_, "expected gpt | llama");
      job.model = aicb::family_template(*family);
    }
    for (const auto& [field, text] : values_) {
      if (text.empty()) continue;
      const bool set = aicb::set_field(job.model, field, text) ||
                       aicb::set_field(job.parallel, field, text) || aicb::set_field(job.batch, field, text);
      if (!set) throw aicb::config_error(field, text, "no such field");
    }
    if (!size_.empty()) {
      const aicb::spec_name given = job.model.name;
      job.model = aicb::shape_for_size(job.model, aicb::parse_param_count(size_), job.batch.seq_length);
      job.model.name =
          given.empty()
              ? aicb::shape_name(family_, aicb::count_params(job.model, job.batch.seq_length).total())
              : given;
    }
    return job;
  }

 private:
  template <class T>
  void add_fields(CLI::App& app, const std::string& group) {
    for (std::string_view name : aicb::field_names<T>()) {
      std::string flags = "--" + dashed(name);
      if (dashed(name) != name) flags += ",--" + std::string(name);
      for (const auto& [alias, field] : short_aliases)
        if (field == name) flags = "--" + alias + "," + flags;
      std::string& target = values_[std::string(name)];
      const std::string help(T::help(name));
      bool is_bool = false;
      const T sample{};
      aicb::for_each_field(sample, [&](std::string_view n, const auto& v) {
        if (n == name) is_bool = std::is_same_v<std::remove_cvref_t<decltype(v)>, bool>;
      });
      auto* option = is_bool ? app.add_flag(flags, target, help) : app.add_option(flags, target, help);
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
