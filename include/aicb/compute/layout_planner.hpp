// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::plan_layouts — for a model, a GPU count, a cluster and a global batch: the parallel layouts
/// that are valid and fit in memory, ranked by estimated iteration time (aicb::estimate_iteration).
///
/// ```cpp
/// aicb::plan_request request{.job = job, .cluster = aicb::cluster_preset("dgx-h100")};
/// for (const aicb::planned_layout& p : aicb::plan_layouts(request).layouts) ...   // fastest first
/// ```
///
/// The search, over what `job` leaves open (a field named in `fixed` keeps the job's value):
/// - tensor parallel: powers of two up to the node's GPUs; sequence parallelism with TP > 1;
/// - context parallel: 1, and 2, 4, 8 for sequences of 8192 tokens or more;
/// - pipeline parallel: the divisors of the layer count up to 64, with 1, 2 or 4 virtual stages
///   (interleaving only where the micro batches are a multiple of the stages, as Megatron requires);
///   without virtual stages also zero-bubble H1, and DualPipe where the stages and micro batches are
///   even and there are at least two micro batches per stage;
/// - expert parallel (mixtures of experts): the powers of two that divide the experts;
/// - micro batch 1, 2 or 4; recomputation none, selective or full; the distributed optimizer on;
/// - what remains is data parallel, which must divide the global batch.
/// Each candidate is validated as a training job (aicb::validate_training) and its largest pipeline stage's
/// memory (aicb::memory_per_gpu) must fit in `memory_fraction` of the GPU's memory. The fitting candidates
/// are ordered by a cheap bound — recomputation first (none, selective, full), then the pipeline
/// bubble (p − 1)/(m · v); zero-bubble H1 (p − 1)/(3m) and DualPipe (p − 2)/(3m), their papers'
/// bubbles with equal F, B and W — then less tensor parallelism — and the first `estimate_limit` of
/// them are estimated and ranked by iteration time. The others are counted, not estimated.
///
/// aicb::plan_restart answers what losing GPUs costs: the best layout on the GPUs that remain.

#include <aicb/calc/flops.hpp>
#include <aicb/calc/memory.hpp>
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/gpu.hpp>
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/job.hpp>
#include <aicb/version.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// What to plan. See the file comment.
struct plan_request {
  job_spec job;                       ///< the model, the batch, world_size = the GPUs; its layout is a start
  cluster_spec cluster{};             ///< the machines (and so the GPU and its memory)
  std::vector<std::string> fixed{};   ///< parallel and batch fields to keep as `job` has them
  double memory_fraction = 0.9;       ///< of the GPU's memory a layout may use
  std::uint64_t estimate_limit = 48;  ///< candidates estimated (the rest are counted)
  estimate_options overlap{};
};

/// One layout, with what it needs and how fast it runs.
struct planned_layout {
  job_spec job;
  double memory_gb = 0;  ///< the largest stage's memory per GPU, GB (10^9 B)
  double bubble = 0;     ///< the cheap bound's pipeline term: (p − 1)/(m · v) for Megatron's schedules
  iteration_estimate estimate;
};

/// The plan: the estimated layouts, fastest first, and how many candidates each filter left.
struct layout_plan {
  std::vector<planned_layout> layouts;
  std::uint64_t candidates = 0;  ///< layouts the search considered
  std::uint64_t valid = 0;       ///< of those, valid jobs
  std::uint64_t fitting = 0;     ///< of those, fitting in memory
};

namespace detail {

[[nodiscard]] inline bool is_fixed(const plan_request& r, std::string_view field) {
  return std::find(r.fixed.begin(), r.fixed.end(), field) != r.fixed.end();
}

// The values to try for one field: the job's own when fixed, else `options`.
[[nodiscard]] inline std::vector<std::uint64_t> choices(const plan_request& r, std::string_view field,
                                                        std::uint64_t current,
                                                        std::vector<std::uint64_t> options) {
  if (is_fixed(r, field)) return {current};
  return options;
}

}  // namespace detail

/// The layouts of `r.job`'s model on `r.job.parallel.world_size` GPUs of `r.cluster`. See the file comment.
[[nodiscard]] inline layout_plan plan_layouts(const plan_request& r) {
  const gpu_spec* gpu = find_gpu(r.cluster.gpu);
  if (!gpu) AICB_THROW(config_error("cluster.gpu", std::string(r.cluster.gpu), "not in the GPU catalogue"));
  if (!(r.memory_fraction > 0 && r.memory_fraction <= 1))
    AICB_THROW(
        config_error("memory_fraction", std::to_string(r.memory_fraction), "expected a fraction in (0, 1]"));
  const model_spec model = resolve(r.job.model);
  const std::uint64_t gpus = r.job.parallel.world_size;
  const std::uint64_t global = r.job.batch.global_batch;
  if (gpus == 0) AICB_THROW(config_error("world_size", "0", "the plan needs the GPU count"));
  if (gpus > max_world_size)
    AICB_THROW(config_error("world_size", std::to_string(gpus),
                            "must be at most 2^31 - 1 (NCCL, MPI and SimAI number ranks with an int)"));
  if (r.estimate_limit == 0)
    AICB_THROW(config_error("estimate_limit", "0", "at least one layout must be estimated to rank any"));
  if (global == 0) AICB_THROW(config_error("global_batch", "0", "the plan needs the global batch"));

  std::vector<std::uint64_t> tps, cps{1}, pps, vpps{1, 2, 4}, eps{1}, mbss{1, 2, 4};
  for (std::uint64_t t = 1; t <= r.cluster.gpus_per_node && t <= gpus; t *= 2)
    tps.push_back(t);
  if (r.job.batch.seq_length >= 8192)
    for (std::uint64_t c : {2, 4, 8})
      cps.push_back(c);
  for (std::uint64_t p = 1; p <= std::min<std::uint64_t>(model.num_layers, 64); ++p)
    if (model.num_layers % p == 0) pps.push_back(p);
  if (model.is_moe())
    for (std::uint64_t e = 2; e <= model.num_experts && e <= gpus; e *= 2)
      if (model.num_experts % e == 0) eps.push_back(e);
  const parallel_spec& base = r.job.parallel;
  const auto tp_choices = detail::choices(r, "tensor_parallel", base.tensor_parallel, tps);
  const auto cp_choices = detail::choices(r, "context_parallel", base.context_parallel, cps);
  const auto pp_choices = detail::choices(r, "pipeline_parallel", base.pipeline_parallel, pps);
  const auto vpp_choices = detail::choices(r, "virtual_pipeline", base.virtual_pipeline, vpps);
  const auto ep_choices = detail::choices(r, "expert_parallel", base.expert_parallel, eps);
  const auto mbs_choices = detail::choices(r, "micro_batch", r.job.batch.micro_batch, mbss);
  std::vector<recompute_kind> recomputes{recompute_kind::none, recompute_kind::selective,
                                         recompute_kind::full};
  if (detail::is_fixed(r, "recompute")) recomputes = {base.recompute};
  std::vector<pipeline_schedule_kind> schedules{
      pipeline_schedule_kind::megatron, pipeline_schedule_kind::zb_h1, pipeline_schedule_kind::dualpipe};
  if (detail::is_fixed(r, "pipeline_schedule")) schedules = {base.pipeline_schedule};

  layout_plan plan;
  std::vector<planned_layout> fitting;
  const double limit = r.memory_fraction * gpu->memory_bytes();
  for (std::uint64_t tp : tp_choices)
    for (std::uint64_t cp : cp_choices)
      for (std::uint64_t pp : pp_choices) {
        if (gpus % (tp * cp * pp) != 0) continue;
        const std::uint64_t dp = gpus / (tp * cp * pp);
        if (global % dp != 0) continue;
        for (std::uint64_t vpp : vpp_choices) {
          if (vpp > 1 && (pp == 1 || model.num_layers % (pp * vpp) != 0)) continue;
          for (std::uint64_t ep : ep_choices)
            for (std::uint64_t mbs : mbs_choices) {
              if ((global / dp) % mbs != 0) continue;
              const std::uint64_t microbatches = global / (dp * mbs);
              if (vpp > 1 && microbatches % pp != 0) continue;
              for (recompute_kind recompute : recomputes)
                for (pipeline_schedule_kind schedule : schedules) {
                  if (schedule != pipeline_schedule_kind::megatron && (pp == 1 || vpp > 1)) continue;
                  if (schedule == pipeline_schedule_kind::dualpipe &&
                      (pp % 2 != 0 || microbatches % 2 != 0 || microbatches < 2 * pp))
                    continue;
                  ++plan.candidates;
                  job_spec job = r.job;
                  job.parallel.pipeline_schedule = schedule;
                  job.parallel.tensor_parallel = tp;
                  job.parallel.context_parallel = cp;
                  job.parallel.pipeline_parallel = pp;
                  job.parallel.virtual_pipeline = vpp;
                  job.parallel.expert_parallel = ep;
                  job.parallel.recompute = recompute;
                  if (!detail::is_fixed(r, "sequence_parallel")) job.parallel.sequence_parallel = tp > 1;
                  if (!detail::is_fixed(r, "distributed_optimizer"))
                    job.parallel.distributed_optimizer = true;
                  job.batch.micro_batch = mbs;
                  try {
                    validate_training(job);  // the training rules too: no layout the schedules refuse
                  } catch (const config_error&) {
                    continue;
                  }
                  ++plan.valid;
                  double memory = 0;
                  for (std::uint64_t s = 0; s < pp; ++s)
                    memory = std::max(memory, static_cast<double>(memory_per_gpu(job, s).total().count()));
                  if (memory > limit) continue;
                  ++plan.fitting;
                  const double m = static_cast<double>(microbatches), stages = static_cast<double>(pp);
                  const double bubble = schedule == pipeline_schedule_kind::zb_h1 ? (stages - 1) / (3 * m)
                                        : schedule == pipeline_schedule_kind::dualpipe
                                            ? (stages - 2) / (3 * m)
                                            : (stages - 1) / (m * vpp);
                  fitting.push_back(
                      {.job = job, .memory_gb = memory / 1e9, .bubble = bubble, .estimate = {}});
                }
            }
        }
      }
  // The cheap bound: no recomputation before selective before full, a smaller bubble, less TP.
  std::stable_sort(fitting.begin(), fitting.end(), [](const planned_layout& a, const planned_layout& b) {
    if (a.job.parallel.recompute != b.job.parallel.recompute)
      return a.job.parallel.recompute < b.job.parallel.recompute;
    if (a.bubble != b.bubble) return a.bubble < b.bubble;
    return a.job.parallel.tensor_parallel < b.job.parallel.tensor_parallel;
  });
  if (fitting.size() > r.estimate_limit) fitting.resize(r.estimate_limit);
  const roofline_model compute(*gpu);
  for (planned_layout& p : fitting)
    p.estimate = estimate_iteration(p.job, compute, r.cluster, r.overlap);
  std::stable_sort(fitting.begin(), fitting.end(), [](const planned_layout& a, const planned_layout& b) {
    return a.estimate.iteration_s < b.estimate.iteration_s;
  });
  plan.layouts = std::move(fitting);
  return plan;
}

/// What losing GPUs costs a job that restarts on the rest, re-laid out (aicb::plan_restart).
struct restart_plan {
  std::uint64_t lost = 0;        ///< the GPUs lost
  planned_layout before;         ///< the fastest layout on every GPU
  std::uint64_t gpus_after = 0;  ///< the GPUs the job restarts on (some of the rest may idle)
  planned_layout after;          ///< the fastest layout on those
  /// How much longer an iteration takes after the restart: after / before − 1.
  [[nodiscard]] double slowdown() const {
    return after.estimate.iteration_s / before.estimate.iteration_s - 1;
  }
};

/// Plans `r` on all its GPUs, then again after `lost` of them are gone, for the same global batch: on
/// the rest if some layout fits there, else on the most whole nodes below that on which one does
/// (a job's data parallelism must divide its batch, so not every GPU count runs it). config_error
/// when nothing fits before, or nowhere after.
[[nodiscard]] inline restart_plan plan_restart(const plan_request& r, std::uint64_t lost) {
  const std::uint64_t world = r.job.parallel.world_size;
  if (lost == 0 || lost >= world)
    AICB_THROW(config_error("lost_gpus", std::to_string(lost),
                            "must be at least 1 and below world_size (" + std::to_string(world) + ")"));
  restart_plan out{.lost = lost, .before = {}, .gpus_after = 0, .after = {}};
  layout_plan full = plan_layouts(r);
  if (full.layouts.empty())
    AICB_THROW(
        config_error("world_size", std::to_string(world), "no layout fits on every GPU to begin with"));
  out.before = full.layouts.front();
  const std::uint64_t node = std::max<std::uint64_t>(r.cluster.gpus_per_node, 1);
  std::vector<std::uint64_t> tries{world - lost};
  for (std::uint64_t n = (world - lost) / node * node; n > 0 && tries.size() < 16; n -= node)
    if (n != tries.front()) tries.push_back(n);
  for (const std::uint64_t gpus : tries) {
    plan_request fewer = r;
    fewer.job.parallel.world_size = gpus;
    const layout_plan plan = plan_layouts(fewer);
    if (plan.layouts.empty()) continue;
    out.gpus_after = gpus;
    out.after = plan.layouts.front();
    return out;
  }
  AICB_THROW(config_error("lost_gpus", std::to_string(lost),
                          "no layout of the global batch fits on the GPUs left (tried " +
                              std::to_string(tries.size()) + " counts from " + std::to_string(world - lost) +
                              " down)"));
}

/// A restart plan as text: both layouts, and what the lost GPUs cost.
[[nodiscard]] inline std::string format_restart(const restart_plan& p) {
  const auto layout = [](const planned_layout& l) {
    const parallel_spec& x = l.job.parallel;
    char text[256];
    std::snprintf(
        text, sizeof text, "TP %llu, CP %llu, PP %llu, VPP %llu, EP %llu, DP %llu, micro batch %llu, %s, %s",
        static_cast<unsigned long long>(x.tensor_parallel),
        static_cast<unsigned long long>(x.context_parallel),
        static_cast<unsigned long long>(x.pipeline_parallel),
        static_cast<unsigned long long>(x.virtual_pipeline),
        static_cast<unsigned long long>(x.expert_parallel),
        static_cast<unsigned long long>(data_parallel(l.job)),
        static_cast<unsigned long long>(l.job.batch.micro_batch), std::string(to_string(x.recompute)).c_str(),
        std::string(to_string(x.pipeline_schedule)).c_str());
    return std::string(text);
  };
  char line[512];
  std::string out;
  std::snprintf(line, sizeof line, "before: %llu GPUs, %s: %.4g s per iteration\n",
                static_cast<unsigned long long>(p.before.job.parallel.world_size), layout(p.before).c_str(),
                p.before.estimate.iteration_s);
  out += line;
  std::snprintf(line, sizeof line, "after losing %llu: %llu GPUs, %s: %.4g s per iteration\n",
                static_cast<unsigned long long>(p.lost), static_cast<unsigned long long>(p.gpus_after),
                layout(p.after).c_str(), p.after.estimate.iteration_s);
  out += line;
  std::snprintf(line, sizeof line, "cost: %+.1f%% per iteration (%+.4g s), %.1f%% of the throughput lost\n",
                100 * p.slowdown(), p.after.estimate.iteration_s - p.before.estimate.iteration_s,
                100 * (1 - p.after.estimate.tokens_per_s / p.before.estimate.tokens_per_s));
  out += line;
  return out;
}

/// The schema a plan names (docs/schemas/plan.schema.json).
inline constexpr std::string_view plan_schema = "aicb.plan/1";

/// The plan as JSON ("aicb.plan/1"): the counts, then each estimated layout, fastest first.
[[nodiscard]] inline std::string to_json(const layout_plan& plan, const cluster_spec& cluster) {
  json_writer w;
  w.begin_object().member("schema", plan_schema).member("aicb_version", AICB_VERSION_STRING);
  w.member("cluster", cluster.name).member("gpu", cluster.gpu);
  w.member("candidates", plan.candidates).member("valid", plan.valid).member("fitting", plan.fitting);
  w.key("layouts").begin_array();
  for (const planned_layout& p : plan.layouts) {
    const parallel_spec& l = p.job.parallel;
    w.begin_object()
        .member("tensor_parallel", l.tensor_parallel)
        .member("context_parallel", l.context_parallel);
    w.member("pipeline_parallel", l.pipeline_parallel).member("virtual_pipeline", l.virtual_pipeline);
    w.member("expert_parallel", l.expert_parallel).member("data_parallel", data_parallel(p.job));
    w.member("micro_batch", p.job.batch.micro_batch).member("recompute", to_string(l.recompute));
    w.member("pipeline_schedule", to_string(l.pipeline_schedule));
    w.member("sequence_parallel", l.sequence_parallel)
        .member("distributed_optimizer", l.distributed_optimizer);
    w.member("memory_gb", p.memory_gb).member("iteration_s", p.estimate.iteration_s);
    w.member("tokens_per_s", p.estimate.tokens_per_s)
        .member("mfu", p.estimate.mfu)
        .member("hfu", p.estimate.hfu);
    w.end_object();
  }
  w.end_array().end_object();
  return w.str() + "\n";
}

/// The plan as a table of its first `top` layouts.
[[nodiscard]] inline std::string format_plan(const layout_plan& plan, const cluster_spec& cluster,
                                             std::size_t top = 10) {
  char line[256];
  std::string out;
  std::snprintf(line, sizeof line,
                "%llu layouts considered, %llu valid, %llu fit in memory; %zu estimated on %s (%s)\n\n",
                static_cast<unsigned long long>(plan.candidates), static_cast<unsigned long long>(plan.valid),
                static_cast<unsigned long long>(plan.fitting), plan.layouts.size(),
                std::string(cluster.name).c_str(), std::string(cluster.gpu).c_str());
  out += line;
  // Every column is separated by a space, whatever its width: DP 1000000 never runs into PP.
  out +=
      "   TP  CP  PP VPP  EP       DP MBS recompute  memory GiB  iteration s    tokens/s    MFU schedule\n";
  for (std::size_t i = 0; i < plan.layouts.size() && i < top; ++i) {
    const planned_layout& p = plan.layouts[i];
    const parallel_spec& l = p.job.parallel;
    std::snprintf(line, sizeof line,
                  "%5llu %3llu %3llu %3llu %3llu %8llu %3llu %-10s %10.1f %12.4g %11.4g %5.1f%% %s\n",
                  static_cast<unsigned long long>(l.tensor_parallel),
                  static_cast<unsigned long long>(l.context_parallel),
                  static_cast<unsigned long long>(l.pipeline_parallel),
                  static_cast<unsigned long long>(l.virtual_pipeline),
                  static_cast<unsigned long long>(l.expert_parallel),
                  static_cast<unsigned long long>(data_parallel(p.job)),
                  static_cast<unsigned long long>(p.job.batch.micro_batch),
                  std::string(to_string(l.recompute)).c_str(), p.memory_gb * 1e9 / (1ULL << 30),
                  p.estimate.iteration_s, p.estimate.tokens_per_s, 100 * p.estimate.mfu,
                  std::string(to_string(l.pipeline_schedule)).c_str());
    out += line;
  }
  if (plan.layouts.empty())
    out += "  (no layout fits: more GPUs, a smaller batch, or a larger memory fraction)\n";
  return out;
}

AICB_END_NAMESPACE
