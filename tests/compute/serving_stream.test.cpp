// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/roofline.hpp>
#include <aicb/compute/serving_stream.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/model/requests.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace {

aicb::model_spec small_dense() {
  aicb::model_spec m = aicb::presets::llama3_8b;
  m.num_layers = 2;
  return m;
}

// The µs one step of a small_dense() request takes when every computation takes 1 µs: a decode step's
// computations (its attention cores among them, one a layer); a prefill step of one chunk with nothing
// before it has as many.
double one_step_us(const aicb::model_spec& m) {
  const aicb::inference_step decode(m, {.phase = aicb::inference_phase::decode, .batch = 1, .context = 4}, 0);
  std::uint64_t computations = 0;
  for (const aicb::operation& op : decode.operations())
    computations += op.type == aicb::op_type::compute ? 1 : 0;
  return static_cast<double>(computations);
}

// SGLang's scheduler serving small_dense() on one GPU where every computation takes 1 µs: a prefill or
// decode step of one request costs `p` seconds.
struct one_gpu_sglang {
  aicb::constant_model each{aicb::nanoseconds{1000}};
  aicb::cluster_spec one = aicb::cluster_preset("dgx-h100");
  aicb::model_spec m = small_dense();
  double p = one_step_us(m) * 1e-6;
  aicb::serving_engine engine{.policy = aicb::serving_policy::sglang};

  [[nodiscard]] aicb::serving_stream_report serve(const std::vector<aicb::serving_request>& requests) const {
    return aicb::simulate_serving(m, {}, requests, each, one, engine);
  }
};

// Llama-3 70B on 8 H100s where every computation takes 1 µs, and an engine of an unbounded token budget
// whose memory share leaves about `tokens` tokens of KV cache beside the weights (the H100's memory as its
// driver reports it); `capacity` is the cache a stream reports.
struct small_cache {
  aicb::constant_model each{aicb::nanoseconds{1000}};
  aicb::model_spec m = aicb::presets::llama3_70b;
  aicb::serving_spec layout{.tensor_parallel = 8};
  aicb::cluster_spec h100 = aicb::cluster_preset("dgx-h100");
  aicb::serving_engine engine;
  std::uint64_t capacity = 0;

  explicit small_cache(double tokens) {
    const aicb::serving_stream_report probe = aicb::simulate_serving(m, layout, {{0, 0, 16, 1}}, each, h100);
    engine.token_budget = 1 << 20;
    engine.memory_fraction =
        (probe.weight_bytes + tokens * probe.kv_bytes_per_token) / aicb::require_gpu("H100").memory_bytes();
    capacity = aicb::simulate_serving(m, layout, {{0, 0, 16, 1}}, each, h100, engine).kv_capacity_tokens;
  }
};

// A deployment of TP 8 prefill instances and TP 8 decode instances (their counts and engines the default).
aicb::disaggregated_deployment tp8_disaggregated() {
  aicb::disaggregated_deployment d;
  d.prefill.tensor_parallel = d.decode.tensor_parallel = 8;
  return d;
}

}  // namespace

TEST_CASE("serving stream: a hand-counted run on a model where every operation takes the same time",
          "[serving][stream]") {
  // Every computation 1 µs, one GPU (no collectives): a step costs 1 µs per operation. Two requests
  // at time 0, prompts of 10 tokens, 3 output tokens each: step 1 prefills both (two chunks: each its
  // own causal attention cores), steps 2 and 3 decode both (the decode cores once, for both).
  const aicb::constant_model each(aicb::nanoseconds{1000});
  const aicb::cluster_spec one = aicb::cluster_preset("dgx-h100");
  const aicb::model_spec m = small_dense();
  const aicb::serving_spec layout;  // TP 1, one group
  const aicb::inference_step decode(m, {.phase = aicb::inference_phase::decode, .batch = 1, .context = 4}, 0);
  std::uint64_t computations = 0, cores = 0;
  for (const aicb::operation& op : decode.operations())
    if (op.type == aicb::op_type::compute) {
      ++computations;
      if (op.compute.kind == aicb::op_kind::attention) ++cores;
    }
  REQUIRE(cores == 2u);  // one core per layer
  const double rest = static_cast<double>(computations - cores);
  const double prefill_step = rest + 2.0 * cores, decode_step = rest + cores;

  const std::vector<aicb::serving_request> two{{0, 0, 10, 3}, {1, 0, 10, 3}};
  const aicb::serving_stream_report r = aicb::simulate_serving(m, layout, two, each, one);
  CHECK(r.steps == 3u);
  CHECK(r.preemptions == 0u);
  for (const aicb::served_request& s : r.requests) {
    CHECK(s.ttft_s() * 1e6 == Approx(prefill_step));
    CHECK(s.tpot_s() * 1e6 == Approx(decode_step));
    CHECK(s.e2e_s() * 1e6 == Approx(prefill_step + 2 * decode_step));
  }
  CHECK(r.busy_s == Approx(r.end_s));

  // A token budget of 10 admits one prompt a step: the second request's prefill waits a step, and
  // its first token comes after the first request's prefill and a step of the first's decode with
  // its own prefill beside it.
  aicb::serving_engine tight;
  tight.token_budget = 10;
  const aicb::serving_stream_report t = aicb::simulate_serving(m, layout, two, each, one, tight);
  CHECK(t.requests[0].ttft_s() * 1e6 == Approx(prefill_step - cores));
  // Step 2: the first request decodes (1 token) and the second prefills 9 of its 10 tokens; step 3
  // finishes its prompt (1 token over the 9 before it: causal and earlier cores) beside a decode.
  const double step2 = rest + cores + cores, step3 = rest + cores + 2.0 * cores;
  CHECK(t.requests[1].ttft_s() * 1e6 == Approx(prefill_step - cores + step2 + step3));

  // The host's 50 µs a step exposed before each: every step 50 µs later, the latencies by as much a
  // step, the GPU's busy time unchanged.
  aicb::serving_engine host;
  host.step_overhead_us = 50;
  const aicb::serving_stream_report h = aicb::simulate_serving(m, layout, two, each, one, host);
  for (const aicb::served_request& s : h.requests) {
    CHECK(s.ttft_s() * 1e6 == Approx(50 + prefill_step));
    CHECK(s.tpot_s() * 1e6 == Approx(50 + decode_step));
    CHECK(s.e2e_s() * 1e6 == Approx(3 * 50 + prefill_step + 2 * decode_step));
  }
  CHECK(h.busy_s == Approx(r.busy_s));
  CHECK(h.end_s * 1e6 == Approx(r.end_s * 1e6 + 3 * 50));
  host.step_overhead_us = -1;
  CHECK_THROWS_WITH(aicb::simulate_serving(m, layout, two, each, one, host),
                    Catch::Contains("step_overhead_us"));
}

TEST_CASE(
    "serving stream: a front end sends the streamed tokens one message at a time, clients' latencies "
    "counting from there",
    "[serving][stream]") {
  // The hand-counted run above (steps of about 40 µs), with a front end far slower than the steps:
  // each step's token of each request is a message, sent one after another in running order, so
  // the clients see the tokens only as fast as the front end sends them.
  const aicb::constant_model each(aicb::nanoseconds{1000});
  const aicb::cluster_spec one = aicb::cluster_preset("dgx-h100");
  const aicb::model_spec m = small_dense();
  const aicb::serving_spec layout;
  const std::vector<aicb::serving_request> two{{0, 0, 10, 3}, {1, 0, 10, 3}};
  const aicb::serving_stream_report r = aicb::simulate_serving(m, layout, two, each, one);
  const double prefill_us = r.requests[0].ttft_s() * 1e6;
  REQUIRE(r.end_s * 1e6 < 200);  // three steps, each well under a message's time

  // Cumulative text, 1000 µs a message and 100 µs a token: the six messages (request 0, 1 of each
  // step) carry 1, 1, 2, 2, 3, 3 tokens; the first leaves when the first step ends.
  aicb::serving_engine cumulative;
  cumulative.stream_message_us = 1000;
  cumulative.stream_token_us = 100;
  cumulative.stream_cumulative = true;
  const aicb::serving_stream_report c = aicb::simulate_serving(m, layout, two, each, one, cumulative);
  CHECK(c.requests[0].ttft_s() * 1e6 == Approx(prefill_us + 1100));
  CHECK(c.requests[1].ttft_s() * 1e6 == Approx(prefill_us + 2200));
  CHECK(c.requests[0].e2e_s() * 1e6 == Approx(prefill_us + 1100 + 1100 + 1200 + 1200 + 1300));
  CHECK(c.requests[1].e2e_s() * 1e6 == Approx(prefill_us + 7200));
  CHECK(c.requests[0].tpot_s() * 1e6 == Approx(2400));
  CHECK(c.end_s * 1e6 == Approx(prefill_us + 7200));
  CHECK(c.busy_s == Approx(r.busy_s));  // the engine does not wait for its front end
  CHECK(c.steps == r.steps);
  // The clients' gaps: 2300 and 2500 µs for request 0, 2400 and 2600 µs for request 1.
  REQUIRE(c.inter_token.count == 4u);
  CHECK(c.inter_token.sum_s * 1e6 == Approx(2300 + 2500 + 2400 + 2600));
  CHECK(c.inter_token.max_s * 1e6 == Approx(2600));

  // Only the new tokens: every message 1100 µs.
  aicb::serving_engine incremental = cumulative;
  incremental.stream_cumulative = false;
  const aicb::serving_stream_report n = aicb::simulate_serving(m, layout, two, each, one, incremental);
  CHECK(n.requests[0].e2e_s() * 1e6 == Approx(prefill_us + 5 * 1100));
  CHECK(n.requests[1].e2e_s() * 1e6 == Approx(prefill_us + 6 * 1100));

  // One client at a time: the second request is sent when the first's last token reaches its
  // client, not when the engine finished it; each request's three messages 1000 µs apart.
  aicb::serving_engine closed;
  closed.stream_message_us = 1000;
  closed.concurrency = 1;
  const aicb::serving_stream_report o = aicb::simulate_serving(m, layout, two, each, one, closed);
  const double alone_prefill_us = o.requests[0].ttft_s() * 1e6 - 1000;  // one prompt's step
  CHECK(alone_prefill_us < prefill_us);
  CHECK(o.requests[0].e2e_s() * 1e6 == Approx(alone_prefill_us + 3000));
  CHECK(o.requests[1].request.arrival_s == Approx(o.requests[0].finish_s));
  CHECK(o.requests[1].e2e_s() * 1e6 == Approx(alone_prefill_us + 3000));

  aicb::serving_engine bad;
  bad.stream_token_us = -1;
  CHECK_THROWS_WITH(aicb::simulate_serving(m, layout, two, each, one, bad),
                    Catch::Contains("stream_token_us"));
  aicb::serving_engine idle_flag;  // cumulative text without a cost per token would change nothing
  idle_flag.stream_cumulative = true;
  CHECK_THROWS_WITH(aicb::simulate_serving(m, layout, two, each, one, idle_flag),
                    Catch::Contains("stream_cumulative"));
  // Not simulated for a disaggregated deployment: refused, not ignored.
  aicb::disaggregated_deployment d = tp8_disaggregated();
  d.decode_engine.stream_message_us = 100;
  CHECK_THROWS_WITH(aicb::simulate_disaggregated_serving(aicb::presets::llama3_70b, d, two, each, one),
                    Catch::Contains("aggregated deployment only"));
}

TEST_CASE("serving stream: a full KV cache preempts the latest request, which finishes later",
          "[serving][stream]") {
  // A memory share that leaves about 20,000 tokens of KV cache beside the weights; each request's
  // whole length is 0.4 of that, so three running at once must preempt.
  small_cache d(20000);
  REQUIRE(d.capacity > 19000u);
  REQUIRE(d.capacity < 21000u);
  const std::uint64_t length = d.capacity * 4 / 10;  // prompt + output of each request
  const std::vector<aicb::serving_request> three{
      {0, 0, length / 2, length / 2}, {1, 0, length / 2, length / 2}, {2, 0, length / 2, length / 2}};
  const aicb::serving_stream_report r =
      aicb::simulate_serving(d.m, d.layout, three, d.each, d.h100, d.engine);
  CHECK(r.preemptions >= 1u);
  CHECK(r.requests[2].preemptions >= 1u);  // the latest admitted goes first
  CHECK(r.requests[0].preemptions == 0u);
  CHECK(r.requests[2].finish_s > r.requests[0].finish_s);
  CHECK(r.peak_kv_share <= 1.0);
  CHECK(r.peak_kv_share > 0.75);
  for (const auto& s : r.requests)
    CHECK(s.finish_s >= s.first_token_s);
  // The preempted request decodes its last token alone over its prompt and every token it generated,
  // each counted once: the tokens generated before its preemption were recomputed as part of its
  // prompt, not added again.
  aicb::serving_step_shape last;
  const aicb::serving_stream_report again =
      aicb::simulate_serving(d.m, d.layout, three, d.each, d.h100, d.engine,
                             [&](const aicb::serving_step_record& step) { last = step.groups[0]; });
  REQUIRE(again.requests[2].preemptions >= 1u);
  REQUIRE(last.decoding == 1u);
  CHECK(last.decode_context == static_cast<double>(length / 2 + length / 2 - 1));
}

TEST_CASE(
    "serving stream: SGLang's scheduler prefills first, in steps of their own, and chunks to the budget",
    "[serving][stream]") {
  // Every computation 1 µs, one GPU, a token budget of 10 (SGLang's chunked_prefill_size). A prefill
  // step of one chunk with nothing before it and a decode step both cost P = the operations plus one
  // attention core a layer.
  const aicb::constant_model each(aicb::nanoseconds{1000});
  const aicb::cluster_spec one = aicb::cluster_preset("dgx-h100");
  const aicb::model_spec m = small_dense();
  const aicb::serving_spec layout;
  const double p = one_step_us(m);
  aicb::serving_engine sglang;
  sglang.policy = aicb::serving_policy::sglang;
  sglang.token_budget = 10;

  // Two prompts of 10 at time 0, 3 output tokens each: step 1 prefills the first alone (the budget is
  // spent), step 2 the second alone — the first does not decode beside it — then two steps decode both.
  const std::vector<aicb::serving_request> two{{0, 0, 10, 3}, {1, 0, 10, 3}};
  const aicb::serving_stream_report r = aicb::simulate_serving(m, layout, two, each, one, sglang);
  CHECK(r.steps == 4u);
  CHECK(r.requests[0].ttft_s() * 1e6 == Approx(p));
  CHECK(r.requests[1].ttft_s() * 1e6 == Approx(2 * p));
  CHECK(r.requests[0].e2e_s() * 1e6 == Approx(4 * p));
  CHECK(r.requests[0].tpot_s() * 1e6 == Approx(1.5 * p));  // its first gap waits through the other's prefill
  CHECK(r.requests[1].tpot_s() * 1e6 == Approx(p));
  // The inter-token gaps: the first request's 2P (across the other's prefill) and P, the second's P
  // and P — a median of P that the mean of its time per token (1.5P) does not show.
  CHECK(r.inter_token.count == 4u);
  CHECK(r.inter_token.max_s * 1e6 == Approx(2 * p));
  CHECK(r.inter_token.mean_s() * 1e6 == Approx(1.25 * p));
  CHECK(r.inter_token.quantile(0.5) * 1e6 == Approx(p).epsilon(0.011));
  // vLLM's scheduler on the same budget runs the second prompt beside the first's decoding: later.
  aicb::serving_engine vllm = sglang;
  vllm.policy = aicb::serving_policy::vllm;
  CHECK(aicb::simulate_serving(m, layout, two, each, one, vllm).requests[1].ttft_s() >
        r.requests[1].ttft_s() * 1.5);

  // Prompts of 15: step 1 takes 10 of the first, step 2 its last 5 and the second's first 5 (cut at
  // the budget), step 3 the second's last 10; the first's first token comes with step 2, the
  // second's with step 3, and neither decodes until both prompts are in.
  const std::vector<aicb::serving_request> longer{{0, 0, 15, 2}, {1, 0, 15, 2}};
  const aicb::serving_stream_report c = aicb::simulate_serving(m, layout, longer, each, one, sglang);
  CHECK(c.steps == 4u);
  CHECK(c.requests[0].first_token_s < c.requests[1].first_token_s);
  CHECK(c.requests[0].finish_s == Approx(c.requests[1].finish_s));  // the one decode step, together
}

TEST_CASE("serving stream: an engine that forms a step while the last one runs takes an arrival a step later",
          "[serving][stream]") {
  // As the SGLang hand count above: a prefill or decode step of one request costs P. A arrives at 0
  // (10 prompt, 3 output tokens) and B at P/2, while A's prefill runs. Without overlap, B's prompt is
  // the next step (P to 2P): TTFT 1.5P. With it, the step from P was formed at 0 without B (A
  // decodes), and B's prompt runs from 2P: TTFT 2.5P. An idle engine takes A at once either way.
  one_gpu_sglang run;
  const double p = run.p;
  const std::vector<aicb::serving_request> two{{0, 0, 10, 3}, {1, p / 2, 10, 3}};
  const aicb::serving_stream_report plain = run.serve(two);
  CHECK(plain.requests[0].ttft_s() == Approx(p));
  CHECK(plain.requests[1].ttft_s() == Approx(1.5 * p));
  run.engine.overlap_schedule = true;
  const aicb::serving_stream_report overlapped = run.serve(two);
  CHECK(overlapped.requests[0].ttft_s() == Approx(p));
  CHECK(overlapped.requests[1].ttft_s() == Approx(2.5 * p));
  // Requests far apart find the engine idle: no step is lost.
  CHECK(run.serve({{0, 0, 10, 3}, {1, 1.0, 10, 3}}).requests[1].ttft_s() == Approx(p));
}

TEST_CASE("serving stream: an engine that polls its input every N decode steps leaves an arrival waiting",
          "[serving][stream]") {
  // Every step costs P, as above. A arrives at 0 (10 prompt, 20 output tokens) and is prefilled at once
  // (idle engine); B arrives at 1.5P, while A's first decode step runs. Polling every step, B's prompt
  // is the step from 2P: TTFT 1.5P. Polling every 4 decode steps (SGLang's scheduler_recv_interval 4):
  // the step after A's prefill polls (a prompt step sets the counter past the interval), finds
  // nothing, and the next poll is 4 decode steps later, at 5P — B's prefill runs from 5P to 6P: TTFT
  // 4.5P. A later arrival that finds the engine idle is taken at once.
  one_gpu_sglang run;
  const double p = run.p;
  const std::vector<aicb::serving_request> three{{0, 0, 10, 20}, {1, 1.5 * p, 10, 3}, {2, 1.0, 10, 3}};
  const aicb::serving_stream_report every = run.serve(three);
  CHECK(every.requests[1].ttft_s() == Approx(1.5 * p));
  run.engine.receive_interval = 4;
  const aicb::serving_stream_report polled = run.serve(three);
  CHECK(polled.requests[0].ttft_s() == Approx(p));
  CHECK(polled.requests[1].ttft_s() == Approx(4.5 * p));
  CHECK(polled.requests[2].ttft_s() == Approx(p));
  // A's decode waits one step for B's prefill either way: it ends at the same time.
  CHECK(polled.requests[0].finish_s == Approx(every.requests[0].finish_s));
  run.engine.receive_interval = 0;
  CHECK_THROWS_WITH(run.serve(three), Catch::Contains("receive_interval = 0: expected 1 to 1,000,000"));
  run.engine.receive_interval = std::uint64_t{1} << 63;  // past the bound, its step counter could overflow
  CHECK_THROWS_WITH(run.serve(three), Catch::Contains("receive_interval = 9223372036854775808"));
}

TEST_CASE("serving stream: SGLang's decode instance takes arrived prompts into its next decode step",
          "[serving][stream]") {
  // Disaggregated under SGLang's policy on both sides: the decode instance admits each transferred
  // request at the start of a decode step and decodes it there, never running a prefill step.
  const aicb::roofline_model h200("H200");
  const aicb::cluster_spec c = aicb::cluster_preset("dgx-h200");
  const aicb::model_spec m = aicb::presets::llama3_70b;
  aicb::disaggregated_deployment d = tp8_disaggregated();
  d.prefill_engine.policy = d.decode_engine.policy = aicb::serving_policy::sglang;
  const auto busy =
      aicb::synthetic_requests({.requests = 300, .rate = 8, .prompt = {2000, 4000}, .output = {100, 200}});
  const aicb::disaggregated_stream_report r = aicb::simulate_disaggregated_serving(m, d, busy, h200, c);
  for (const aicb::served_request& s : r.requests) {
    CHECK(s.finish_s > s.first_token_s);
    CHECK(s.first_token_s > s.request.arrival_s);
  }
  for (const aicb::serving_step_kind& k : r.decode_step_kinds)
    CHECK(k.form == aicb::inference_phase::decode);
  CHECK(r.inter_token.count > 0u);
  // Light enough that the reservation never binds: the same tokens per request as vLLM's decode side.
  aicb::disaggregated_deployment v = d;
  v.prefill_engine.policy = v.decode_engine.policy = aicb::serving_policy::vllm;
  const aicb::disaggregated_stream_report w = aicb::simulate_disaggregated_serving(m, v, busy, h200, c);
  CHECK(r.inter_token.count == w.inter_token.count);
}

TEST_CASE("serving stream: a histogram of durations keeps its quantiles within 1.1% in flat memory",
          "[serving][stream]") {
  aicb::duration_histogram h;
  CHECK(h.quantile(0.5) == 0);
  for (int ms = 1; ms <= 1000; ++ms)
    h.add(ms * 1e-3);
  CHECK(h.count == 1000u);
  CHECK(h.mean_s() == Approx(0.5005));
  CHECK(h.max_s == 1.0);
  for (const double q : {0.01, 0.5, 0.9, 0.99})
    CHECK(h.quantile(q) == Approx(q).epsilon(0.011));
  CHECK(h.quantile(1) <= h.max_s);  // never above the largest
  CHECK(h.quantile(1) == Approx(1.0).epsilon(0.011));
  const std::size_t bins = h.bins.size();
  aicb::duration_histogram twice = h;
  twice.merge(h);
  CHECK(twice.count == 2000u);
  CHECK(twice.quantile(0.5) == h.quantile(0.5));
  CHECK(twice.bins.size() == bins);
  h.add(0);  // an instant gap lands in the first bin
  CHECK(h.quantile(0) <= aicb::duration_histogram::floor_s);
}

TEST_CASE("serving stream: SGLang admits a prompt only while the cache holds its whole output ahead",
          "[serving][stream]") {
  // About 10,000 tokens of KV cache; three requests of 0.4 of it each, short prompts and long outputs
  // (under the 4096 tokens SGLang's estimate clips an output to).
  small_cache d(10000);
  REQUIRE(d.capacity > 9500u);
  REQUIRE(d.capacity < 10500u);
  const std::uint64_t prompt = d.capacity / 20, output = d.capacity * 4 / 10 - prompt;
  const std::vector<aicb::serving_request> three{
      {0, 0, prompt, output}, {1, 0, prompt, output}, {2, 0, prompt, output}};
  // vLLM's admission asks only for the prompt's blocks: all three start in the first step.
  const aicb::serving_stream_report v =
      aicb::simulate_serving(d.m, d.layout, three, d.each, d.h100, d.engine);
  CHECK(v.requests[2].admitted_s == v.requests[0].admitted_s);
  // SGLang's reserves each new request's whole length: after two (0.8 of the cache) the third's 0.4
  // does not fit, and it starts in a later step.
  d.engine.policy = aicb::serving_policy::sglang;
  const aicb::serving_stream_report s =
      aicb::simulate_serving(d.m, d.layout, three, d.each, d.h100, d.engine);
  CHECK(s.requests[1].admitted_s == s.requests[0].admitted_s);
  CHECK(s.requests[2].admitted_s > s.requests[1].admitted_s);
  // A step later the running two's remaining outputs count at 0.7 only, so the third is admitted;
  // the three need 1.2 caches in the end, and the latest admitted is retracted to finish last.
  CHECK(s.preemptions >= 1u);
  CHECK(s.requests[2].preemptions >= 1u);
  CHECK(s.requests[0].preemptions == 0u);
  for (const auto& served : s.requests)
    CHECK(served.finish_s > served.first_token_s);
  CHECK(s.requests[2].finish_s > s.requests[0].finish_s);
  CHECK(s.peak_kv_share <= 1.0);
}

TEST_CASE("serving stream: the roofline's latencies grow with the load", "[serving][stream]") {
  const aicb::roofline_model h200("H200");
  const aicb::cluster_spec c = aicb::cluster_preset("dgx-h200");
  aicb::serving_spec layout;
  layout.tensor_parallel = 8;
  const aicb::model_spec m = aicb::presets::llama3_70b;
  aicb::traffic_spec light{.requests = 200, .rate = 2, .prompt = {1000, 1000}, .output = {100, 100}};
  aicb::traffic_spec heavy = light;
  heavy.rate = 50;
  const auto quiet = aicb::simulate_serving(m, layout, aicb::synthetic_requests(light), h200, c);
  const auto busy = aicb::simulate_serving(m, layout, aicb::synthetic_requests(heavy), h200, c);
  const auto median = [](const aicb::serving_stream_report& r, auto metric) {
    std::vector<double> v;
    for (const auto& s : r.requests)
      v.push_back(metric(s));
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const auto tpot = [](const aicb::served_request& s) { return s.tpot_s(); };
  const auto ttft = [](const aicb::served_request& s) { return s.ttft_s(); };
  CHECK(median(busy, tpot) > 1.5 * median(quiet, tpot));
  CHECK(median(busy, ttft) > median(quiet, ttft));
  // At 2 requests a second (one at a time, mostly) a token takes about what the step model gives a
  // lone decode step at that context, a little more where another request's prefill shares a step.
  const aicb::inference_step lone(
      m, {.phase = aicb::inference_phase::decode, .batch = 1, .context = 1050, .tensor_parallel = 8}, 0);
  const double lone_s = aicb::play_serving_step(lone, h200, c).step_us() * 1e-6;
  CHECK(median(quiet, tpot) >= 0.99 * lone_s);
  CHECK(median(quiet, tpot) < 1.3 * lone_s);
  CHECK(quiet.busy_s < quiet.end_s);
}

TEST_CASE(
    "serving stream: a long prompt's attention prices as the step model's, query heads folded per KV group",
    "[serving][stream]") {
  // Two layers of Llama-3 8B (32 query heads over 8 KV heads: four rows per token in each problem) on
  // one H100, a lone prompt of 4096 tokens, a point of the stream's grid: its first token comes after
  // the step model's prefill step (the output rows priced apart), the attention of four query heads
  // per KV head included; the same prompt in chunks of 1024 costs more (every chunk reads the keys
  // before it again, and each step has its own launches and output rows).
  const aicb::model_spec m = small_dense();
  const aicb::roofline_model h100("H100");
  const aicb::cluster_spec c = aicb::cluster_preset("dgx-h100");
  const std::vector<aicb::serving_request> one{{0, 0, 4096, 2}};
  const aicb::serving_stream_report whole = aicb::simulate_serving(m, {}, one, h100, c);
  const aicb::inference_step prefill(m, {.phase = aicb::inference_phase::prefill, .batch = 1, .prompt = 4096},
                                     0);
  const double prefill_s = aicb::play_serving_step(prefill, h100, c).step_us() * 1e-6;
  CHECK(whole.requests[0].ttft_s() == Approx(prefill_s).epsilon(1e-3));
  aicb::serving_engine chunked;
  chunked.token_budget = 1024;
  const aicb::serving_stream_report parts = aicb::simulate_serving(m, {}, one, h100, c, chunked);
  CHECK(parts.requests[0].ttft_s() > whole.requests[0].ttft_s());
}

TEST_CASE("serving stream: disaggregated, each request's KV cache crosses the network before its first token",
          "[serving][stream]") {
  const aicb::roofline_model h200("H200");
  const aicb::cluster_spec c = aicb::cluster_preset("dgx-h200");
  const aicb::model_spec m = aicb::presets::llama3_70b;
  aicb::disaggregated_deployment d = tp8_disaggregated();
  // Requests a second apart: nothing queues, so each transfer is one request's KV cache — 2 K and V
  // of 8 heads of 128 in BF16 in each of 80 layers, 327,680 bytes a token — over the 8 GPUs' NICs.
  const std::vector<aicb::serving_request> spaced{{0, 0, 2000, 50}, {1, 1, 3000, 50}, {2, 2, 1000, 1}};
  const aicb::disaggregated_stream_report r = aicb::simulate_disaggregated_serving(m, d, spaced, h200, c);
  for (std::size_t i = 0; i < 2; ++i) {
    const double bytes = 327680.0 * static_cast<double>(spaced[i].prompt);
    CHECK(r.kv_transfer_s[i] == Approx(aicb::transfer_us(bytes / 8, 0, 8, c) * 1e-6));
    CHECK(r.kv_transfer_s[i] > 1e-3);  // hundreds of MB at 50 GB/s a GPU: milliseconds
    CHECK(r.requests[i].ttft_s() == Approx(r.prefill_done_s[i] - spaced[i].arrival_s + r.kv_transfer_s[i]));
    CHECK(r.requests[i].finish_s > r.requests[i].first_token_s);
  }
  CHECK(r.kv_bytes == Approx(327680.0 * 5000));
  // A request of one token is done on its prefill instance: no transfer.
  CHECK(r.kv_transfer_s[2] == 0);
  CHECK(r.requests[2].finish_s == r.prefill_done_s[2]);
  // The prefill instance's prompt alone costs what an aggregated engine's first step costs it.
  const auto alone = aicb::simulate_serving(m, d.prefill, {{0, 0, 2000, 1}}, h200, c);
  CHECK(r.prefill_done_s[0] == Approx(alone.requests[0].finish_s));

  // Under load, decoding beside no prompt chunks keeps the time per token down.
  const auto busy =
      aicb::synthetic_requests({.requests = 400, .rate = 8, .prompt = {2000, 4000}, .output = {100, 200}});
  const aicb::serving_stream_report together = aicb::simulate_serving(m, d.decode, busy, h200, c);
  const aicb::disaggregated_stream_report apart = aicb::simulate_disaggregated_serving(m, d, busy, h200, c);
  const auto median_tpot = [](const std::vector<aicb::served_request>& v) {
    std::vector<double> t;
    for (const auto& s : v)
      t.push_back(s.tpot_s());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  CHECK(median_tpot(apart.requests) < 0.8 * median_tpot(together.requests));
  CHECK(apart.decode_steps > 0u);
  CHECK(apart.prefill_steps > 0u);
}

TEST_CASE("serving stream: the step mix counts every step once, by form, tokens and context",
          "[serving][stream]") {
  CHECK(aicb::serving_grid_point(0, 8) == 1u);
  CHECK(aicb::serving_grid_point(37, 8) == 37u);  // exact to 64
  CHECK(aicb::serving_grid_point(64, 8) == 64u);
  CHECK(aicb::serving_grid_point(128, 8) == 128u);  // an octave above: a grid point
  CHECK(aicb::serving_grid_point(100, 8) == 99u);   // 64 * 2^(5/8) = 98.7, the nearest of 90.5, 98.7, 107.6
  CHECK(aicb::serving_grid_point(100, 4) == 108u);  // 64 * 2^(3/4) = 107.6 (2^(2/4): 90.5)

  // The hand-counted run: one prefill step of two 10-token prompts, then two decode steps of two
  // requests over 11 and 12 keys (each rounded to itself: below 64).
  const aicb::constant_model each(aicb::nanoseconds{1000});
  const aicb::model_spec m = small_dense();
  const std::vector<aicb::serving_request> two{{0, 0, 10, 3}, {1, 0, 10, 3}};
  const aicb::serving_stream_report r =
      aicb::simulate_serving(m, {}, two, each, aicb::cluster_preset("dgx-h100"));
  REQUIRE(r.step_kinds.size() == 3u);
  std::uint64_t steps = 0;
  double busy = 0;
  for (std::size_t i = 0; i < r.step_kinds.size(); ++i) {
    steps += r.step_kinds[i].count;
    busy += r.step_kinds[i].busy_s;
    if (i > 0) CHECK(r.step_kinds[i - 1].busy_s >= r.step_kinds[i].busy_s);  // most time first
  }
  CHECK(steps == r.steps);
  CHECK(busy == Approx(r.busy_s));
  const aicb::serving_step_kind& prefill = r.step_kinds.front();  // two cores a layer: the longest
  CHECK(prefill.form == aicb::inference_phase::prefill);
  CHECK(prefill.tokens == 20u);
  CHECK(prefill.context == 0u);
  CHECK(prefill.count == 1u);
  // The decode steps: the first attends over prompt + 1 generated token (11 keys), the second 12.
  std::vector<std::uint64_t> contexts;
  for (const aicb::serving_step_kind& k : r.step_kinds)
    if (k.form == aicb::inference_phase::decode) {
      CHECK(k.tokens == 2u);
      CHECK(k.count == 1u);
      contexts.push_back(k.context);
    }
  std::sort(contexts.begin(), contexts.end());
  CHECK(contexts == std::vector<std::uint64_t>{11, 12});

  // Merged mixes add counts and time of equal kinds and keep the others.
  std::vector<aicb::serving_step_kind> merged = r.step_kinds;
  aicb::merge_step_kinds(merged, r.step_kinds);
  REQUIRE(merged.size() == r.step_kinds.size());
  for (std::size_t i = 0; i < merged.size(); ++i) {
    CHECK(merged[i].count == 2 * r.step_kinds[i].count);
    CHECK(merged[i].busy_s == Approx(2 * r.step_kinds[i].busy_s));
  }
}

TEST_CASE("serving stream: a bound on outstanding requests sends each next request as one finishes",
          "[serving][stream]") {
  // Every computation 1 µs, as above. Three requests at time 0, prompts of 10 tokens, 3 outputs;
  // with at most one outstanding, each is sent when the one before finishes and runs alone: a
  // prefill step and two decode steps each, TTFT from its sending.
  const aicb::constant_model each(aicb::nanoseconds{1000});
  const aicb::cluster_spec one = aicb::cluster_preset("dgx-h100");
  const aicb::model_spec m = small_dense();
  const aicb::serving_spec layout;
  const std::vector<aicb::serving_request> three{{0, 0, 10, 3}, {1, 0, 10, 3}, {2, 0, 10, 3}};
  const aicb::serving_stream_report open = aicb::simulate_serving(m, layout, three, each, one);
  CHECK(open.steps == 3u);  // all three together

  aicb::serving_engine closed;
  closed.concurrency = 1;
  const aicb::serving_stream_report r = aicb::simulate_serving(m, layout, three, each, one, closed);
  CHECK(r.steps == 9u);
  const double alone = r.requests[0].e2e_s();
  CHECK(r.requests[0].request.arrival_s == 0);
  for (std::size_t i = 1; i < 3; ++i) {
    CHECK(r.requests[i].request.arrival_s == Approx(r.requests[i - 1].finish_s));
    CHECK(r.requests[i].ttft_s() == Approx(r.requests[0].ttft_s()));
    CHECK(r.requests[i].e2e_s() == Approx(alone));
  }
  CHECK(r.end_s == Approx(3 * alone));

  // Two outstanding: the first two share their steps, the third is sent when they finish.
  closed.concurrency = 2;
  const aicb::serving_stream_report two = aicb::simulate_serving(m, layout, three, each, one, closed);
  CHECK(two.steps == 6u);
  CHECK(two.requests[2].request.arrival_s == Approx(two.requests[0].finish_s));
  CHECK(two.requests[2].e2e_s() == Approx(alone));

  // A bound of at least the requests changes nothing; a request arriving later than a slot frees is
  // sent at its own arrival.
  closed.concurrency = 3;
  CHECK(aicb::simulate_serving(m, layout, three, each, one, closed).end_s == Approx(open.end_s));
  closed.concurrency = 1;
  const std::vector<aicb::serving_request> late{{0, 0, 10, 3}, {1, 1.0, 10, 3}};
  const aicb::serving_stream_report waits = aicb::simulate_serving(m, layout, late, each, one, closed);
  CHECK(waits.requests[1].request.arrival_s == 1.0);
  CHECK(waits.requests[1].e2e_s() == Approx(waits.requests[0].e2e_s()));

  // Disaggregated, one prefill and one decode instance: a request finishing on the decode side sends
  // the next to the prefill side. One outstanding: each request alone — its prompt, its KV transfer,
  // its two decode steps — sent when the one before finishes.
  aicb::disaggregated_deployment d;
  d.prefill_engine.concurrency = 1;
  const aicb::disaggregated_stream_report serial =
      aicb::simulate_disaggregated_serving(m, d, three, each, one);
  CHECK(serial.requests[0].request.arrival_s == 0);
  const double lone = serial.requests[0].e2e_s();
  CHECK(lone == Approx(serial.prefill_done_s[0] + serial.kv_transfer_s[0] + 2 * r.requests[0].tpot_s()));
  for (std::size_t i = 1; i < 3; ++i) {
    CHECK(serial.requests[i].request.arrival_s == Approx(serial.requests[i - 1].finish_s));
    CHECK(serial.requests[i].e2e_s() == Approx(lone));
    CHECK(serial.prefill_done_s[i] > serial.requests[i - 1].finish_s);  // its prompt only once sent
  }
  CHECK(serial.end_s == Approx(3 * lone));
  CHECK(serial.prefill_steps == 3u);
  CHECK(serial.decode_steps == 6u);
  // Without a bound (or with one of every request) all three are sent at once: their prompts share a
  // step, and the stream ends well before the serial one.
  d.prefill_engine.concurrency = 0;
  const aicb::disaggregated_stream_report open_d =
      aicb::simulate_disaggregated_serving(m, d, three, each, one);
  CHECK(open_d.prefill_steps == 1u);
  CHECK(open_d.end_s < 0.6 * serial.end_s);
  d.prefill_engine.concurrency = 3;
  CHECK(aicb::simulate_disaggregated_serving(m, d, three, each, one).end_s == Approx(open_d.end_s));
  // The bound is the clients': a different one on the decode engine is refused.
  d.decode_engine.concurrency = 2;
  CHECK_THROWS_WITH(aicb::simulate_disaggregated_serving(m, d, three, each, one),
                    Catch::Contains("concurrency") && Catch::Contains("prefill engine"));
}

TEST_CASE("serving stream: a sliding window's layers hold the window's tokens only", "[serving][stream]") {
  // Two layers of Llama-3-8B's shape, the first with a 64-token window (pattern 2: every second layer
  // full): half of each token's KV stops growing past 64 tokens. The memory is set so a group holds
  // 10,000 tokens at the full per-token size.
  aicb::model_spec windowed = small_dense();
  windowed.sliding_window = 64;
  windowed.sliding_window_pattern = 2;
  const aicb::serving_spec layout;
  const aicb::inference_step step(windowed,
                                  {.phase = aicb::inference_phase::decode, .batch = 1, .context = 4}, 0);
  const double per_token = step.kv_bytes_per_token(), local = step.local_kv_bytes_per_token();
  REQUIRE(local == Approx(per_token / 2));
  const aicb::roofline_model h100("H100");
  const aicb::cluster_spec cluster = aicb::cluster_preset("dgx-h100");
  aicb::serving_engine engine;
  engine.memory_fraction =
      (step.weight_bytes() + 10000 * per_token) / aicb::require_gpu("H100").memory_bytes();
  // A request of 15,000 tokens: 15,000 · per_token / 2 + 64 · per_token / 2 < 10,000 · per_token, so
  // it fits with the window, and does not without it.
  const std::vector<aicb::serving_request> long_one{{0, 0, 14000, 1000}};
  const aicb::serving_stream_report r =
      aicb::simulate_serving(windowed, layout, long_one, h100, cluster, engine);
  CHECK(r.kv_capacity_tokens <= 10000u);  // reported at the full per-token size
  CHECK(r.peak_kv_share == Approx((15000 + 64) / 2.0 / 10000).epsilon(0.01));
  aicb::model_spec full = windowed;
  full.sliding_window = 0;
  full.sliding_window_pattern = 0;
  CHECK_THROWS_WITH(aicb::simulate_serving(full, layout, long_one, h100, cluster, engine),
                    Catch::Contains("need more KV cache than a group holds"));
  // Many short requests: within the window the two models hold the same cache.
  std::vector<aicb::serving_request> short_ones;
  for (std::uint64_t i = 0; i < 50; ++i)
    short_ones.push_back({i, 0, 40, 20});
  CHECK(aicb::simulate_serving(windowed, layout, short_ones, h100, cluster, engine).peak_kv_share ==
        Approx(aicb::simulate_serving(full, layout, short_ones, h100, cluster, engine).peak_kv_share)
            .epsilon(0.01));
}

TEST_CASE("serving stream: recurrent layers scan per step and hold a state per running request",
          "[serving][stream]") {
  // Qwen3-Next cut to one group of four layers (three Gated DeltaNet, one softmax) on one H200.
  aicb::model_spec next = aicb::presets::qwen3_next_80b_a3b;
  next.num_layers = 4;
  const aicb::serving_spec layout;
  const aicb::roofline_model h200("H200");
  const aicb::cluster_spec c = aicb::cluster_preset("dgx-h200");

  SECTION("a lone request's steps price as the step model prices them") {
    // A prompt of 40 tokens, then one decode step at a context of 41: the stream's grid is exact up
    // to 64 tokens, and the scans are priced for the step's own shapes.
    const std::vector<aicb::serving_request> one{{0, 0, 40, 2}};
    const aicb::serving_stream_report r = aicb::simulate_serving(next, layout, one, h200, c);
    const aicb::inference_step prefill(
        next, {.phase = aicb::inference_phase::prefill, .batch = 1, .prompt = 40}, 0);
    const aicb::inference_step decode(next,
                                      {.phase = aicb::inference_phase::decode, .batch = 1, .context = 41}, 0);
    const double prefill_s = aicb::play_serving_step(prefill, h200, c).step_us() * 1e-6;
    const double decode_s = aicb::play_serving_step(decode, h200, c).step_us() * 1e-6;
    CHECK(r.requests[0].ttft_s() == Approx(prefill_s).epsilon(1e-4));  // the output rows priced apart
    CHECK(r.requests[0].tpot_s() == Approx(decode_s).epsilon(1e-6));
    // Eight requests decoding together: each scan reads and writes its own request's state, and the
    // step prices as the step model's decode step of eight.
    const std::vector<aicb::serving_request> eight(8, aicb::serving_request{0, 0, 40, 2});
    const aicb::serving_stream_report r8 = aicb::simulate_serving(next, layout, eight, h200, c);
    const aicb::inference_step decode8(
        next, {.phase = aicb::inference_phase::decode, .batch = 8, .context = 41}, 0);
    const double decode8_s = aicb::play_serving_step(decode8, h200, c).step_us() * 1e-6;
    CHECK(r8.requests[0].tpot_s() == Approx(decode8_s).epsilon(1e-6));
    CHECK(decode8_s > decode_s);
  }

  SECTION("the memory holds as many states as fit beside the weights") {
    const aicb::inference_step probe(next, {.phase = aicb::inference_phase::decode, .batch = 1, .context = 1},
                                     0);
    const double state = probe.state_bytes_per_request(), per_token = probe.kv_bytes_per_token();
    REQUIRE(state > 1e6);  // 3 layers × 32 value heads × 128 × 128 BF16, and the convolution's inputs
    REQUIRE(state == Approx(3 * (32 * 128 * 128 * 2.0 + (2 * 2048 + 4096) * 3 * 2.0)));
    // Room for three states and three requests' KV (64 tokens each, whole blocks): at most three
    // run at once, where the KV alone would hold dozens.
    aicb::serving_engine engine;
    engine.memory_fraction = (probe.weight_bytes() + 3 * state + 3 * 64 * per_token + 1) /
                             aicb::require_gpu("H200").memory_bytes();
    std::vector<aicb::serving_request> ten;
    for (std::uint64_t i = 0; i < 10; ++i)
      ten.push_back({i, 0, 32, 16});
    std::uint64_t most = 0;
    const aicb::serving_stream_report r =
        aicb::simulate_serving(next, layout, ten, h200, c, engine, [&](const aicb::serving_step_record& s) {
          most = std::max(most, s.groups[0].decoding + s.groups[0].chunks.size());
        });
    CHECK(most == 3u);
    CHECK(r.state_bytes_per_request == Approx(state));
    CHECK(r.kv_capacity_tokens > 1000u);  // the cache without states
    for (const aicb::served_request& s : r.requests)
      CHECK(s.finish_s > 0);
    // A request whose state and tokens exceed the memory is refused up front, in bytes.
    engine.memory_fraction = (probe.weight_bytes() + state / 2) / aicb::require_gpu("H200").memory_bytes();
    CHECK_THROWS_WITH(aicb::simulate_serving(next, layout, ten, h200, c, engine),
                      Catch::Contains("KV cache and recurrent states"));
  }

  SECTION("a disaggregated request sends its state with its KV cache") {
    aicb::disaggregated_deployment d;
    d.prefill = d.decode = layout;
    const std::vector<aicb::serving_request> one{{0, 0, 100, 4}};
    const aicb::disaggregated_stream_report r = aicb::simulate_disaggregated_serving(next, d, one, h200, c);
    const aicb::inference_step probe(next, {.phase = aicb::inference_phase::decode, .batch = 1, .context = 1},
                                     0);
    CHECK(r.kv_bytes ==
          Approx(100 * probe.model_kv_bytes_per_token() + probe.model_state_bytes_per_request()));
    CHECK(probe.model_state_bytes_per_request() > 0);
  }
}

TEST_CASE("serving stream: MTP drafts verify in the decode step and yield the accepted tokens",
          "[serving][stream]") {
  // DeepSeek-V3 cut to four layers (three dense, one MoE) and its MTP module, FP8, on one H200.
  aicb::model_spec v3 = aicb::presets::deepseek_v3;
  v3.num_layers = 4;
  REQUIRE(v3.num_mtp_layers == 1u);
  aicb::serving_spec layout;
  layout.weights = aicb::dtype::fp8;
  layout.mtp_drafts = 1;
  const aicb::roofline_model h200("H200");
  const aicb::cluster_spec c = aicb::cluster_preset("dgx-h200");
  aicb::serving_engine every;  // every draft accepted: two tokens a decode step
  every.draft_acceptance = 1;
  REQUIRE(every.tokens_per_decode_step(1) == 2);
  aicb::serving_engine half;
  half.draft_acceptance = 0.5;
  REQUIRE(half.tokens_per_decode_step(2) == Approx(1.75));

  // Nine output tokens: the prompt's step yields the first, then four decode steps of two — or,
  // with no draft accepted, eight of one.
  const std::vector<aicb::serving_request> one{{0, 0, 40, 9}};
  CHECK(aicb::simulate_serving(v3, layout, one, h200, c, every).steps == 5u);
  aicb::serving_engine none;
  none.draft_acceptance = 0;
  CHECK(aicb::simulate_serving(v3, layout, one, h200, c, none).steps == 9u);
  // Half accepted: 1.5 tokens a step, the fraction carried — after the first token, 1, 2, 1, 2, 1,
  // then 2 capped to the 1 left: eight tokens in six decode steps.
  aicb::serving_engine one_and_half;
  one_and_half.draft_acceptance = 0.5;
  CHECK(aicb::simulate_serving(v3, layout, one, h200, c, one_and_half).steps == 7u);

  // A decode step prices as the step model's decode step with one draft: the decoder over two
  // positions, the module once, at the context the drafts reach (prompt 40, one token, one draft).
  const std::vector<aicb::serving_request> three{{0, 0, 40, 3}};
  const aicb::serving_stream_report r = aicb::simulate_serving(v3, layout, three, h200, c, every);
  REQUIRE(r.steps == 2u);
  aicb::serving_spec step = layout;
  step.context = 42;
  const aicb::inference_step decode(v3, step, 0);
  const double decode_s = aicb::play_serving_step(decode, h200, c).step_us() * 1e-6;
  CHECK(r.requests[0].finish_s - r.requests[0].first_token_s == Approx(decode_s).epsilon(1e-4));
  // The prompt's step also runs the module once over the prompt — its input projection and layer over
  // the 40 tokens, its head on the last: as the step model's prefill step with drafts — which costs
  // more than one more bare layer of the decoder (a five-layer model's prompt without drafts).
  aicb::serving_spec plain = layout;
  plain.mtp_drafts = 0;
  aicb::model_spec five = v3;
  five.num_layers = 5;
  const aicb::serving_stream_report p = aicb::simulate_serving(v3, plain, three, h200, c, every);
  const aicb::serving_stream_report p5 = aicb::simulate_serving(five, plain, three, h200, c, every);
  aicb::serving_spec prompt = layout;
  prompt.phase = aicb::inference_phase::prefill;
  prompt.prompt = 40;
  prompt.context = 0;
  const aicb::inference_step prefill(v3, prompt, 0);
  const double prefill_s = aicb::play_serving_step(prefill, h200, c).step_us() * 1e-6;
  CHECK(r.requests[0].ttft_s() == Approx(prefill_s).epsilon(1e-4));
  CHECK(r.requests[0].ttft_s() > p5.requests[0].ttft_s());
  CHECK(p5.requests[0].ttft_s() > p.requests[0].ttft_s());

  // A model without a draft module is refused, naming the field.
  aicb::model_spec no_module = v3;
  no_module.num_mtp_layers = 0;
  CHECK_THROWS_WITH(aicb::simulate_serving(no_module, layout, one, h200, c),
                    Catch::Contains("mtp_drafts") && Catch::Contains("num_mtp_layers"));
  // Nemotron 3 Super's module (attention, then experts — unlike its last layer, experts only) is
  // priced as the step model builds it: its prompt pass makes the first token later, its drafts the
  // tokens after it sooner.
  aicb::serving_spec super_layout;
  super_layout.tensor_parallel = 8;
  super_layout.weights = aicb::dtype::fp8;
  aicb::serving_spec super_drafting = super_layout;
  super_drafting.mtp_drafts = 1;
  const aicb::model_spec& super = aicb::presets::nemotron3_super_120b_a12b;
  const auto super_plain = aicb::simulate_serving(super, super_layout, one, h200, c, every);
  const auto super_mtp = aicb::simulate_serving(super, super_drafting, one, h200, c, every);
  CHECK(super_mtp.requests[0].ttft_s() > super_plain.requests[0].ttft_s());
  CHECK(super_mtp.requests[0].e2e_s() - super_mtp.requests[0].ttft_s() <
        super_plain.requests[0].e2e_s() - super_plain.requests[0].ttft_s());
  aicb::serving_engine bad;
  bad.draft_acceptance = 1.5;
  CHECK_THROWS_WITH(aicb::simulate_serving(v3, layout, one, h200, c, bad),
                    Catch::Contains("draft_acceptance"));
}

TEST_CASE("serving stream: prefix caching computes a shared prefix once and evicts it when blocks are needed",
          "[serving][stream]") {
  const aicb::model_spec m = small_dense();
  const aicb::serving_spec layout;
  const aicb::roofline_model h100("H100");
  const aicb::cluster_spec c = aicb::cluster_preset("dgx-h100");
  // Prompts of 161 tokens that begin with a 160-token prefix (ten blocks of 16), one output token.
  const auto request = [](std::uint64_t id, double at, std::uint64_t prefix, std::uint64_t tokens = 160) {
    return aicb::serving_request{id, at, tokens + 1, 1, prefix, tokens};
  };

  SECTION("a later request of the prefix computes only the rest of its prompt") {
    // A prefix of 4000 tokens: one token over 4000 cached ones against 4001 computed is a much
    // shorter prefill.
    const std::vector<aicb::serving_request> two{request(0, 0, 7, 4000), request(1, 1, 7, 4000)};
    const aicb::serving_stream_report r = aicb::simulate_serving(m, layout, two, h100, c);
    CHECK(r.requests[0].cached_tokens == 0u);
    CHECK(r.requests[1].cached_tokens == 4000u);
    CHECK(r.prefix_cached_tokens == 4000u);
    CHECK(r.requests[1].ttft_s() < 0.5 * r.requests[0].ttft_s());
    // Another prefix, or the cache off: computed whole.
    const std::vector<aicb::serving_request> other{request(0, 0, 7, 4000), request(1, 1, 8, 4000)};
    CHECK(aicb::simulate_serving(m, layout, other, h100, c).requests[1].cached_tokens == 0u);
    aicb::serving_engine off;
    off.prefix_caching = false;
    const aicb::serving_stream_report plain = aicb::simulate_serving(m, layout, two, h100, c, off);
    CHECK(plain.requests[1].cached_tokens == 0u);
    CHECK(plain.requests[1].ttft_s() == Approx(r.requests[0].ttft_s()));
  }

  SECTION("only whole blocks are shared, and the last prompt token is always computed") {
    std::vector<aicb::serving_request> short_prefix{request(0, 0, 1), request(1, 1, 1)};
    for (auto& q : short_prefix)
      q.prefix_tokens = 15;  // less than a block
    CHECK(aicb::simulate_serving(m, layout, short_prefix, h100, c).prefix_cached_tokens == 0u);
    std::vector<aicb::serving_request> whole{request(0, 0, 1), request(1, 1, 1)};
    for (auto& q : whole)
      q.prompt = q.prefix_tokens = 160;  // the whole prompt shared: 159 tokens, 9 blocks
    CHECK(aicb::simulate_serving(m, layout, whole, h100, c).requests[1].cached_tokens == 144u);
  }

  SECTION("a cached prefix no request reads is evicted when another request needs its blocks") {
    // A cache of 20 blocks: prefix 7's ten stay after its request; the next request (prefix 8) needs
    // eleven, so prefix 7 goes, and the third request (prefix 7 again) computes it anew.
    const aicb::inference_step probe(m, {.phase = aicb::inference_phase::decode, .batch = 1, .context = 1},
                                     0);
    aicb::serving_engine engine;
    engine.memory_fraction = (probe.weight_bytes() + 20.5 * 16 * probe.kv_bytes_per_token()) /
                             aicb::require_gpu("H100").memory_bytes();
    const std::vector<aicb::serving_request> evicting{request(0, 0, 7), request(1, 1, 8), request(2, 2, 7)};
    const aicb::serving_stream_report r = aicb::simulate_serving(m, layout, evicting, h100, c, engine);
    REQUIRE(r.kv_capacity_tokens == 320u);
    CHECK(r.prefix_evictions >= 1u);
    CHECK(r.requests[2].cached_tokens == 0u);
    // Without the request between, the third finds prefix 7.
    const std::vector<aicb::serving_request> kept{request(0, 0, 7), request(2, 2, 7)};
    CHECK(aicb::simulate_serving(m, layout, kept, h100, c, engine).requests[1].cached_tokens == 160u);
  }

  SECTION("models with local layers are refused rather than approximated") {
    aicb::model_spec windowed = m;
    windowed.sliding_window = 64;
    windowed.sliding_window_pattern = 2;
    const std::vector<aicb::serving_request> two{request(0, 0, 7), request(1, 1, 7)};
    CHECK_THROWS_WITH(aicb::simulate_serving(windowed, layout, two, h100, c),
                      Catch::Contains("prefix_caching") && Catch::Contains("sliding-window"));
    aicb::serving_engine off;
    off.prefix_caching = false;
    CHECK(aicb::simulate_serving(windowed, layout, two, h100, c, off).prefix_cached_tokens == 0u);
  }
}

TEST_CASE("serving stream: a disaggregated request sends a local layer's KV for the window's tokens only",
          "[serving][stream]") {
  // Llama-3-8B's shape cut to two layers, the first with a 64-token window: a prompt of 1000 tokens
  // sends the full layer's 1000 tokens and the windowed layer's last 64.
  aicb::model_spec windowed = small_dense();
  windowed.sliding_window = 64;
  windowed.sliding_window_pattern = 2;
  const aicb::inference_step probe(windowed,
                                   {.phase = aicb::inference_phase::decode, .batch = 1, .context = 1}, 0);
  const double per_layer = probe.model_kv_bytes_per_token() / 2;
  aicb::disaggregated_deployment d;
  const std::vector<aicb::serving_request> one{{0, 0, 1000, 4}, {1, 5, 40, 4}};
  const aicb::disaggregated_stream_report r = aicb::simulate_disaggregated_serving(
      windowed, d, one, aicb::roofline_model("H100"), aicb::cluster_preset("dgx-h100"));
  CHECK(r.kv_bytes == Approx(per_layer * (1000 + 64) + per_layer * (40 + 40)));
}
