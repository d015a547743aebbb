// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::serve — what `aicb serve` does: a stream of requests (a trace file, or a synthetic traffic)
/// served by one deployment (aicb::simulate_serving), summarised: the latency distributions (time to
/// first token, time per output token, end-to-end), throughput, goodput at a service-level objective,
/// how busy the GPUs were, the KV cache and the preemptions. As text or as JSON
/// (`aicb.serving_run/1`, docs/schemas/serving_run.schema.json).
///
/// ```cpp
/// aicb::serve_request r;
/// r.model = "deepseek-v3";
/// r.layout.attention_data_parallel = 8;
/// r.layout.expert_parallel = 8;
/// r.traffic = {.requests = 10000, .rate = 5};
/// std::fputs(aicb::format_serve(aicb::serve(r)).c_str(), stdout);
/// ```

#include <aicb/calc/job_request.hpp>
#include <aicb/commands/serve_steps.hpp>
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/compute/serving_stream.hpp>
#include <aicb/config.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/cluster_file.hpp>
#include <aicb/io/request_trace.hpp>
#include <aicb/io/serving_timeline.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/requests.hpp>
#include <aicb/model/serving.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/version.hpp>
#include <aicb/workload/modes.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// What to serve, on what, and the objective.
struct serve_request {
  std::string model{}, hf_config{};  ///< a preset, or a Hugging Face config.json
  serving_spec layout{};             ///< TP, DP-attention, EP and the formats (phase, batch: unused)
  std::string gpu{}, cluster{};      ///< the machines (aicb::resolve_cluster)
  std::string trace{};               ///< a request trace (aicb.requests/1); empty: `traffic`
  traffic_spec traffic{};
  serving_engine engine{};
  double slo_ttft_s = 0, slo_tpot_s = 0;  ///< the objective (0: none on that metric)
  std::string write_trace{};              ///< also write the requests as a CSV trace here
  /// Also write every kind of step the run took, once, with the mix (aicb::write_serving_steps):
  /// into this folder, as `steps_format` (simai or chakra; `steps_ranks`: a Chakra set's GPUs, "0-7").
  std::string steps{};
  workload_format steps_format = workload_format::simai;
  std::string steps_ranks{};
  /// Also write a window of the run as a timeline (aicb::write_serving_timeline) into this file.
  std::string timeline{};
  serving_window timeline_window{};
  /// Disaggregated when `prefill_instances` > 0: that many instances of `prefill_layout` run the
  /// prompts and `decode_instances` of `layout` the rest (aicb::simulate_disaggregated_serving).
  std::uint64_t prefill_instances = 0, decode_instances = 1;
  serving_spec prefill_layout{};
};

/// A distribution's mean and percentiles (nearest rank), seconds.
struct latency_summary {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
  std::uint64_t count = 0;
  std::vector<double> percentiles;  ///< 0th (the least) to 100th, 101 values; empty when count is 0
};

/// The summary of a histogram of durations (its quantiles within 1.1%: aicb::duration_histogram).
[[nodiscard]] inline latency_summary summarize_histogram(const duration_histogram& h) {
  latency_summary s;
  s.count = h.count;
  if (h.count == 0) return s;
  s.mean = h.mean_s();
  s.p50 = h.quantile(0.5);
  s.p90 = h.quantile(0.9);
  s.p99 = h.quantile(0.99);
  s.max = h.max_s;
  s.percentiles.reserve(101);
  s.percentiles.push_back(h.quantile(0));
  for (int q = 1; q <= 100; ++q)
    s.percentiles.push_back(q == 100 ? h.max_s : h.quantile(q / 100.0));
  return s;
}

[[nodiscard]] inline latency_summary summarize_latencies(std::vector<double> v) {
  latency_summary s;
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (const double x : v)
    sum += x;
  s.mean = sum / static_cast<double>(v.size());
  const auto rank = [&](double q) {
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size(), std::max<std::size_t>(k, 1)) - 1];
  };
  s.p50 = rank(0.5);
  s.p90 = rank(0.9);
  s.p99 = rank(0.99);
  s.max = v.back();
  s.percentiles.reserve(101);
  s.percentiles.push_back(v.front());
  for (int q = 1; q <= 100; ++q)
    s.percentiles.push_back(rank(q / 100.0));
  return s;
}

/// The stream served, summarised.
struct serve_report {
  std::string model, gpu, cluster, compute, source;
  serving_spec layout;
  serving_engine engine;
  std::uint64_t requests = 0, prompt_tokens = 0, output_tokens = 0;
  latency_summary ttft, tpot, e2e;  ///< seconds; TPOT over requests of more than one output token
  /// Inter-token latency, seconds: every gap between a request's consecutive tokens (its median is a
  /// serving benchmark's "median ITL"); its quantiles within 1.1% (aicb::duration_histogram).
  latency_summary itl;
  double span_s = 0;  ///< first arrival to last token
  /// Requests in the deployment at once, averaged over the span (waiting and running): the sum of the
  /// requests' latencies over the span — Little's law, exact over a whole run — to set beside a
  /// measured deployment's arrival rate × latency.
  double requests_in_system = 0;
  double requests_per_s = 0, output_tokens_per_s = 0, tokens_per_s = 0, output_tokens_per_s_per_gpu = 0;
  double slo_ttft_s = 0, slo_tpot_s = 0;
  std::uint64_t within_slo = 0;  ///< requests meeting every objective given
  double goodput_per_s = 0;      ///< those per second of the span
  double busy_share = 0;         ///< time in steps over the span
  std::uint64_t steps = 0, preemptions = 0, kv_capacity_tokens = 0;
  std::uint64_t prefix_cached_tokens = 0, prefix_evictions = 0;  ///< prefix caching (prefill side, split)
  double peak_kv_share = 0, weight_bytes = 0, kv_bytes_per_token = 0;
  double state_bytes_per_request = 0;  ///< recurrent layers' state a running request holds, per GPU
  std::uint64_t gpus = 0;              ///< every instance's
  // Disaggregated: the instances, the prefill layout, the KV transfers (queueing included) and their
  // bytes, and each side's share of time busy.
  bool disaggregated = false;
  std::uint64_t prefill_instances = 0, decode_instances = 0, prefill_steps = 0,
                prefill_kv_capacity_tokens = 0;
  serving_spec prefill_layout;
  latency_summary kv_transfer;
  double kv_transfer_bytes = 0, prefill_busy_share = 0;
  /// The kinds of step the run took (aicb::serving_step_kind), most time first: the decode (or only)
  /// instances', and a disaggregated deployment's prefill instances'.
  std::vector<serving_step_kind> step_kinds, prefill_step_kinds;
  serving_steps_written steps_written;  ///< what serve_request::steps wrote
  /// What serve_request::timeline wrote: the window's steps, and whether more were left out.
  std::string timeline;
  serving_window timeline_window;
  std::uint64_t timeline_steps = 0;
  bool timeline_truncated = false;
};

/// Serves `r` (see the file comment).
[[nodiscard]] inline serve_report serve(const serve_request& r) {
  if (r.model.empty() && r.hf_config.empty())
    AICB_THROW(config_error("model", "(none)", "give --model PRESET or --hf-config FILE"));
  if (!(r.slo_ttft_s >= 0) || !(r.slo_tpot_s >= 0) || !std::isfinite(r.slo_ttft_s) ||
      !std::isfinite(r.slo_tpot_s))
    AICB_THROW(config_error("slo", std::to_string(r.slo_ttft_s) + ", " + std::to_string(r.slo_tpot_s),
                            "expected objectives >= 0 (0: none)"));
  job_request request;
  request.model = r.model;
  request.hf_config = r.hf_config;
  const model_spec model = build_job(request).job.model;
  // Each layout checked as a decode step of one request per group.
  const auto checked = [&](serving_spec l) {
    l.phase = inference_phase::decode;
    l.batch = l.attention_data_parallel;
    l.context = 1;
    l.prompt = 0;
    validate_serving(model, l);
    return l;
  };
  const serving_spec layout = checked(r.layout);
  const bool disaggregated = r.prefill_instances > 0;
  const serving_spec prefill_layout = disaggregated ? checked(r.prefill_layout) : serving_spec{};
  if (disaggregated && r.decode_instances == 0)
    AICB_THROW(config_error("decode_instances", "0", "a disaggregated deployment needs decode instances"));
  const cluster_spec machines = resolve_cluster(r.gpu, r.cluster);
  const roofline_model compute(machines.gpu);
  std::vector<serving_request> requests;
  serve_report out;
  char text[256];
  if (!r.trace.empty()) {
    requests = read_request_trace(r.trace);
    out.source = "trace " + r.trace;
  } else {
    requests = synthetic_requests(r.traffic);
    const traffic_spec& t = r.traffic;
    char arrivals[96];
    if (t.rate > 0)
      std::snprintf(arrivals, sizeof arrivals, "%g requests/s, gaps of CV %g", t.rate, t.cv);
    else
      std::snprintf(arrivals, sizeof arrivals, "all at time 0");
    std::snprintf(text, sizeof text, "synthetic: %s, prompts %llu-%llu tokens, outputs %llu-%llu, seed %llu",
                  arrivals, static_cast<unsigned long long>(t.prompt.low),
                  static_cast<unsigned long long>(t.prompt.high),
                  static_cast<unsigned long long>(t.output.low),
                  static_cast<unsigned long long>(t.output.high), static_cast<unsigned long long>(t.seed));
    out.source = text;
    if (t.prefix_groups > 0)
      out.source += "; each prompt begins with one of " + std::to_string(t.prefix_groups) + " prefixes of " +
                    std::to_string(t.prefix_tokens) + " tokens";
  }
  if (r.engine.concurrency > 0)
    out.source +=
        "; at most " + std::to_string(r.engine.concurrency) + " outstanding (each next sent as one finishes)";
  // The requests' fates and the engines' totals, aggregated or disaggregated.
  std::vector<served_request> served;
  double busy_s = 0;
  std::optional<serving_timeline_recorder> window;  // the timeline's steps, when one is asked for
  if (!r.timeline.empty()) window.emplace(r.timeline_window);
  std::vector<double> prefill_done_s;  // disaggregated: for the timeline's KV transfers
  if (disaggregated) {
    disaggregated_deployment d;
    d.prefill = prefill_layout;
    d.decode = layout;
    d.prefill_instances = r.prefill_instances;
    d.decode_instances = r.decode_instances;
    d.prefill_engine = d.decode_engine = r.engine;
    disaggregated_stream_report run =
        window ? simulate_disaggregated_serving(model, d, requests, compute, machines, *window)
               : simulate_disaggregated_serving(model, d, requests, compute, machines);
    served = std::move(run.requests);
    prefill_done_s = std::move(run.prefill_done_s);
    std::vector<double> transfers;
    for (std::size_t i = 0; i < served.size(); ++i)
      if (served[i].request.output > 1) transfers.push_back(run.kv_transfer_s[i]);
    out.kv_transfer = summarize_latencies(std::move(transfers));
    out.kv_transfer_bytes = run.kv_bytes;
    out.steps = run.decode_steps;
    out.prefill_steps = run.prefill_steps;
    out.preemptions = run.preemptions;
    out.prefix_cached_tokens = run.prefix_cached_tokens;
    out.prefix_evictions = run.prefix_evictions;
    out.kv_capacity_tokens = run.decode_kv_capacity_tokens;
    out.prefill_kv_capacity_tokens = run.prefill_kv_capacity_tokens;
    out.peak_kv_share = run.peak_kv_share;
    out.itl = summarize_histogram(run.inter_token);
    out.step_kinds = std::move(run.decode_step_kinds);
    out.prefill_step_kinds = std::move(run.prefill_step_kinds);
    busy_s = run.decode_busy_s / static_cast<double>(r.decode_instances);
    out.prefill_busy_share =
        run.prefill_busy_s / static_cast<double>(r.prefill_instances);  // over the span below
    out.gpus = r.prefill_instances * prefill_layout.gpus() + r.decode_instances * layout.gpus();
  } else {
    serving_stream_report run =
        window ? simulate_serving(model, layout, requests, compute, machines, r.engine, *window)
               : simulate_serving(model, layout, requests, compute, machines, r.engine);
    served = std::move(run.requests);
    busy_s = run.busy_s;
    out.steps = run.steps;
    out.preemptions = run.preemptions;
    out.prefix_cached_tokens = run.prefix_cached_tokens;
    out.prefix_evictions = run.prefix_evictions;
    out.kv_capacity_tokens = run.kv_capacity_tokens;
    out.peak_kv_share = run.peak_kv_share;
    out.itl = summarize_histogram(run.inter_token);
    out.step_kinds = std::move(run.step_kinds);
    out.gpus = layout.gpus();
  }
  {  // the decode layout's bytes (layout: a decode step of one request per group)
    const inference_step step(model, layout, 0);
    out.weight_bytes = step.weight_bytes();
    out.kv_bytes_per_token = step.kv_bytes_per_token();
    out.state_bytes_per_request = step.state_bytes_per_request();
  }
  if (!r.steps.empty()) {
    std::vector<serving_steps_side> sides;
    if (disaggregated) sides.push_back({"prefill", prefill_layout, out.prefill_step_kinds});
    sides.push_back({disaggregated ? "decode" : "", layout, out.step_kinds});
    std::vector<std::uint64_t> ranks;
    if (!r.steps_ranks.empty()) {
      if (r.steps_format != workload_format::chakra)
        AICB_THROW(config_error("steps_ranks", r.steps_ranks, "only a Chakra set takes chosen GPUs"));
      ranks = parse_ranks(r.steps_ranks,
                          std::min(layout.gpus(), disaggregated ? prefill_layout.gpus() : layout.gpus()));
    }
    std::optional<serving_kv_transfers> transfers;
    if (disaggregated && out.kv_transfer.count > 0)
      transfers = serving_kv_transfers{
          prefill_layout, layout, out.kv_transfer_bytes / static_cast<double>(out.kv_transfer.count),
          out.kv_transfer.mean * static_cast<double>(out.kv_transfer.count), out.kv_transfer.count};
    out.steps_written = write_serving_steps(r.steps, r.steps_format, model, sides, compute, ranks, transfers);
  }
  out.disaggregated = disaggregated;
  out.prefill_instances = disaggregated ? r.prefill_instances : 0;
  out.decode_instances = disaggregated ? r.decode_instances : 1;
  out.prefill_layout = prefill_layout;
  if (!r.write_trace.empty()) {
    atomic_file file(r.write_trace);
    file.write(format_request_trace(requests));
    file.commit();
  }
  out.model = std::string(model.name.empty() ? "custom" : model.name.view());
  out.gpu = std::string(require_gpu(machines.gpu).name);
  out.cluster = std::string(machines.name);
  out.compute = compute.provenance();
  if (window) {
    serving_timeline_about about;
    about.model = out.model;
    about.gpu = out.gpu;
    about.cluster = out.cluster;
    about.compute = out.compute;
    about.instances = disaggregated ? r.decode_instances : 1;
    about.prefill_instances = disaggregated ? r.prefill_instances : 0;
    about.groups = layout.attention_data_parallel;
    about.prefill_groups = prefill_layout.attention_data_parallel;
    about.prefill_done_s = std::move(prefill_done_s);
    atomic_file file(r.timeline);
    static_cast<void>(
        write_serving_timeline([&](std::string_view text) { file.write(text); }, *window, served, about));
    file.commit();
    out.timeline = r.timeline;
    out.timeline_window = r.timeline_window;
    out.timeline_steps = window->steps().size();
    out.timeline_truncated = window->truncated();
  }
  out.layout = r.layout;
  out.engine = r.engine;
  out.requests = requests.size();
  std::vector<double> ttft, tpot, e2e;
  double first = INFINITY, last = 0, latency_sum = 0;
  for (const served_request& s : served) {
    out.prompt_tokens += s.request.prompt;
    out.output_tokens += s.request.output;
    ttft.push_back(s.ttft_s());
    e2e.push_back(s.e2e_s());
    latency_sum += s.e2e_s();
    if (s.request.output > 1) tpot.push_back(s.tpot_s());
    first = std::min(first, s.request.arrival_s);
    last = std::max(last, s.finish_s);
    const bool ttft_ok = r.slo_ttft_s <= 0 || s.ttft_s() <= r.slo_ttft_s;
    const bool tpot_ok = r.slo_tpot_s <= 0 || s.tpot_s() <= r.slo_tpot_s;
    out.within_slo += ttft_ok && tpot_ok;
  }
  out.ttft = summarize_latencies(std::move(ttft));
  out.tpot = summarize_latencies(std::move(tpot));
  out.e2e = summarize_latencies(std::move(e2e));
  out.span_s = last - first;
  if (out.span_s > 0) {
    out.requests_per_s = static_cast<double>(out.requests) / out.span_s;
    out.output_tokens_per_s = static_cast<double>(out.output_tokens) / out.span_s;
    out.tokens_per_s = static_cast<double>(out.output_tokens + out.prompt_tokens) / out.span_s;
    out.output_tokens_per_s_per_gpu = out.output_tokens_per_s / static_cast<double>(out.gpus);
    out.goodput_per_s = static_cast<double>(out.within_slo) / out.span_s;
    out.busy_share = busy_s / out.span_s;
    out.prefill_busy_share /= out.span_s;
    out.requests_in_system = latency_sum / out.span_s;
  }
  out.slo_ttft_s = r.slo_ttft_s;
  out.slo_tpot_s = r.slo_tpot_s;
  return out;
}

/// The report as text.
[[nodiscard]] inline std::string format_serve(const serve_report& r) {
  std::string out;
  char line[320];
  const auto add = [&](const char* format, auto... values) {
    std::snprintf(line, sizeof line, format, values...);
    out += line;
  };
  const auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  const serving_spec& s = r.layout;
  const auto layout_text = [&](const serving_spec& l) {
    char t[128];
    std::snprintf(t, sizeof t, "TP %llu x DP-attention %llu, EP %llu", u(l.tensor_parallel),
                  u(l.attention_data_parallel), u(l.expert_parallel));
    return std::string(t);
  };
  // The formats the deployment keeps: weights, KV cache and, when given, the recurrent state.
  const std::string formats =
      "weights " + std::string(to_string(s.weights)) + ", KV cache " + std::string(to_string(s.kv_cache)) +
      (s.recurrent_state ? ", recurrent state " + std::string(to_string(*s.recurrent_state)) : std::string());
  if (r.disaggregated)
    add("model %s on %llu GPUs, disaggregated: %llu prefill instance(s) of %s, %llu decode instance(s) of "
        "%s; %s; "
        "%s (%s)\n",
        r.model.c_str(), u(r.gpus), u(r.prefill_instances), layout_text(r.prefill_layout).c_str(),
        u(r.decode_instances), layout_text(s).c_str(), formats.c_str(), r.gpu.c_str(), r.cluster.c_str());
  else
    add("model %s on %llu GPUs: %s; %s; %s (%s)\n", r.model.c_str(), u(s.gpus()), layout_text(s).c_str(),
        formats.c_str(), r.gpu.c_str(), r.cluster.c_str());
  add("engine: %s's scheduler, %llu tokens a %sstep, at most %llu running, blocks of %llu tokens, %.0f%% of "
      "memory%s\n",
      r.engine.policy == serving_policy::sglang ? "SGLang" : "vLLM", u(r.engine.token_budget),
      r.engine.policy == serving_policy::sglang ? "prefill " : "", u(r.engine.max_running),
      u(r.engine.block_tokens), 100 * r.engine.memory_fraction,
      r.engine.chunked_prefill ? ", chunked prefill" : "");
  if (r.engine.step_overhead_us > 0)
    add("host: %.0f us a step exposed before the GPUs run it\n", r.engine.step_overhead_us);
  if (r.engine.overlap_schedule)
    out += "host: each step formed while the previous one runs (a request arriving meanwhile waits a step)\n";
  if (r.engine.receive_interval > 1)
    add("host: new requests taken in every %llu decode steps, and after a step with prompt tokens\n",
        u(r.engine.receive_interval));
  if (r.engine.has_front_end())
    add("front end: streams each request's new tokens of a step as one message, one message at a time: "
        "%.0f us a message and %.2f us a token of the %s\n",
        r.engine.stream_message_us, r.engine.stream_token_us,
        r.engine.stream_cumulative ? "whole text so far" : "new text");
  if (r.layout.mtp_drafts > 0)
    add("speculative decoding: %llu MTP draft%s a step, each accepted at %.2f: %.2f tokens a request a "
        "decode step\n",
        u(r.layout.mtp_drafts), r.layout.mtp_drafts == 1 ? "" : "s", r.engine.draft_acceptance,
        r.engine.tokens_per_decode_step(r.layout.mtp_drafts));
  add("requests: %llu (%s); %llu prompt and %llu output tokens\n", u(r.requests), r.source.c_str(),
      u(r.prompt_tokens), u(r.output_tokens));
  if (r.prefix_cached_tokens > 0 || r.prefix_evictions > 0)
    add("prefix cache: %.1f%% of prompt tokens found cached (%llu tokens), %llu cached prefixes evicted\n",
        r.prompt_tokens
            ? 100.0 * static_cast<double>(r.prefix_cached_tokens) / static_cast<double>(r.prompt_tokens)
            : 0.0,
        u(r.prefix_cached_tokens), u(r.prefix_evictions));
  if (r.state_bytes_per_request > 0)
    add("recurrent state: %.1f MB a running request, held beside the KV cache (its tokens below are "
        "the cache without states)\n",
        r.state_bytes_per_request / 1e6);
  add("KV cache: %llu tokens a group, at most %.0f%% in use; %llu preemptions; %llu steps, busy %.0f%% of "
      "%.1f s\n\n",
      u(r.kv_capacity_tokens), 100 * r.peak_kv_share, u(r.preemptions), u(r.steps), 100 * r.busy_share,
      r.span_s);
  if (r.disaggregated)
    add("prefill: %llu steps, busy %.0f%%, KV cache %llu tokens a group; KV transfers %.2f GB in all, "
        "%.2f ms a request at the median (p99 %.2f ms, queueing included)\n\n",
        u(r.prefill_steps), 100 * r.prefill_busy_share, u(r.prefill_kv_capacity_tokens),
        r.kv_transfer_bytes / 1e9, r.kv_transfer.p50 * 1e3, r.kv_transfer.p99 * 1e3);
  add("%-22s %10s %10s %10s %10s %10s\n", "", "mean", "p50", "p90", "p99", "max");
  const auto row = [&](const char* name, const latency_summary& l, double scale) {
    add("%-22s %10.3f %10.3f %10.3f %10.3f %10.3f\n", name, l.mean * scale, l.p50 * scale, l.p90 * scale,
        l.p99 * scale, l.max * scale);
  };
  row("time to first token s", r.ttft, 1);
  row("time per token ms", r.tpot, 1e3);
  row("inter-token ms", r.itl, 1e3);
  row("latency s", r.e2e, 1);
  add("\nthroughput: %.2f requests/s, %.0f output tokens/s (%.0f per GPU), %.0f tokens/s in all; "
      "%.1f requests in the system on average\n",
      r.requests_per_s, r.output_tokens_per_s, r.output_tokens_per_s_per_gpu, r.tokens_per_s,
      r.requests_in_system);
  if (r.slo_ttft_s > 0 || r.slo_tpot_s > 0) {
    char objective[96];
    if (r.slo_ttft_s > 0 && r.slo_tpot_s > 0)
      std::snprintf(objective, sizeof objective, "TTFT <= %g ms, TPOT <= %g ms", r.slo_ttft_s * 1e3,
                    r.slo_tpot_s * 1e3);
    else if (r.slo_ttft_s > 0)
      std::snprintf(objective, sizeof objective, "TTFT <= %g ms", r.slo_ttft_s * 1e3);
    else
      std::snprintf(objective, sizeof objective, "TPOT <= %g ms", r.slo_tpot_s * 1e3);
    add("goodput at %s: %.2f requests/s (%llu of %llu requests, %.1f%%)\n", objective, r.goodput_per_s,
        u(r.within_slo), u(r.requests),
        r.requests ? 100.0 * static_cast<double>(r.within_slo) / static_cast<double>(r.requests) : 0.0);
  }
  if (!r.step_kinds.empty()) {
    std::uint64_t decode_kinds = 0, prefill_kinds = 0;
    for (const serving_step_kind& k : r.step_kinds)
      ++(k.form == inference_phase::decode ? decode_kinds : prefill_kinds);
    const serving_step_kind& top = r.step_kinds.front();
    add("steps: %llu kinds (%llu with a prompt chunk, %llu decode only)%s; the most time: %s of %llu tokens "
        "a "
        "group%s (%llu steps)\n",
        u(r.step_kinds.size()), u(prefill_kinds), u(decode_kinds),
        r.disaggregated ? " on the decode instances" : "", std::string(to_string(top.form)).c_str(),
        u(top.tokens),
        top.form == inference_phase::decode ? (", over " + std::to_string(top.context) + " keys").c_str()
                                            : "",
        u(top.count));
  }
  if (!r.steps_written.directory.empty())
    add("wrote %s: %llu kinds of step (%llu steps), %llu files, the mix in steps.csv\n",
        r.steps_written.directory.c_str(), u(r.steps_written.kinds), u(r.steps_written.steps),
        u(r.steps_written.files));
  if (!r.timeline.empty()) {
    char window[96];
    if (std::isfinite(r.timeline_window.to_s))
      std::snprintf(window, sizeof window, "from %g s to %g s", r.timeline_window.from_s,
                    r.timeline_window.to_s);
    else
      std::snprintf(window, sizeof window, "from %g s to the end", r.timeline_window.from_s);
    out += "wrote " + r.timeline + ": the timeline of " + std::to_string(r.timeline_steps) + " steps " +
           window + (r.timeline_truncated ? " (the window's later steps left out: at most 20000)" : "") +
           "\n";
  }
  out += "compute: " + r.compute + "\n";  // longer than a line buffer
  return out;
}

namespace detail {

// One distribution's cumulative plot as inline SVG: the percentiles on a log time axis.
inline std::string latency_svg(const char* title, const latency_summary& l, double scale, const char* unit) {
  std::string svg;
  char buffer[256];
  const auto add = [&](const char* format, auto... values) {
    std::snprintf(buffer, sizeof buffer, format, values...);
    svg += buffer;
  };
  constexpr double width = 420, height = 220, left = 50, right = 24, top = 24, bottom = 36;
  add("<figure><svg width=\"%g\" height=\"%g\" role=\"img\" aria-label=\"%s\">", width, height, title);
  add("<text x=\"%g\" y=\"16\" font-weight=\"bold\">%s</text>", left, title);
  if (l.percentiles.empty()) {
    add("<text x=\"%g\" y=\"%g\">no requests</text></svg></figure>\n", left, height / 2);
    return svg;
  }
  double low = INFINITY, high = 0;
  for (const double v : l.percentiles)
    if (v * scale > 0) {
      low = std::min(low, v * scale);
      high = std::max(high, v * scale);
    }
  if (!std::isfinite(low)) low = high = 1;
  double decade_low = std::floor(std::log10(low)), decade_high = std::ceil(std::log10(high));
  if (decade_high <= decade_low) decade_high = decade_low + 1;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  const auto x_of = [&](double v) {
    const double lv = std::log10(std::max(v, std::pow(10.0, decade_low)));
    return left + plot_w * (lv - decade_low) / (decade_high - decade_low);
  };
  const auto y_of = [&](double q) { return top + plot_h * (1 - q); };
  add("<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#999\"/>", left, top, plot_w,
      plot_h);
  for (double d = decade_low; d <= decade_high; ++d) {
    const double x = x_of(std::pow(10.0, d));
    add("<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#ddd\"/>", x, top, x, top + plot_h);
    add("<text x=\"%g\" y=\"%g\" font-size=\"11\" text-anchor=\"middle\">%g</text>", x, top + plot_h + 14,
        std::pow(10.0, d));
  }
  for (int q = 0; q <= 100; q += 25)
    add("<text x=\"%g\" y=\"%g\" font-size=\"11\" text-anchor=\"end\">%d%%</text>", left - 4,
        y_of(q / 100.0) + 4, q);
  add("<text x=\"%g\" y=\"%g\" font-size=\"11\" text-anchor=\"middle\">%s (log scale)</text>",
      left + plot_w / 2, height - 4, unit);
  svg += "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"";
  for (std::size_t q = 0; q < l.percentiles.size(); ++q)
    add("%.1f,%.1f ", x_of(l.percentiles[q] * scale), y_of(static_cast<double>(q) / 100));
  svg += "\"/></svg><figcaption>";
  add("mean %.4g, p50 %.4g, p90 %.4g, p99 %.4g, max %.4g %s", l.mean * scale, l.p50 * scale, l.p90 * scale,
      l.p99 * scale, l.max * scale, unit);
  svg += "</figcaption></figure>\n";
  return svg;
}

inline std::string html_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

}  // namespace detail

/// The report as a self-contained HTML page: the text report, the latency distributions plotted
/// (cumulative, over every request), and the mix of steps.
[[nodiscard]] inline std::string format_serve_html(const serve_report& r) {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>aicb serve: " +
      detail::html_escape(r.model) +
      "</title><style>body{font-family:sans-serif;margin:1.5em}figure{display:inline-block;margin:0 1em 1em "
      "0}"
      "pre{background:#f6f6f6;padding:0.8em;white-space:pre-wrap}td,th{padding:2px "
      "8px;text-align:right}</style></head><body>\n";
  page +=
      "<h1>" + detail::html_escape(r.model) + " served: " + std::to_string(r.requests) + " requests</h1>\n";
  page += "<h2>Latency, every request (share of requests at or below)</h2>\n";
  page += detail::latency_svg("time to first token", r.ttft, 1e3, "ms");
  page += detail::latency_svg("time per output token", r.tpot, 1e3, "ms");
  page += detail::latency_svg("inter-token latency (every gap)", r.itl, 1e3, "ms");
  page += detail::latency_svg("end-to-end latency", r.e2e, 1, "s");
  if (r.disaggregated) page += detail::latency_svg("KV-cache transfer", r.kv_transfer, 1e3, "ms");
  const auto kinds_table = [&](const char* title, const std::vector<serving_step_kind>& kinds) {
    if (kinds.empty()) return;
    double total = 0;
    for (const serving_step_kind& k : kinds)
      total += k.busy_s;
    page += std::string("<h2>") + title +
            "</h2>\n<table><tr><th>form</th><th>tokens a group</th><th>context</th><th>steps</th>"
            "<th>time s</th><th>share</th></tr>\n";
    char row[256];
    for (const serving_step_kind& k : kinds) {
      std::snprintf(
          row, sizeof row,
          "<tr><td>%s</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%.3f</td><td>%.1f%%</td></tr>\n",
          std::string(to_string(k.form)).c_str(), static_cast<unsigned long long>(k.tokens),
          static_cast<unsigned long long>(k.context), static_cast<unsigned long long>(k.count), k.busy_s,
          total > 0 ? 100 * k.busy_s / total : 0.0);
      page += row;
    }
    page += "</table>\n";
  };
  kinds_table(r.disaggregated ? "Steps of the decode instances, most time first" : "Steps, most time first",
              r.step_kinds);
  kinds_table("Steps of the prefill instances, most time first", r.prefill_step_kinds);
  page += "<h2>Report</h2>\n<pre>" + detail::html_escape(format_serve(r)) + "</pre>\n</body></html>\n";
  return page;
}

/// The report as JSON ("schema": "aicb.serving_run/1").
[[nodiscard]] inline std::string to_json(const serve_report& r) {
  json_writer j;
  j.begin_object().member("schema", "aicb.serving_run/1").member("aicb_version", AICB_VERSION_STRING);
  j.member("model", r.model).member("gpu", r.gpu).member("cluster", r.cluster).member("compute", r.compute);
  j.member("requests_source", r.source).member("gpus", r.gpus).member("concurrency", r.engine.concurrency);
  j.key("layout").begin_object();
  j.member("gpus", r.layout.gpus()).member("tensor_parallel", r.layout.tensor_parallel);
  j.member("attention_data_parallel", r.layout.attention_data_parallel);
  j.member("expert_parallel", r.layout.expert_parallel);
  j.member("weights", to_string(r.layout.weights)).member("kv_cache", to_string(r.layout.kv_cache));
  j.member("mtp_drafts", r.layout.mtp_drafts);
  if (r.layout.recurrent_state) j.member("recurrent_state", to_string(*r.layout.recurrent_state));
  j.end_object();
  j.key("engine").begin_object();
  j.member("policy", to_string(r.engine.policy));
  j.member("token_budget", r.engine.token_budget).member("max_running", r.engine.max_running);
  j.member("block_tokens", r.engine.block_tokens).member("memory_fraction", r.engine.memory_fraction);
  j.member("chunked_prefill", r.engine.chunked_prefill).member("draft_acceptance", r.engine.draft_acceptance);
  j.member("prefix_caching", r.engine.prefix_caching).member("step_overhead_us", r.engine.step_overhead_us);
  j.member("overlap_schedule", r.engine.overlap_schedule)
      .member("receive_interval", r.engine.receive_interval);
  j.member("stream_message_us", r.engine.stream_message_us)
      .member("stream_token_us", r.engine.stream_token_us);
  j.member("stream_cumulative", r.engine.stream_cumulative);
  j.end_object();
  j.member("requests", r.requests)
      .member("prompt_tokens", r.prompt_tokens)
      .member("output_tokens", r.output_tokens);
  const auto summary = [&](const char* name, const latency_summary& l) {
    j.key(name).begin_object();
    j.member("count", l.count).member("mean", l.mean).member("p50", l.p50).member("p90", l.p90);
    j.member("p99", l.p99).member("max", l.max);
    j.end_object();
  };
  summary("ttft_s", r.ttft);
  summary("tpot_s", r.tpot);
  summary("itl_s", r.itl);
  summary("latency_s", r.e2e);
  j.key("throughput").begin_object();
  j.member("span_s", r.span_s).member("requests_per_s", r.requests_per_s);
  j.member("output_tokens_per_s", r.output_tokens_per_s).member("tokens_per_s", r.tokens_per_s);
  j.member("output_tokens_per_s_per_gpu", r.output_tokens_per_s_per_gpu).member("busy_share", r.busy_share);
  j.member("requests_in_system", r.requests_in_system);
  j.end_object();
  j.key("slo");
  if (r.slo_ttft_s > 0 || r.slo_tpot_s > 0) {
    j.begin_object();
    j.member("ttft_s", r.slo_ttft_s).member("tpot_s", r.slo_tpot_s);
    j.member("within", r.within_slo).member("goodput_per_s", r.goodput_per_s);
    j.end_object();
  } else {
    j.null();
  }
  j.key("disaggregation");
  if (r.disaggregated) {
    j.begin_object();
    j.member("prefill_instances", r.prefill_instances).member("decode_instances", r.decode_instances);
    j.key("prefill_layout").begin_object();
    j.member("gpus", r.prefill_layout.gpus()).member("tensor_parallel", r.prefill_layout.tensor_parallel);
    j.member("attention_data_parallel", r.prefill_layout.attention_data_parallel);
    j.member("expert_parallel", r.prefill_layout.expert_parallel);
    j.end_object();
    j.member("prefill_steps", r.prefill_steps).member("prefill_busy_share", r.prefill_busy_share);
    j.member("prefill_kv_capacity_tokens_per_group", r.prefill_kv_capacity_tokens);
    j.member("kv_transfer_bytes", r.kv_transfer_bytes);
    summary("kv_transfer_s", r.kv_transfer);
    j.end_object();
  } else {
    j.null();
  }
  j.key("engine_totals").begin_object();
  j.member("steps", r.steps).member("preemptions", r.preemptions);
  j.member("kv_capacity_tokens_per_group", r.kv_capacity_tokens).member("peak_kv_share", r.peak_kv_share);
  j.member("weight_bytes_per_gpu", r.weight_bytes).member("kv_bytes_per_token_per_gpu", r.kv_bytes_per_token);
  j.member("state_bytes_per_request_per_gpu", r.state_bytes_per_request);
  j.member("prefix_cached_tokens", r.prefix_cached_tokens).member("prefix_evictions", r.prefix_evictions);
  j.end_object();
  const auto kinds = [&](const char* name, const std::vector<serving_step_kind>& list) {
    j.key(name).begin_array();
    for (const serving_step_kind& k : list) {
      j.begin_object().member("form", to_string(k.form)).member("tokens_per_group", k.tokens);
      j.member("context", k.context).member("count", k.count).member("busy_s", k.busy_s);
      j.member("drafts", k.drafts).end_object();
    }
    j.end_array();
  };
  kinds("step_kinds", r.step_kinds);
  kinds("prefill_step_kinds", r.prefill_step_kinds);
  j.end_object();
  return j.str() + "\n";
}

/// What `aicb plan --serving` searches: deployments of `base`'s model on its machines for its
/// requests (a trace, or a synthetic traffic at its full rate — or, with `base.engine.concurrency`, a
/// closed loop of that many outstanding requests over the whole deployment), each judged by the share
/// of requests meeting `base`'s objective.
struct serving_plan_request {
  serve_request base;
  std::uint64_t max_gpus = 64;  ///< the most GPUs a deployment may use
  double attainment = 0.9;      ///< the share of requests that must meet the objective
};

/// One deployment the plan judged: aggregated (`replicas` copies of `layout`, requests dealt
/// round-robin) or disaggregated (`prefill_instances` of `prefill_layout`, `decode_instances` of
/// `layout`), at the fewest instances that meet the objective — or at the most the GPUs allow when
/// none does.
struct serving_candidate {
  bool disaggregated = false, meets = false;
  serving_spec layout{}, prefill_layout{};
  std::uint64_t replicas = 1, prefill_instances = 0, decode_instances = 0, gpus = 0;
  double attainment = 0;  ///< share of requests meeting the objective
  double ttft_p90_s = 0, tpot_p90_s = 0, output_tokens_per_s_per_gpu = 0;
};

/// The deployments, those that meet the objective first, by GPUs, then by throughput per GPU.
struct serving_plan {
  std::vector<serving_candidate> candidates;
  std::uint64_t simulations = 0;
  double attainment = 0;
  std::uint64_t concurrency = 0;  ///< the closed loop's bound over the deployment (0: open, at the rate)
  /// Why no disaggregated deployment was judged, when none was searched (empty: they were).
  std::string disaggregation_skipped;
};

namespace detail {

// The layouts of one instance worth trying for `model` within `max_gpus`: TP 1–8 (within a node),
// and for experts EP over every GPU (with DP-attention, or with attention over TP alone), or EP 1 with
// TP alone.
inline std::vector<serving_spec> instance_layouts(const model_spec& model, const serving_spec& formats,
                                                  std::uint64_t max_gpus, std::uint64_t gpus_per_node) {
  std::vector<serving_spec> out;
  for (std::uint64_t tp = 1; tp <= 8 && tp <= max_gpus && tp <= std::max<std::uint64_t>(gpus_per_node, 1);
       tp *= 2)
    for (std::uint64_t dp = 1; tp * dp <= max_gpus && dp <= 64; dp *= 2) {
      if (!model.is_moe() && dp > 1) continue;  // a dense model scales by replicas instead
      for (const std::uint64_t ep : {std::uint64_t{1}, tp * dp}) {
        if (!model.is_moe() && ep > 1) continue;
        if (model.is_moe() && dp > 1 && ep == 1) continue;
        serving_spec l = formats;
        l.tensor_parallel = tp;
        l.attention_data_parallel = dp;
        l.expert_parallel = ep;
        l.phase = inference_phase::decode;
        l.batch = dp;
        l.context = 1;
        l.prompt = 0;
        try {
          validate_serving(model, l);
        } catch (const config_error&) {
          continue;
        }
        if (std::none_of(out.begin(), out.end(), [&](const serving_spec& o) {
              return o.tensor_parallel == tp && o.attention_data_parallel == dp && o.expert_parallel == ep;
            }))
          out.push_back(l);
      }
    }
  return out;
}

// The share of `served` meeting the objective (TTFT only: `ttft_only`).
inline double attainment_of(const std::vector<served_request>& served, double slo_ttft, double slo_tpot,
                            bool ttft_only = false) {
  if (served.empty()) return 0;
  std::uint64_t ok = 0;
  for (const served_request& s : served)
    ok += (slo_ttft <= 0 || s.ttft_s() <= slo_ttft) && (ttft_only || slo_tpot <= 0 || s.tpot_s() <= slo_tpot);
  return static_cast<double>(ok) / static_cast<double>(served.size());
}

// The requests dealt round-robin to `n` instances: instance 0's share, in arrival order.
inline std::vector<serving_request> share_of(const std::vector<serving_request>& sorted, std::uint64_t n) {
  std::vector<serving_request> out;
  for (std::size_t k = 0; k < sorted.size(); k += n)
    out.push_back(sorted[k]);
  return out;
}

// The smallest n in [1, most] for which `meets(n)`, by doubling then bisection (meeting is taken to
// hold for every n above one that meets); `most` when none does.
template <class Meets>
std::uint64_t fewest(std::uint64_t most, Meets meets) {
  std::uint64_t low = 0, high = 1;  // low fails (0: none tried), high is the next to try
  while (high < most && !meets(high)) {
    low = high;
    high = std::min(most, high * 2);
  }
  if (high == most && !meets(high)) return most;
  while (high - low > 1) {
    const std::uint64_t mid = low + (high - low) / 2;
    (meets(mid) ? high : low) = mid;
  }
  return high;
}

}  // namespace detail

/// Searches deployments (see serving_plan_request); `compute` prices the steps (the roofline of the
/// cluster's GPU when null).
[[nodiscard]] inline serving_plan plan_serving(const serving_plan_request& p,
                                               const compute_model* compute = nullptr) {
  const serve_request& r = p.base;
  if (r.model.empty() && r.hf_config.empty())
    AICB_THROW(config_error("model", "(none)", "give --model PRESET or --hf-config FILE"));
  if (!(r.slo_ttft_s > 0) && !(r.slo_tpot_s > 0))
    AICB_THROW(config_error("slo", "(none)",
                            "a serving plan needs an objective: --slo-ttft-ms and/or --slo-tpot-ms"));
  if (!(p.attainment > 0 && p.attainment <= 1))
    AICB_THROW(config_error("attainment", std::to_string(p.attainment), "expected a share in (0, 1]"));
  if (p.max_gpus == 0) AICB_THROW(config_error("max_gpus", "0", "expected at least 1 GPU"));
  job_request request;
  request.model = r.model;
  request.hf_config = r.hf_config;
  const model_spec model = build_job(request).job.model;
  const cluster_spec machines = resolve_cluster(r.gpu, r.cluster);
  const roofline_model roofline(machines.gpu);
  const compute_model& prices = compute ? *compute : roofline;
  std::vector<serving_request> requests =
      r.trace.empty() ? synthetic_requests(r.traffic) : read_request_trace(r.trace);
  std::stable_sort(requests.begin(), requests.end(), [](const serving_request& a, const serving_request& b) {
    return a.arrival_s < b.arrival_s;
  });
  serving_plan plan;
  plan.attainment = p.attainment;
  plan.concurrency = r.engine.concurrency;
  const auto summarize = [&](serving_candidate& c, const std::vector<served_request>& served) {
    c.attainment = detail::attainment_of(served, r.slo_ttft_s, r.slo_tpot_s);
    c.meets = c.attainment >= p.attainment;
    std::vector<double> ttft, tpot;
    double first = INFINITY, last = 0, tokens = 0;
    for (const served_request& s : served) {
      ttft.push_back(s.ttft_s());
      if (s.request.output > 1) tpot.push_back(s.tpot_s());
      first = std::min(first, s.request.arrival_s);
      last = std::max(last, s.finish_s);
      tokens += static_cast<double>(s.request.output);
    }
    c.ttft_p90_s = summarize_latencies(std::move(ttft)).p90;
    c.tpot_p90_s = summarize_latencies(std::move(tpot)).p90;
    // One replica's share of the traffic: its throughput over its own GPUs.
    const double gpus_serving =
        c.disaggregated ? static_cast<double>(c.gpus) : static_cast<double>(c.layout.gpus());
    c.output_tokens_per_s_per_gpu = last > first ? tokens / (last - first) / gpus_serving : 0;
  };
  const std::vector<serving_spec> layouts =
      detail::instance_layouts(model, r.layout, p.max_gpus, machines.gpus_per_node);
  // Aggregated: each layout's fewest replicas that meet the objective.
  for (const serving_spec& layout : layouts) {
    try {
      const std::uint64_t most = p.max_gpus / layout.gpus();
      // Each replica count simulated once: the search and the chosen count's summary share them.
      std::map<std::uint64_t, std::vector<served_request>> served;
      const auto serve_with = [&](std::uint64_t n) -> const std::vector<served_request>& {
        auto it = served.find(n);
        if (it == served.end()) {
          ++plan.simulations;
          // A bound on outstanding requests is the whole deployment's: the busiest of n replicas
          // holds ceil(C / n) of them.
          serving_engine engine = r.engine;
          if (engine.concurrency > 0) engine.concurrency = (engine.concurrency + n - 1) / n;
          it = served
                   .emplace(n, simulate_serving(model, layout, detail::share_of(requests, n), prices,
                                                machines, engine)
                                   .requests)
                   .first;
        }
        return it->second;
      };
      const std::uint64_t n = detail::fewest(most, [&](std::uint64_t k) {
        return detail::attainment_of(serve_with(k), r.slo_ttft_s, r.slo_tpot_s) >= p.attainment;
      });
      serving_candidate c;
      c.layout = layout;
      c.replicas = n;
      c.gpus = n * layout.gpus();
      summarize(c, serve_with(n));
      plan.candidates.push_back(c);
    } catch (const config_error&) {  // the weights do not fit, or a request's KV cache
    }
  }
  // Disaggregated: the sides searched apart. A request's first token comes from its prefill instance and
  // its KV transfer, whatever the decode side: each layout's fewest prefill instances that meet the TTFT
  // objective (behind one decode instance of the same layout), the fewest GPUs of them kept; then behind
  // that prefill side, each layout's fewest decode instances that meet the whole objective.
  std::map<std::tuple<std::size_t, std::uint64_t, std::size_t, std::uint64_t>, std::vector<served_request>>
      runs;
  const auto run = [&](std::size_t prefill_layout, std::uint64_t prefill, std::size_t decode_layout,
                       std::uint64_t decode) -> const std::vector<served_request>& {
    const auto key = std::tuple{prefill_layout, prefill, decode_layout, decode};
    auto it = runs.find(key);
    if (it == runs.end()) {
      ++plan.simulations;
      disaggregated_deployment d;
      d.prefill = layouts[prefill_layout];
      d.decode = layouts[decode_layout];
      d.prefill_engine = d.decode_engine = r.engine;
      d.prefill_instances = prefill;
      d.decode_instances = decode;
      it = runs.emplace(key, simulate_disaggregated_serving(model, d, requests, prices, machines).requests)
               .first;
    }
    return it->second;
  };
  std::size_t prefill_layout = layouts.size();  // none yet
  std::uint64_t prefill_instances = 0;
  bool prefill_meets = false;
  // A streaming front end is simulated for aggregated deployments only (simulate_disaggregated_serving
  // refuses it): the plan says it judged none rather than leaving them out unsaid.
  if (r.engine.has_front_end())
    plan.disaggregation_skipped =
        "a streaming front end (--stream-message-us, --stream-token-us) is simulated "
        "for aggregated deployments only";
  for (std::size_t i = 0; plan.disaggregation_skipped.empty() && i < layouts.size(); ++i) {
    if (2 * layouts[i].gpus() > p.max_gpus) continue;
    try {
      const std::uint64_t most = p.max_gpus / layouts[i].gpus() - 1;
      const auto meets = [&](std::uint64_t k) {
        return detail::attainment_of(run(i, k, i, 1), r.slo_ttft_s, 0, true) >= p.attainment;
      };
      const std::uint64_t k = detail::fewest(most, meets);
      const bool ok = meets(k);
      const auto gpus = [&](std::size_t l, std::uint64_t n) { return n * layouts[l].gpus(); };
      if (prefill_layout == layouts.size() || (ok && !prefill_meets) ||
          (ok == prefill_meets && gpus(i, k) < gpus(prefill_layout, prefill_instances))) {
        prefill_layout = i;
        prefill_instances = k;
        prefill_meets = ok;
      }
    } catch (const config_error&) {
    }
  }
  if (prefill_layout < layouts.size()) {
    const std::uint64_t prefill_gpus = prefill_instances * layouts[prefill_layout].gpus();
    for (std::size_t j = 0; j < layouts.size(); ++j) {
      if (prefill_gpus + layouts[j].gpus() > p.max_gpus) continue;
      try {
        const std::uint64_t decode =
            detail::fewest((p.max_gpus - prefill_gpus) / layouts[j].gpus(), [&](std::uint64_t k) {
              return detail::attainment_of(run(prefill_layout, prefill_instances, j, k), r.slo_ttft_s,
                                           r.slo_tpot_s) >= p.attainment;
            });
        serving_candidate c;
        c.disaggregated = true;
        c.prefill_layout = layouts[prefill_layout];
        c.layout = layouts[j];
        c.prefill_instances = prefill_instances;
        c.decode_instances = decode;
        c.gpus = prefill_gpus + decode * layouts[j].gpus();
        summarize(c, run(prefill_layout, prefill_instances, j, decode));
        plan.candidates.push_back(c);
      } catch (const config_error&) {
      }
    }
  }
  std::stable_sort(plan.candidates.begin(), plan.candidates.end(),
                   [](const serving_candidate& a, const serving_candidate& b) {
                     if (a.meets != b.meets) return a.meets;
                     if (!a.meets) return a.attainment > b.attainment;
                     if (a.gpus != b.gpus) return a.gpus < b.gpus;
                     return a.output_tokens_per_s_per_gpu > b.output_tokens_per_s_per_gpu;
                   });
  return plan;
}

/// The plan as text: one line per deployment.
[[nodiscard]] inline std::string format_serving_plan(const serving_plan& plan, std::size_t top = 10) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-4s %-52s %6s %10s %10s %10s %12s\n", "rank", "deployment", "GPUs",
                "within", "TTFT p90", "TPOT p90", "tok/s/GPU");
  out += line;
  std::size_t rank = 0;
  for (const serving_candidate& c : plan.candidates) {
    if (rank == top) break;
    char what[96];
    const auto l = [](const serving_spec& s) {
      char t[48];
      std::snprintf(t, sizeof t, "TP%llu DP%llu EP%llu", static_cast<unsigned long long>(s.tensor_parallel),
                    static_cast<unsigned long long>(s.attention_data_parallel),
                    static_cast<unsigned long long>(s.expert_parallel));
      return std::string(t);
    };
    if (c.disaggregated)
      std::snprintf(what, sizeof what, "%llu prefill x %s + %llu decode x %s",
                    static_cast<unsigned long long>(c.prefill_instances), l(c.prefill_layout).c_str(),
                    static_cast<unsigned long long>(c.decode_instances), l(c.layout).c_str());
    else
      std::snprintf(what, sizeof what, "%llu x %s", static_cast<unsigned long long>(c.replicas),
                    l(c.layout).c_str());
    std::snprintf(line, sizeof line, "%-4zu %-52s %6llu %9.1f%% %8.3f s %7.1f ms %12.0f%s\n", ++rank, what,
                  static_cast<unsigned long long>(c.gpus), 100 * c.attainment, c.ttft_p90_s,
                  c.tpot_p90_s * 1e3, c.output_tokens_per_s_per_gpu, c.meets ? "" : "  (misses)");
    out += line;
  }
  std::snprintf(line, sizeof line,
                "%zu deployments judged in %llu simulations; a deployment meets the objective when %.0f%% of "
                "requests do\n",
                plan.candidates.size(), static_cast<unsigned long long>(plan.simulations),
                100 * plan.attainment);
  out += line;
  if (plan.concurrency > 0) {
    std::snprintf(line, sizeof line,
                  "clients keep at most %llu requests outstanding over a deployment (each of n replicas "
                  "ceil(%llu / n))\n",
                  static_cast<unsigned long long>(plan.concurrency),
                  static_cast<unsigned long long>(plan.concurrency));
    out += line;
  }
  if (!plan.disaggregation_skipped.empty())
    out += "disaggregated deployments not judged: " + plan.disaggregation_skipped + "\n";
  return out;
}

AICB_END_NAMESPACE
