// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::estimate_iteration — how long one training iteration takes: the per-rank schedules of every
/// pipeline stage played against each other, compute priced by a compute model and communication by
/// a cluster (aicb/compute/cluster.hpp). A planning estimate and a check on the generated workloads,
/// not a replacement for a network simulator.
///
/// ```cpp
/// const aicb::roofline_model gpu("H100");
/// const aicb::iteration_estimate e =
///     aicb::estimate_iteration(job, gpu, aicb::cluster_preset("dgx-h100"));
/// std::printf("%.2f s, MFU %.1f%%\n", e.iteration_s, 100 * e.mfu);
/// ```
///
/// The model (docs/cluster.md has it with its sources):
/// - One representative rank per pipeline stage (its first) runs its operations in schedule order on
///   one clock. Compute advances it by the compute model's duration. A collective advances it by
///   `latency + factor · size / bandwidth`: factor 2(n−1)/n for all-reduce, (n−1)/n for all-gather,
///   reduce-scatter and all-to-all (sizes as the schedules give them: the whole buffer); bandwidth
///   the cluster's NVLink bus bandwidth when the group sits in one node, else the network's —
///   min(NVLink, the NICs the group's members on a node share) — and latency one step per doubling
///   of the group (log₂ n steps; twice for all-reduce). A cluster whose NVLink collectives were
///   fitted to measurements (aicb::node_collective_fits: the DGX B200 preset) prices a group inside
///   one node by that fit instead: a per-collective cost, n − 1 ring hops and each kind's achieved
///   bandwidth.
/// - A send leaves at the sender's clock and arrives `latency + size / bandwidth` later; a receive
///   waits for it (the pipeline bubble is this waiting). Transfers with ranks outside the
///   representatives (the context-parallel ring) are symmetric: a receive costs one transfer, and a
///   layer's ring exchanges run under its attention, one under each of the attention's steps, as
///   Transformer Engine overlaps them (detail::ring_overlap): what a step does not cover waits.
/// - Overlap, as Megatron offers it: `overlap_grad_reduce` (a job field) hides the data-parallel
///   gradient reduction behind the last micro batch's backward compute; `overlap_param_gather`
///   runs the distributed optimizer's weight all-gather under the next iteration's first forward
///   pass, bucket by bucket in the order the layers use them (Megatron dispatches the next bucket's
///   gather as each one is waited for): a model chunk's forward cannot end before its weights have
///   arrived, so the gather hides behind the first micro batch's forward of every chunk (and the
///   pipeline's warm-up waiting there) and shows where it is longer — the steady state's iteration
///   pays at its start what this one's gather leaves exposed, played here where the gather is
///   listed; `tp_comm_overlap`
///   runs each tensor-parallel collective under the GEMM next to it (Transformer Engine pipelines an
///   all-gather into the GEMM after it, a reduce-scatter or all-reduce out of the GEMM before it:
///   the pair costs the longer of the two); `overlap_p2p` posts pipeline transfers ahead — an
///   interleaved schedule does so by default, as Megatron-Core's does (`interleaved_p2p_overlap`):
///   a receive is posted where the schedule lists it (right after the previous forward or backward
///   step, with that step's send) and waited for where its data is first used, so the wire time
///   hides behind whatever the rank computes in between (in the steady state, the other pass) and
///   shows where nothing runs in between (the warm-up's back-to-back forwards, the cool-down's
///   back-to-back backwards). Without them every collective and transfer is on the critical path. Hiding is
///   not free: the computation under a hidden collective runs `overlap_slowdown` slower (its kernels share
///   the GPU with the communication kernels'). The merged forward-and-backward steps of the schedule
///   (`operation::paired`: the job's `overlap_moe_expert_parallel_comm`, Megatron's combined 1F1B, and
///   DualPipe's F&B pairs) hide each expert-parallel all-to-all behind the computation run since the previous
///   one.
/// - The host: every kernel and collective is issued by the CPU, `host_us_per_launch` each; the GPU
///   starts an operation no earlier than it is issued. The host runs ahead except where Megatron
///   makes it wait for the GPU (host_sync): an MoE layer's token counts, the optimizer step, and
///   pipeline transfers under batch_p2p_sync. Layouts of large kernels never notice; layouts of
///   tiny ones run at the host's pace (`host_us` per stage).
/// - Routing imbalance is the model's (`moe_load_skew`, `moe_capacity_factor`,
///   `moe_pad_to_capacity`): the representative rank is the busiest, whose experts the step waits for.
/// - Slow ranks (`slow_ranks`, stragglers): a stage runs at the pace of its slowest rank, computation
///   and communication each by its factor; the pipeline played is the slow rank's.
/// - The iteration ends when the last stage does. MFU and HFU as Megatron defines them: the model
///   FLOPs (forward and backward) and the hardware FLOPs (recomputation included) of the iteration
///   (aicb::training_flops), over time × GPUs × the GPU's dense BF16 peak.

#include <aicb/calc/flops.hpp>
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/gpu.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/model/job.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// A rank that runs slower than the others — a straggler, a throttled GPU, a degraded link: its
/// computations take `compute` times as long, its collectives and transfers `communication` times.
struct slow_rank {
  std::uint64_t rank = 0;
  double compute = 1;
  double communication = 1;
};

/// A whole node slower than the others (all its GPUs; nodes are GPUs-per-node consecutive ranks).
struct slow_node {
  std::uint64_t node = 0;
  double compute = 1;
  double communication = 1;
};

/// Parses "N:COMPUTE[:COMMUNICATION]" — a rank or node index and its slowdown factors (e.g. "12:1.5",
/// "3:1:4") — as `what` ("slow_rank", "slow_node") names it in errors.
[[nodiscard]] inline slow_rank parse_slowdown(std::string_view text, std::string_view what) {
  const auto fail = [&] {
    AICB_THROW(
        config_error(std::string(what), std::string(text),
                     "expected INDEX:COMPUTE[:COMMUNICATION], e.g. 12:1.5 (compute 1.5 times slower) or "
                     "12:1:3 (communication 3 times slower)"));
  };
  std::vector<std::string> parts(1);
  for (const char ch : text) {
    if (ch == ':')
      parts.emplace_back();
    else
      parts.back().push_back(ch);
  }
  if (parts.size() < 2 || parts.size() > 3) fail();
  slow_rank out;
  std::size_t used = 0;
  try {
    if (parts[0].empty() || parts[0].find_first_not_of("0123456789") != std::string::npos) fail();
    out.rank = std::stoull(parts[0]);
    out.compute = std::stod(parts[1], &used);
    if (used != parts[1].size()) fail();
    if (parts.size() == 3) {
      out.communication = std::stod(parts[2], &used);
      if (used != parts[2].size()) fail();
    }
  } catch (const std::logic_error&) {  // out of range, not a number
    fail();
  }
  return out;
}

/// Overlap options of the estimate (see the file comment); overlap_grad_reduce is a job field.
struct estimate_options {
  bool overlap_param_gather = false;  ///< Megatron --overlap-param-gather
  bool tp_comm_overlap = false;       ///< Megatron --tp-comm-overlap (Transformer Engine user buffers)
  bool overlap_p2p = false;           ///< Megatron --overlap-p2p-communication (interleaved pipelines)
  /// An interleaved schedule (virtual_pipeline > 1) overlaps its transfers unless told not to, as
  /// Megatron-Core does (its --overlap-p2p-communication is on by default; --no-overlap-p2p-
  /// communication turns it off). False: only overlap_p2p overlaps them.
  bool interleaved_p2p_overlap = true;
  /// What hiding a collective behind computation costs: the computation it overlaps runs this much
  /// slower, its kernels sharing the multiprocessors and memory with the communication kernels'
  /// (Lee et al. 2025, arXiv 2507.03114: 18.9% on average over GPT and LLaMA layers on A100, H100,
  /// MI250 and MI210). 0: overlap is free.
  double overlap_slowdown = 0.189;
  /// The host: the CPU time the training process takes to issue one kernel or collective. The GPU
  /// starts an operation no earlier than the host has issued it; the host runs ahead of the GPU except
  /// where it waits for it. Unset: the cluster's (aicb::cluster_spec::host_us_per_launch: 12 µs on an
  /// x86 server, 33 on a Grace superchip's CPU). 0: a host that is never the bottleneck (CUDA graphs).
  std::optional<double> host_us_per_launch{};
  /// Megatron's batch_p2p_sync (on by default): a non-overlapped pipeline transfer ends with
  /// torch.cuda.synchronize(), so the host waits for the GPU at every pipeline send and receive.
  bool batch_p2p_sync = true;
  /// Ranks slower than the rest. A group finishes with its slowest member, so a slow rank sets the pace
  /// of its whole pipeline stage (its tensor-, context- and expert-parallel collectives every layer, its
  /// data-parallel ones at the end): the estimate plays the pipeline that holds the first slow rank,
  /// each stage at the pace of its slowest rank anywhere in the job — exact for slow ranks of one
  /// pipeline, an upper bound when they sit in several.
  std::vector<slow_rank> slow_ranks{};
  /// Nodes slower than the rest: each of their ranks, as slow_ranks (after them).
  std::vector<slow_node> slow_nodes{};
  /// Whether any rank or node is slow.
  [[nodiscard]] bool any_slow() const noexcept { return !slow_ranks.empty() || !slow_nodes.empty(); }
};

/// The host time per launch the estimate of a job on `cluster` takes: the options', else the cluster's.
[[nodiscard]] inline double host_us_per_launch(const estimate_options& options, const cluster_spec& cluster) {
  return options.host_us_per_launch.value_or(cluster.host_us_per_launch);
}

/// Where the host waits for the GPU in Megatron's training step (see estimate_options): after the
/// MoE token counts are gathered (the dispatchers read them on the host to size the exchange and
/// the grouped GEMM, except where the experts are padded to a capacity), before the optimizer step (the
/// gradient norm and the overflow check are read on the host), and after non-overlapped pipeline transfers
/// (batch_p2p_sync).
enum class host_sync : std::uint8_t { none, before, after };

/// Whether the estimate of `job` overlaps pipeline transfers: asked for, or an interleaved schedule
/// run with Megatron-Core's default.
[[nodiscard]] constexpr bool overlaps_p2p(const job_spec& job, const estimate_options& o) noexcept {
  return o.overlap_p2p || (o.interleaved_p2p_overlap && job.parallel.virtual_pipeline > 1);
}

/// Kernels the host launches for `op`: one, or one per problem of a loop (each of its kernels), one per
/// kernel of unfused attention, one per pass of the loss, and an FP8 GEMM's casts and transposes. The
/// experts' GEMMs are one launch per local expert either way: without --moe-grouped-gemm Megatron loops over
/// them, and with it Transformer Engine's GroupedLinear (TEGroupedMLP, Megatron-Core's default grouped
/// GEMM) issues one cuBLAS GEMM per expert over several streams rather than one grouped kernel
/// (TransformerEngine PR 853, "Grouped GEMM via multi-stream cuBLAS"; issue 1386).
[[nodiscard]] constexpr std::uint64_t kernel_launches(const compute_op& op) noexcept {
  if (op.kind == op_kind::attention && !op.fused) return unfused_attention_kernels(op).count;
  if (op.kind == op_kind::elementwise && op.role == op_role::logits) return op.loss_kernels();
  const bool experts = op.role == op_role::moe_fc1 || op.role == op_role::moe_fc2;
  const std::uint64_t problems = (!op.one_kernel || experts) && op.batch > 1 ? op.batch : 1;
  std::uint64_t n = problems * (op.one_kernel ? 1 : op.kernels_per_problem);
  if (op.kind == op_kind::gemm && op.type == dtype::fp8) n += op.quantize_kernels;
  return n;
}

/// Where the host waits for the GPU around `op` (see host_sync). `reads_counts`: `op` is the first
/// operation of an MoE layer's forward that needs the routed token counts on the host.
[[nodiscard]] inline host_sync host_sync_of(const operation& op, bool reads_counts, bool overlap_p2p,
                                            const estimate_options& o) noexcept {
  if (reads_counts) return op.type == op_type::collective ? host_sync::after : host_sync::before;
  if (op.type == op_type::compute && op.compute.kind == op_kind::optimizer) return host_sync::before;
  if (op.is_transfer() && op.layer == no_layer && o.batch_p2p_sync && !overlap_p2p) return host_sync::after;
  return host_sync::none;
}

/// One pipeline stage's iteration, as its representative rank runs it (microseconds).
struct stage_estimate {
  std::uint64_t stage = 0, rank = 0;
  double end_us = 0;            ///< when the stage finishes its iteration
  double compute_us = 0;        ///< time computing
  double communication_us = 0;  ///< collectives and transfers on the critical path
  double wait_us = 0;           ///< waiting for another stage (the pipeline bubble)
  double contention_us = 0;     ///< computation slowed by the collectives hidden behind it
  double host_us = 0;           ///< the GPU idle, waiting for the host to issue its next operation
};

/// One interval of a representative rank's iteration, as the estimate played it: an operation on one
/// of the rank's streams — `compute`, `collectives` (TP, CP, EP and the like), `data parallel`
/// (the gradient reduction and weight gathers), `transfers` (pipeline and ring sends and receives) —
/// or a wait for another stage (`waiting`). Times in microseconds from the iteration's start.
struct timed_interval {
  std::uint64_t stage = 0, rank = 0;
  std::string_view stream;
  const operation* op = nullptr;  ///< valid during the callback only
  double start_us = 0, end_us = 0;
};

/// The estimate of one training iteration. See the file comment.
struct iteration_estimate {
  double iteration_s = 0;
  double tokens_per_s = 0;                     ///< global batch × sequence length / iteration time
  double mfu = 0, hfu = 0;                     ///< fractions of the dense BF16 peak of all GPUs
  double model_flops = 0, hardware_flops = 0;  ///< per iteration, all GPUs
  std::vector<stage_estimate> stages;
  std::string compute;  ///< the compute model's provenance
  std::string cluster;  ///< the cluster preset's name
};

/// Where a group's members sit on the cluster's nodes.
struct group_placement {
  std::uint64_t size = 1;
  std::uint64_t nodes = 1;
  std::uint64_t per_node = 1;  ///< members on each node (the most on any node)
};

/// The placement of `group` on `cluster` (consecutive ranks fill a node). Members ascend, so a
/// node's members are consecutive: the nodes are the runs of one node, `per_node` the longest run.
/// A group of more than 2^20 members (a data-parallel group of a huge world) is a lattice that
/// repeats from node to node: its first node's run stands for every node, so the cost does not
/// grow with the group.
[[nodiscard]] inline group_placement place(const rank_group& group, const cluster_spec& cluster) {
  group_placement p{.size = group.size(), .nodes = 0, .per_node = 0};
  const std::uint64_t n = group.size();
  if (n > (std::uint64_t{1} << 20)) {
    const std::uint64_t first = cluster.node_of(group.member(0));
    std::uint64_t run = 0;
    while (run < n && cluster.node_of(group.member(run)) == first)
      ++run;
    p.per_node = run;
    p.nodes = (n + run - 1) / run;
    return p;
  }
  std::uint64_t run = 0, node = 0;
  for (std::uint64_t j = 0; j < n; ++j) {
    const std::uint64_t here = cluster.node_of(group.member(j));
    if (j == 0 || here != node) {
      ++p.nodes;
      run = 0;
      node = here;
    }
    p.per_node = std::max(p.per_node, ++run);
  }
  p.nodes = std::max<std::uint64_t>(p.nodes, 1);
  p.per_node = std::max<std::uint64_t>(p.per_node, 1);
  return p;
}

/// How an all-to-all's off-node traffic travels. By default every rank sends each peer its share
/// directly. A node-forwarding exchange — DeepEP's internode kernels, under Megatron's flex
/// dispatcher — sends a token once per destination node, over the network to the GPU of the same
/// local index there, which forwards it over NVLink to the node's GPUs that chose it (DeepEP's normal
/// kernels; DeepSeek-V3 technical report, arXiv 2412.19437, section 3.2.2): `off_node_share` of the
/// direct exchange's network bytes leave the node, and the receiving node's NVLink carries
/// `forwarded_per_network_byte` bytes per byte that arrived.
///
/// The token's copy for its own node takes the same path through the sending kernel (into the
/// node's receive buffer, then forwarded over NVLink), and that path moves its copies no faster than
/// the NIC: DeepEP's own benchmark counts them as "logical" network bandwidth, and its internode
/// normal kernels reach 43, 58 and 51 GB/s of it at EP 16, 32 and 64 on 50 GB/s NICs (H800, its
/// docs/legacy.md; its README: "the results are logical bandwidth ... actually contains local rank
/// traffic"). At EP 16 half those copies stay on their node, so the exchange takes twice the time its
/// network bytes alone would. `copies_per_network_copy`: the copies that pass through the sending
/// kernel (one per distinct destination node, its own included) per copy that leaves the node.
struct node_forwarding {
  double off_node_share = 1;
  double forwarded_per_network_byte = 0;
  double copies_per_network_copy = 1;
};

/// The node forwarding of a token routed to `k` of `experts` experts spread evenly over a group
/// placed as `p`, under uniform routing (limited to `group_topk` of `groups` expert groups where the
/// model's router has groups, as aicb::expected_destinations): the network carries one copy per distinct
/// remote node instead of one per distinct remote GPU, and each arrival is forwarded to the chosen GPUs of
/// its node other than the one it arrived at. A group not spread evenly over whole nodes, or inside one,
/// forwards nothing.
[[nodiscard]] constexpr node_forwarding forwarding_by_node(std::uint64_t experts, std::uint64_t k,
                                                           const group_placement& p, std::uint64_t groups = 0,
                                                           std::uint64_t group_topk = 0) {
  if (p.nodes <= 1 || p.per_node <= 1 || p.nodes * p.per_node != p.size || experts % p.size != 0) return {};
  const double n = static_cast<double>(p.size), nodes = static_cast<double>(p.nodes);
  const double m = static_cast<double>(p.per_node);
  const double gpus = expected_destinations(experts, k, p.size, groups, group_topk);  // distinct GPUs a token
  const double hosts = expected_destinations(experts, k, p.nodes, groups, group_topk);  // distinct nodes
  const double remote_gpus = gpus * (n - m) / n, remote_nodes = hosts * (nodes - 1) / nodes;
  if (!(remote_gpus > 0) || !(remote_nodes > 0)) return {};
  // Given its node is chosen, a token goes to gpus / hosts of its GPUs; the one it arrives at is one
  // of them with probability 1/m of each.
  const double per_chosen_node = gpus / hosts;
  return {.off_node_share = remote_nodes / remote_gpus,
          .forwarded_per_network_byte = per_chosen_node * (m - 1) / m,
          .copies_per_network_copy = hosts / remote_nodes};
}

/// The node forwarding of `model`'s routing (its experts, top-k and router groups) over a group
/// placed as `p`.
[[nodiscard]] constexpr node_forwarding forwarding_by_node(const model_spec& model,
                                                           const group_placement& p) {
  return forwarding_by_node(model.num_experts, model.moe_top_k, p, model.moe_router_num_groups,
                            model.moe_router_group_topk);
}

namespace detail {

// The time of a collective from the cluster's measured curves (aicb/compute/measured_network.hpp):
// within a node the node curve; across nodes the rail curve with the node's members sharing as many
// rails (all-to-all: scaled by the share of the buffer that leaves the node), bounded below by the
// node curve. Negative when no curve covers the kind and placement.
[[nodiscard]] inline double measured_collective_us(collective kind, double size, const group_placement& p,
                                                   const measured_network& measured,
                                                   const node_forwarding& forwarding) {
  const measured_curve* node = measured.find(kind, link_class::node);
  if (p.nodes <= 1) return node ? node->time_us(size, p.size) : -1;
  const measured_curve* rail = measured.find(kind, link_class::rail);
  if (!rail) return -1;
  const double n = static_cast<double>(p.size), m = static_cast<double>(p.per_node);
  double network = 0;
  if (kind == collective::all_to_all) {
    const double r = static_cast<double>(rail->group_size);
    network = rail->time_us(size, rail->group_size) * ((n - m) / n) / ((r - 1) / r) *
              forwarding.off_node_share * forwarding.copies_per_network_copy;
  } else {
    network = rail->time_us(size, p.size) / m;
  }
  // What stays inside the node: the group's own share, and what it forwards of what arrived.
  const double forwarded = forwarding.forwarded_per_network_byte * forwarding.off_node_share * (n - m) * m /
                           (n * std::max(m - 1, 1.0));
  const double inside = node && p.per_node > 1 ? node->time_us(size * (1 + forwarded), p.per_node) : 0;
  return std::max(network, inside);
}

}  // namespace detail

/// Microseconds a collective of `kind` over a group placed as `p` takes, for `size` bytes (the whole
/// buffer, as the schedules give it). See the file comment; a cluster with measured curves prices
/// the collectives they cover from them. `forwarding`: how an all-to-all's off-node traffic travels.
[[nodiscard]] inline double collective_us(collective kind, double size, const group_placement& p,
                                          const cluster_spec& cluster,
                                          const node_forwarding& forwarding = {}) {
  const double n = static_cast<double>(p.size);
  if (p.size <= 1 || kind == collective::none || !(size > 0)) return 0;
  if (cluster.measured)
    if (const double us = detail::measured_collective_us(kind, size, p, *cluster.measured, forwarding);
        us >= 0)
      return us;
  const bool one_node = p.nodes <= 1;
  if (one_node && cluster.nvlink_fits)
    if (const double us = cluster.nvlink_fits->time_us(kind, size, p.size); us >= 0) return us;
  const double network = cluster.nic_gb_per_s * static_cast<double>(cluster.nics_per_node) *
                         static_cast<double>(p.per_node) / static_cast<double>(cluster.gpus_per_node);
  const double bus = (one_node ? cluster.nvlink_gb_per_s : std::min(cluster.nvlink_gb_per_s, network)) * 1e3;
  const double latency = one_node ? cluster.nvlink_latency_us : cluster.nic_latency_us;
  const double steps = std::ceil(std::log2(n));
  switch (kind) {
    case collective::all_reduce:
      return 2 * steps * latency + 2 * (n - 1) / n * size / bus;
    case collective::all_gather:
    case collective::reduce_scatter:
      return steps * latency + (n - 1) / n * size / bus;
    case collective::all_to_all: {
      if (one_node) return steps * latency + (n - 1) / n * size / bus;
      // Each rank sends (n − m)/n of its buffer over its own share of the NICs, (m − 1)/n over NVLink;
      // a node-forwarding exchange sends a share of the first, its own node's copies through the same
      // kernel at the NIC's pace, and forwards what arrives over NVLink.
      const double m = static_cast<double>(p.per_node);
      const double network = (n - m) / n * size * forwarding.off_node_share;
      const double off_node =
          network * forwarding.copies_per_network_copy / (cluster.nic_gb_per_s_per_gpu() * 1e3);
      const double on_node = ((m - 1) / n * size + network * forwarding.forwarded_per_network_byte) /
                             (cluster.nvlink_gb_per_s * 1e3);
      return steps * latency + std::max(off_node, on_node);
    }
    default:
      return steps * latency + size / bus;
  }
}

/// Microseconds a point-to-point transfer of `size` bytes from `from` to `to` takes (from a measured
/// send curve where the cluster has one).
[[nodiscard]] inline double transfer_us(double size, std::uint64_t from, std::uint64_t to,
                                        const cluster_spec& cluster) {
  if (!(size > 0)) return 0;
  const bool one_node = cluster.node_of(from) == cluster.node_of(to);
  if (cluster.measured)
    if (const measured_curve* c =
            cluster.measured->find(collective::send, one_node ? link_class::node : link_class::rail))
      return c->time_us(size, 2);
  const double bandwidth = (one_node ? cluster.nvlink_gb_per_s : cluster.nic_gb_per_s_per_gpu()) * 1e3;
  return (one_node ? cluster.nvlink_latency_us : cluster.nic_latency_us) + size / bandwidth;
}

namespace detail {

// One pipeline stage's representative rank, advancing through its schedule.
struct estimate_lane {
  rank_schedule schedule;
  ranges::iterator_t<rank_schedule> at;
  stage_estimate result;
  double clock = 0;
  double backward_stretch = 0;  // compute of the backward work since the last forward operation
  double pending_tp = 0;        // a TP all-gather waiting for the next GEMM (tp_comm_overlap)
  operation pending_op{};       // that all-gather
  double last_gemm = 0;         // the GEMM just run, which a TP reduce-scatter can hide behind
  double since_exchange = 0;    // compute since the last EP all-to-all (overlap_moe_expert_parallel_comm)
  // overlap_param_gather: per model chunk, the first micro batch it runs forward and when that forward
  // ended (the next iteration's gather of the chunk's weights must arrive by then), and the gather so far.
  static constexpr std::uint64_t unseen = ~std::uint64_t{0};
  std::vector<std::uint64_t> first_microbatch{};
  std::vector<double> first_forward_end{};
  double gathered = 0;        // the weight all-gathers listed so far, run back to back from the start
  double gather_exposed = 0;  // what of them no forward hides
  double host = 0;            // when the host has issued everything so far
  double compute_pace = 1, communication_pace = 1;  // a slow rank's factors (estimate_options::slow_ranks)
  bool moe_counts_read = false;                     // the host has read this MoE layer's token counts
  bool done = false;
  // Overlapped pipeline receives posted but not yet needed: the receive, and when its data arrives.
  // The rank waits for it at the first operation of the same micro batch, chunk and pass.
  std::vector<std::pair<operation, double>> arrivals{};
  // The context-parallel ring's exchanges of the attention about to run (their times, in ring order),
  // and whether they are the backward's reverse ring: they overlap the attention's steps.
  std::vector<double> ring_us{};
  bool ring_reverse = false;
};

// What of a context-parallel attention's ring exchanges stays exposed, and what hides (µs). The
// attention runs in `ring.size()` steps (forward: one more than the exchanges) of equal time; each
// exchange overlaps one step — Transformer Engine sends the next step's keys and values while it
// computes the current one — and the backward's last exchange, the final gradients, follows the last
// step with nothing to hide behind.
[[nodiscard]] inline std::pair<double, double> ring_overlap(const std::vector<double>& ring, bool reverse,
                                                            double attention_us) noexcept {
  const double steps = static_cast<double>(ring.size() + (reverse ? 0 : 1));
  const double step = attention_us / steps;
  double exposed = 0, hidden = 0;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const double covered = reverse && i + 1 == ring.size() ? 0 : std::min(ring[i], step);
    hidden += covered;
    exposed += ring[i] - covered;
  }
  return {exposed, hidden};
}

// Whether `op` is the first use of what `recv` brought: the same micro batch and model chunk, in the
// pass it feeds (activations the forward, gradients the backward work, recomputation included).
[[nodiscard]] inline bool uses(const operation& op, const operation& recv) noexcept {
  if (op.phase == op_phase::finalize || op.microbatch != recv.microbatch || op.chunk != recv.chunk)
    return false;
  return recv.phase == op_phase::forward ? op.phase == op_phase::forward : op.is_backward_work();
}

}  // namespace detail

/// The estimate of one iteration of `job` with `compute` on `cluster`. See the file comment.
/// `on_interval`, when given, receives every interval of every representative rank as it is played
/// (the timelines draw them; aicb/io/trace_events.hpp).
[[nodiscard]] inline iteration_estimate estimate_iteration(
    const job_spec& job, const compute_model& compute, const cluster_spec& cluster,
    estimate_options options = {}, const std::function<void(const timed_interval&)>& on_interval = {}) {
  const validated_job checked(job);  // once, before anything runs: every stage's schedule starts from it
  const gpu_spec* gpu = find_gpu(cluster.gpu);
  if (!gpu) AICB_THROW(config_error("cluster.gpu", std::string(cluster.gpu), "not in the GPU catalogue"));
  if (job.batch.dtype == dtype::fp8 && job.batch.fp8_recipe == fp8_recipe_kind::mxfp8 &&
      !gpu->microscaled_fp8)
    AICB_THROW(config_error(
        "fp8_recipe", "mxfp8",
        "MXFP8 GEMMs need tensor cores that take microscaled FP8 (Blackwell: B200, GB200); the " +
            std::string(gpu->name) + "'s do not (its FP8 recipes: delayed, tensorwise, blockwise)"));
  if (cluster.gpus_per_node == 0 || !(cluster.nvlink_gb_per_s > 0) || !(cluster.nic_gb_per_s > 0))
    AICB_THROW(config_error("cluster", std::string(cluster.name),
                            "needs GPUs per node and positive NVLink and NIC bandwidths"));
  const std::uint64_t stages = job.parallel.pipeline_parallel;
  const bool overlap_p2p = overlaps_p2p(job, options);
  const bool static_counts = checked.job().model.moe_pad_to_capacity;  // Megatron's drop-and-pad
  std::vector<detail::estimate_lane> lanes;
  lanes.reserve(stages);
  std::map<std::uint64_t, std::uint64_t> stage_of_rank;
  // The pipeline played: the first rank's, or the first slow rank's; each stage's pace, its slowest rank's.
  const process_grid grid(checked.job());
  std::vector<double> compute_pace(stages, 1), communication_pace(stages, 1);
  std::vector<slow_rank> slow_ranks = options.slow_ranks;
  for (const slow_node& n : options.slow_nodes) {
    if (n.node >= (job.parallel.world_size + cluster.gpus_per_node - 1) / cluster.gpus_per_node)
      AICB_THROW(config_error(
          "slow_node", std::to_string(n.node),
          "a slow node must be one of the job's " +
              std::to_string((job.parallel.world_size + cluster.gpus_per_node - 1) / cluster.gpus_per_node) +
              " nodes of " + std::to_string(cluster.gpus_per_node) + " GPUs"));
    for (std::uint64_t i = 0;
         i < cluster.gpus_per_node && n.node * cluster.gpus_per_node + i < job.parallel.world_size; ++i)
      slow_ranks.push_back({n.node * cluster.gpus_per_node + i, n.compute, n.communication});
  }
  for (const slow_rank& slow : slow_ranks) {
    if (slow.rank >= job.parallel.world_size)
      AICB_THROW(config_error(
          "slow_rank", std::to_string(slow.rank),
          "a slow rank must be below world_size (" + std::to_string(job.parallel.world_size) + ")"));
    if (!(slow.compute >= 1) || !(slow.communication >= 1) || !(slow.compute < 1e6) ||
        !(slow.communication < 1e6))
      AICB_THROW(
          config_error("slow_rank", std::to_string(slow.rank),
                       "a slow rank's factors must be at least 1 (1 = as fast as the others) and finite"));
    const std::uint64_t s = grid.coordinates(slow.rank).pp;
    compute_pace[s] = std::max(compute_pace[s], slow.compute);
    communication_pace[s] = std::max(communication_pace[s], slow.communication);
  }
  for (std::uint64_t s = 0; s < stages; ++s) {
    const std::uint64_t rank = slow_ranks.empty()
                                   ? first_rank_of_stage(job, s)
                                   : grid.group(group_kind::pp, slow_ranks.front().rank).member(s);
    lanes.push_back({rank_schedule(checked, rank), {}, {.stage = s, .rank = rank}});
    lanes.back().compute_pace = compute_pace[s];
    lanes.back().communication_pace = communication_pace[s];
    stage_of_rank[rank] = s;
  }
  for (auto& lane : lanes)
    lane.at = lane.schedule.begin();

  std::map<group_id, group_placement> placements;
  const auto placement = [&](const detail::estimate_lane& lane,
                             const operation& op) -> const group_placement& {
    auto it = placements.find(op.group);
    if (it == placements.end())
      it = placements
               .emplace(op.group, place(lane.schedule.grid().group(op.group.kind, lane.result.rank), cluster))
               .first;
    return it->second;
  };
  // The flex dispatcher's exchanges travel as DeepEP sends them: once per destination node.
  const auto forwarding_of = [&](const operation& op, const group_placement& where) -> node_forwarding {
    if (job.parallel.moe_dispatcher != moe_dispatcher_kind::flex || op.group.kind != group_kind::ep ||
        op.kind != collective::all_to_all)
      return {};
    return forwarding_by_node(job.model, where);
  };
  // Sends between representatives not yet received: (from, to, tag) → arrival time.
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>, double> in_flight;

  const auto report = [&](const detail::estimate_lane& lane, std::string_view stream, const operation& op,
                          double start, double end) {
    if (on_interval) on_interval({lane.result.stage, lane.result.rank, stream, &op, start, end});
  };
  // The computation under a hidden collective of `hidden` µs runs slower by the overlap's cost.
  const auto contend = [&](detail::estimate_lane& lane, double hidden) {
    const double cost = options.overlap_slowdown * hidden;
    lane.clock += cost;
    lane.result.contention_us += cost;
  };
  // The host issues `launches` kernels or collectives: the GPU starts the first no earlier than it
  // is issued, and finishes the operation no earlier than the last is.
  const double launch_us = host_us_per_launch(options, cluster);
  const auto gpu_waits_until = [&](detail::estimate_lane& lane, double issued) {
    if (issued > lane.clock) {
      lane.result.host_us += issued - lane.clock;
      lane.clock = issued;
    }
  };
  const auto issue = [&](detail::estimate_lane& lane, std::uint64_t launches) {
    if (!(launch_us > 0)) return;
    const double first = lane.host + launch_us;
    lane.host += launch_us * static_cast<double>(launches);
    gpu_waits_until(lane, first);
  };
  const auto host_waits = [&](detail::estimate_lane& lane) { lane.host = std::max(lane.host, lane.clock); };
  const auto flush_tp = [&](detail::estimate_lane& lane) {
    if (lane.pending_tp > 0)
      report(lane, "collectives", lane.pending_op, lane.clock, lane.clock + lane.pending_tp);
    lane.clock += lane.pending_tp;
    lane.result.communication_us += lane.pending_tp;
    lane.pending_tp = 0;
  };

  for (bool progressed = true; progressed;) {
    progressed = false;
    for (auto& lane : lanes) {
      for (; !lane.done && !(lane.at == ranges::default_sentinel); ++lane.at) {
        const operation& op = *lane.at;
        if (op.type == op_type::recv && stage_of_rank.count(op.peer)) {
          const auto key = std::make_tuple(op.peer, lane.result.rank, op.tag);
          const auto sent = in_flight.find(key);
          if (sent == in_flight.end()) break;  // blocked until that stage sends
          flush_tp(lane);
          issue(lane, 1);
          if (overlap_p2p) {
            lane.arrivals.emplace_back(op, sent->second);  // waited for where it is used
          } else if (sent->second > lane.clock) {
            report(lane, "waiting", op, lane.clock, sent->second);
            lane.result.wait_us += sent->second - lane.clock;
            lane.clock = sent->second;
          }
          if (host_sync_of(op, false, overlap_p2p, options) == host_sync::after) host_waits(lane);
          in_flight.erase(sent);
          progressed = true;
          continue;
        }
        progressed = true;
        // An overlapped receive's data, waited for where it is first used.
        for (auto it = lane.arrivals.begin(); it != lane.arrivals.end();) {
          if (!detail::uses(op, it->first)) {
            ++it;
            continue;
          }
          flush_tp(lane);
          if (it->second > lane.clock) {
            report(lane, "waiting", it->first, lane.clock, it->second);
            lane.result.wait_us += it->second - lane.clock;
            lane.clock = it->second;
          }
          it = lane.arrivals.erase(it);
        }
        // Forward work: the forward and recomputed passes, and inside a backward the forward of a
        // block selective recomputation repeats (its compute is forward; its dispatch collectives
        // keep their forward names).
        const bool forward_pass =
            op.phase == op_phase::forward || op.phase == op_phase::recompute ||
            (op.type == op_type::compute && op.compute.pass == pass_kind::forward) ||
            (op.type == op_type::collective && (op.name == "moe_token_counts" || op.name == "moe_dispatch"));
        if (forward_pass && op.name == "moe_router") lane.moe_counts_read = false;  // a new MoE layer
        // The first read of the routed counts: the all-to-all dispatcher's gathered counts, the flex
        // dispatcher's exchange (DeepEP's dispatch returns them to the host), else the expert GEMMs.
        // Experts padded to a capacity have counts the host knows: it never waits for them.
        const bool reads_counts = forward_pass && !lane.moe_counts_read && !static_counts &&
                                  ((op.type == op_type::collective &&
                                    (op.name == "moe_token_counts" || op.name == "moe_dispatch")) ||
                                   (op.type == op_type::compute && op.compute.role == op_role::moe_fc1));
        if (reads_counts) lane.moe_counts_read = true;
        const host_sync sync = host_sync_of(op, reads_counts, overlap_p2p, options);
        if (sync == host_sync::before) {
          flush_tp(lane);
          host_waits(lane);
        }
        issue(lane, op.type == op_type::compute ? kernel_launches(op.compute) : 1);
        switch (op.type) {
          case op_type::compute: {
            const double us =
                static_cast<double>(compute.duration(op.compute).count()) / 1000 * lane.compute_pace;
            const bool gemm = op.compute.kind == op_kind::gemm;
            if (!lane.ring_us.empty() && op.compute.kind == op_kind::attention) {
              // The ring's exchanges under the attention's steps: what they do not cover waits.
              const auto [exposed, hidden] = detail::ring_overlap(lane.ring_us, lane.ring_reverse, us);
              lane.ring_us.clear();
              contend(lane, hidden);
              lane.clock += exposed;
              lane.result.communication_us += exposed;
            }
            if (lane.pending_tp > 0 && gemm) {
              report(lane, "collectives", lane.pending_op, lane.clock, lane.clock + lane.pending_tp);
              report(lane, "compute", op, lane.clock, lane.clock + us);
              contend(lane, std::min(us, lane.pending_tp));
              lane.clock += std::max(us, lane.pending_tp);
              lane.result.communication_us += std::max(0.0, lane.pending_tp - us);
              lane.pending_tp = 0;
              lane.last_gemm = 0;  // its time already hides a collective
            } else {
              flush_tp(lane);
              report(lane, "compute", op, lane.clock, lane.clock + us);
              lane.clock += us;
              lane.last_gemm = gemm ? us : 0;
            }
            gpu_waits_until(lane, lane.host);  // its last kernel issued
            lane.result.compute_us += us;
            lane.since_exchange += us;
            if (op.phase == op_phase::forward) {
              lane.backward_stretch = 0;
              if (lane.first_microbatch.size() <= op.chunk) {
                lane.first_microbatch.resize(op.chunk + 1, detail::estimate_lane::unseen);
                lane.first_forward_end.resize(op.chunk + 1, 0);
              }
              if (lane.first_microbatch[op.chunk] == detail::estimate_lane::unseen)
                lane.first_microbatch[op.chunk] = op.microbatch;
              if (lane.first_microbatch[op.chunk] == op.microbatch)
                lane.first_forward_end[op.chunk] = lane.clock;
            }
            if (op.is_backward_work()) lane.backward_stretch += us;
            break;
          }
          case op_type::collective: {
            const group_placement& where = placement(lane, op);
            double us = collective_us(op.kind, static_cast<double>(op.size.count()), where, cluster,
                                      forwarding_of(op, where)) *
                        lane.communication_pace;
            if (op.phase == op_phase::finalize && is_data_parallel(op.group.kind)) {
              if (op.kind == collective::all_gather && options.overlap_param_gather) {
                // Under the next iteration's first forward: the gathers run back to back from its
                // start, and this chunk's forward ends no earlier than its weights arrive.
                lane.gathered += us;
                const double needed =
                    op.chunk < lane.first_forward_end.size() ? lane.first_forward_end[op.chunk] : 0;
                const double exposed = std::max(lane.gather_exposed, lane.gathered - needed);
                const double shown = exposed - lane.gather_exposed;
                lane.gather_exposed = exposed;
                contend(lane, us - shown);
                us = shown;
              } else if (op.kind != collective::all_gather && job.parallel.overlap_grad_reduce) {
                const double hidden = std::min(us, lane.backward_stretch);
                lane.backward_stretch -= hidden;
                contend(lane, hidden);
                us -= hidden;
              }
            }
            if (op.paired && op.group.kind == group_kind::ep && op.kind == collective::all_to_all &&
                op.phase != op_phase::finalize) {
              const double hidden = std::min(us, lane.since_exchange);
              lane.since_exchange = 0;
              flush_tp(lane);
              report(lane, "collectives", op, lane.clock - hidden, lane.clock - hidden + us);
              contend(lane, hidden);
              lane.last_gemm = 0;
              lane.clock += us - hidden;
              lane.result.communication_us += us - hidden;
              break;
            }
            if (options.tp_comm_overlap && op.group.kind == group_kind::tp &&
                op.phase != op_phase::finalize) {
              flush_tp(lane);
              if (op.kind == collective::all_gather) {  // into the GEMM after it
                lane.pending_tp = us;
                lane.pending_op = op;
                break;
              }
              const double hidden = std::min(us, lane.last_gemm);  // out of the GEMM before it
              report(lane, "collectives", op, lane.clock - hidden, lane.clock - hidden + us);
              contend(lane, hidden);
              lane.last_gemm = 0;
              lane.clock += us - hidden;
              lane.result.communication_us += us - hidden;
              break;
            }
            flush_tp(lane);
            report(lane, is_data_parallel(op.group.kind) ? "data parallel" : "collectives", op, lane.clock,
                   lane.clock + us);
            lane.last_gemm = 0;
            lane.clock += us;
            lane.result.communication_us += us;
            break;
          }
          case op_type::send: {
            flush_tp(lane);
            const double us =
                transfer_us(static_cast<double>(op.size.count()), lane.result.rank, op.peer, cluster) *
                lane.communication_pace;
            report(lane, "transfers", op, lane.clock, lane.clock + us);
            if (stage_of_rank.count(op.peer))
              in_flight[std::make_tuple(lane.result.rank, op.peer, op.tag)] = lane.clock + us;
            if (sync == host_sync::after) lane.host = std::max(lane.host, lane.clock + us);
            break;
          }
          case op_type::recv: {  // from a rank outside the representatives: a symmetric exchange
            flush_tp(lane);
            const double us =
                transfer_us(static_cast<double>(op.size.count()), op.peer, lane.result.rank, cluster) *
                lane.communication_pace;
            report(lane, "transfers", op, lane.clock, lane.clock + us);
            if (op.layer != no_layer) {  // a layer's context-parallel ring, under its attention
              lane.ring_reverse = op.name == "attention_kv_grad_ring";
              lane.ring_us.push_back(us);
              break;
            }
            lane.clock += us;
            lane.result.communication_us += us;
            break;
          }
        }
        if (sync == host_sync::after) {
          flush_tp(lane);
          host_waits(lane);
        }
      }
      if (!lane.done && lane.at == ranges::default_sentinel) {
        flush_tp(lane);
        for (const double us : lane.ring_us) {  // a ring no attention followed: nothing hid it
          lane.clock += us;
          lane.result.communication_us += us;
        }
        lane.ring_us.clear();
        lane.done = true;
        lane.result.end_us = lane.clock;
      }
    }
  }
  iteration_estimate e;
  for (const auto& lane : lanes) {
    if (!lane.done)
      AICB_THROW(error("the pipeline stages' schedules wait on each other (stage " +
                       std::to_string(lane.result.stage) + " never finishes): an inconsistent schedule"));
    e.stages.push_back(lane.result);
    e.iteration_s = std::max(e.iteration_s, lane.result.end_us * 1e-6);
  }
  const flop_counts flops = training_flops(job);
  e.model_flops = flops.model();
  e.hardware_flops = flops.total();
  if (e.iteration_s > 0) {
    const double peak =
        gpu->peak_flops(dtype::bf16) * static_cast<double>(job.parallel.world_size) * e.iteration_s;
    e.mfu = e.model_flops / peak;
    e.hfu = e.hardware_flops / peak;
    e.tokens_per_s =
        static_cast<double>(global_batch(job)) * static_cast<double>(job.batch.seq_length) / e.iteration_s;
  }
  e.compute = compute.provenance();
  e.cluster = std::string(cluster.name);
  return e;
}

AICB_END_NAMESPACE
