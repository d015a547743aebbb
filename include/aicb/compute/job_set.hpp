// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Several training jobs sharing one cluster (docs/jobs.md): aicb::job_set describes them — each job
/// as the command line describes it (an aicb::job_request) with its placement, GPU ranges or a
/// packing policy — and aicb::place_jobs builds every job, validates it and places it, refusing a GPU
/// held by two jobs or a job the cluster cannot hold, naming both jobs. aicb::estimate_job_set plays
/// each job's iteration side by side, with the jobs that share the network's leaf uplinks slowing
/// each other's inter-node communication (the contention model below).
///
/// ```cpp
/// aicb::job_set set{.gpus = 16};
/// set.jobs.push_back({.name = "dense", .job = {.model = "llama3-8b", .fields = {{"world_size", "8"},
///                     {"tensor_parallel", "2"}}}});
/// set.jobs.push_back({.name = "moe", .job = {...}, .gpus = "8-15"});
/// const aicb::placed_job_set placed = aicb::place_jobs(set);        // config_error naming both jobs
/// const aicb::job_set_estimate e = aicb::estimate_job_set(placed, aicb::roofline_model("H100"));
/// ```
///
/// Contention (docs/jobs.md has the derivation): nodes hang off leaf switches, `nodes_per_leaf` each,
/// whose uplinks carry `nodes_per_leaf × node NIC bandwidth / oversubscription`. A job whose GPUs span
/// more than one leaf sends its inter-node traffic through the uplinks of every leaf it occupies; its
/// demand on a leaf is its GPUs there × their NIC share × its network duty cycle (the fraction of its
/// iteration spent communicating, from its estimate alone). Where the jobs' demands on a leaf exceed
/// the uplinks, they share them in proportion: each job's inter-node bandwidth is divided by the load
/// factor of its most loaded leaf. A non-blocking fabric (oversubscription 1, the default) never
/// contends: every GPU has its NIC share to itself, so jobs on disjoint GPUs do not slow each other.
/// GPUs of different jobs on one node share its NICs as every estimate already shares them (a GPU
/// gets its node's NIC bandwidth / GPUs per node), so a shared node costs nothing beyond that.

#include <aicb/calc/job_request.hpp>
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/model/job.hpp>
#include <aicb/parallel/groups.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// How jobs without GPU ranges are placed, in the order the set lists them.
enum class job_packing : std::uint8_t {
  nodes,       ///< whole nodes: the lowest free nodes, the rest of a job's last node left idle
  contiguous,  ///< the lowest run of consecutive free GPUs, nodes shared with the next job
};
template <>
struct enum_names<job_packing> {
  static constexpr std::array<std::string_view, 2> value{"nodes", "contiguous"};
};

/// One job of a set: its name (unique in the set, a plain file name: it names the job's files), the
/// job as the command line describes it, and its GPUs ("0-7,16-23": the job's rank r runs on the r-th
/// GPU listed) or empty to be packed.
struct job_set_entry {
  std::string name{};
  job_request job{};
  std::string gpus{};
};

/// The cluster's network beyond the nodes (see the file comment); the defaults never contend.
struct job_set_network {
  std::uint64_t nodes_per_leaf = 0;  ///< nodes under one leaf switch; 0: one non-blocking fabric
  double oversubscription = 1;       ///< a leaf's downlink over its uplink bandwidth (1: non-blocking)
};

/// Several jobs on one cluster of `gpus` GPUs: the cluster preset and GPU (as `aicb describe`'s
/// --cluster and --gpu; empty: the GPU's preset, H100's by default), the network, the packing policy
/// for jobs without GPU ranges, and the jobs.
struct job_set {
  std::uint64_t gpus = 0;
  std::string cluster{};
  std::string gpu{};
  job_set_network network{};
  job_packing packing = job_packing::nodes;
  std::vector<job_set_entry> jobs{};
};

/// A job of a set, built, validated and placed.
struct placed_job {
  std::string name;
  job_spec job;                     ///< validated (validate_training)
  std::vector<std::uint64_t> gpus;  ///< the cluster GPU of each of the job's ranks
  std::vector<std::string> notes;   ///< what building it decided for the user
  /// The GPU of rank `rank`.
  [[nodiscard]] std::uint64_t gpu_of(std::uint64_t rank) const { return gpus.at(rank); }
};

/// A set whose jobs are built and placed: every GPU of the cluster holds at most one job's rank.
struct placed_job_set {
  std::uint64_t gpus = 0;
  cluster_spec cluster{};  ///< the machines (its gpus_per_node places GPUs on nodes)
  job_set_network network{};
  std::vector<placed_job> jobs;
  /// For each GPU, 1 + the index of the job that holds it, or 0 when idle.
  std::vector<std::uint32_t> owner;
  /// For each GPU held, the rank its job runs there.
  std::vector<std::uint64_t> rank_at;

  /// The job that holds GPU `gpu` and the rank it runs there, or nothing for an idle GPU.
  struct holder {
    std::size_t job = 0;
    std::uint64_t rank = 0;
  };
  [[nodiscard]] std::optional<holder> held(std::uint64_t gpu) const {
    if (gpu >= owner.size() || owner[gpu] == 0) return std::nullopt;
    return holder{owner[gpu] - 1u, rank_at[gpu]};
  }
  /// The GPUs no job holds.
  [[nodiscard]] std::uint64_t idle_gpus() const {
    return static_cast<std::uint64_t>(std::count(owner.begin(), owner.end(), 0u));
  }
};

namespace detail {

// "0-7, 16-23" as a short text, from a GPU list (ranges of consecutive GPUs joined).
inline std::string gpu_ranges(const std::vector<std::uint64_t>& gpus) {
  std::vector<std::uint64_t> sorted = gpus;
  std::sort(sorted.begin(), sorted.end());
  std::string text;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
      ++j;
    text.append(text.empty() ? "" : ",").append(std::to_string(sorted[i]));
    if (j > i) text.append("-").append(std::to_string(sorted[j]));
    i = j + 1;
  }
  return text;
}

// A job's error, its field named within the set ("jobs.moe.tensor_parallel").
[[noreturn]] inline void rethrow_in_job(const config_error& e, std::string_view job) {
  AICB_THROW(config_error("jobs." + std::string(job) + "." + e.field(), e.value(), e.rule()));
}

}  // namespace detail

/// Builds, validates and places every job of `set` (see the file comment). Throws config_error: a job
/// that is not valid (its field named as jobs.NAME.FIELD), two jobs of one name, GPU ranges beyond
/// the cluster or that disagree with the job's world_size, a GPU two jobs hold or a job that does not
/// fit in what the others leave (naming both jobs).
[[nodiscard]] inline placed_job_set place_jobs(const job_set& set) {
  placed_job_set out;
  out.cluster = choose_cluster(set.gpu, set.cluster);
  out.network = set.network;
  if (set.gpus == 0) AICB_THROW(config_error("gpus", "0", "a cluster has at least one GPU"));
  if (set.gpus > (std::uint64_t{1} << 24))
    AICB_THROW(config_error("gpus", std::to_string(set.gpus), "at most 16777216 GPUs in a job set"));
  if (set.jobs.empty()) AICB_THROW(config_error("jobs", "[]", "a job set lists at least one job"));
  if (set.jobs.size() > 65535)
    AICB_THROW(config_error("jobs", std::to_string(set.jobs.size()), "at most 65535 jobs in a set"));
  if (set.network.nodes_per_leaf > 0 &&
      !(set.network.oversubscription >= 1 && set.network.oversubscription < 1e6))
    AICB_THROW(config_error("oversubscription", std::to_string(set.network.oversubscription),
                            "a leaf's oversubscription is at least 1 (1: non-blocking) and finite"));
  out.gpus = set.gpus;
  out.owner.assign(set.gpus, 0);
  out.rank_at.assign(set.gpus, 0);
  const std::uint64_t per_node = out.cluster.gpus_per_node;
  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < set.jobs.size(); ++i) {
    const job_set_entry& entry = set.jobs[i];
    if (entry.name.empty() || entry.name.size() > 64 ||
        entry.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
            std::string::npos ||
        entry.name.front() == '.')
      AICB_THROW(config_error("jobs[" + std::to_string(i) + "].name", entry.name,
                              "a job's name is 1 to 64 letters, digits, '_', '-' or '.', not starting "
                              "with '.' (it names the job's files)"));
    if (!names.insert(entry.name).second)
      AICB_THROW(config_error("jobs[" + std::to_string(i) + "].name", entry.name, "two jobs have this name"));
    placed_job p{.name = entry.name, .job = {}, .gpus = {}, .notes = {}};
    try {
      built_job built = build_job(entry.job);
      p.job = std::move(built.job);
      p.notes = std::move(built.notes);
      const bool world_given = std::any_of(entry.job.fields.begin(), entry.job.fields.end(),
                                           [](const auto& f) { return f.first == "world_size"; });
      if (!entry.gpus.empty()) {
        std::vector<std::uint64_t> listed;
        try {
          listed = parse_ranks(entry.gpus, set.gpus);
        } catch (const config_error& e) {
          AICB_THROW(config_error("gpus", entry.gpus,
                                  e.rule() + " (GPUs of a cluster of " + std::to_string(set.gpus) + ")"));
        }
        if (world_given && p.job.parallel.world_size != listed.size())
          AICB_THROW(config_error("gpus", entry.gpus,
                                  "lists " + std::to_string(listed.size()) +
                                      " GPUs; the job's world_size is " +
                                      std::to_string(p.job.parallel.world_size)));
        p.job.parallel.world_size = listed.size();
        p.gpus = std::move(listed);
      } else if (!world_given) {
        AICB_THROW(
            config_error("world_size", "(none)",
                         "a job without GPU ranges (gpus) is packed: give its GPU count as world_size"));
      }
      validate_training(p.job);
    } catch (const config_error& e) {
      detail::rethrow_in_job(e, entry.name);
    }
    out.jobs.push_back(std::move(p));
  }
  const auto claim = [&](std::size_t i) {
    for (std::uint64_t r = 0; r < out.jobs[i].gpus.size(); ++r) {
      const std::uint64_t g = out.jobs[i].gpus[r];
      if (out.owner[g] != 0)
        AICB_THROW(config_error("jobs." + out.jobs[i].name + ".gpus", detail::gpu_ranges(out.jobs[i].gpus),
                                "GPU " + std::to_string(g) + " is held by job " +
                                    out.jobs[out.owner[g] - 1].name + " as well: jobs may not share a GPU"));
      out.owner[g] = static_cast<std::uint32_t>(i + 1);
      out.rank_at[g] = r;
    }
  };
  // Explicit ranges first, then the packed jobs in the order listed, into what is left.
  for (std::size_t i = 0; i < out.jobs.size(); ++i)
    if (!out.jobs[i].gpus.empty()) claim(i);
  for (std::size_t i = 0; i < out.jobs.size(); ++i) {
    placed_job& p = out.jobs[i];
    if (!p.gpus.empty()) continue;
    const std::uint64_t need = p.job.parallel.world_size;
    const bool whole_nodes = set.packing == job_packing::nodes;
    std::optional<std::uint64_t> start;
    for (std::uint64_t s = 0; s + need <= set.gpus;) {
      const std::uint64_t span =
          whole_nodes ? std::min(set.gpus - s, (need + per_node - 1) / per_node * per_node) : need;
      std::optional<std::uint64_t> held;
      for (std::uint64_t g = s; g < s + span && !held; ++g)
        if (out.owner[g] != 0) held = g;
      if (!held) {
        start = s;
        break;
      }
      s = whole_nodes ? (*held / per_node + 1) * per_node : *held + 1;  // past the held GPU
    }
    if (!start) {
      std::string holders;
      for (std::size_t k = 0; k < out.jobs.size(); ++k)
        if (k != i && !out.jobs[k].gpus.empty())
          holders += (holders.empty() ? "" : ", ") + out.jobs[k].name + " (GPUs " +
                     detail::gpu_ranges(out.jobs[k].gpus) + ")";
      AICB_THROW(config_error(
          "jobs." + p.name + ".world_size", std::to_string(need),
          "the job does not fit: the cluster has " + std::to_string(set.gpus) + " GPUs" +
              (holders.empty() ? std::string() : ", and job(s) " + holders + " hold part of them") +
              (whole_nodes
                   ? " (packing \"nodes\" gives a job whole nodes of " + std::to_string(per_node) + ")"
                   : std::string())));
    }
    p.gpus.resize(need);
    for (std::uint64_t r = 0; r < need; ++r)
      p.gpus[r] = *start + r;
    claim(i);
  }
  return out;
}

/// One job's iteration in a set: alone on its GPUs and with the others beside it.
struct job_in_set_estimate {
  std::string name;
  std::string gpus;                     ///< its GPU ranges
  std::uint64_t nodes = 0, leaves = 0;  ///< nodes and leaf switches it occupies
  bool node_aligned = true;             ///< its rank r on GPU first + r, its first GPU a node's first
  double network_duty = 0;              ///< fraction of its iteration spent communicating (alone)
  double network_slowdown_alone = 1;    ///< its inter-node bandwidth divided by this, alone
  double network_slowdown = 1;          ///< …and beside the other jobs
  iteration_estimate alone;             ///< on its GPUs, the cluster otherwise empty
  iteration_estimate shared;            ///< beside the other jobs
};

/// The jobs of a set, side by side.
struct job_set_estimate {
  std::vector<job_in_set_estimate> jobs;
  std::uint64_t gpus = 0, idle_gpus = 0;
  std::string cluster;  ///< the cluster preset's name
};

/// The cluster a job of a set is estimated on: its inter-node bandwidth divided by `slowdown` (the
/// job's share of the leaf uplinks it crosses).
[[nodiscard]] inline cluster_spec shared_network(cluster_spec cluster, double slowdown) {
  cluster.nic_gb_per_s /= slowdown;
  return cluster;
}

/// The cluster as job `job` of `set` sees it: its ranks on nodes from its first GPU's place in its
/// node (exact for consecutive GPUs), its inter-node bandwidth divided by `slowdown`.
[[nodiscard]] inline cluster_spec cluster_of_job(const placed_job_set& set, const placed_job& job,
                                                 double slowdown = 1) {
  cluster_spec c = shared_network(set.cluster, slowdown);
  c.first_gpu = c.gpus_per_node == 0 ? 0 : job.gpus.front() % c.gpus_per_node;
  return c;
}

namespace detail {

// The inter-node bandwidth divisors of each job (see the file comment), from the jobs' network duty
// cycles `duty`: beside the other jobs, and alone (only its own demand on its leaves).
struct leaf_slowdowns {
  std::vector<double> together, alone;
};
inline leaf_slowdowns leaf_slowdowns_of(const placed_job_set& set, const std::vector<double>& duty) {
  leaf_slowdowns out{std::vector<double>(set.jobs.size(), 1.0), std::vector<double>(set.jobs.size(), 1.0)};
  const std::uint64_t per_leaf = set.network.nodes_per_leaf;
  if (per_leaf == 0 || !(set.network.oversubscription > 1)) return out;
  const cluster_spec& c = set.cluster;
  const std::uint64_t gpus_per_leaf = per_leaf * c.gpus_per_node;
  const std::uint64_t leaves = (set.gpus + gpus_per_leaf - 1) / gpus_per_leaf;
  const double uplinks = static_cast<double>(per_leaf) * c.nic_gb_per_s *
                         static_cast<double>(c.nics_per_node) / set.network.oversubscription;
  // Each job's demand on each leaf; a job that stays in one leaf sends nothing through its uplinks.
  std::vector<std::vector<double>> demand(set.jobs.size(), std::vector<double>(leaves, 0.0));
  std::vector<double> load(leaves, 0.0);
  for (std::size_t j = 0; j < set.jobs.size(); ++j) {
    std::vector<std::uint64_t> on_leaf(leaves, 0);
    for (const std::uint64_t g : set.jobs[j].gpus)
      ++on_leaf[g / gpus_per_leaf];
    if (std::count_if(on_leaf.begin(), on_leaf.end(), [](std::uint64_t n) { return n > 0; }) < 2) continue;
    for (std::uint64_t l = 0; l < leaves; ++l) {
      demand[j][l] = static_cast<double>(on_leaf[l]) * c.nic_gb_per_s_per_gpu() * duty[j];
      load[l] += demand[j][l];
    }
  }
  for (std::size_t j = 0; j < set.jobs.size(); ++j)
    for (std::uint64_t l = 0; l < leaves; ++l)
      if (demand[j][l] > 0) {
        out.together[j] = std::max(out.together[j], load[l] / uplinks);
        out.alone[j] = std::max(out.alone[j], demand[j][l] / uplinks);
      }
  return out;
}

}  // namespace detail

/// Each job of `set` timed by `compute`, alone and beside the others (see the file comment); `options`
/// as for estimate_iteration, without slow ranks (config_error: a set's slow GPU is not one job's rank).
[[nodiscard]] inline job_set_estimate estimate_job_set(const placed_job_set& set,
                                                       const compute_model& compute,
                                                       const estimate_options& options = {}) {
  if (options.any_slow())
    AICB_THROW(
        config_error("slow_rank", "(given)",
                     "a job set's estimate takes no slow ranks; estimate the job alone with --slow-rank"));
  job_set_estimate out;
  out.gpus = set.gpus;
  out.idle_gpus = set.idle_gpus();
  out.cluster = std::string(set.cluster.name);
  const std::size_t n = set.jobs.size();
  const std::uint64_t per_node = set.cluster.gpus_per_node;
  // Pass 1: each job's duty cycle, from its estimate on a fabric that does not contend.
  std::vector<double> duty(n, 0.0);
  std::vector<iteration_estimate> free_run(n);
  for (std::size_t j = 0; j < n; ++j) {
    free_run[j] = estimate_iteration(set.jobs[j].job, compute, cluster_of_job(set, set.jobs[j]), options);
    const iteration_estimate& e = free_run[j];
    double busiest = 0;
    for (const stage_estimate& s : e.stages)
      if (s.end_us > 0) busiest = std::max(busiest, s.communication_us / s.end_us);
    duty[j] = std::clamp(busiest, 0.0, 1.0);
  }
  const detail::leaf_slowdowns slowdowns = detail::leaf_slowdowns_of(set, duty);
  const std::vector<double>& together = slowdowns.together;
  for (std::size_t j = 0; j < n; ++j) {
    const placed_job& p = set.jobs[j];
    const double alone_factor = slowdowns.alone[j];
    job_in_set_estimate r;
    r.name = p.name;
    r.gpus = detail::gpu_ranges(p.gpus);
    std::set<std::uint64_t> nodes, leaves;
    for (const std::uint64_t g : p.gpus) {
      nodes.insert(g / per_node);
      if (set.network.nodes_per_leaf > 0) leaves.insert(g / per_node / set.network.nodes_per_leaf);
    }
    r.nodes = nodes.size();
    r.leaves = set.network.nodes_per_leaf > 0 ? leaves.size() : 1;
    r.node_aligned = true;  // consecutive GPUs are placed exactly, wherever the first one is
    for (std::uint64_t k = 0; k < p.gpus.size() && r.node_aligned; ++k)
      r.node_aligned = p.gpus[k] == p.gpus.front() + k;
    r.network_duty = duty[j];
    r.network_slowdown_alone = alone_factor;
    r.network_slowdown = together[j];
    r.alone = alone_factor > 1
                  ? estimate_iteration(p.job, compute, cluster_of_job(set, p, alone_factor), options)
                  : free_run[j];
    r.shared = together[j] > 1
                   ? estimate_iteration(p.job, compute, cluster_of_job(set, p, together[j]), options)
                   : free_run[j];
    out.jobs.push_back(std::move(r));
  }
  return out;
}

AICB_END_NAMESPACE
