// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::play_serving_step — one GPU's serving step (aicb::inference_step) played on one clock: each
/// computation for the compute model's duration, each collective for the cluster's time of it
/// (aicb::collective_us over the group's placement; a prefill's DeepEP exchange forwarded by node, as
/// in training), one after the other. The totals feed
/// `aicb describe --phase` (aicb/commands/describe_serving.hpp); the intervals, the timelines.
///
/// ```cpp
/// const aicb::inference_step step(model, serving, 0);
/// const aicb::serving_timing t = aicb::play_serving_step(step, aicb::roofline_model("H100"),
///                                                        aicb::cluster_preset("dgx-h100"));
/// ```

#include <aicb/compute/cluster.hpp>
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/inference_step.hpp>

#include <functional>
#include <map>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// One interval of a played step: an operation on the `compute` or `collectives` stream, in
/// microseconds from the step's start.
struct serving_interval {
  std::string_view stream;
  const operation* op = nullptr;  ///< valid during the callback only
  double start_us = 0, end_us = 0;
};

/// The step's time on one GPU: computing, and in collectives (microseconds).
struct serving_timing {
  double compute_us = 0, communication_us = 0;
  [[nodiscard]] double step_us() const noexcept { return compute_us + communication_us; }
};

/// Plays `step` (see the file comment); `on_interval`, when given, receives every interval in order.
[[nodiscard]] inline serving_timing play_serving_step(
    const inference_step& step, const compute_model& compute, const cluster_spec& cluster,
    const std::function<void(const serving_interval&)>& on_interval = {}) {
  const process_grid grid(serving_layout_job(step.model(), step.serving()));
  std::map<group_id, group_placement> placements;
  // DeepEP's normal kernels (prefill) send a token once per destination node and forward it over
  // NVLink there; its low-latency kernels (decode) send each (token, expert) straight to its GPU.
  const auto forwarding = [&](const operation& op, const group_placement& where) -> node_forwarding {
    if (step.serving().phase != inference_phase::prefill || step.serving().expert_parallel <= 1 ||
        op.group.kind != group_kind::ep || op.kind != collective::all_to_all)
      return {};
    return forwarding_by_node(step.model(), where);
  };
  serving_timing t;
  double clock = 0;
  for (const operation& op : step.operations()) {
    double us = 0;
    std::string_view stream = "compute";
    if (op.type == op_type::compute) {
      us = static_cast<double>(compute.duration(op.compute).count()) / 1000;
      t.compute_us += us;
    } else if (op.type == op_type::collective) {
      auto it = placements.find(op.group);
      if (it == placements.end())
        it = placements.emplace(op.group, place(grid.group_at(op.group.kind, op.group.index), cluster)).first;
      us = collective_us(op.kind, static_cast<double>(op.size.count()), it->second, cluster,
                         forwarding(op, it->second));
      t.communication_us += us;
      stream = "collectives";
    } else {
      continue;
    }
    if (on_interval) on_interval({stream, &op, clock, clock + us});
    clock += us;
  }
  return t;
}

AICB_END_NAMESPACE
