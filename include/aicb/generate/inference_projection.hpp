// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::inference_records — one serving step (aicb::inference_step) as a SimAI workload: each
/// collective closes a record that carries the compute since the one before (priced by a compute
/// model), the last record the compute after the last collective; forward column only. The header
/// is the training one SimAI parses (`HYBRID_TRANSFORMER_FWD_IN_BCKWD`, no `mode:` key, which SimAI
/// does not read), `ga: 1`, `pp_comm: 0`.
///
/// ```cpp
/// const aicb::inference_step step(aicb::presets::qwen3_235b_a22b, s);
/// const aicb::inference_workload w = aicb::inference_records(step, aicb::roofline_model("H100"));
/// aicb::simai_writer out("qwen3.txt", w.header, w.records.size());
/// for (const aicb::record& r : w.records) out.write(r);
/// out.finish();
/// ```
///
/// What SimAI makes of it (docs/inference.md): it plays the records forward, then backward with
/// nothing in them (zero times, no collectives); TP collectives over the header's TP group; `_EP`
/// all-to-alls over the header's `ep` — which SimAI places on TP × ep GPUs, so the header says
/// ep = GPUs / TP for expert parallelism over every GPU; run it with `-g GPUS`.

#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/schedule/inference_step.hpp>
#include <aicb/workload/record.hpp>

#include <cstdint>
#include <string>
#include <vector>

AICB_BEGIN_NAMESPACE

/// A serving step as SimAI's header and records.
struct inference_workload {
  simai_header header;
  std::vector<record> records;
};

/// The SimAI form of `step` with compute from `compute` (see the file comment).
[[nodiscard]] inline inference_workload inference_records(const inference_step& step,
                                                          const compute_model& compute) {
  const serving_spec& s = step.serving();
  inference_workload w;
  w.header.tensor_parallel = s.tensor_parallel;
  w.header.expert_parallel = s.expert_parallel > 1 ? s.gpus() / s.tensor_parallel : 1;
  w.header.pipeline_parallel = 1;
  w.header.all_gpus = s.gpus();
  w.header.ga = 1;
  std::int64_t pending = 0;  // ns of compute since the last record
  std::string last = "embedding";
  for (const operation& op : step.operations()) {
    if (op.type == op_type::compute) {
      pending += compute.duration(op.compute).count();
      last = std::string(op.name);
      continue;
    }
    if (op.type != op_type::collective) continue;
    record r;
    r.name = std::string(op.name);
    r.forward.compute = nanoseconds{pending};
    const comm_group group = op.group.kind == group_kind::ep ? comm_group::ep : comm_group::tp;
    if (op.group.kind != group_kind::ep && op.group.kind != group_kind::tp)
      AICB_THROW(error("inference step: a collective over " + to_string(op.group) + " has no SimAI group"));
    r.forward.comm = {op.kind, group, op.size};
    w.records.push_back(std::move(r));
    pending = 0;
  }
  if (pending > 0 || w.records.empty()) {
    record r;
    r.name = last;
    r.forward.compute = nanoseconds{pending};
    w.records.push_back(std::move(r));
  }
  return w;
}

AICB_END_NAMESPACE
