// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/commands/serve.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

TEST_CASE("serve: percentiles by nearest rank, the mean and the largest", "[commands][serve]") {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i)
    v.push_back(i);  // 1..100, unsorted
  const aicb::latency_summary s = aicb::summarize_latencies(v);
  CHECK(s.count == 100u);
  CHECK(s.mean == Approx(50.5));
  CHECK(s.p50 == 50);
  CHECK(s.p90 == 90);
  CHECK(s.p99 == 99);
  CHECK(s.max == 100);
  const aicb::latency_summary one = aicb::summarize_latencies({7});
  CHECK(one.p50 == 7);
  CHECK(one.p99 == 7);
  CHECK(aicb::summarize_latencies({}).count == 0u);
}

TEST_CASE("serve: a trace served, its throughput over the span and its goodput at the objective",
          "[commands][serve]") {
  aicb::serve_request r;
  r.model = "llama3-8b";
  r.gpu = "H100";
  r.trace = std::string(AICB_SOURCE_DIR) + "/tests/data/requests/trace.csv";
  const aicb::serve_report all = aicb::serve(r);
  CHECK(all.requests == 3u);
  CHECK(all.prompt_tokens == 812u + 1900u + 128u);
  CHECK(all.output_tokens == 64u + 310u + 1u);
  CHECK(all.tpot.count == 2u);  // the request of one output token has no time per token
  CHECK(all.ttft.count == 3u);
  CHECK(all.requests_per_s == Approx(3 / all.span_s));
  CHECK(all.output_tokens_per_s == Approx(375 / all.span_s));
  CHECK(all.busy_share <= 1.0);
  CHECK(all.within_slo == 3u);  // no objective: every request counts
  // An objective every request meets, one none meets, and a TPOT objective only the request of one
  // output token (no time per token) meets.
  r.slo_ttft_s = all.ttft.max;
  CHECK(aicb::serve(r).within_slo == 3u);
  r.slo_ttft_s = 1e-9;
  const aicb::serve_report none = aicb::serve(r);
  CHECK(none.within_slo == 0u);
  CHECK(none.goodput_per_s == 0);
  r.slo_ttft_s = 0;
  r.slo_tpot_s = 1e-9;
  const aicb::serve_report some = aicb::serve(r);
  CHECK(some.within_slo == 1u);
  CHECK(some.goodput_per_s == Approx(1 / some.span_s));
  CHECK_THAT(aicb::format_serve(some),
             Catch::Contains("goodput at TPOT <= 1e-06 ms") && Catch::Contains("(1 of 3 requests"));
  CHECK_THAT(aicb::to_json(some),
             Catch::Contains("\"schema\": \"aicb.serving_run/1\"") && Catch::Contains("\"within\": 1"));
  CHECK_THAT(aicb::to_json(all), Catch::Contains("\"slo\": null"));
}
