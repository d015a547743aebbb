// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A synthetic stream of 10,000 requests (Poisson arrivals, prompts of 1000–3000 tokens, outputs of
// 200–800) on DeepSeek-V3 served by 8 H200s (DP-attention 8, EP 8, FP8 weights), at the rate given
// (requests per second, default 5): the time the simulation takes, and the stream's latencies.
// scripts/bench-serving.sh builds and runs it; the numbers are in docs/inference.md.
#include <aicb/aicb.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const double rate = argc > 1 ? std::atof(argv[1]) : 5;
  //! [serving_stream]
  aicb::serving_spec layout;
  layout.attention_data_parallel = 8;
  layout.expert_parallel = 8;
  layout.weights = aicb::dtype::fp8;
  const aicb::roofline_model compute("H200");
  const aicb::cluster_spec cluster = aicb::cluster_preset("dgx-h200");
  const auto start = std::chrono::steady_clock::now();
  const std::vector<aicb::serving_request> requests = aicb::synthetic_requests(
      {.requests = 10000, .rate = rate, .prompt = {1000, 3000}, .output = {200, 800}});
  const aicb::serving_stream_report r =
      aicb::simulate_serving(aicb::presets::deepseek_v3, layout, requests, compute, cluster);
  //! [serving_stream]
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> ttft, tpot;
  for (const aicb::served_request& s : r.requests) {
    ttft.push_back(s.ttft_s());
    tpot.push_back(s.tpot_s());
  }
  std::sort(ttft.begin(), ttft.end());
  std::sort(tpot.begin(), tpot.end());
  std::printf(
      "%.0f requests/s: simulated in %.2f s; %llu steps, %llu preemptions, last token at %.0f s; "
      "TTFT p50 %.3f s, p99 %.3f s; TPOT p50 %.1f ms, p99 %.1f ms; KV cache %llu tokens a group, "
      "%.0f%% at most in use\n",
      rate, seconds, static_cast<unsigned long long>(r.steps), static_cast<unsigned long long>(r.preemptions),
      r.end_s, ttft[ttft.size() / 2], ttft[ttft.size() * 99 / 100], tpot[tpot.size() / 2] * 1e3,
      tpot[tpot.size() * 99 / 100] * 1e3, static_cast<unsigned long long>(r.kv_capacity_tokens),
      100 * r.peak_kv_share);
}
