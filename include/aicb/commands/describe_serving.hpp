// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::describe_serving — what `aicb describe --phase prefill|decode` shows for a served model: per
/// GPU, the weights and the KV cache (per token, for the batch, and the largest batch that fits a
/// memory limit), the step's FLOPs and bytes and which bound they put it under, and the step's time
/// — every computation priced by a compute model (the roofline, by FLOPs and bytes), every collective
/// by the cluster — with tokens per second and the time per output token.
///
/// ```cpp
/// aicb::serving_spec s{.phase = aicb::inference_phase::decode, .batch = 256, .context = 4096,
///                      .attention_data_parallel = 8, .expert_parallel = 8, .weights = aicb::dtype::fp8};
/// const aicb::serving_report r = aicb::describe_serving(aicb::presets::deepseek_v3, s,
///     aicb::roofline_model("H200"), aicb::cluster_preset("dgx-h200"));
/// std::fputs(aicb::format_serving(r).c_str(), stdout);
/// ```
///
/// The step time is an overhead-free bound: compute and communication one after the other on one
/// GPU, no gaps between kernels beyond their launch. The overlapped step is the ceiling a deployment
/// that alternates two micro batches (DeepSeek's) approaches: the longer of compute and communication.

#include <aicb/compute/cluster.hpp>
#include <aicb/compute/gpu.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/compute/serving_estimate.hpp>
#include <aicb/config.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/serving.hpp>
#include <aicb/schedule/inference_step.hpp>
#include <aicb/version.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

AICB_BEGIN_NAMESPACE

/// What describe_serving found. Bytes and times per GPU.
struct serving_report {
  model_spec model;
  serving_spec serving;
  std::string gpu, cluster, compute;  ///< the GPU, the cluster preset, the compute model's provenance
  std::uint64_t weights = 0;          ///< elements held
  double weight_bytes = 0;
  double kv_bytes_per_token = 0;        ///< this GPU's share, all layers
  double model_kv_bytes_per_token = 0;  ///< one copy of the whole model's
  double state_bytes_per_request = 0;   ///< recurrent state (Gated DeltaNet, Mamba-2) per request on this GPU
  double kv_bytes = 0;                  ///< the step's requests' KV cache (and state) on this GPU
  double memory_limit = 0;              ///< bytes the weights and KV cache may use (fraction of the GPU's)
  std::uint64_t max_batch = 0;      ///< the most requests (all groups) whose KV cache fits beside the weights
  double flops = 0, bytes = 0;      ///< the step's computations
  double intensity = 0, ridge = 0;  ///< FLOP/B of the step, and the GPU's BF16 peak / bandwidth
  double compute_us = 0, communication_us = 0, step_us = 0;
  /// Two micro batches alternating, one's communication under the other's compute (DeepSeek's
  /// deployment): the step is the longer of the two — the overhead-free ceiling.
  double overlapped_step_us = 0;
  double overlapped_tokens_per_s_per_gpu = 0;
  double memory_bound_us = 0;  ///< the step's bytes at the compute model's achievable bandwidth
  std::uint64_t tokens = 0;    ///< tokens the step processes over all GPUs (prefill) or emits (decode)
  double tokens_per_s_per_gpu = 0;
  double time_per_output_token_ms = 0;  ///< decode: one step per token of each request
};

/// The report for `model` served as `serving` with `compute` on `cluster`; `memory_fraction` of
/// the GPU's memory for weights and KV cache.
[[nodiscard]] inline serving_report describe_serving(const model_spec& model, const serving_spec& serving,
                                                     const compute_model& compute,
                                                     const cluster_spec& cluster,
                                                     double memory_fraction = 0.9) {
  if (!(memory_fraction > 0 && memory_fraction <= 1))
    AICB_THROW(config_error("memory_fraction", std::to_string(memory_fraction),
                            "expected a fraction in (0, 1] of the GPU's memory"));
  const inference_step step(model, serving, 0);
  const gpu_spec& gpu = require_gpu(cluster.gpu);
  serving_report r;
  r.model = step.model();
  r.serving = serving;
  r.gpu = std::string(gpu.name);
  r.cluster = std::string(cluster.name);
  r.compute = compute.provenance();
  r.weights = step.weights();
  r.weight_bytes = step.weight_bytes();
  r.kv_bytes_per_token = step.kv_bytes_per_token();
  r.model_kv_bytes_per_token = step.model_kv_bytes_per_token();
  r.kv_bytes = step.kv_bytes();
  r.memory_limit = gpu.memory_bytes() * memory_fraction;
  r.state_bytes_per_request = step.state_bytes_per_request();
  const double per_request = step.cache_bytes_per_request();
  if (r.memory_limit > r.weight_bytes && per_request > 0)
    r.max_batch = static_cast<std::uint64_t>((r.memory_limit - r.weight_bytes) / per_request) *
                  serving.attention_data_parallel;
  r.flops = step.flops();
  r.bytes = step.bytes();
  r.intensity = r.bytes > 0 ? r.flops / r.bytes : 0;
  r.ridge = gpu.peak_flops(dtype::bf16) / (gpu.memory_gb_per_s * 1e9);
  const serving_timing timing = play_serving_step(step, compute, cluster);
  r.compute_us = timing.compute_us;
  r.communication_us = timing.communication_us;
  r.step_us = r.compute_us + r.communication_us;
  r.overlapped_step_us = std::max(r.compute_us, r.communication_us);
  r.memory_bound_us = r.bytes / (gpu.memory_gb_per_s * 1e9 * 0.88) * 1e6;
  r.tokens = serving.batch *
             (serving.phase == inference_phase::decode ? serving.tokens_per_request() : serving.prompt);
  if (r.step_us > 0) {
    r.tokens_per_s_per_gpu =
        static_cast<double>(r.tokens) / (r.step_us * 1e-6) / static_cast<double>(serving.gpus());
    r.overlapped_tokens_per_s_per_gpu =
        static_cast<double>(r.tokens) / (r.overlapped_step_us * 1e-6) / static_cast<double>(serving.gpus());
    if (serving.phase == inference_phase::decode) r.time_per_output_token_ms = r.step_us / 1000;
  }
  return r;
}

/// The report as text.
[[nodiscard]] inline std::string format_serving(const serving_report& r) {
  std::string out;
  char line[256];
  const auto add = [&](const char* format, auto... values) {
    std::snprintf(line, sizeof line, format, values...);
    out += line;
  };
  const serving_spec& s = r.serving;
  add("model %s, %s: %llu requests", std::string(r.model.name.view()).c_str(),
      std::string(to_string(s.phase)).c_str(), static_cast<unsigned long long>(s.batch));
  if (s.phase == inference_phase::decode)
    add(" x %llu token(s), context %llu\n", static_cast<unsigned long long>(s.tokens_per_request()),
        static_cast<unsigned long long>(s.context));
  else
    add(" x %llu-token prompts\n", static_cast<unsigned long long>(s.prompt));
  const std::string state =
      r.state_bytes_per_request > 0
          ? ", recurrent state " + std::string(to_string(recurrent_state_type(r.model, s)))
          : std::string();
  add("layout: %llu GPUs = TP %llu x DP-attention %llu, EP %llu; weights %s, KV cache %s%s%s\n",
      static_cast<unsigned long long>(s.gpus()), static_cast<unsigned long long>(s.tensor_parallel),
      static_cast<unsigned long long>(s.attention_data_parallel),
      static_cast<unsigned long long>(s.expert_parallel), std::string(to_string(s.weights)).c_str(),
      std::string(to_string(s.kv_cache)).c_str(), state.c_str(),
      s.expert_parallel > 1 ? (s.fp8_dispatch ? ", FP8 dispatch" : ", BF16 dispatch") : "");
  add("\nper GPU (%s)\n", r.gpu.c_str());
  constexpr double gib = 1024.0 * 1024 * 1024;  // memory in GiB, as every aicb report gives it
  add("  weights              %10.2f GiB (%.3f G parameters)\n", r.weight_bytes / gib,
      static_cast<double>(r.weights) / 1e9);
  add("  KV cache per token   %10.0f B   (the whole model's: %.0f B)\n", r.kv_bytes_per_token,
      r.model_kv_bytes_per_token);
  if (r.state_bytes_per_request > 0)
    add("  recurrent state      %10.2f MiB per request (any context length)\n",
        r.state_bytes_per_request / (1024.0 * 1024));
  add("  KV cache, this batch %10.2f GiB\n", r.kv_bytes / gib);
  add("  memory limit         %10.2f GiB -> at most %llu requests of this length%s\n", r.memory_limit / gib,
      static_cast<unsigned long long>(r.max_batch),
      r.weight_bytes >= r.memory_limit ? " (the weights alone do not fit)" : "");
  add("  FLOPs / step         %10.4g     bytes / step %.4g  (%.1f FLOP/B; ridge %.0f: %s-bound)\n", r.flops,
      r.bytes, r.intensity, r.ridge, r.intensity < r.ridge ? "memory" : "compute");
  add("\nstep (%s, overhead-free bound)\n", r.cluster.c_str());
  add("  compute              %10.3f ms  (bytes at achievable bandwidth alone: %.3f ms)\n",
      r.compute_us / 1000, r.memory_bound_us / 1000);
  add("  communication        %10.3f ms\n", r.communication_us / 1000);
  add("  step                 %10.3f ms  (communication under compute, two micro batches: %.3f ms, %.0f "
      "tokens/s "
      "per GPU)\n",
      r.step_us / 1000, r.overlapped_step_us / 1000, r.overlapped_tokens_per_s_per_gpu);
  if (s.phase == inference_phase::decode)
    add("  time per output token %9.3f ms; %.0f tokens/s per GPU\n", r.time_per_output_token_ms,
        r.tokens_per_s_per_gpu);
  else
    add("  %.0f prompt tokens/s per GPU\n", r.tokens_per_s_per_gpu);
  out.append("compute: ").append(r.compute).append("\n");
  return out;
}

/// The report as JSON ("schema": "aicb.serving/1").
[[nodiscard]] inline std::string to_json(const serving_report& r) {
  json_writer j;
  j.begin_object().member("schema", "aicb.serving/1").member("aicb_version", AICB_VERSION_STRING);
  j.member("model", std::string(r.model.name.view())).member("phase", to_string(r.serving.phase));
  j.key("serving").begin_object();
  j.member("batch", r.serving.batch).member("prompt", r.serving.prompt).member("context", r.serving.context);
  j.member("tensor_parallel", r.serving.tensor_parallel);
  j.member("attention_data_parallel", r.serving.attention_data_parallel);
  j.member("expert_parallel", r.serving.expert_parallel).member("gpus", r.serving.gpus());
  j.member("weights", to_string(r.serving.weights)).member("kv_cache", to_string(r.serving.kv_cache));
  j.member("fp8_dispatch", r.serving.fp8_dispatch).member("mtp_drafts", r.serving.mtp_drafts);
  if (r.state_bytes_per_request > 0)
    j.member("recurrent_state", to_string(recurrent_state_type(r.model, r.serving)));
  j.end_object();
  j.member("gpu", r.gpu).member("cluster", r.cluster).member("compute", r.compute);
  j.key("per_gpu").begin_object();
  j.member("weights", r.weights).member("weight_bytes", r.weight_bytes);
  j.member("kv_bytes_per_token", r.kv_bytes_per_token)
      .member("model_kv_bytes_per_token", r.model_kv_bytes_per_token);
  j.member("state_bytes_per_request", r.state_bytes_per_request);
  j.member("kv_bytes", r.kv_bytes)
      .member("memory_limit_bytes", r.memory_limit)
      .member("max_batch", r.max_batch);
  j.member("flops", r.flops)
      .member("bytes", r.bytes)
      .member("intensity", r.intensity)
      .member("ridge", r.ridge);
  j.end_object();
  j.key("step").begin_object();
  j.member("compute_us", r.compute_us)
      .member("communication_us", r.communication_us)
      .member("step_us", r.step_us);
  j.member("memory_bound_us", r.memory_bound_us).member("tokens", r.tokens);
  j.member("overlapped_step_us", r.overlapped_step_us);
  j.member("overlapped_tokens_per_s_per_gpu", r.overlapped_tokens_per_s_per_gpu);
  j.member("tokens_per_s_per_gpu", r.tokens_per_s_per_gpu)
      .member("time_per_output_token_ms", r.time_per_output_token_ms);
  j.end_object().end_object();
  return j.str() + "\n";
}

AICB_END_NAMESPACE
