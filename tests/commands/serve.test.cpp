// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/commands/serve.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
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
  CHECK(all.tpot.count == 2u);         // the request of one output token has no time per token
  CHECK(all.itl.count == 63u + 309u);  // a gap before every token after a request's first
  CHECK(all.itl.max >= all.itl.p50);
  CHECK(all.itl.percentiles.size() == 101u);
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

TEST_CASE("serve: requests in the system on average — a closed loop of C holds C", "[commands][serve]") {
  // 200 identical requests, 16 outstanding at a time: apart from the last 15 finishing with fewer beside
  // them, 16 are in the deployment throughout; the report's average is the sum of latencies over the span.
  aicb::serve_request r;
  r.model = "llama3-8b";
  r.gpu = "H200";
  r.traffic = {.requests = 200, .rate = 0, .prompt = {500, 500}, .output = {50, 50}};
  r.engine.concurrency = 16;
  const aicb::serve_report closed = aicb::serve(r);
  CHECK(closed.requests_in_system <= 16.0 + 1e-9);
  CHECK(closed.requests_in_system > 16.0 * 0.9);
  CHECK(closed.requests_in_system == Approx(200 * closed.e2e.mean / closed.span_s));
  CHECK_THAT(aicb::format_serve(closed), Catch::Contains("requests in the system on average"));
  CHECK_THAT(aicb::to_json(closed), Catch::Contains("\"requests_in_system\": "));
  // Open, all at once: every request is in the system from the start until it finishes.
  r.engine.concurrency = 0;
  const aicb::serve_report open = aicb::serve(r);
  CHECK(open.requests_in_system > closed.requests_in_system);
}

TEST_CASE("serve plan: a hand-counted case — the objective met at the step's time, missed just below it",
          "[commands][serve]") {
  // Every computation 1 µs on one GPU (no collectives): 20 requests at time 0 are prefilled in one
  // step (each its own attention cores), then decode together, a token a step of `decode_us`.
  const aicb::constant_model each(aicb::nanoseconds{1000});
  aicb::model_spec m = aicb::presets::llama3_8b;
  const aicb::inference_step step(m, {.phase = aicb::inference_phase::decode, .batch = 1, .context = 4}, 0);
  double decode_us = 0;
  for (const aicb::operation& op : step.operations())
    decode_us += op.type == aicb::op_type::compute;
  aicb::serving_plan_request p;
  p.base.model = "llama3-8b";
  p.base.gpu = "H200";
  p.base.traffic = {.requests = 20, .rate = 0, .prompt = {64, 64}, .output = {5, 5}};
  p.max_gpus = 1;  // one layout (TP 1), one replica, no room to disaggregate
  p.base.slo_tpot_s = 1.01 * decode_us * 1e-6;
  const aicb::serving_plan met = aicb::plan_serving(p, &each);
  REQUIRE(met.candidates.size() == 1u);
  CHECK(met.candidates[0].meets);
  CHECK(met.candidates[0].attainment == 1);
  CHECK(met.candidates[0].tpot_p90_s == Approx(decode_us * 1e-6));
  CHECK(met.candidates[0].gpus == 1u);
  p.base.slo_tpot_s = 0.99 * decode_us * 1e-6;
  const aicb::serving_plan missed = aicb::plan_serving(p, &each);
  REQUIRE(missed.candidates.size() == 1u);
  CHECK_FALSE(missed.candidates[0].meets);
  CHECK(missed.candidates[0].attainment == 0);
  CHECK_THAT(aicb::format_serving_plan(missed),
             Catch::Contains("1 x TP1 DP1 EP1") && Catch::Contains("(misses)"));
  CHECK_THROWS_WITH(aicb::plan_serving({.base = {.model = "llama3-8b"}}),
                    Catch::Contains("needs an objective"));
}

TEST_CASE("serve plan: with a streaming front end, says it judged no disaggregated deployment",
          "[commands][serve]") {
  aicb::serving_plan_request p;
  p.base.model = "llama3-8b";
  p.base.gpu = "H200";
  p.base.traffic = {.requests = 20, .rate = 10, .prompt = {500, 500}, .output = {20, 20}};
  p.base.slo_tpot_s = 1;
  p.max_gpus = 2;  // room for one prefill and one decode instance
  const auto split = [](const aicb::serving_plan& plan) {
    return std::count_if(plan.candidates.begin(), plan.candidates.end(),
                         [](const aicb::serving_candidate& c) { return c.disaggregated; });
  };
  const aicb::serving_plan both = aicb::plan_serving(p);
  CHECK(split(both) > 0);
  CHECK(both.disaggregation_skipped.empty());
  CHECK_THAT(aicb::format_serving_plan(both), !Catch::Contains("not judged"));
  p.base.engine.stream_message_us = 100;
  const aicb::serving_plan aggregated = aicb::plan_serving(p);
  CHECK(split(aggregated) == 0);
  CHECK_FALSE(aggregated.candidates.empty());
  CHECK_THAT(aicb::format_serving_plan(aggregated),
             Catch::Contains("disaggregated deployments not judged: a streaming front end"));
}

TEST_CASE("serve plan: the fewest replicas or instances that meet the objective, fewer missing it",
          "[commands][serve]") {
  aicb::serving_plan_request p;
  p.base.model = "llama3-8b";
  p.base.gpu = "H200";
  p.base.traffic = {.requests = 400, .rate = 40, .prompt = {1000, 3000}, .output = {50, 150}};
  p.base.slo_ttft_s = 0.3;
  p.base.slo_tpot_s = 0.012;
  p.max_gpus = 8;
  const aicb::serving_plan plan = aicb::plan_serving(p);
  REQUIRE_FALSE(plan.candidates.empty());
  const aicb::serving_candidate& best = plan.candidates.front();
  REQUIRE(best.meets);
  for (std::size_t i = 1; i < plan.candidates.size(); ++i)
    if (plan.candidates[i].meets) CHECK(plan.candidates[i].gpus >= best.gpus);
  // Disaggregated, the sides searched apart: one prefill side, decode layouts of their own behind it.
  std::vector<const aicb::serving_candidate*> split;
  for (const aicb::serving_candidate& c : plan.candidates)
    if (c.disaggregated) split.push_back(&c);
  REQUIRE(split.size() >= 2u);
  for (const aicb::serving_candidate* c : split) {
    CHECK(c->prefill_layout.tensor_parallel == split.front()->prefill_layout.tensor_parallel);
    CHECK(c->prefill_instances == split.front()->prefill_instances);
  }
  CHECK(std::any_of(split.begin(), split.end(), [](const aicb::serving_candidate* c) {
    return c->layout.tensor_parallel != c->prefill_layout.tensor_parallel;
  }));
  // Checked apart: the same deployment with one instance fewer misses the objective.
  aicb::serve_request r = p.base;
  r.layout = best.layout;
  r.slo_ttft_s = p.base.slo_ttft_s;
  if (best.disaggregated) {
    r.prefill_layout = best.prefill_layout;
    r.prefill_instances = best.prefill_instances;
    r.decode_instances = best.decode_instances;
    const aicb::serve_report same = aicb::serve(r);
    CHECK(static_cast<double>(same.within_slo) / static_cast<double>(same.requests) >= 0.9);
  } else if (best.replicas > 1) {
    // Replica 0's share of the traffic with one replica fewer.
    auto requests = aicb::synthetic_requests(p.base.traffic);
    std::vector<aicb::serving_request> share;
    for (std::size_t k = 0; k < requests.size(); k += best.replicas - 1)
      share.push_back(requests[k]);
    const auto fewer = aicb::simulate_serving(aicb::presets::llama3_8b, best.layout, share,
                                              aicb::roofline_model("H200"), aicb::cluster_preset("dgx-h200"));
    std::uint64_t ok = 0;
    for (const auto& s : fewer.requests)
      ok += s.ttft_s() <= 0.3 && s.tpot_s() <= 0.012;
    CHECK(static_cast<double>(ok) / static_cast<double>(share.size()) < 0.9);
  }
  CHECK(plan.simulations > plan.candidates.size());
}

TEST_CASE("serve plan: a closed loop of C outstanding requests holds ceil(C / n) at each of n replicas",
          "[commands][serve]") {
  // 120 requests of 1000 + 100 tokens, 24 outstanding at a time over the deployment, on up to 4 H200s.
  // Replica 0 of n replicas of TP 1 serves every n-th request with ceil(24 / n) of them outstanding.
  const aicb::model_spec m = aicb::presets::llama3_8b;
  const aicb::roofline_model roofline("H200");
  const aicb::cluster_spec machines = aicb::cluster_preset("dgx-h200");
  const auto requests =
      aicb::synthetic_requests({.requests = 120, .rate = 0, .prompt = {1000, 1000}, .output = {100, 100}});
  aicb::serving_spec tp1{.phase = aicb::inference_phase::decode, .batch = 1, .context = 1};
  const auto p90_tpot = [&](std::uint64_t replicas) {
    std::vector<aicb::serving_request> share;
    for (std::size_t k = 0; k < requests.size(); k += replicas)
      share.push_back(requests[k]);
    aicb::serving_engine engine;
    engine.concurrency = (24 + replicas - 1) / replicas;
    std::vector<double> tpot;
    for (const auto& s : aicb::simulate_serving(m, tp1, share, roofline, machines, engine).requests)
      tpot.push_back(s.tpot_s());
    return aicb::summarize_latencies(tpot).p90;
  };
  const double one = p90_tpot(1), two = p90_tpot(2), three = p90_tpot(3), four = p90_tpot(4);
  REQUIRE(one > two);  // fewer outstanding requests a replica: smaller decode batches, faster tokens
  REQUIRE(two > three);
  REQUIRE(three > four);
  aicb::serving_plan_request p;
  p.base.model = "llama3-8b";
  p.base.gpu = "H200";
  p.base.traffic = {.requests = 120, .rate = 0, .prompt = {1000, 1000}, .output = {100, 100}};
  p.base.engine.concurrency = 24;
  p.base.slo_tpot_s = (three + four) / 2;  // met by four replicas of TP 1, not by three
  p.max_gpus = 4;
  const aicb::serving_plan plan = aicb::plan_serving(p);
  CHECK(plan.concurrency == 24u);
  const auto tp1_candidate = std::find_if(plan.candidates.begin(), plan.candidates.end(), [](const auto& c) {
    return !c.disaggregated && c.layout.tensor_parallel == 1;
  });
  REQUIRE(tp1_candidate != plan.candidates.end());
  CHECK(tp1_candidate->meets);
  CHECK(tp1_candidate->replicas == 4u);
  CHECK(tp1_candidate->tpot_p90_s == Approx(four));
  CHECK_THAT(aicb::format_serving_plan(plan), Catch::Contains("at most 24 requests outstanding"));
}

TEST_CASE("serve: the percentiles for a plot, the step mix in the report and the HTML page",
          "[commands][serve]") {
  std::vector<double> v;
  for (int i = 1; i <= 1000; ++i)
    v.push_back(i / 1000.0);
  const aicb::latency_summary s = aicb::summarize_latencies(v);
  REQUIRE(s.percentiles.size() == 101u);
  CHECK(s.percentiles.front() == 0.001);  // the least
  CHECK(s.percentiles[50] == s.p50);
  CHECK(s.percentiles[90] == s.p90);
  CHECK(s.percentiles[99] == s.p99);
  CHECK(s.percentiles.back() == s.max);
  CHECK(std::is_sorted(s.percentiles.begin(), s.percentiles.end()));

  aicb::serve_request r;
  r.model = "llama3-8b";
  r.gpu = "H100";
  r.trace = std::string(AICB_SOURCE_DIR) + "/tests/data/requests/trace.csv";
  const aicb::serve_report report = aicb::serve(r);
  REQUIRE_FALSE(report.step_kinds.empty());
  std::uint64_t steps = 0;
  for (const aicb::serving_step_kind& k : report.step_kinds)
    steps += k.count;
  CHECK(steps == report.steps);
  CHECK(report.prefill_step_kinds.empty());  // aggregated: one mix
  CHECK_THAT(aicb::format_serve(report),
             Catch::Contains("steps: " + std::to_string(report.step_kinds.size()) + " kinds"));
  const std::string json = aicb::to_json(report);
  CHECK_THAT(json, Catch::Contains("\"step_kinds\": [") && Catch::Contains("\"prefill_step_kinds\": []") &&
                       Catch::Contains("\"tokens_per_group\": "));
  const std::string page = aicb::format_serve_html(report);
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.ends_with("</html>\n"));
  // Four latency plots (TTFT, TPOT, inter-token, end to end; no KV transfer when aggregated), each a
  // line through the 101 percentiles.
  std::size_t plots = 0;
  for (std::size_t at = page.find("<polyline"); at != std::string::npos;
       at = page.find("<polyline", at + 1)) {
    ++plots;
    const std::size_t begin = page.find("points=\"", at) + 8, end = page.find('"', begin);
    const std::string points = page.substr(begin, end - begin);
    CHECK(static_cast<std::size_t>(std::count(points.begin(), points.end(), ',')) == 101u);
  }
  CHECK(plots == 4u);
  CHECK_THAT(page, Catch::Contains("time to first token") && Catch::Contains("inter-token latency") &&
                       Catch::Contains("Steps, most time first"));
  CHECK(page.find("<pre>model llama3-8b") != std::string::npos);  // the text report, escaped
}

TEST_CASE("serve: a window of the run written as a timeline, the rest of the report unchanged",
          "[commands][serve][timeline]") {
  aicb::serve_request r;
  r.model = "llama3-8b";
  r.gpu = "H100";
  r.traffic = {.requests = 60, .rate = 20, .prompt = {500, 1500}, .output = {20, 60}};
  const aicb::serve_report plain = aicb::serve(r);
  const std::string path = "serve_test_timeline.json";
  std::remove(path.c_str());
  r.timeline = path;
  r.timeline_window = {.from_s = 0.5, .to_s = 1.5};
  const aicb::serve_report drawn = aicb::serve(r);
  CHECK(drawn.ttft.mean == plain.ttft.mean);  // observing the steps changes nothing
  CHECK(drawn.steps == plain.steps);
  CHECK(drawn.timeline_steps > 0u);
  CHECK(drawn.timeline_steps < drawn.steps);  // a window, not the run
  CHECK_FALSE(drawn.timeline_truncated);
  CHECK_THAT(aicb::format_serve(drawn),
             Catch::Contains("wrote " + path + ": the timeline of " + std::to_string(drawn.timeline_steps) +
                             " steps from 0.5 s to 1.5 s"));
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Catch::StartsWith("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[") &&
                       Catch::Contains("\"schema\": \"aicb.serving_timeline/1\"") &&
                       Catch::Contains("\"steps\": " + std::to_string(drawn.timeline_steps)));
  std::remove(path.c_str());
}
