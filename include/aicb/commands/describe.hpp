// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// `aicb describe` as a library call: the job's report (aicb/calc/report.hpp) and, on a cluster, the
/// estimate of one iteration (aicb/compute/iteration_estimate.hpp) with the SimAI command line that
/// describes the same machines.
///
/// ```cpp
/// aicb::describe_request request{.job = job, .gpu = "A100"};   // cluster: the A100's preset
/// const aicb::describe_result d = aicb::describe(request);
/// std::cout << aicb::format_description(d);                   // or aicb::to_json(d)
/// ```

#include <aicb/calc/report_format.hpp>
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/io/cluster_file.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/job.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

AICB_BEGIN_NAMESPACE

/// What to describe. The GPU and cluster choose each other when one is missing: a GPU's preset
/// (A100 → dgx-a100), a preset's GPU; neither: H100 on dgx-h100. A GPU given with a cluster replaces
/// the preset's GPU (same network, other GPUs).
struct describe_request {
  job_spec job{};
  std::string gpu{};           ///< catalogue name; empty: the cluster's
  std::string cluster{};       ///< preset name; empty: the GPU's preset
  bool estimate = true;        ///< estimate the iteration (runs every pipeline stage's schedule)
  estimate_options overlap{};  ///< the estimate's overlap options
};

/// The description: the report, and the estimate when asked for.
struct describe_result {
  job_report report;
  std::optional<iteration_estimate> estimate;
  /// With slow ranks or nodes (estimate_options): the iteration time without them, so that what they
  /// cost the whole job is the difference.
  std::optional<double> healthy_iteration_s;
  cluster_spec cluster{};  ///< the machines the estimate ran on
  estimate_options overlap{};
  /// With an estimate: what makes it unreal, e.g. a stage that needs more memory than its GPU has
  /// (the estimate times a layout that cannot run; it is printed marked so).
  std::vector<std::string> warnings{};
};

/// Describes `request.job`; config_error naming the field for a broken job, an unknown GPU or preset.
[[nodiscard]] inline describe_result describe(const describe_request& request) {
  describe_result d;
  d.report = describe_job(request.job);
  d.overlap = request.overlap;
  if (!request.estimate) return d;
  d.cluster = resolve_cluster(request.gpu, request.cluster);
  const roofline_model compute(d.cluster.gpu);
  d.estimate = estimate_iteration(d.report.job, compute, d.cluster, request.overlap);
  if (request.overlap.any_slow()) {
    estimate_options healthy = request.overlap;
    healthy.slow_ranks.clear();
    healthy.slow_nodes.clear();
    d.healthy_iteration_s = estimate_iteration(d.report.job, compute, d.cluster, healthy).iteration_s;
  }
  const gpu_spec& gpu = require_gpu(d.cluster.gpu);
  const double capacity = gpu.memory_bytes();
  for (const stage_report& s : d.report.stages) {
    const double need = static_cast<double>(s.memory.total().count());
    if (need > capacity)
      d.warnings.push_back("stage " + std::to_string(s.stage) + " needs " + to_iec_string(s.memory.total()) +
                           " per GPU, more than the " + std::string(gpu.name) + "'s " +
                           to_iec_string(bytes{static_cast<std::uint64_t>(capacity)}) +
                           ": this layout does not fit (more TP/PP, recomputation or a smaller micro batch)");
  }
  return d;
}

namespace detail {

inline std::string estimate_number(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace detail

/// The SimAI command line for a workload file of the described job on its cluster.
[[nodiscard]] inline std::string simai_command_line(const describe_result& d,
                                                    std::string_view workload = "WORKLOAD.txt") {
  return simai_command_line(d.cluster, d.report.job.parallel.world_size, workload);
}

/// Where the estimate's communication prices come from, in words: the curves a cluster file measured
/// (which collectives, where), and the figures that price the rest — a preset's datasheet figures, or
/// a file's.
[[nodiscard]] inline std::string network_sources(const cluster_spec& c) {
  char figures[160];
  std::snprintf(figures, sizeof figures,
                "NVLink %.4g GB/s, %.3g us per step; NIC %llu x %.4g GB/s, %.3g us per step",
                c.nvlink_gb_per_s, c.nvlink_latency_us, static_cast<unsigned long long>(c.nics_per_node),
                c.nic_gb_per_s, c.nic_latency_us);
  std::string fits;
  if (c.nvlink_fits)
    c.nvlink_fits->for_each_fit([&](collective kind, const collective_fit& f) {
      char one[96];
      std::snprintf(one, sizeof one, "%s %.0f GB/s", std::string(to_string(kind)).c_str(), f.bus_gb_per_s);
      fits += (fits.empty() ? "" : ", ") + std::string(one);
    });
  if (!fits.empty()) fits = "; inside a node fitted to measurements: " + fits;
  if (!c.measured) return "figures of " + std::string(c.name) + ": " + figures + fits;
  std::string measured;
  for (const measured_curve& curve : c.measured->curves)
    measured += (measured.empty() ? "" : ", ") + std::string(to_string(curve.kind)) +
                (curve.where == link_class::node ? " in a node" : " across nodes") + " (" +
                std::to_string(curve.group_size) + " ranks)";
  return "measured: " + measured + "; the rest from the file's figures: " + figures + fits;
}

/// Where every figure of `d`'s estimate comes from (`aicb describe --explain`): the compute model and
/// its GPU's datasheet, each network figure (a preset's datasheet, or a cluster file's measurement) and
/// the curves measured, and the estimate's options with their defaults' sources. `cluster` is the
/// `--cluster` value the description was asked with (a preset or a file).
[[nodiscard]] inline std::string format_explanation(const describe_result& d, std::string_view cluster) {
  if (!d.estimate) return "no estimate to explain (--no-estimate)\n";
  std::string out = "\nwhere the estimate's figures come from\n";
  const auto line = [&](const std::string& figure, const std::string& source) {
    out += "  " + figure + std::string(figure.size() < 34 ? 34 - figure.size() : 1, ' ') + source + "\n";
  };
  const gpu_spec& gpu = require_gpu(d.cluster.gpu);
  char text[256];
  std::snprintf(text, sizeof text, "%s: BF16 %.0f TFLOP/s, memory %.0f GB/s", std::string(gpu.name).c_str(),
                gpu.bf16_tflops, gpu.memory_gb_per_s);
  line("GPU", std::string(text) + " (aicb's GPU catalogue: the vendor's datasheet)");
  line("computation", d.estimate->compute);
  const cluster_descriptor* file = loaded_cluster_file(cluster);
  const auto figure = [&](const char* name, double value, const char* unit) {
    std::snprintf(text, sizeof text, "%s = %.4g %s", name, value, unit);
    std::string source = "preset " + std::string(d.cluster.name) + " (datasheet; docs/cluster.md)";
    if (file) {
      const auto it = file->sources.find(name);
      source = it != file->sources.end() ? it->second
                                         : "the cluster file " + std::string(cluster) + " (as written)";
    }
    line(text, source);
  };
  figure("gpus_per_node", static_cast<double>(d.cluster.gpus_per_node), "");
  figure("nvlink_gb_per_s", d.cluster.nvlink_gb_per_s, "GB/s");
  figure("nvlink_latency_us", d.cluster.nvlink_latency_us, "us per step");
  figure("nics_per_node", static_cast<double>(d.cluster.nics_per_node), "");
  figure("nic_gb_per_s", d.cluster.nic_gb_per_s, "GB/s");
  figure("nic_latency_us", d.cluster.nic_latency_us, "us per step");
  if (d.cluster.measured)
    for (const measured_curve& c : d.cluster.measured->curves) {
      std::snprintf(text, sizeof text, "%s %s (%llu ranks)", std::string(to_string(c.kind)).c_str(),
                    c.where == link_class::node ? "in a node" : "across nodes",
                    static_cast<unsigned long long>(c.group_size));
      char detail[200];
      std::snprintf(detail, sizeof detail, "measured curve: %zu sizes, %zu band(s), fitted within %.1f%%",
                    c.points.size(), c.bands.size(), 100 * c.max_error());
      line(text, detail);
    }
  if (d.cluster.nvlink_fits)
    d.cluster.nvlink_fits->for_each_fit([&](collective kind, const collective_fit& f) {
      std::snprintf(text, sizeof text, "%s in a node (fit)", std::string(to_string(kind)).c_str());
      char detail[200];
      std::snprintf(detail, sizeof detail,
                    "bus %.0f GB/s, %.2f us per ring hop, %.2f us per collective (measured on these "
                    "machines; docs/cluster.md)",
                    f.bus_gb_per_s, f.step_us, f.fixed_us);
      line(text, detail);
    });
  if (file)
    for (const char* key : {"date", "command", "library", "hosts"})
      if (const auto it = file->provenance.find(key); it != file->provenance.end())
        line(std::string("cluster file ") + key, it->second);
  const estimate_options defaults{};
  std::snprintf(text, sizeof text, "overlap slowdown %.3g", d.overlap.overlap_slowdown);
  line(text, d.overlap.overlap_slowdown == defaults.overlap_slowdown
                 ? "default: Lee et al. 2025 (arXiv 2507.03114), 18.9% over GPT and LLaMA layers"
                 : "given (--overlap-slowdown)");
  std::snprintf(text, sizeof text, "host %.3g us per launch", host_us_per_launch(d.overlap, d.cluster));
  line(text, d.overlap.host_us_per_launch ? "given (--host-overhead-us)"
             : d.cluster.host_us_per_launch == cluster_spec{}.host_us_per_launch
                 ? "the cluster's x86 host: measured on an H200's (docs/measurements/h200/memory.csv)"
                 : "the cluster's host (docs/cluster.md, \"The host\")");
  return out;
}

/// The description as JSON ("aicb.describe/1": the report's keys, then "estimate" when there is one).
[[nodiscard]] inline std::string to_json(const describe_result& d) {
  json_writer w;
  w.begin_object();
  write_json_members(w, d.report);
  if (d.estimate) {
    const iteration_estimate& e = *d.estimate;
    w.key("estimate").begin_object();
    w.member("cluster", e.cluster).member("gpu", d.cluster.gpu).member("compute", e.compute);
    w.key("network").begin_object();
    w.member("nvlink_gb_per_s", d.cluster.nvlink_gb_per_s).member("nic_gb_per_s", d.cluster.nic_gb_per_s);
    w.key("measured").begin_array();
    if (d.cluster.measured)
      for (const measured_curve& c : d.cluster.measured->curves)
        w.begin_object()
            .member("collective", to_string(c.kind))
            .member("placement", to_string(c.where))
            .member("group_size", c.group_size)
            .end_object();
    w.end_array();
    w.key("nvlink_fits").begin_array();
    if (d.cluster.nvlink_fits)
      d.cluster.nvlink_fits->for_each_fit([&](collective kind, const collective_fit& f) {
        w.begin_object()
            .member("collective", to_string(kind))
            .member("bus_gb_per_s", f.bus_gb_per_s)
            .member("step_us", f.step_us)
            .member("fixed_us", f.fixed_us)
            .end_object();
      });
    w.end_array().end_object();
    w.key("overlap").begin_object();
    w.member("grad_reduce", d.report.job.parallel.overlap_grad_reduce);
    w.member("param_gather", d.overlap.overlap_param_gather).member("tp_comm", d.overlap.tp_comm_overlap);
    w.member("p2p", overlaps_p2p(d.report.job, d.overlap));
    w.member("moe_expert_parallel_comm", d.report.job.parallel.overlap_moe_expert_parallel_comm);
    w.member("slowdown", d.overlap.overlap_slowdown);
    w.end_object();
    w.key("host").begin_object();
    w.member("us_per_launch", host_us_per_launch(d.overlap, d.cluster))
        .member("batch_p2p_sync", d.overlap.batch_p2p_sync);
    w.end_object();
    w.member("iteration_s", e.iteration_s).member("tokens_per_s", e.tokens_per_s);
    if (d.healthy_iteration_s) {
      w.key("slow").begin_object();
      const auto slowdown = [&](const char* index, std::uint64_t at, double compute, double communication) {
        w.begin_object().member(index, at).member("compute", compute).member("communication", communication);
        w.end_object();
      };
      w.key("ranks").begin_array();
      for (const slow_rank& r : d.overlap.slow_ranks)
        slowdown("rank", r.rank, r.compute, r.communication);
      w.end_array().key("nodes").begin_array();
      for (const slow_node& n : d.overlap.slow_nodes)
        slowdown("node", n.node, n.compute, n.communication);
      w.end_array();
      w.member("iteration_without_s", *d.healthy_iteration_s);
      w.member("cost_s", e.iteration_s - *d.healthy_iteration_s);
      w.end_object();
    }
    w.member("mfu", e.mfu).member("hfu", e.hfu);
    w.member("model_flops", e.model_flops).member("hardware_flops", e.hardware_flops);
    w.key("stages").begin_array();
    for (const stage_estimate& s : e.stages) {
      w.begin_object().member("stage", s.stage).member("rank", s.rank);
      w.member("end_s", s.end_us * 1e-6).member("compute_s", s.compute_us * 1e-6);
      w.member("communication_s", s.communication_us * 1e-6).member("wait_s", s.wait_us * 1e-6);
      w.member("contention_s", s.contention_us * 1e-6).member("host_s", s.host_us * 1e-6);
      w.end_object();
    }
    w.end_array();
    w.member("simai_command", simai_command_line(d));
    w.member("fits_in_memory", d.warnings.empty());
    w.key("warnings").begin_array();
    for (const std::string& text : d.warnings)
      w.value(text);
    w.end_array();
    w.end_object();
  }
  w.end_object();
  return w.str() + "\n";
}

/// The description as a readable table.
[[nodiscard]] inline std::string format_description(const describe_result& d) {
  std::string out = format_description(d.report);
  if (!d.estimate) return out;
  const iteration_estimate& e = *d.estimate;
  using detail::estimate_number;
  using detail::row;
  for (const std::string& text : d.warnings)
    out.append("\nwarning: ").append(text);
  out += d.warnings.empty() ? "\niteration estimate ("
                            : "\n\niteration estimate of a layout that does not fit (";
  out.append(d.cluster.name).append(", ").append(d.cluster.gpu).append("; docs/cluster.md)\n");
  out += row("compute", e.compute);
  out += row("network", network_sources(d.cluster));
  std::string overlap;
  if (d.report.job.parallel.overlap_grad_reduce) overlap += "grad-reduce ";
  if (d.overlap.overlap_param_gather) overlap += "param-gather ";
  if (d.overlap.tp_comm_overlap) overlap += "tp-comm ";
  if (overlaps_p2p(d.report.job, d.overlap)) overlap += "p2p ";
  if (d.report.job.parallel.overlap_moe_expert_parallel_comm) overlap += "moe-expert-parallel-comm ";
  if (!overlap.empty())
    overlap += estimate_number("(computation under hidden collectives %.3g%% slower)",
                               100 * d.overlap.overlap_slowdown);
  out += row("overlap", overlap.empty() ? "none" : overlap);
  const double host_us = host_us_per_launch(d.overlap, d.cluster);
  out += row("host", host_us > 0 ? estimate_number("%.3g us per launch", host_us) +
                                       (d.overlap.batch_p2p_sync ? ", waits at pipeline transfers" : "")
                                 : std::string("never the bottleneck"));
  out += row("iteration time", estimate_number("%.4g s", e.iteration_s));
  if (d.healthy_iteration_s) {
    std::string slow;
    const auto factors = [&](double compute, double communication) {
      std::string f;
      if (compute != 1) f += estimate_number(" compute x%.3g", compute);
      if (communication != 1) f += estimate_number(" communication x%.3g", communication);
      return f.empty() ? std::string(" (as fast as the rest)") : f;
    };
    for (const slow_rank& r : d.overlap.slow_ranks)
      slow +=
          (slow.empty() ? "rank " : "; rank ") + std::to_string(r.rank) + factors(r.compute, r.communication);
    for (const slow_node& n : d.overlap.slow_nodes)
      slow +=
          (slow.empty() ? "node " : "; node ") + std::to_string(n.node) + factors(n.compute, n.communication);
    out += row("slow", slow);
    const double cost = e.iteration_s - *d.healthy_iteration_s;
    out += row("what they cost", estimate_number("%+.4g s", cost) + " per iteration (" +
                                     estimate_number("%+.1f%%", 100 * cost / *d.healthy_iteration_s) +
                                     estimate_number(" over %.4g s without them)", *d.healthy_iteration_s));
  }
  out += row("tokens / s", estimate_number("%.4g", e.tokens_per_s));
  out += row("MFU / HFU",
             estimate_number("%.1f%%", 100 * e.mfu) + " / " + estimate_number("%.1f%%", 100 * e.hfu));
  for (const stage_estimate& s : e.stages) {
    std::string text = estimate_number("compute %.4g s", s.compute_us * 1e-6);
    text += estimate_number(", communication %.4g s", s.communication_us * 1e-6);
    text += estimate_number(", waiting %.4g s", s.wait_us * 1e-6);
    if (s.contention_us > 0) text += estimate_number(", overlap contention %.4g s", s.contention_us * 1e-6);
    if (s.host_us > 0) text += estimate_number(", waiting for the host %.4g s", s.host_us * 1e-6);
    std::string label = "stage ";
    label.append(std::to_string(s.stage)).append(" (rank ").append(std::to_string(s.rank)).append(")");
    out += row(label, text);
  }
  out += row("SimAI command line", simai_command_line(d));
  const std::string caveat = simai_placement_problem(d.cluster, d.report.job.parallel.world_size);
  if (!caveat.empty()) out += row("SimAI placement", caveat);
  return out;
}

AICB_END_NAMESPACE
