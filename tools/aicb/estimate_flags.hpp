// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The flags every subcommand that estimates an iteration takes (describe, plan, timeline): the machines
// (--gpu, --cluster; aicb::choose_cluster) and Megatron's overlap options (aicb::estimate_options).
#pragma once

#include <aicb/compute/iteration_estimate.hpp>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace aicb_tool {

// A slowdown flag's value, its error a usage error of the flag (the callback runs while parsing).
inline aicb::slow_rank parsed_slowdown(const std::string& text, std::string_view what) {
  try {
    return aicb::parse_slowdown(text, what);
  } catch (const aicb::config_error& e) {
    throw CLI::ValidationError(std::string("--") + (what == "slow_rank" ? "slow-rank" : "slow-node"),
                               e.what());
  }
}

// A repeatable slowdown flag (--slow-rank, --slow-node): each value parsed as `what` and handed, with
// its text, to `take(const aicb::slow_rank&, const std::string&)`.
template <class Take>
CLI::Option* add_slowdown_option(CLI::App& command, const std::string& flag, std::string_view what, Take take,
                                 const std::string& help) {
  return command.add_option_function<std::vector<std::string>>(
      flag,
      [take, what](const std::vector<std::string>& texts) {
        for (const std::string& text : texts)
          take(parsed_slowdown(text, what), text);
      },
      help);
}

inline void add_estimate_flags(CLI::App& command, std::string& gpu, std::string& cluster,
                               aicb::estimate_options& overlap) {
  command.add_option("--gpu", gpu, "GPU (catalogue name; default: the cluster's, or H100)");
  command.add_option(
      "--cluster", cluster,
      "machines: dgx2h | dgx-a100-40gb | dgx-a100 | dgx-h100 | h800 | dgx-h200 | hgx-h20 | dgx-b200 | "
      "gb200-nvl72, or a cluster file (.json; aicb run --sweep --calibrate writes one) (default: the GPU's; "
      "docs/cluster.md)");
  command.add_flag("--overlap-param-gather", overlap.overlap_param_gather,
                   "the weight all-gather hidden behind the next forward (Megatron --overlap-param-gather)");
  command.add_flag("--tp-comm-overlap", overlap.tp_comm_overlap,
                   "tensor-parallel collectives under their GEMMs (Megatron --tp-comm-overlap)");
  command.add_flag("--overlap-p2p", overlap.overlap_p2p,
                   "pipeline transfers posted ahead (Megatron --overlap-p2p-communication; an interleaved "
                   "schedule's default)");
  command.add_flag("--no-overlap-p2p{false}", overlap.interleaved_p2p_overlap,
                   "an interleaved schedule's transfers on the critical path (Megatron "
                   "--no-overlap-p2p-communication)");
  command
      .add_option("--overlap-slowdown", overlap.overlap_slowdown,
                  "how much slower computation runs under a hidden collective (default 0.189, measured; "
                  "docs/cluster.md; 0 = free overlap)")
      ->check(CLI::Range(0.0, 10.0));
  command
      .add_option_function<double>(
          "--host-overhead-us", [&overlap](double us) { overlap.host_us_per_launch = us; },
          "host time to issue one kernel or collective, us (default: the cluster's, 12 on x86 hosts and 33 "
          "on "
          "Grace, measured; docs/cluster.md; 0 = never host-bound, as with CUDA graphs)")
      ->check(CLI::Range(0.0, 1e6));
  command.add_flag("--no-batch-p2p-sync{false}", overlap.batch_p2p_sync,
                   "the host does not wait for the GPU after each pipeline transfer (Megatron's "
                   "batch_p2p_sync off)");
  add_slowdown_option(
      command, "--slow-rank", "slow_rank",
      [&overlap](const aicb::slow_rank& r, const std::string&) { overlap.slow_ranks.push_back(r); },
      "RANK:COMPUTE[:COMMUNICATION]: a straggler, its computation and communication that many times "
      "slower (e.g. 12:1.5); repeatable; the estimate reports what it costs")
      ->type_name("R:C[:M]");
  add_slowdown_option(
      command, "--slow-node", "slow_node",
      [&overlap](const aicb::slow_rank& r, const std::string&) {
        overlap.slow_nodes.push_back({r.rank, r.compute, r.communication});
      },
      "NODE:COMPUTE[:COMMUNICATION]: every GPU of a node that many times slower (e.g. 1:1:4, a degraded "
      "NIC); repeatable")
      ->type_name("N:C[:M]");
}

}  // namespace aicb_tool
