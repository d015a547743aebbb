// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::write_trace_events — the iteration estimate as a timeline people can open: Chrome's
/// trace-event JSON (chrome://tracing, https://ui.perfetto.dev), one process per pipeline stage (its
/// representative rank) or per chosen rank, one thread per stream — compute, collectives, data parallel,
/// transfers, waiting — and one complete event ("ph": "X") per interval the estimate played
/// (aicb::timed_interval), with the operation's phase, micro batch, layer and bytes as arguments.
///
/// ```cpp
/// std::string text;
/// aicb::write_trace_events([&](std::string_view s) { text += s; }, job, aicb::roofline_model("H100"),
///                          aicb::cluster_preset("dgx-h100"));
/// ```
///
/// The document names itself in "otherData" ("schema": "aicb.trace/1", docs/schemas/trace.schema.json)
/// with the job's estimate. Events stream out as they are played: memory does not grow with the job.

#include <aicb/compute/cluster.hpp>
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/compute/serving_estimate.hpp>
#include <aicb/config.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/serving.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/inference_step.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/version.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The schema a trace names (docs/schemas/trace.schema.json).
inline constexpr std::string_view trace_schema = "aicb.trace/1";

/// The streams of a timeline, in the order their threads are listed.
inline constexpr std::array<std::string_view, 5> trace_streams{"compute", "collectives", "data parallel",
                                                               "transfers", "waiting"};

namespace detail {

// A chosen rank of a timeline, following its stage's representative: ranks of one stage run the
// same operations in the same order (only groups and peers differ), so the representative's
// interval for operation i is this rank's operation i. Intervals come in schedule order but for the
// wait on an overlapped receive, which the estimate reports where the data is used, after the
// operations between: the receives passed are kept until the next one of them is used.
struct trace_follower {
  std::uint64_t rank = 0, stage = 0;
  rank_schedule schedule;
  ranges::iterator_t<rank_schedule> at{};
  bool started = false;
  std::deque<operation> receives{};  // pipeline receives passed, latest last (a few are posted ahead)

  const operation& operation_at(std::uint64_t index) {
    if (!started) {
      at = schedule.begin();
      started = true;
    }
    if (at == ranges::default_sentinel || index < (*at).index) {
      for (const operation& r : receives)
        if (r.index == index) return r;
    }
    while (!(at == ranges::default_sentinel) && (*at).index < index) {
      if ((*at).type == op_type::recv && (*at).layer == no_layer) {
        receives.push_back(*at);
        if (receives.size() > 64) receives.pop_front();
      }
      ++at;
    }
    if (at == ranges::default_sentinel || (*at).index != index)
      AICB_THROW(error("rank " + std::to_string(rank) + " has no operation " + std::to_string(index) +
                       " where its stage's representative has one: the ranks of a stage differ"));
    return *at;
  }
};

// The document both timelines write: the opening, events separated by commas, a process's names
// (its label, its sort order, its first `threads` streams), and the closing `otherData`.
template <class Write>
class trace_document {
 public:
  explicit trace_document(Write& write) : write_(write) {
    write_("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  }

  void emit(const std::string& event) {
    if (!first_) write_(",\n");
    write_(event);
    first_ = false;
  }
  void name_process(std::uint64_t pid, const std::string& label, std::uint64_t sort, std::size_t threads) {
    json_writer w;
    w.begin_object().member("name", "process_name").member("ph", "M").member("pid", pid).member("tid", 0);
    w.key("args").begin_object().member("name", label).end_object().end_object();
    emit(w.str());
    json_writer o;
    o.begin_object()
        .member("name", "process_sort_index")
        .member("ph", "M")
        .member("pid", pid)
        .member("tid", 0);
    o.key("args").begin_object().member("sort_index", sort).end_object().end_object();
    emit(o.str());
    for (std::size_t t = 0; t < threads; ++t) {
      json_writer n;
      n.begin_object().member("name", "thread_name").member("ph", "M").member("pid", pid).member("tid", t);
      n.key("args").begin_object().member("name", trace_streams[t]).end_object().end_object();
      emit(n.str());
    }
  }
  void finish(const cluster_spec& cluster, const std::string& compute, double seconds, double mfu,
              double hfu) {
    json_writer about;
    about.begin_object().member("schema", trace_schema).member("aicb_version", AICB_VERSION_STRING);
    about.member("cluster", cluster.name).member("gpu", cluster.gpu).member("compute", compute);
    about.member("iteration_s", seconds).member("mfu", mfu).member("hfu", hfu).end_object();
    write_("\n],\"otherData\":");
    write_(about.str());
    write_("}\n");
  }

 private:
  Write& write_;
  bool first_ = true;
};

// One operation's interval as a trace event: `name` on thread `tid` (stream `stream`) of process
// `pid`, from `start_us` for `dur_us`, with what the operation is in `args` — its phase, micro
// batch and chunk, layer; a computation's kind, pass, FLOPs and bytes; a transfer's bytes and
// collective and group, or peer.
[[nodiscard]] inline std::string operation_event(const operation& op, std::string_view name,
                                                 std::string_view stream, std::uint64_t pid, std::size_t tid,
                                                 double start_us, double dur_us) {
  json_writer w;
  w.begin_object().member("name", name).member("cat", stream).member("ph", "X");
  w.member("pid", pid).member("tid", tid).member("ts", start_us).member("dur", dur_us);
  w.key("args").begin_object().member("phase", to_string(op.phase));
  if (op.phase != op_phase::finalize) w.member("microbatch", op.microbatch).member("chunk", op.chunk);
  if (op.layer != no_layer) w.member("layer", op.layer);
  if (op.type == op_type::compute) {
    w.member("kind", to_string(op.compute.kind)).member("pass", to_string(op.compute.pass));
    w.member("flops", op.compute.flops()).member("bytes", op.compute.bytes());
  } else {
    w.member("bytes", op.size.count());
    if (op.type == op_type::collective)
      w.member("collective", to_string(op.kind)).member("group", to_string(op.group));
    else
      w.member("peer", op.peer);
  }
  w.end_object().end_object();
  return w.str();
}

// Interval `i` of the estimate, operation `op` played in it, as an event of process `pid`: on its
// stream's thread, named for the operation ("wait for NAME" while waiting).
[[nodiscard]] inline std::string interval_event(const timed_interval& i, const operation& op,
                                                std::uint64_t pid) {
  std::size_t tid = 0;
  while (tid < trace_streams.size() && trace_streams[tid] != i.stream)
    ++tid;
  std::string name(i.stream == "waiting" ? "wait for " : "");
  name.append(op.name);
  return operation_event(op, name, i.stream, pid, tid, i.start_us,
                         i.end_us > i.start_us ? i.end_us - i.start_us : 0.0);
}

}  // namespace detail

/// Writes the timeline of one iteration of `job` through `write(std::string_view)` (see the file
/// comment: an aicb::atomic_file's write, a string's append); returns the estimate. `ranks` chooses
/// the ranks shown, each as a process of its own (pid = rank) with its own groups and peers and its
/// stage's times; empty: one representative per stage (pid = stage).
template <class Write>
iteration_estimate write_trace_events(Write&& write, const job_spec& job, const compute_model& compute,
                                      const cluster_spec& cluster, estimate_options options = {},
                                      const std::vector<std::uint64_t>& ranks = {}) {
  detail::trace_document<Write> doc(write);
  // The processes: stages (their representatives), or the chosen ranks.
  std::vector<detail::trace_follower> followers;
  const process_grid grid(job);
  const std::optional<validated_job> checked =
      ranks.empty() ? std::nullopt : std::optional<validated_job>(job);  // once for every chosen rank
  for (const std::uint64_t r : ranks) {
    if (r >= job.parallel.world_size)
      AICB_THROW(
          config_error("ranks", std::to_string(r),
                       "a rank must be below world_size (" + std::to_string(job.parallel.world_size) + ")"));
    followers.push_back({.rank = r, .stage = grid.coordinates(r).pp, .schedule = rank_schedule(*checked, r)});
  }
  if (followers.empty()) {
    for (std::uint64_t s = 0; s < job.parallel.pipeline_parallel; ++s) {
      std::string label = "stage ";
      label.append(std::to_string(s))
          .append(" (rank ")
          .append(std::to_string(first_rank_of_stage(job, s)))
          .append(")");
      doc.name_process(s, label, s, trace_streams.size());
    }
  } else {
    for (const auto& f : followers) {
      std::string label = "rank ";
      label.append(std::to_string(f.rank)).append(" (stage ").append(std::to_string(f.stage)).append(")");
      doc.name_process(f.rank, label, f.stage * job.parallel.world_size + f.rank,  // stages stacked
                       trace_streams.size());
    }
  }
  const auto event = [&](const timed_interval& i, const operation& op, std::uint64_t pid) {
    doc.emit(detail::interval_event(i, op, pid));
  };
  const iteration_estimate e =
      estimate_iteration(job, compute, cluster, options, [&](const timed_interval& i) {
        if (followers.empty()) {
          event(i, *i.op, i.stage);
          return;
        }
        for (auto& f : followers)
          if (f.stage == i.stage) event(i, f.operation_at(i.op->index), f.rank);
      });
  doc.finish(cluster, e.compute, e.iteration_s, e.mfu, e.hfu);
  return e;
}

/// Writes one serving step (aicb::inference_step) as a timeline, as write_trace_events writes a
/// training iteration: a process per GPU of `ranks` (default: GPU 0), its `compute` and
/// `collectives` threads, each operation's interval as aicb::play_serving_step plays it. `otherData`
/// says `iteration_s` for the step and the step's MFU and HFU (its FLOPs over the GPUs' BF16 peak).
/// Returns the first GPU's timing.
template <class Write>
serving_timing write_serving_trace_events(Write&& write, const model_spec& model, const serving_spec& serving,
                                          const compute_model& compute, const cluster_spec& cluster,
                                          std::vector<std::uint64_t> ranks = {}) {
  if (ranks.empty()) ranks.push_back(0);
  detail::trace_document<Write> doc(write);
  serving_timing shown{};
  double flops = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::uint64_t rank = ranks[i];
    const inference_step step(model, serving, rank);
    std::string label = "GPU ";
    label.append(std::to_string(rank)).append(" (").append(to_string(serving.phase)).append(")");
    doc.name_process(rank, label, rank, 2);  // compute and collectives
    const serving_timing t = play_serving_step(step, compute, cluster, [&](const serving_interval& i) {
      const operation& op = *i.op;
      json_writer w;
      w.begin_object().member("name", op.name).member("cat", i.stream).member("ph", "X");
      w.member("pid", rank).member("tid", i.stream == "compute" ? 0 : 1).member("ts", i.start_us);
      w.member("dur", i.end_us > i.start_us ? i.end_us - i.start_us : 0.0);
      w.key("args").begin_object().member("phase", to_string(serving.phase));
      if (op.layer != no_layer) w.member("layer", op.layer);
      if (op.type == op_type::compute) {
        w.member("kind", to_string(op.compute.kind));
        w.member("flops", op.compute.flops()).member("bytes", op.compute.bytes());
      } else {
        w.member("bytes", op.size.count())
            .member("collective", to_string(op.kind))
            .member("group", to_string(op.group));
      }
      w.end_object().end_object();
      doc.emit(w.str());
    });
    if (i == 0) {
      shown = t;
      flops = step.flops();
    }
  }
  const gpu_spec& gpu = require_gpu(cluster.gpu);
  const double seconds = shown.step_us() * 1e-6;
  const double utilisation = seconds > 0 ? flops / (seconds * gpu.peak_flops(dtype::bf16)) : 0;
  doc.finish(cluster, compute.provenance(), seconds, utilisation, utilisation);
  return shown;
}

AICB_END_NAMESPACE
