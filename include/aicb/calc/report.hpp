// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The description of a job — resolved descriptors, derived layout, parameters, FLOPs, memory and
/// communication — as JSON (describe_job) and as a readable table (format_description). This is
/// what `aicb describe` prints.

#include <aicb/calc/flops.hpp>
#include <aicb/calc/memory.hpp>
#include <aicb/calc/params.hpp>
#include <aicb/calc/traffic.hpp>
#include <aicb/config.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/units/bytes.hpp>
#include <aicb/version.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

AICB_BEGIN_NAMESPACE

namespace detail {

template <class T>
[[nodiscard]] nlohmann::ordered_json fields_json(const T& descriptor) {
  nlohmann::ordered_json j;
  for_each_field(descriptor, [&](std::string_view name, const auto& value) {
    using V = std::remove_cvref_t<decltype(value)>;
    if constexpr (std::is_same_v<V, bool> || std::is_arithmetic_v<V>)
      j[std::string(name)] = value;
    else
      j[std::string(name)] = format_value(value);
  });
  return j;
}

}  // namespace detail

/// Everything aicb computes about `job`, as JSON (keys in a stable order; sizes in bytes).
/// The job is validated first (config_error on a broken rule).
[[nodiscard]] inline nlohmann::ordered_json describe_job(const job_spec& input) {
  validate(input);
  job_spec job = input;
  job.model = resolve(job.model);
  const std::uint64_t stages = job.parallel.pipeline_parallel;
  nlohmann::ordered_json j;
  j["aicb_version"] = AICB_VERSION_STRING;
  j["model"] = detail::fields_json(job.model);
  j["parallel"] = detail::fields_json(job.parallel);
  j["batch"] = detail::fields_json(job.batch);

  auto& d = j["derived"];
  d["data_parallel"] = data_parallel(job);
  d["expert_tensor_parallel"] = expert_tensor_parallel(job);
  d["expert_data_parallel"] = expert_data_parallel(job);
  d["global_batch"] = global_batch(job);
  d["microbatches"] = microbatches(job);
  d["padded_vocab"] = padded_vocab(job);
  d["tokens_per_iteration"] = global_batch(job) * job.batch.seq_length;
  for (std::uint64_t s = 0; s < stages; ++s)
    d["stage_layers"].push_back(stage_layers(job, s));

  const param_counts c = count_params(job.model, job.batch.seq_length);
  auto& p = j["parameters"];
  p["total"] = c.total();
  p["active"] = c.active();
  p["active_without_input_embedding"] = c.active_without_input_embedding();
  p["embedding"] = c.embedding;
  p["output"] = c.output;
  p["attention"] = c.attention;
  p["dense_mlp"] = c.dense_mlp;
  p["routed_experts"] = c.routed_experts;
  p["shared_experts"] = c.shared_experts;
  p["router"] = c.router;
  p["norms"] = c.norms;
  p["mtp"] = c.mtp;
  for (std::uint64_t s = 0; s < stages; ++s) {
    const shard_params sp = params_on_gpu(job, s);
    p["per_gpu"].push_back({{"stage", s}, {"dense", sp.dense}, {"expert", sp.expert}, {"total", sp.total()}});
  }

  const flop_counts f = training_flops(job);
  j["flops"] = {{"forward", f.forward},
                {"backward", f.backward},
                {"recompute", f.recompute},
                {"total", f.total()},
                {"model", f.model()},
                {"per_gpu_total", f.total() / static_cast<double>(job.parallel.world_size)}};

  for (std::uint64_t s = 0; s < stages; ++s) {
    const memory_estimate m = memory_per_gpu(job, s);
    j["memory_per_gpu"].push_back({{"stage", s},
                                   {"weights", m.weights.count()},
                                   {"gradients", m.gradients.count()},
                                   {"optimizer", m.optimizer.count()},
                                   {"activations", m.activations.count()},
                                   {"total", m.total().count()},
                                   {"in_flight_microbatches", m.in_flight_microbatches}});
    const traffic t = comm_volume(job, s);
    j["traffic_per_gpu"].push_back({{"stage", s},
                                    {"tp", t.tp.count()},
                                    {"dp", t.dp.count()},
                                    {"pp", t.pp.count()},
                                    {"ep", t.ep.count()},
                                    {"dp_ep", t.dp_ep.count()},
                                    {"cp", t.cp.count()},
                                    {"total", t.total().count()}});
  }
  return j;
}

namespace detail {

[[nodiscard]] inline std::string with_unit(double value, const char* unit) {
  static constexpr const char* prefixes[] = {"", "K", "M", "G", "T", "P", "E", "Z"};
  int i = 0;
  while (value >= 1000.0 && i < 7) {
    value /= 1000.0;
    ++i;
  }
  char text[48];
  std::snprintf(text, sizeof text, "%.3f %s%s", value, prefixes[i], unit);
  return text;
}

[[nodiscard]] inline std::string row(const std::string& label, const std::string& value) {
  std::string line = "  " + label;
  line.resize(std::max<std::size_t>(line.size() + 1, 34), ' ');
  return line + value + "\n";
}

[[nodiscard]] inline std::string count_text(std::uint64_t n) {
  return std::to_string(n) + " (" + with_unit(static_cast<double>(n), "") + ")";
}

}  // namespace detail

/// A readable table of describe_job()'s JSON.
[[nodiscard]] inline std::string format_description(const nlohmann::ordered_json& j) {
  using detail::count_text;
  using detail::row;
  std::string out;
  const auto& m = j["model"];
  const auto& d = j["derived"];
  out += "model " + m["name"].get<std::string>() + "\n";
  for (const char* section : {"model", "parallel", "batch"}) {
    std::string line;
    for (const auto& [key, value] : j[section].items()) {
      const bool zero = value.is_number() && value.get<double>() == 0;
      const bool off = value.is_boolean() && !value.get<bool>();
      if (key == "name" || zero || off) continue;  // defaults that do not apply
      line += key + "=" + (value.is_string() ? value.get<std::string>() : value.dump()) + " ";
    }
    out += row(section, line);
  }
  out += "\nlayout\n";
  out += row("data parallel", d["data_parallel"].dump());
  out += row("expert data parallel", d["expert_data_parallel"].dump());
  out += row("micro batches / iteration", d["microbatches"].dump());
  out += row("tokens / iteration", d["tokens_per_iteration"].dump());
  out += row("padded vocabulary", d["padded_vocab"].dump());
  out += row("layers per pipeline stage", d["stage_layers"].dump());

  const auto& p = j["parameters"];
  out += "\nparameters\n";
  for (const char* key :
       {"total", "active", "active_without_input_embedding", "embedding", "output", "attention", "dense_mlp",
        "routed_experts", "shared_experts", "router", "norms", "mtp"}) {
    if (p[key].get<std::uint64_t>() == 0 && std::string(key) != "total") continue;
    out += row(key, count_text(p[key].get<std::uint64_t>()));
  }
  for (const auto& s : p["per_gpu"])
    out += row("per GPU, stage " + s["stage"].dump(),
               count_text(s["total"].get<std::uint64_t>()) + "  (experts " + s["expert"].dump() + ")");

  const auto& f = j["flops"];
  out += "\nFLOPs per iteration\n";
  out += row("model (fwd + bwd)", detail::with_unit(f["model"].get<double>(), "FLOP"));
  out += row("with recomputation", detail::with_unit(f["total"].get<double>(), "FLOP"));
  out += row("per GPU", detail::with_unit(f["per_gpu_total"].get<double>(), "FLOP"));

  out += "\nmemory per GPU\n";
  for (const auto& s : j["memory_per_gpu"]) {
    const auto b = [&](const char* k) { return to_iec_string(bytes{s[k].get<std::uint64_t>()}); };
    out += row("stage " + s["stage"].dump(),
               b("total") + " = weights " + b("weights") + " + gradients " + b("gradients") +
                   " + optimizer " + b("optimizer") + " + activations " + b("activations") + " (" +
                   s["in_flight_microbatches"].dump() + " micro batches in flight)");
  }
  out += "\ncommunication per GPU per iteration\n";
  for (const auto& s : j["traffic_per_gpu"]) {
    std::string line;
    for (const char* g : {"tp", "dp", "pp", "ep", "dp_ep", "cp"})
      if (s[g].get<std::uint64_t>() != 0)
        line += std::string(g) + " " + to_iec_string(bytes{s[g].get<std::uint64_t>()}) + "  ";
    out += row("stage " + s["stage"].dump(), line.empty() ? "none" : line);
  }
  return out;
}

AICB_END_NAMESPACE
