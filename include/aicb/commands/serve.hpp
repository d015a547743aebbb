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
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/compute/serving_stream.hpp>
#include <aicb/config.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/cluster_file.hpp>
#include <aicb/io/request_trace.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/requests.hpp>
#include <aicb/model/serving.hpp>
#include <aicb/version.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
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
  /// Disaggregated when `prefill_instances` > 0: that many instances of `prefill_layout` run the
  /// prompts and `decode_instances` of `layout` the rest (aicb::simulate_disaggregated_serving).
  std::uint64_t prefill_instances = 0, decode_instances = 1;
  serving_spec prefill_layout{};
};

/// A distribution's mean and percentiles (nearest rank), seconds.
struct latency_summary {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
  std::uint64_t count = 0;
};

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
  return s;
}

/// The stream served, summarised.
struct serve_report {
  std::string model, gpu, cluster, compute, source;
  serving_spec layout;
  serving_engine engine;
  std::uint64_t requests = 0, prompt_tokens = 0, output_tokens = 0;
  latency_summary ttft, tpot, e2e;  ///< seconds; TPOT over requests of more than one output token
  double span_s = 0;                ///< first arrival to last token
  double requests_per_s = 0, output_tokens_per_s = 0, tokens_per_s = 0, output_tokens_per_s_per_gpu = 0;
  double slo_ttft_s = 0, slo_tpot_s = 0;
  std::uint64_t within_slo = 0;  ///< requests meeting every objective given
  double goodput_per_s = 0;      ///< those per second of the span
  double busy_share = 0;         ///< time in steps over the span
  std::uint64_t steps = 0, preemptions = 0, kv_capacity_tokens = 0;
  double peak_kv_share = 0, weight_bytes = 0, kv_bytes_per_token = 0;
  std::uint64_t gpus = 0;  ///< every instance's
  // Disaggregated: the instances, the prefill layout, the KV transfers (queueing included) and their
  // bytes, and each side's share of time busy.
  bool disaggregated = false;
  std::uint64_t prefill_instances = 0, decode_instances = 0, prefill_steps = 0,
                prefill_kv_capacity_tokens = 0;
  serving_spec prefill_layout;
  latency_summary kv_transfer;
  double kv_transfer_bytes = 0, prefill_busy_share = 0;
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
  }
  // The requests' fates and the engines' totals, aggregated or disaggregated.
  std::vector<served_request> served;
  double busy_s = 0;
  if (disaggregated) {
    disaggregated_deployment d;
    d.prefill = prefill_layout;
    d.decode = layout;
    d.prefill_instances = r.prefill_instances;
    d.decode_instances = r.decode_instances;
    d.prefill_engine = d.decode_engine = r.engine;
    disaggregated_stream_report run = simulate_disaggregated_serving(model, d, requests, compute, machines);
    served = std::move(run.requests);
    std::vector<double> transfers;
    for (std::size_t i = 0; i < served.size(); ++i)
      if (served[i].request.output > 1) transfers.push_back(run.kv_transfer_s[i]);
    out.kv_transfer = summarize_latencies(std::move(transfers));
    out.kv_transfer_bytes = run.kv_bytes;
    out.steps = run.decode_steps;
    out.prefill_steps = run.prefill_steps;
    out.preemptions = run.preemptions;
    out.kv_capacity_tokens = run.decode_kv_capacity_tokens;
    out.prefill_kv_capacity_tokens = run.prefill_kv_capacity_tokens;
    out.peak_kv_share = run.peak_kv_share;
    busy_s = run.decode_busy_s / static_cast<double>(r.decode_instances);
    out.prefill_busy_share =
        run.prefill_busy_s / static_cast<double>(r.prefill_instances);  // over the span below
    out.gpus = r.prefill_instances * prefill_layout.gpus() + r.decode_instances * layout.gpus();
  } else {
    serving_stream_report run = simulate_serving(model, layout, requests, compute, machines, r.engine);
    served = std::move(run.requests);
    busy_s = run.busy_s;
    out.steps = run.steps;
    out.preemptions = run.preemptions;
    out.kv_capacity_tokens = run.kv_capacity_tokens;
    out.peak_kv_share = run.peak_kv_share;
    out.gpus = layout.gpus();
  }
  {
    serving_spec one = layout;
    const inference_step step(model, one, 0);
    out.weight_bytes = step.weight_bytes();
    out.kv_bytes_per_token = step.kv_bytes_per_token();
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
  out.layout = r.layout;
  out.engine = r.engine;
  out.requests = requests.size();
  std::vector<double> ttft, tpot, e2e;
  double first = INFINITY, last = 0;
  for (const served_request& s : served) {
    out.prompt_tokens += s.request.prompt;
    out.output_tokens += s.request.output;
    ttft.push_back(s.ttft_s());
    e2e.push_back(s.e2e_s());
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
  if (r.disaggregated)
    add("model %s on %llu GPUs, disaggregated: %llu prefill instance(s) of %s, %llu decode instance(s) of "
        "%s; "
        "weights %s, KV cache %s; %s (%s)\n",
        r.model.c_str(), u(r.gpus), u(r.prefill_instances), layout_text(r.prefill_layout).c_str(),
        u(r.decode_instances), layout_text(s).c_str(), std::string(to_string(s.weights)).c_str(),
        std::string(to_string(s.kv_cache)).c_str(), r.gpu.c_str(), r.cluster.c_str());
  else
    add("model %s on %llu GPUs: %s; weights %s, KV cache %s; %s (%s)\n", r.model.c_str(), u(s.gpus()),
        layout_text(s).c_str(), std::string(to_string(s.weights)).c_str(),
        std::string(to_string(s.kv_cache)).c_str(), r.gpu.c_str(), r.cluster.c_str());
  add("engine: %llu tokens a step, at most %llu running, blocks of %llu tokens, %.0f%% of memory%s\n",
      u(r.engine.token_budget), u(r.engine.max_running), u(r.engine.block_tokens),
      100 * r.engine.memory_fraction, r.engine.chunked_prefill ? ", chunked prefill" : "");
  add("requests: %llu (%s); %llu prompt and %llu output tokens\n", u(r.requests), r.source.c_str(),
      u(r.prompt_tokens), u(r.output_tokens));
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
  row("latency s", r.e2e, 1);
  add("\nthroughput: %.2f requests/s, %.0f output tokens/s (%.0f per GPU), %.0f tokens/s in all\n",
      r.requests_per_s, r.output_tokens_per_s, r.output_tokens_per_s_per_gpu, r.tokens_per_s);
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
  out += "compute: " + r.compute + "\n";  // longer than a line buffer
  return out;
}

/// The report as JSON ("schema": "aicb.serving_run/1").
[[nodiscard]] inline std::string to_json(const serve_report& r) {
  json_writer j;
  j.begin_object().member("schema", "aicb.serving_run/1").member("aicb_version", AICB_VERSION_STRING);
  j.member("model", r.model).member("gpu", r.gpu).member("cluster", r.cluster).member("compute", r.compute);
  j.member("requests_source", r.source).member("gpus", r.gpus);
  j.key("layout").begin_object();
  j.member("gpus", r.layout.gpus()).member("tensor_parallel", r.layout.tensor_parallel);
  j.member("attention_data_parallel", r.layout.attention_data_parallel);
  j.member("expert_parallel", r.layout.expert_parallel);
  j.member("weights", to_string(r.layout.weights)).member("kv_cache", to_string(r.layout.kv_cache));
  j.end_object();
  j.key("engine").begin_object();
  j.member("token_budget", r.engine.token_budget).member("max_running", r.engine.max_running);
  j.member("block_tokens", r.engine.block_tokens).member("memory_fraction", r.engine.memory_fraction);
  j.member("chunked_prefill", r.engine.chunked_prefill);
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
  summary("latency_s", r.e2e);
  j.key("throughput").begin_object();
  j.member("span_s", r.span_s).member("requests_per_s", r.requests_per_s);
  j.member("output_tokens_per_s", r.output_tokens_per_s).member("tokens_per_s", r.tokens_per_s);
  j.member("output_tokens_per_s_per_gpu", r.output_tokens_per_s_per_gpu).member("busy_share", r.busy_share);
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
  j.end_object();
  j.end_object();
  return j.str() + "\n";
}

AICB_END_NAMESPACE
