// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::write_serving_timeline — a window of a served request stream as a timeline people can open:
/// Chrome's trace-event JSON (https://ui.perfetto.dev, chrome://tracing). One process per engine
/// instance (a disaggregated deployment's prefill instances first), one thread per DP-attention group,
/// one complete event ("ph": "X") per step a group took part in — "prefill" when it held a prompt
/// chunk, else "decode" — lasting the group's own time, with its tokens, decoding requests, prompt
/// chunks and the context its decoding requests attend over; the step itself lasts as long as its
/// busiest group. Then a "requests" process with each request of the window as nestable async
/// events on its own track: queued (arrival to its first step), prefill (to its first token, or to its
/// prompt's end on a prefill instance), KV transfer (disaggregated), decode (to its last token).
///
/// ```cpp
/// aicb::serving_timeline_recorder window({.from_s = 10, .to_s = 12});
/// const auto run = aicb::simulate_serving(model, layout, requests, compute, cluster, {}, window);
/// std::string text;
/// aicb::write_serving_timeline([&](std::string_view s) { text += s; }, window, run.requests, {});
/// ```
///
/// The recorder keeps only the window's steps (at most `max_steps`, default 20,000: a window of a long
/// run stays small); the document names itself in "otherData" ("schema": "aicb.serving_timeline/1",
/// docs/schemas/serving_timeline.schema.json).

#include <aicb/compute/serving_stream.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/version.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The schema a serving timeline names (docs/schemas/serving_timeline.schema.json).
inline constexpr std::string_view serving_timeline_schema = "aicb.serving_timeline/1";

/// A span of a stream's time, seconds from its start: [from_s, to_s].
struct serving_window {
  double from_s = 0;
  double to_s = INFINITY;
};

/// Keeps the steps of a window as a stream is simulated: pass it as simulate_serving's (or
/// simulate_disaggregated_serving's) `on_step`. A step belongs to the window when it overlaps it.
class serving_timeline_recorder {
 public:
  explicit serving_timeline_recorder(serving_window window = {}, std::size_t max_steps = 20000)
      : window_(window), max_steps_(max_steps) {
    if (!(window.from_s >= 0) || !(window.to_s > window.from_s))
      AICB_THROW(config_error("timeline_window",
                              std::to_string(window.from_s) + ":" + std::to_string(window.to_s),
                              "expected 0 <= FROM < TO seconds"));
  }
  void operator()(const serving_step_record& step) {
    if (step.end_s < window_.from_s || step.start_s > window_.to_s) return;
    if (steps_.size() >= max_steps_) {
      truncated_ = true;
      return;
    }
    steps_.push_back(step);
  }
  [[nodiscard]] const std::vector<serving_step_record>& steps() const noexcept { return steps_; }
  [[nodiscard]] const serving_window& window() const noexcept { return window_; }
  /// True when the window held more steps than the recorder keeps (the later ones are left out).
  [[nodiscard]] bool truncated() const noexcept { return truncated_; }

 private:
  serving_window window_;
  std::size_t max_steps_;
  std::vector<serving_step_record> steps_;
  bool truncated_ = false;
};

/// What the timeline says about itself, and a disaggregated run's request times.
struct serving_timeline_about {
  std::string model, gpu, cluster, compute;
  std::uint64_t instances = 1;          ///< aggregated: the instances (one); disaggregated: decode instances
  std::uint64_t prefill_instances = 0;  ///< disaggregated: the prefill instances (their pids come first)
  std::uint64_t groups = 1, prefill_groups = 1;  ///< DP-attention groups of a (prefill) instance
  /// Disaggregated: when each request's prompt finished on its prefill instance (its KV transfer runs
  /// from then to its first token); empty when aggregated.
  std::vector<double> prefill_done_s;
};

/// Writes the recorded window with the requests that overlap it through `write(std::string_view)`.
/// Returns the number of events written.
template <class Write>
std::uint64_t write_serving_timeline(Write&& write, const serving_timeline_recorder& recorded,
                                     const std::vector<served_request>& requests,
                                     const serving_timeline_about& about) {
  std::uint64_t events = 0;
  bool first = true;
  const auto emit = [&](const json_writer& w) {
    if (!first) write(",\n");
    write(w.str());
    first = false;
    ++events;
  };
  const auto meta = [&](std::string_view what, std::uint64_t pid, std::uint64_t tid, std::string_view key,
                        const auto& value) {
    json_writer w;
    w.begin_object().member("name", what).member("ph", "M").member("pid", pid).member("tid", tid);
    w.key("args").begin_object().member(key, value).end_object().end_object();
    emit(w);
  };
  write("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  // The instances: prefill first (disaggregated), each with a thread per group.
  const std::uint64_t instances = about.prefill_instances + about.instances;
  const bool disaggregated = about.prefill_instances > 0;
  for (std::uint64_t pid = 0; pid < instances; ++pid) {
    const bool prefill = pid < about.prefill_instances;
    std::string label = disaggregated ? (prefill ? "prefill instance " : "decode instance ") : "instance ";
    label += std::to_string(prefill ? pid : pid - about.prefill_instances);
    meta("process_name", pid, 0, "name", label);
    meta("process_sort_index", pid, 0, "sort_index", pid);
    const std::uint64_t groups = prefill ? about.prefill_groups : about.groups;
    for (std::uint64_t g = 0; g < groups; ++g)
      meta("thread_name", pid, g, "name", "group " + std::to_string(g));
  }
  const std::uint64_t requests_pid = instances;
  meta("process_name", requests_pid, 0, "name", std::string("requests"));
  meta("process_sort_index", requests_pid, 0, "sort_index", requests_pid);

  // Each step of each group.
  for (const serving_step_record& step : recorded.steps()) {
    const std::uint64_t pid =
        step.prefill_instance || !disaggregated ? step.instance : about.prefill_instances + step.instance;
    for (std::size_t g = 0; g < step.groups.size(); ++g) {
      const serving_step_shape& shape = step.groups[g];
      if (shape.tokens() == 0) continue;
      json_writer w;
      w.begin_object().member("name", shape.chunks.empty() ? "decode" : "prefill").member("cat", "step");
      w.member("ph", "X").member("pid", pid).member("tid", g);
      w.member("ts", step.start_s * 1e6).member("dur", (g < step.group_s.size() ? step.group_s[g] : 0) * 1e6);
      w.key("args").begin_object().member("tokens", shape.tokens()).member("decoding", shape.decoding);
      w.member("prompt_chunks", static_cast<std::uint64_t>(shape.chunks.size()));
      w.member("context_per_decoding_request",
               shape.decoding > 0 ? shape.decode_context / static_cast<double>(shape.decoding) : 0.0);
      w.member("step_ms", (step.end_s - step.start_s) * 1e3).end_object().end_object();
      emit(w);
    }
  }

  // The requests that overlap the window, each phase a slice of its own async track.
  const serving_window& window = recorded.window();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const served_request& r = requests[i];
    if (r.finish_s < window.from_s || r.request.arrival_s > window.to_s) continue;
    const double prompt_end = about.prefill_done_s.empty() ? r.first_token_s : about.prefill_done_s[i];
    const auto slice = [&](std::string_view name, double from, double to) {
      if (!(to >= from)) return;
      for (const char* ph : {"b", "e"}) {
        json_writer w;
        w.begin_object().member("name", name).member("cat", "request").member("ph", ph);
        w.member("id", r.request.id).member("pid", requests_pid).member("tid", 0);
        w.member("ts", (ph[0] == 'b' ? from : to) * 1e6);
        if (ph[0] == 'b')
          w.key("args")
              .begin_object()
              .member("request", r.request.id)
              .member("prompt", r.request.prompt)
              .member("output", r.request.output)
              .member("preemptions", r.preemptions)
              .end_object();
        w.end_object();
        emit(w);
      }
    };
    slice("queued", r.request.arrival_s, r.admitted_s);
    slice("prefill", r.admitted_s, prompt_end);
    if (!about.prefill_done_s.empty()) slice("kv transfer", prompt_end, r.first_token_s);
    slice("decode", r.first_token_s, r.finish_s);
  }

  json_writer other;
  other.begin_object().member("schema", serving_timeline_schema).member("aicb_version", AICB_VERSION_STRING);
  other.member("model", about.model).member("gpu", about.gpu).member("cluster", about.cluster);
  other.member("compute", about.compute);
  other.member("window_from_s", window.from_s);
  if (std::isfinite(window.to_s)) other.member("window_to_s", window.to_s);
  other.member("steps", static_cast<std::uint64_t>(recorded.steps().size()));
  other.member("truncated", recorded.truncated()).end_object();
  write("\n],\"otherData\":");
  write(other.str());
  write("}\n");
  return events;
}

AICB_END_NAMESPACE
