// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::write_trace_events — the iteration estimate as a timeline people can open: Chrome's
/// trace-event JSON (chrome://tracing, https://ui.perfetto.dev), one process per pipeline stage (its
/// representative rank), one thread per stream — compute, collectives, data parallel, transfers,
/// waiting — and one complete event ("ph": "X") per interval the estimate played
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
#include <aicb/config.hpp>
#include <aicb/io/json_writer.hpp>
#include <aicb/model/job.hpp>
#include <aicb/version.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The schema a trace names (docs/schemas/trace.schema.json).
inline constexpr std::string_view trace_schema = "aicb.trace/1";

/// The streams of a timeline, in the order their threads are listed.
inline constexpr std::array<std::string_view, 5> trace_streams{"compute", "collectives", "data parallel",
                                                               "transfers", "waiting"};

/// Writes the timeline of one iteration of `job` through `write(std::string_view)` (see the file
/// comment: an aicb::atomic_file's write, a string's append); returns the estimate.
template <class Write>
iteration_estimate write_trace_events(Write&& write, const job_spec& job, const compute_model& compute,
                                      const cluster_spec& cluster, estimate_options options = {}) {
  write("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  bool first = true;
  const auto emit = [&](const std::string& event) {
    if (!first) write(",\n");
    write(event);
    first = false;
  };
  const auto thread_of = [](std::string_view stream) {
    for (std::size_t i = 0; i < trace_streams.size(); ++i)
      if (trace_streams[i] == stream) return i;
    return trace_streams.size();
  };
  // Names for the processes (stages) and threads (streams), as the trace viewers read them.
  for (std::uint64_t s = 0; s < job.parallel.pipeline_parallel; ++s) {
    json_writer w;
    w.begin_object().member("name", "process_name").member("ph", "M").member("pid", s).member("tid", 0);
    w.key("args").begin_object();
    std::string label = "stage ";
    label.append(std::to_string(s))
        .append(" (rank ")
        .append(std::to_string(first_rank_of_stage(job, s)))
        .append(")");
    w.member("name", label);
    w.end_object().end_object();
    emit(w.str());
    for (std::size_t t = 0; t < trace_streams.size(); ++t) {
      json_writer n;
      n.begin_object().member("name", "thread_name").member("ph", "M").member("pid", s).member("tid", t);
      n.key("args").begin_object().member("name", trace_streams[t]).end_object().end_object();
      emit(n.str());
    }
  }
  const iteration_estimate e =
      estimate_iteration(job, compute, cluster, options, [&](const timed_interval& i) {
        const operation& op = *i.op;
        json_writer w;
        std::string name(i.stream == "waiting" ? "wait for " : "");
        name.append(op.name);
        w.begin_object().member("name", name).member("cat", i.stream).member("ph", "X");
        w.member("pid", i.stage).member("tid", thread_of(i.stream)).member("ts", i.start_us);
        w.member("dur", i.end_us > i.start_us ? i.end_us - i.start_us : 0.0);
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
        emit(w.str());
      });
  json_writer about;
  about.begin_object().member("schema", trace_schema).member("aicb_version", AICB_VERSION_STRING);
  about.member("cluster", cluster.name).member("gpu", cluster.gpu).member("compute", e.compute);
  about.member("iteration_s", e.iteration_s).member("mfu", e.mfu).member("hfu", e.hfu).end_object();
  write("\n],\"otherData\":");
  write(about.str());
  write("}\n");
  return e;
}

AICB_END_NAMESPACE
