// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// A job's report (aicb::describe_job) rendered: as a readable table (format_description) or as a
/// versioned JSON document (to_json, `aicb.describe/1`). This is what `aicb describe` prints.
///
/// ```cpp
/// std::fputs(aicb::format_description(aicb::describe_job(job)).c_str(), stdout);
/// ```
///
/// Apart from the report itself because it reflects the descriptors (<aicb/model/reflect.hpp>, Boost.Hana):
/// a program that only computes a job's costs (<aicb/core.hpp>) does not pay for printing them.

#include <aicb/calc/report.hpp>
#include <aicb/config.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/units/bytes.hpp>
#include <aicb/version.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

AICB_BEGIN_NAMESPACE

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

// "key=value" for the fields of a descriptor that are set (non-zero, non-false).
template <class T>
[[nodiscard]] std::string set_fields_text(const T& descriptor) {
  std::string line;
  for_each_field(descriptor, [&](std::string_view name, const auto& value) {
    using V = std::remove_cvref_t<decltype(value)>;
    if constexpr (std::is_arithmetic_v<V>)
      if (value == V{}) return;
    if (name == "name") return;
    const std::string text = format_value(value);
    if (text.empty()) return;  // an empty text field (no layer pattern)
    line += std::string(name) + "=" + text + " ";
  });
  return line;
}

}  // namespace detail

/// The format of the job's sequence-parallel all-gathers in front of the GEMMs (aicb::gathered_dtype).
[[nodiscard]] constexpr dtype gathered_activation_dtype(const job_spec& job) noexcept {
  return gathered_dtype(job.batch.dtype, job.parallel.sequence_parallel && job.parallel.tensor_parallel > 1);
}

/// What runs in which format, as a JSON object: the GEMMs in the job's dtype but the output layer's
/// and the MoE router's (`router`, for models with experts), which run in the activation format
/// (plain linears outside FP8); attention, element-wise kernels and the activations exchanged
/// between GPUs in that format (BF16 for FP8 training, aicb::activation_dtype) but the
/// sequence-parallel all-gathers in front of FP8 GEMMs (`gathered_activations`); gradients as reduced.
inline void write_precision_json(json_writer& w, const job_spec& job) {
  const dtype other = activation_dtype(job.batch.dtype);
  w.begin_object().member("gemm", to_string(job.batch.dtype)).member("output_layer", to_string(other));
  if (resolve(job.model).num_experts > 0) w.member("router", to_string(other));
  w.member("attention", to_string(other));
  w.member("elementwise", to_string(other)).member("communicated_activations", to_string(other));
  w.member("gathered_activations", to_string(gathered_activation_dtype(job)));
  w.member("gradients", to_string(job.batch.grad_dtype)).end_object();
}

/// The schema a description names (docs/schemas/describe.schema.json).
inline constexpr std::string_view describe_schema = "aicb.describe/1";

/// The report's renderers are templates only so that the descriptors' reflection is compiled where
/// a program renders a report, not in every translation unit that includes the header.
///
/// The report as JSON, a versioned document (`"schema": "aicb.describe/1"`): keys in a stable order,
/// sizes in bytes, FLOPs as numbers. A key is added within a version, renamed or removed only with a
/// new one.
/// The report's members, written into an object `w` has open (front ends add their own after them).
template <class = void>
void write_json_members(json_writer& w, const job_report& r) {
  w.member("schema", describe_schema).member("aicb_version", AICB_VERSION_STRING);
  w.key("model");
  write_json(w, r.job.model);
  w.key("parallel");
  write_json(w, r.job.parallel);
  w.key("batch");
  write_json(w, r.job.batch);
  w.key("precision");
  write_precision_json(w, r.job);
  w.key("derived").begin_object();
  w.member("data_parallel", r.data_parallel).member("expert_tensor_parallel", r.expert_tensor_parallel);
  w.member("expert_data_parallel", r.expert_data_parallel).member("global_batch", r.global_batch);
  w.member("microbatches", r.microbatches).member("padded_vocab", r.padded_vocab);
  w.member("tokens_per_iteration", r.tokens_per_iteration).end_object();
  const param_counts& p = r.params;
  w.key("parameters").begin_object();
  w.member("total", p.total()).member("active", p.active());
  w.member("active_without_input_embedding", p.active_without_input_embedding());
  w.member("embedding", p.embedding).member("output", p.output).member("attention", p.attention);
  w.member("dense_mlp", p.dense_mlp).member("routed_experts", p.routed_experts);
  w.member("shared_experts", p.shared_experts).member("router", p.router).member("norms", p.norms);
  w.member("mtp", p.mtp).end_object();
  w.key("flops").begin_object();
  w.member("forward", r.flops.forward)
      .member("backward", r.flops.backward)
      .member("recompute", r.flops.recompute);
  w.member("total", r.flops.total()).member("model", r.flops.model());
  w.member("per_gpu_total", r.flops.total() / static_cast<double>(r.job.parallel.world_size)).end_object();
  w.key("stages").begin_array();
  for (const stage_report& s : r.stages) {
    w.begin_object().member("stage", s.stage).member("layers", s.layers);
    w.key("params_per_gpu").begin_object();
    w.member("dense", s.params.dense).member("expert", s.params.expert).member("total", s.params.total());
    w.end_object();
    w.key("memory_per_gpu").begin_object();
    w.member("weights", s.memory.weights.count()).member("gradients", s.memory.gradients.count());
    w.member("optimizer", s.memory.optimizer.count()).member("activations", s.memory.activations.count());
    w.member("total", s.memory.total().count());
    w.member("in_flight_microbatches", s.memory.in_flight_microbatches).end_object();
    w.key("traffic_per_gpu").begin_object();
    w.member("tp", s.comm.tp.count()).member("dp", s.comm.dp.count()).member("pp", s.comm.pp.count());
    w.member("ep", s.comm.ep.count()).member("dp_ep", s.comm.dp_ep.count()).member("cp", s.comm.cp.count());
    w.member("other", s.comm.other.count()).member("total", s.comm.total().count()).end_object();
    w.end_object();
  }
  w.end_array();
}

/// The report as JSON; see write_json_members.
template <class = void>
[[nodiscard]] std::string to_json(const job_report& r) {
  json_writer w;
  w.begin_object();
  write_json_members(w, r);
  w.end_object();
  return w.str() + "\n";
}

/// The report as a readable table.
template <class = void>
[[nodiscard]] std::string format_description(const job_report& r) {
  using detail::count_text;
  using detail::row;
  std::string out = "model " + std::string(r.job.model.name.view()) + "\n";
  out += row("model", detail::set_fields_text(r.job.model));
  out += row("parallel", detail::set_fields_text(r.job.parallel));
  out += row("batch", detail::set_fields_text(r.job.batch));
  std::string precision = "GEMMs ";
  precision.append(to_string(r.job.batch.dtype));
  if (r.job.batch.dtype == dtype::fp8)
    precision.append(", ").append(to_string(r.job.batch.fp8_recipe)).append(" scaling");
  if (activation_dtype(r.job.batch.dtype) != r.job.batch.dtype)
    precision
        .append(resolve(r.job.model).num_experts > 0 ? " (the output layer's and the router's "
                                                     : " (the output layer's ")
        .append(to_string(activation_dtype(r.job.batch.dtype)))
        .append(")");
  precision.append("; attention (").append(to_string(r.job.parallel.attention));
  precision.append("), norms, element-wise and exchanged activations ");
  precision.append(to_string(activation_dtype(r.job.batch.dtype)));
  if (gathered_activation_dtype(r.job) != activation_dtype(r.job.batch.dtype))
    precision.append(" (the SP all-gathers into FP8 GEMMs ")
        .append(to_string(gathered_activation_dtype(r.job)))
        .append(")");
  precision.append("; gradients reduced in ");
  precision.append(to_string(r.job.batch.grad_dtype));
  out += row("precision", precision);
  out += "\nlayout\n";
  out += row("data parallel", std::to_string(r.data_parallel));
  out += row("expert data parallel", std::to_string(r.expert_data_parallel));
  out += row("micro batches / iteration", std::to_string(r.microbatches));
  out += row("tokens / iteration", std::to_string(r.tokens_per_iteration));
  out += row("padded vocabulary", std::to_string(r.padded_vocab));
  std::string layers;
  for (const stage_report& s : r.stages)
    layers.append(layers.empty() ? "" : " ").append(std::to_string(s.layers));
  out += row("layers per pipeline stage", layers);

  const param_counts& p = r.params;
  out += "\nparameters\n";
  const std::pair<const char*, std::uint64_t> counts[] = {
      {"total", p.total()},
      {"active", p.active()},
      {"active w/o input embedding", p.active_without_input_embedding()},
      {"embedding", p.embedding},
      {"output", p.output},
      {"attention", p.attention},
      {"dense mlp", p.dense_mlp},
      {"routed experts", p.routed_experts},
      {"shared experts", p.shared_experts},
      {"router", p.router},
      {"norms", p.norms},
      {"multi-token prediction", p.mtp}};
  for (const auto& [label, n] : counts)
    if (n != 0 || std::string_view(label) == "total") out += row(label, count_text(n));
  for (const stage_report& s : r.stages)
    out += row(std::string("per GPU, stage ").append(std::to_string(s.stage)),
               count_text(s.params.total()) + "  (experts " + std::to_string(s.params.expert) + ")");

  out += "\nFLOPs per iteration\n";
  out += row("model (fwd + bwd)", detail::with_unit(r.flops.model(), "FLOP"));
  out += row("with recomputation", detail::with_unit(r.flops.total(), "FLOP"));
  out += row("per GPU",
             detail::with_unit(r.flops.total() / static_cast<double>(r.job.parallel.world_size), "FLOP"));

  out += "\nmemory per GPU\n";
  for (const stage_report& s : r.stages) {
    const memory_estimate& m = s.memory;
    out += row(std::string("stage ").append(std::to_string(s.stage)),
               to_iec_string(m.total()) + " = weights " + to_iec_string(m.weights) + " + gradients " +
                   to_iec_string(m.gradients) + " + optimizer " + to_iec_string(m.optimizer) +
                   " + activations " + to_iec_string(m.activations) + " (" +
                   std::to_string(m.in_flight_microbatches) + " micro batches in flight)");
  }
  out += "\ncommunication per GPU per iteration\n";
  for (const stage_report& s : r.stages) {
    std::string line;
    const std::pair<const char*, bytes> groups[] = {
        {"tp", s.comm.tp},       {"dp", s.comm.dp}, {"pp", s.comm.pp},      {"ep", s.comm.ep},
        {"dp_ep", s.comm.dp_ep}, {"cp", s.comm.cp}, {"other", s.comm.other}};
    for (const auto& [g, b] : groups)
      if (b.count() != 0) line += std::string(g) + " " + to_iec_string(b) + "  ";
    out += row(std::string("stage ").append(std::to_string(s.stage)), line.empty() ? "none" : line);
  }
  // The flex dispatcher's bytes are the schedule's (and the SimAI and Chakra files'): a copy per
  // destination GPU. Across nodes DeepEP sends fewer over the network; say so rather than let the
  // figure read as network traffic.
  if (r.job.parallel.moe_dispatcher == moe_dispatcher_kind::flex && r.job.parallel.expert_parallel > 1)
    out +=
        "  (ep counts each token once per destination GPU: across nodes DeepEP sends it once per destination "
        "node and forwards it over NVLink there, as the iteration estimate prices it)\n";
  return out;
}

AICB_END_NAMESPACE
