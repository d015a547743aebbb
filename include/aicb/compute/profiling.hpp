// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Profiling a job on a GPU, the host side: what to measure and how the measurements become an AIOB
/// version 2 profile (docs/profiler.md). The GPU side is the CUDA profiler in `cuda/`.
///
/// - plan_profile() lists the operations of one transformer layer per TP rank — exactly the shapes
///   of the computations in the rank's operation graph, which the projections ask a compute model
///   to price — plus the embedding, logits and optimizer step, each with the passes the graph runs:
///   forward, input gradient, weight gradient.
/// - make_profile() turns per-operation timings into a profile whose provenance says which GPU, which
///   dtype, which shapes, how many warm-up and timed calls, and what each statistic is. Sections are
///   named after the operation roles (`attention_qkv`, `mlp_fc1`, …), which aicb::aiob_model looks up
///   first; `time_gpu_*` hold the forward pass, `# backward_*_us` the whole backward.

#include <aicb/compute/aiob_model.hpp>
#include <aicb/compute/aiob_profile.hpp>
#include <aicb/compute/gpu.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/compute/timing_stats.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/model/compute_op.hpp>
#include <aicb/model/job.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/version.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// One operation to measure: its forward shape and the backward passes the generator times.
struct profile_entry {
  op_role role = op_role::attention_qkv;
  compute_op forward;
  std::optional<compute_op> input_grad, weight_grad;
};

/// The operations of a job, in the order a layer runs them (first stage's, then the last stage's).
struct profile_plan {
  job_spec job;
  std::vector<profile_entry> entries;
};

/// What to measure for `job`: every operation role of its layers, embedding, logits and optimizer, with
/// the shapes on one GPU (its TP / EP shard), once each — the computations of the first rank of the
/// first and of the last pipeline stage (aicb::rank_schedule), as the projections price them: of each
/// role, the first operation of the kind its section times (aiob_model::profiled_kind; the MoE
/// permutations, each of its own shape, are not planned).
/// Throws config_error for an invalid job.
[[nodiscard]] inline profile_plan plan_profile(const job_spec& job) {
  profile_plan plan;
  validate(job);
  // Every micro batch runs the same operations: the fewest the schedule allows are enough.
  const job_spec few = with_fewest_microbatches(job);
  const std::uint64_t last = job.parallel.pipeline_parallel - 1;
  for (const std::uint64_t stage : {std::uint64_t{0}, last}) {
    rank_schedule schedule(few, first_rank_of_stage(job, stage));
    plan.job = schedule.job();
    plan.job.batch.global_batch = job.batch.global_batch;
    for (const operation& o : schedule) {
      if (o.type != op_type::compute) continue;
      const compute_op& op = o.compute;
      // Only what a role's section is read for (aiob_model::profiled_kind): a hybrid model's first
      // attention core may be a recurrent scan, a projection's role also carries its norm.
      if (!aiob_model::profiled(op)) continue;
      auto it = std::find_if(plan.entries.begin(), plan.entries.end(),
                             [&](const profile_entry& e) { return e.role == op.role; });
      if (it == plan.entries.end()) {
        // The first time a role appears is its forward (or, for the optimizer, its only pass).
        plan.entries.push_back({op.role, op, std::nullopt, std::nullopt});
        it = plan.entries.end() - 1;
        it->forward.pass = pass_kind::forward;
      }
      if (op.pass == pass_kind::input_grad && !it->input_grad) it->input_grad = op;
      if (op.pass == pass_kind::weight_grad && !it->weight_grad) it->weight_grad = op;
    }
    if (last == 0) break;
  }
  return plan;
}

/// The timings of one planned operation.
struct op_measurement {
  op_role role = op_role::attention_qkv;
  timing_stats forward;
  std::optional<timing_stats> backward;  ///< input and weight gradients together, when measured
};

/// The GPU and software a profile was measured with.
struct device_provenance {
  std::string gpu;                 ///< e.g. "NVIDIA H200"
  std::string compute_capability;  ///< e.g. "9.0"
  std::uint64_t sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::string driver, cuda;  ///< versions, e.g. "580.65", "13.0"
  std::string clocks;        ///< e.g. "sm 1980 MHz, memory 3201 MHz"
};

/// How the timings were taken.
struct profile_method {
  std::uint32_t warmup = 0, iterations = 0;  ///< untimed and timed calls per operation
  bool l2_flush = true;                      ///< the L2 cache flushed before every timed call
  std::string date;                          ///< ISO 8601, UTC
};

namespace detail {
inline std::string microseconds_text(double us) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.3f", us);
  return buffer;
}
inline std::string shape_text(const compute_op& op) {
  std::string text;
  if (op.batch != 1) text += "batch=" + std::to_string(op.batch) + " ";
  text += "m=" + std::to_string(op.m) + " n=" + std::to_string(op.n);
  if (op.kind == op_kind::gemm || op.kind == op_kind::attention) text += " k=" + std::to_string(op.k);
  return text + " kind=" + std::string(to_string(op.kind));
}
}  // namespace detail

/// Measurements that cannot be right for `gpu`, one message each: a forward time faster than the
/// GPU's bare peaks allow (the work was not all done), or more than `slower` times what the roofline
/// model says (a kernel far from competitive — aicb's own attention kernel is one: a profile with it
/// would make attention the slowest operation of the job). The profile is still written; the
/// messages say which of its numbers not to trust.
[[nodiscard]] inline std::vector<std::string> implausible_timings(const profile_plan& plan,
                                                                  const std::vector<op_measurement>& measured,
                                                                  const gpu_spec& gpu, double slower = 5) {
  std::vector<std::string> messages;
  const roofline_model roofline(gpu);
  for (const op_measurement& m : measured) {
    const auto e = std::find_if(plan.entries.begin(), plan.entries.end(),
                                [&](const profile_entry& x) { return x.role == m.role; });
    if (e == plan.entries.end() || !(m.forward.median_us > 0)) continue;
    const compute_op& op = e->forward;
    const double bare_us =
        std::max(op.flops() / gpu.peak_flops(op.type), op.bytes() / gpu.memory_bytes_per_s()) * 1e6;
    const double model_us = static_cast<double>(roofline.duration(op).count()) / 1000;
    char text[256];
    if (m.forward.median_us < bare_us)
      std::snprintf(
          text, sizeof text,
          "%s: measured %.1f us, faster than the %s's peaks allow (%.1f us): the kernel did not do the work",
          std::string(to_string(m.role)).c_str(), m.forward.median_us, std::string(gpu.name).c_str(),
          bare_us);
    else if (m.forward.median_us > slower * model_us)
      std::snprintf(
          text, sizeof text,
          "%s: measured %.1f us, %.0f times the roofline's %.1f us: the kernel is far from competitive; "
          "do not use this profile's time for it",
          std::string(to_string(m.role)).c_str(), m.forward.median_us, m.forward.median_us / model_us,
          model_us);
    else
      continue;
    messages.emplace_back(text);
  }
  return messages;
}

/// The profile of `plan` from `measurements` (one per plan entry, any order; entries without one
/// are left out). Throws config_error for a measurement of a role the plan does not have.
[[nodiscard]] inline aiob_profile make_profile(const profile_plan& plan,
                                               const std::vector<op_measurement>& measurements,
                                               const device_provenance& device,
                                               const profile_method& method) {
  aiob_profile p;
  p.train_iter = method.iterations;  // as in aicb: how many times each operation was timed
  for (const op_measurement& m : measurements)
    if (std::none_of(plan.entries.begin(), plan.entries.end(),
                     [&](const profile_entry& e) { return e.role == m.role; }))
      AICB_THROW(
          config_error("measurement", std::string(to_string(m.role)), "the plan has no such operation"));
  for (const profile_entry& e : plan.entries) {
    const auto m = std::find_if(measurements.begin(), measurements.end(),
                                [&](const op_measurement& x) { return x.role == e.role; });
    if (m == measurements.end()) continue;
    aiob_section s;
    s.name = std::string(to_string(e.role));
    s.lines.push_back({true, " shape: " + detail::shape_text(e.forward), ""});
    s.lines.push_back({false, "time_gpu_max", detail::microseconds_text(m->forward.max_us)});
    s.lines.push_back({false, "time_gpu_min", detail::microseconds_text(m->forward.min_us)});
    s.lines.push_back({false, "time_gpu_avg", detail::microseconds_text(m->forward.median_us)});
    if (m->backward) {
      s.lines.push_back({true, " backward_avg_us: " + detail::microseconds_text(m->backward->median_us), ""});
      s.lines.push_back({true, " backward_min_us: " + detail::microseconds_text(m->backward->min_us), ""});
      s.lines.push_back({true, " backward_max_us: " + detail::microseconds_text(m->backward->max_us), ""});
    }
    p.sections.push_back(std::move(s));
  }
  const job_spec& job = plan.job;
  const auto yes_no = [](bool b) { return std::string(b ? "true" : "false"); };
  char memory[32];
  std::snprintf(memory, sizeof memory, "%.0f GB", static_cast<double>(device.memory_bytes) / 1e9);
  return with_provenance(
      std::move(p),
      {{"gpu", device.gpu},
       {"compute_capability", device.compute_capability},
       {"sm_count", std::to_string(device.sm_count)},
       {"memory", memory},
       {"driver", device.driver},
       {"cuda", device.cuda},
       {"clocks", device.clocks},
       {"dtype", std::string(to_string(job.batch.dtype))},
       {"tool", std::string("aicb ") + AICB_VERSION_STRING + " profile"},
       {"date", method.date},
       {"model", job.model.name.empty() ? std::string("(unnamed)") : std::string(job.model.name.view())},
       {"hidden_size", std::to_string(job.model.hidden_size)},
       {"seq_length", std::to_string(job.batch.seq_length)},
       {"micro_batch", std::to_string(job.batch.micro_batch)},
       {"tensor_parallel", std::to_string(job.parallel.tensor_parallel)},
       {"sequence_parallel", yes_no(job.parallel.sequence_parallel)},
       {"expert_parallel", std::to_string(job.parallel.expert_parallel)},
       {"warmup", std::to_string(method.warmup)},
       {"iterations", std::to_string(method.iterations)},
       {"statistics",
        std::string("time_gpu_avg = median, time_gpu_min = minimum, time_gpu_max = maximum over the "
                    "timed calls (CUDA events") +
            (method.l2_flush ? ", L2 flushed before each call" : "") + ")"},
       {"units",
        "time_gpu_* in microseconds of GPU time per call (forward); backward_*_us the whole backward"}});
}

AICB_END_NAMESPACE
