// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::cluster_spec — the machines a job runs on: which GPU, how many per node, the bandwidth and
/// latency of a collective inside a node (NVLink/NVSwitch) and between nodes (one NIC per GPU, rail
/// by rail), and where ranks go: consecutive ranks fill a node (Megatron's order puts tensor
/// parallelism innermost, so TP groups of up to a node's size stay on NVLink).
///
/// Bandwidths are what NCCL achieves (bus bandwidth as nccl-tests defines it), not line rates: the
/// presets use the figures SimAI's analytical backend is run with for the same machines (A100 240 GB/s
/// over NVLink, 23.5 GB/s per 200 Gb/s HDR NIC; H100 360 GB/s, 48.5 GB/s per 400 Gb/s NDR NIC), so
/// that the estimate and a simulation of the generated file price communication alike. How the
/// estimate uses them: aicb/compute/iteration_estimate.hpp and docs/cluster.md.
///
/// ```cpp
/// const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
/// std::string line = aicb::simai_command_line(c, 1024, "workload.txt");   // -g 1024 -g_p_s 8 …
/// ```

#include <aicb/compute/gpu.hpp>
#include <aicb/compute/measured_network.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/workload/bandwidth.hpp>
#include <aicb/workload/collective.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// What one collective kind costs inside a node, fitted to nccl-tests on the real machines over 1 MiB
/// to 1 GiB, plus what each collective costs beyond that line when a training step issues them back
/// to back (measured as a burst of framework-issued collectives):
///
///     t(S, n) = fixed_us + steps(n) · step_us + S · busbw_factor(kind, n) / bus_gb_per_s
///
/// with steps(n) the ring's n − 1 hops (2(n − 1) for an all-reduce). Unlike the datasheet form
/// (log₂ n steps of a few µs at the nominal bus bandwidth), the line keeps the tens of microseconds a
/// collective of tens of MiB really pays on NVLink and each kind's own achieved bandwidth.
struct collective_fit {
  double bus_gb_per_s = 0;  ///< achieved bus bandwidth (nccl-tests' definition), GB/s; 0: no fit
  double step_us = 0;       ///< latency of one ring hop
  double fixed_us = 0;      ///< per-collective cost beyond the nccl-tests line
};

/// The fits of one node's NVLink domain, per collective kind; kinds without a fit keep the
/// datasheet form, and so do collectives smaller than the fits were measured at: a line fitted from
/// 1 MiB up says nothing of a 14 KiB all-reduce, whose time NCCL's low-latency protocols (and the
/// one-shot all-reduce kernels serving engines run for decode steps) keep to a few µs a step, where
/// the line's intercept — its ring of 14 hops at 5.5 µs and 22 µs more — would put 100.
struct node_collective_fits {
  collective_fit all_reduce, all_gather, reduce_scatter, all_to_all;
  double smallest_bytes = 0;  ///< the smallest collective (whole buffer) the fits were measured at

  [[nodiscard]] constexpr const collective_fit* find(collective kind) const noexcept {
    const collective_fit* f = kind == collective::all_reduce       ? &all_reduce
                              : kind == collective::all_gather     ? &all_gather
                              : kind == collective::reduce_scatter ? &reduce_scatter
                              : kind == collective::all_to_all     ? &all_to_all
                                                                   : nullptr;
    return f && f->bus_gb_per_s > 0 ? f : nullptr;
  }
  /// Calls `visit(kind, fit)` for each kind that has a fit, in the order all-reduce, all-gather,
  /// reduce-scatter, all-to-all.
  template <class Visit>
  constexpr void for_each_fit(Visit&& visit) const {
    for (const collective kind :
         {collective::all_reduce, collective::all_gather, collective::reduce_scatter, collective::all_to_all})
      if (const collective_fit* f = find(kind)) visit(kind, *f);
  }
  /// µs of a collective of `size` bytes (the whole buffer) over `n` ranks of one node; negative
  /// without a fit for the kind or below the sizes the fits were measured at.
  [[nodiscard]] constexpr double time_us(collective kind, double size, std::uint64_t n) const noexcept {
    const collective_fit* f = find(kind);
    if (!f || size < smallest_bytes) return -1;
    const double hops = static_cast<double>(n - 1) * (kind == collective::all_reduce ? 2 : 1);
    return f->fixed_us + hops * f->step_us + size * busbw_factor(kind, n) / (f->bus_gb_per_s * 1e3);
  }
};

/// A DGX B200's NVLink collectives over 8 GPUs as SimuMax measured them on the machine its published
/// B200 runs used (docs/measurements/b200/nccl_fits.csv: configs/system/b200_bf16_ceperm.json,
/// `networks.high_intra_node`). Bus bandwidths are the fitted shares of 900 GiB/s; the all-to-all's
/// per-collective cost was measured as 0 at 8 ranks. Fitted over 1 MiB to 1 GiB.
inline constexpr double b200_nvlink_gb_per_s = 900 * 1.073741824;  // the fits' reference: 900 GiB/s
inline constexpr node_collective_fits dgx_b200_nvlink_fits{
    .all_reduce = {.bus_gb_per_s = 0.7424 * b200_nvlink_gb_per_s, .step_us = 5.5183, .fixed_us = 22.2316},
    .all_gather = {.bus_gb_per_s = 0.6735 * b200_nvlink_gb_per_s, .step_us = 9.1828, .fixed_us = 23.1049},
    .reduce_scatter = {.bus_gb_per_s = 0.6731 * b200_nvlink_gb_per_s, .step_us = 8.0325, .fixed_us = 25.5604},
    .all_to_all = {.bus_gb_per_s = 0.5968 * b200_nvlink_gb_per_s, .step_us = 7.3039, .fixed_us = 0},
    .smallest_bytes = 1 << 20};

/// One kind of node, repeated. See the file comment.
struct cluster_spec {
  std::string_view name;            ///< preset key, e.g. "dgx-h100"
  std::string_view description;     ///< e.g. "DGX H100: 8 x H100 SXM5, NVSwitch, 8 x 400 Gb/s NDR"
  std::string_view gpu;             ///< GPU catalogue key (aicb/compute/gpu.hpp)
  std::uint64_t gpus_per_node = 8;  ///< GPUs sharing one NVLink domain
  double nvlink_gb_per_s = 0;       ///< collective bus bandwidth inside a node, GB/s
  std::uint64_t nics_per_node = 8;  ///< network interfaces per node
  double nic_gb_per_s = 0;          ///< achievable bandwidth of one NIC, GB/s
  double nvlink_latency_us = 0;     ///< latency of one step of a collective inside a node
  double nic_latency_us = 0;        ///< latency of one step between nodes
  std::string_view simai_gpu_type;  ///< SimAI's -g_type (empty: a GPU SimAI does not know)
  /// Where in its node the job's rank 0 runs (a job of a set placed off a node boundary: its ranks
  /// fill the rest of that node first); 0 for a job that starts a node.
  std::uint64_t first_gpu = 0;
  /// Collective times measured on these machines (a cluster file written by `aicb run --sweep
  /// --calibrate`, aicb/io/cluster_file.hpp): where a curve covers a collective's kind and
  /// placement, the estimate prices it from the curve instead of the figures above. Not owned:
  /// the file's aicb::cluster_descriptor keeps it alive. nullptr for the presets.
  const measured_network* measured = nullptr;
  /// Collective costs inside a node fitted to measurements of these machines (see
  /// aicb::collective_fit); nullptr: the datasheet form with the figures above.
  const node_collective_fits* nvlink_fits = nullptr;
  /// The host: the CPU time the training process takes to issue one kernel or collective (Python,
  /// PyTorch's dispatcher, the launch), which depends on the node's CPU (aicb::estimate_options). 12 µs
  /// on an x86 server: a small PyTorch operation issued to an idle H200 takes 15.1 µs from the event
  /// before it to the event after it (median of the 12 element-wise kernels of 1–4 MiB in
  /// docs/measurements/h200/memory.csv, flat across those sizes), of which the roofline's launch and
  /// the kernel are about 3 µs. See grace_host_us_per_launch for a Grace superchip's.
  double host_us_per_launch = 12;

  /// The node of `rank` under the placement above.
  [[nodiscard]] constexpr std::uint64_t node_of(std::uint64_t rank) const noexcept {
    return gpus_per_node == 0 ? 0 : (rank + first_gpu) / gpus_per_node;
  }
  /// Network bandwidth one GPU has to itself (its share of the node's NICs), GB/s.
  [[nodiscard]] constexpr double nic_gb_per_s_per_gpu() const noexcept {
    return gpus_per_node == 0 ? 0 : nic_gb_per_s * static_cast<double>(nics_per_node) / gpus_per_node;
  }
};

/// The host time per launch of a node whose CPU is NVIDIA's Grace (GB200, GH200): the x86 figure above
/// times what the same PyTorch operation costs the two hosts — a torch.nn.Linear forward (BF16, 8192
/// tokens of 2048) takes its host 37.08 µs on a GB200 and 13.48 µs on a DGX H100's Xeon Platinum 8480C
/// (TransformerEngine issue 2053, 2025; 33.17 µs on a GH200): 2.75 times as long, 33 µs.
inline constexpr double grace_host_us_per_launch = 12.0 * 37.08 / 13.48;

/// The presets. Latencies: a few microseconds per step inside a node and between nodes, the order of
/// NCCL's small-message times (docs/cluster.md). A "node" is an NVLink domain: a GB200 NVL72 rack's 72
/// GPUs (18 trays of two superchips behind NVLink switch trays) share one, each GPU with its own
/// 400 Gb/s NIC to the rest of the cluster, and its hosts are the superchips' Grace CPUs.
inline constexpr std::array<cluster_spec, 9> cluster_presets{{
    {"dgx2h", "DGX-2H: 16 x V100 SXM3 32GB, NVSwitch, 8 x 100 Gb/s EDR", "V100", 16, 130, 8, 11.7, 3, 6, ""},
    {"dgx-a100-40gb", "DGX A100 (40 GB GPUs): 8 x A100, NVSwitch, 8 x 200 Gb/s HDR", "A100-40GB", 8, 240, 8,
     23.5, 3, 6, "A100"},
    {"dgx-a100", "DGX A100: 8 x A100 80GB, NVSwitch, 8 x 200 Gb/s HDR", "A100", 8, 240, 8, 23.5, 3, 6,
     "A100"},
    {"dgx-h100", "DGX H100: 8 x H100 SXM5, NVSwitch, 8 x 400 Gb/s NDR", "H100", 8, 360, 8, 48.5, 2.5, 5,
     "H100"},
    {"h800", "H800 server: 8 x H800 SXM5 (400 GB/s NVLink), 8 x 400 Gb/s", "H800", 8, 160, 8, 48.5, 2.5, 5,
     "H800"},
    {"dgx-h200", "DGX H200: 8 x H200 SXM, NVSwitch, 8 x 400 Gb/s NDR", "H200", 8, 360, 8, 48.5, 2.5, 5,
     "H100"},
    {"hgx-h20", "HGX H20: 8 x H20, NVSwitch (900 GB/s NVLink), 8 x 400 Gb/s", "H20", 8, 360, 8, 48.5, 2.5, 5,
     "H20"},
    {"dgx-b200", "DGX B200: 8 x B200, NVLink 5, 8 x 400 Gb/s", "B200", 8, 720, 8, 48.5, 2, 5, "", 0, nullptr,
     &dgx_b200_nvlink_fits},
    {"gb200-nvl72", "GB200 NVL72: 72 x GB200 in one NVLink 5 domain, 72 x 400 Gb/s", "GB200", 72, 720, 72,
     48.5, 2, 5, "", 0, nullptr, nullptr, grace_host_us_per_launch},
}};

/// The preset named `name` (any case); config_error listing the presets otherwise.
[[nodiscard]] inline const cluster_spec& cluster_preset(std::string_view name) {
  std::string lower(name);
  for (char& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const cluster_spec& c : cluster_presets)
    if (c.name == lower) return c;
  std::string known;
  for (const cluster_spec& c : cluster_presets)
    known += (known.empty() ? "" : ", ") + std::string(c.name);
  AICB_THROW(config_error("cluster", std::string(name), "expected a preset: " + known));
}

/// The preset built from `gpu` (a catalogue key or a device name), for jobs that name a GPU and no
/// cluster: H100 → dgx-h100, A100 → dgx-a100, … ; nullptr for a GPU no preset has.
[[nodiscard]] inline const cluster_spec* cluster_for_gpu(std::string_view gpu) {
  const gpu_spec* g = find_gpu(gpu);
  if (!g) return nullptr;
  for (const cluster_spec& c : cluster_presets)
    if (c.gpu == g->name) return &c;
  return nullptr;
}

/// The machines a command line names: the `cluster` preset, else the preset of `gpu` (H100 when both
/// are empty); a `gpu` given with a cluster replaces the preset's GPU (same network, other GPUs).
/// config_error naming the field for an unknown preset, an unknown GPU, or a GPU no preset has.
[[nodiscard]] inline cluster_spec choose_cluster(std::string_view gpu, std::string_view cluster) {
  const gpu_spec* named = gpu.empty() ? nullptr : &require_gpu(gpu);
  if (!cluster.empty()) {
    cluster_spec chosen = cluster_preset(cluster);
    if (named) chosen.gpu = named->name;
    return chosen;
  }
  const cluster_spec* preset = cluster_for_gpu(named ? named->name : "H100");
  if (!preset)
    AICB_THROW(config_error("gpu", std::string(gpu),
                            "no cluster preset has this GPU: name the machines with --cluster (the GPU "
                            "replaces the preset's)"));
  return *preset;
}

/// The GPUs per server SimAI is given for a job of `world_size` GPUs on `cluster`: a node's, or the
/// job's own when it is smaller than a node (its GPUs share one NVLink domain, which is then the whole
/// server SimAI's topology builds; SimAI-Analytical prices such a job alike either way).
[[nodiscard]] constexpr std::uint64_t simai_gpus_per_server(const cluster_spec& cluster,
                                                            std::uint64_t world_size) noexcept {
  return std::min(cluster.gpus_per_node, world_size);
}

/// What SimAI does not see of `world_size` GPUs on `cluster` (empty: nothing): a job larger than a node
/// that does not fill whole nodes (256 GPUs on a GB200 NVL72 preset's racks of 72) is priced by
/// SimAI's formulas as world_size / g_p_s whole servers, without the partial last one the job has. A
/// cluster file whose nodes divide the job (64 GPUs a rack, as schedulers place jobs on NVL72 racks)
/// describes it.
[[nodiscard]] inline std::string simai_placement_problem(const cluster_spec& cluster,
                                                         std::uint64_t world_size) {
  const std::uint64_t per_server = simai_gpus_per_server(cluster, world_size);
  if (per_server == 0 || world_size % per_server == 0) return {};
  return "SimAI counts servers of " + std::to_string(per_server) + " GPUs: its formulas take " +
         std::to_string(world_size) + " / " + std::to_string(per_server) + " = " +
         std::to_string(world_size / per_server) + " whole servers, without the job's last " +
         std::to_string(world_size % per_server) + " GPUs on a partial one; describe the machines with a " +
         "cluster file whose gpus_per_node divides " + std::to_string(world_size) + " (docs/cluster.md)";
}

/// The arguments of SimAI's analytical simulator (`SimAI_analytical`) that describe `cluster` for a
/// workload file of `world_size` GPUs: `-w FILE -g N -g_p_s G -r PREFIX -nv B -nic B -n_p_s K
/// [-g_type T]`, with G and K the GPUs and NICs of one server as SimAI builds them
/// (simai_gpus_per_server). SimAI reads only this much of a machine; -r is always given (without it
/// SimAI names its result file from the workload's and can divide by zero on some names).
[[nodiscard]] inline std::string simai_command_line(const cluster_spec& cluster, std::uint64_t world_size,
                                                    std::string_view workload,
                                                    std::string_view prefix = "aicb-") {
  const auto number = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return std::string(text);
  };
  std::string line = "SimAI_analytical -w ";
  line.append(workload);
  const std::uint64_t per_server = simai_gpus_per_server(cluster, world_size);
  const std::uint64_t nics =
      cluster.gpus_per_node == 0
          ? cluster.nics_per_node
          : std::max<std::uint64_t>(1, cluster.nics_per_node * per_server / cluster.gpus_per_node);
  line += " -g " + std::to_string(world_size) + " -g_p_s " + std::to_string(per_server);
  line += " -r ";
  line.append(prefix);
  line += " -nv " + number(cluster.nvlink_gb_per_s) + " -nic " + number(cluster.nic_gb_per_s);
  line += " -n_p_s " + std::to_string(nics);
  if (!cluster.simai_gpu_type.empty()) {
    line += " -g_type ";
    line.append(cluster.simai_gpu_type);
  }
  return line;
}

AICB_END_NAMESPACE
