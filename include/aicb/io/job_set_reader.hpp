// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Reads a job set document (schema "aicb.jobs/1", docs/jobs.md, docs/schemas/jobs.schema.json) into
/// an aicb::job_set: the cluster, its network, the packing policy, and the jobs, each as the command
/// line describes it.
///
/// ```json
/// {
///   "schema": "aicb.jobs/1",
///   "gpus": 16, "cluster": "dgx-h100",
///   "jobs": [
///     {"name": "dense", "gpus": "0-7", "job": {"model": "llama3-8b", "tp": 2, "pp": 2, "global-batch": 32}},
///     {"name": "moe", "job": {"model": "mixtral-8x7b", "world_size": 8, "ep": 8, "global_batch": 64}}
///   ]
/// }
/// ```
///
/// A job's keys are the command line's flags without their dashes (`"tp"`, `"hidden-size"`,
/// `"hidden_size"`), its values strings, numbers or booleans; `model`, `hf_config`, `size`, `family`
/// and `allow_unknown_keys` choose the model as `--model` and its companions do. Unknown keys are
/// refused with the nearest known one; every error names its place in the document
/// (`jobs[1].gpus`).

#include <aicb/calc/job_request.hpp>
#include <aicb/compute/job_set.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/edit_distance.hpp>
#include <aicb/detail/input_file.hpp>
#include <aicb/error.hpp>
#include <aicb/io/detail/json_document.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The schema a job set document declares.
inline constexpr std::string_view job_set_schema = "aicb.jobs/1";

namespace detail {

// A scalar as the command line would give it: a string as is, a number or a boolean as written.
inline std::string flag_text(const nlohmann::json& value, const std::string& where) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_unsigned()) return std::to_string(value.get<std::uint64_t>());
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (!std::isfinite(v)) AICB_THROW(config_error(where, value.dump(), "expected a finite number"));
    return value.dump();
  }
  AICB_THROW(config_error(where, value.dump(), "expected a string, a number or a boolean (a flag's value)"));
}

// A job's "job" object: the model source and its fields, by their flags' names.
inline job_request job_request_of(const nlohmann::json& flags, const std::string& where) {
  if (!flags.is_object())
    AICB_THROW(
        config_error(where, flags.dump(), "expected an object of flags, e.g. {\"model\": \"llama3-8b\"}"));
  job_request r;
  for (const auto& [key, value] : flags.items()) {
    const std::string name = job_field_of_flag(key);
    const std::string at = where + "." + key;
    if (name == "model" || name == "m") {
      r.model = flag_text(value, at);
    } else if (name == "hf_config") {
      r.hf_config = text_of(value, at);
    } else if (name == "size") {
      r.size = flag_text(value, at);
    } else if (name == "family") {
      r.family = text_of(value, at);
    } else if (name == "allow_unknown_keys") {
      if (!value.is_boolean()) AICB_THROW(config_error(at, value.dump(), "expected true or false"));
      r.allow_unknown_keys = value.get<bool>();
    } else {
      for (const auto& [field, _] : r.fields)
        if (field == name)
          AICB_THROW(config_error(at, value.dump(), "the field " + name + " is given twice"));
      r.fields.emplace_back(name, flag_text(value, at));
    }
  }
  return r;
}

}  // namespace detail

/// Parses a job set document's text; `source` names it in errors. parse_error (line and column) when
/// it is not JSON; config_error naming the key when it is not a job set of this schema.
[[nodiscard]] inline job_set parse_job_set(std::string_view text, const std::string& source = "jobs.json") {
  const nlohmann::json doc = detail::parse_json_document(text, source);
  if (!doc.is_object())
    AICB_THROW(config_error("(document)", doc.dump().substr(0, 40), "a job set is a JSON object"));
  detail::refuse_unknown_keys(doc, "",
                              {"schema", "gpus", "cluster", "gpu", "nodes_per_leaf", "oversubscription",
                               "packing", "jobs", "description"});
  const auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_string() || schema->get<std::string>() != job_set_schema)
    AICB_THROW(config_error("schema", schema == doc.end() ? "(none)" : schema->dump(),
                            "a job set declares \"schema\": \"" + std::string(job_set_schema) + "\""));
  job_set set;
  const auto gpus = doc.find("gpus");
  if (gpus == doc.end())
    AICB_THROW(config_error("gpus", "(none)", "a job set names its cluster's GPU count (\"gpus\": 16)"));
  set.gpus = detail::whole_number(*gpus, "gpus");
  if (const auto it = doc.find("cluster"); it != doc.end()) set.cluster = detail::text_of(*it, "cluster");
  if (const auto it = doc.find("gpu"); it != doc.end()) set.gpu = detail::text_of(*it, "gpu");
  if (const auto it = doc.find("nodes_per_leaf"); it != doc.end())
    set.network.nodes_per_leaf = detail::whole_number(*it, "nodes_per_leaf");
  if (const auto it = doc.find("oversubscription"); it != doc.end()) {
    if (!it->is_number()) AICB_THROW(config_error("oversubscription", it->dump(), "expected a number"));
    set.network.oversubscription = it->get<double>();
    if (!(set.network.oversubscription >= 1 && set.network.oversubscription < 1e6))
      AICB_THROW(config_error("oversubscription", it->dump(),
                              "a leaf's oversubscription is at least 1 (1: non-blocking) and finite"));
  }
  if (const auto it = doc.find("packing"); it != doc.end()) {
    const std::string text = detail::text_of(*it, "packing");
    const auto packing = from_string<job_packing>(text);
    if (!packing) AICB_THROW(config_error("packing", text, "expected nodes | contiguous"));
    set.packing = *packing;
  }
  const auto jobs = doc.find("jobs");
  if (jobs == doc.end() || !jobs->is_array() || jobs->empty())
    AICB_THROW(config_error("jobs", jobs == doc.end() ? "(none)" : jobs->dump().substr(0, 40),
                            "a job set lists its jobs: \"jobs\": [{\"name\": ..., \"job\": {...}}, ...]"));
  for (std::size_t i = 0; i < jobs->size(); ++i) {
    const nlohmann::json& j = (*jobs)[i];
    const std::string where = "jobs[" + std::to_string(i) + "]";
    if (!j.is_object()) AICB_THROW(config_error(where, j.dump().substr(0, 40), "a job is a JSON object"));
    detail::refuse_unknown_keys(j, where, {"name", "job", "gpus", "description"});
    job_set_entry e;
    const auto name = j.find("name");
    if (name == j.end()) AICB_THROW(config_error(where + ".name", "(none)", "every job has a name"));
    e.name = detail::text_of(*name, where + ".name");
    const auto flags = j.find("job");
    if (flags == j.end())
      AICB_THROW(
          config_error(where + ".job", "(none)",
                       "every job gives its flags, e.g. \"job\": {\"model\": \"llama3-8b\", \"tp\": 2}"));
    e.job = detail::job_request_of(*flags, where + ".job");
    if (const auto g = j.find("gpus"); g != j.end()) {
      if (g->is_string()) {
        e.gpus = g->get<std::string>();
      } else if (g->is_array() && !g->empty()) {
        for (const nlohmann::json& n : *g)
          e.gpus += (e.gpus.empty() ? "" : ",") + std::to_string(detail::whole_number(n, where + ".gpus"));
      } else {
        AICB_THROW(config_error(where + ".gpus", g->dump(),
                                "expected GPU ranges (\"0-7,16-23\") or a list of GPUs"));
      }
      if (e.gpus.empty())
        AICB_THROW(config_error(where + ".gpus", "\"\"", "a job's GPU ranges are not empty"));
    }
    set.jobs.push_back(std::move(e));
  }
  return set;
}

/// Reads a job set document from `path` (at most 16 MiB). io_error when it cannot be read, otherwise as
/// parse_job_set.
[[nodiscard]] inline job_set read_job_set(const std::string& path) {
  const detail::file_prefix in = detail::read_file_prefix(path, 16 << 20, "a job set");
  if (!in.whole) AICB_THROW(io_error(path, "is larger than 16 MiB: not a job set"));
  return parse_job_set(in.text, path);
}

AICB_END_NAMESPACE
