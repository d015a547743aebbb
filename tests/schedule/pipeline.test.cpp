// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/schedule/pipeline.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using aicb::p2p_direction, aicb::pipeline_step;

// A schedule as text: "F0 B0 …" for passes (b: a split backward, W: a weight gradient; with ".c"
// for the chunk when interleaved) and
// "[op op]" for calls: "<a|g><direction initial: sp rp sn rn><micro batch>".
std::string render(const aicb::pipeline_schedule& s) {
  static constexpr const char* names[] = {"sp", "rp", "sn", "rn"};
  const bool chunks = s.options().chunks > 1;
  std::string out;
  for (auto cursor = s.begin_cursor(); !cursor.done(); cursor.next()) {
    const pipeline_step& step = cursor.read();
    if (!out.empty()) out += ' ';
    if (step.what == pipeline_step::kind::communicate) {
      out += '[';
      for (const aicb::p2p_op& op : step) {
        if (out.back() != '[') out += ' ';
        out += (op.activation ? 'a' : 'g');
        out += names[static_cast<int>(op.direction)] + std::to_string(op.microbatch);
        if (chunks) out += "." + std::to_string(op.chunk);
      }
      out += ']';
    } else {
      // F forward, B whole backward, b its input gradient alone (split), W a weight gradient.
      out += step.what == pipeline_step::kind::forward  ? 'F'
             : step.what == pipeline_step::kind::weight ? 'W'
             : step.split                               ? 'b'
                                                        : 'B';
      out += std::to_string(step.microbatch);
      if (chunks) out += "." + std::to_string(step.chunk);
    }
  }
  return out;
}

std::vector<pipeline_step> steps(const aicb::pipeline_options& o) {
  std::vector<pipeline_step> out;
  const aicb::pipeline_schedule s(o);
  for (auto cursor = s.begin_cursor(); !cursor.done(); cursor.next())
    out.push_back(cursor.read());
  return out;
}

}  // namespace

TEST_CASE("pipeline: no pipelining runs forward and backward per micro batch", "[schedule]") {
  const aicb::pipeline_schedule s({.stages = 1, .microbatches = 3});
  CHECK(s.kind() == aicb::pipeline_kind::none);
  CHECK(render(s) == "F0 B0 F1 B1 F2 B2");
}

TEST_CASE("pipeline: the combined 1F1B merges each forward with the previous micro batch's backward",
          "[schedule]") {
  // combined_1f1b_schedule_for_no_pipelining: F(0) alone, F(i + 1) with B(i), B(m − 1) alone.
  const aicb::pipeline_schedule s({.stages = 1, .microbatches = 3, .combined = true});
  CHECK(render(s) == "F0 F1 B0 F2 B1 B2");
  std::vector<bool> overlapped;
  for (const pipeline_step& step : steps({.stages = 1, .microbatches = 3, .combined = true}))
    if (step.what == pipeline_step::kind::forward) overlapped.push_back(step.overlapped);
  CHECK(overlapped == std::vector<bool>{false, true, true});
  // Interleaved (p = 2, V = 2, m = 4): one more warm-up forward than Megatron's formula without it
  // (2(p − s − 1) + (V − 1)p + 1), and in the steady state both calls after the merged pair.
  const aicb::pipeline_schedule plain({.stages = 2, .stage = 0, .microbatches = 4, .chunks = 2});
  const aicb::pipeline_schedule merged(
      {.stages = 2, .stage = 0, .microbatches = 4, .chunks = 2, .combined = true});
  CHECK(merged.counts().warmup == plain.counts().warmup + 1);
  CHECK(merged.counts().warmup == 5);
  CHECK(merged.counts().steady == 3);
  const aicb::pipeline_schedule last(
      {.stages = 2, .stage = 1, .microbatches = 4, .chunks = 2, .combined = true});
  CHECK(last.counts().warmup == 3);
  for (const aicb::pipeline_schedule* sch : {&merged, &last}) {
    const std::vector<pipeline_step> all = steps(sch->options());
    std::size_t pairs = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].what != pipeline_step::kind::forward || !all[i].overlapped) continue;
      ++pairs;
      REQUIRE(i + 1 < all.size());
      CHECK(all[i + 1].what == pipeline_step::kind::backward);  // the pair, then its calls
      CHECK(all[i].phase == pipeline_step::part::steady);
    }
    CHECK(pairs == sch->counts().steady);
  }
  // Same passes as without merging: every micro batch's forward and backward on each chunk once.
  for (const std::uint64_t stage : {0, 1}) {
    std::vector<int> passes(16, 0);
    for (const pipeline_step& step :
         steps({.stages = 2, .stage = stage, .microbatches = 4, .chunks = 2, .combined = true}))
      if (step.what != pipeline_step::kind::communicate)
        ++passes[(step.what == pipeline_step::kind::forward ? 0 : 8) + step.microbatch * 2 + step.chunk];
    CHECK(std::count(passes.begin(), passes.end(), 1) == 16);
  }
}

TEST_CASE("pipeline: 1F1B, stage by stage, derived by hand from Megatron-Core's loop", "[schedule]") {
  // p = 4, m = 4. Stage 1: Wu = 2, R = 2. Warm-up: recv F send; then the receive before the steady
  // state; steady: F, send_fwd_recv_bwd, B, send_bwd_recv_fwd (send_bwd alone on the last); cool-down.
  const aicb::pipeline_schedule s1({.stages = 4, .stage = 1, .microbatches = 4});
  CHECK(s1.counts().warmup == 2);
  CHECK(s1.counts().steady == 2);
  CHECK(render(s1) ==
        "[arp0] F0 [asn0] [arp1] F1 [asn1] [arp2] F2 [asn2 grn0] B0 [gsp0 arp3] F3 [asn3 grn1] B1 [gsp1] "
        "[grn2] B2 [gsp2] [grn3] B3 [gsp3]");
  // The first stage never receives activations nor sends gradients; the last never sends on.
  const aicb::pipeline_schedule s0({.stages = 4, .stage = 0, .microbatches = 4});
  CHECK(render(s0) == "F0 [asn0] F1 [asn1] F2 [asn2] F3 [asn3 grn0] B0 [grn1] B1 [grn2] B2 [grn3] B3");
  const aicb::pipeline_schedule s3({.stages = 4, .stage = 3, .microbatches = 4});
  CHECK(s3.counts().warmup == 0);
  CHECK(render(s3) == "[arp0] F0 B0 [gsp0 arp1] F1 B1 [gsp1 arp2] F2 B2 [gsp2 arp3] F3 B3 [gsp3]");
}

TEST_CASE("pipeline: 1F1B counts are Wu = min(p - s - 1, m), R = m - Wu, for any m", "[schedule]") {
  for (std::uint64_t p : {2, 3, 4, 8})
    for (std::uint64_t m : {1, 2, 3, 4, 7, 8, 9, 16})
      for (std::uint64_t s = 0; s < p; ++s) {
        INFO("p " << p << " m " << m << " s " << s);
        const aicb::pipeline_schedule sc({.stages = p, .stage = s, .microbatches = m});
        const std::uint64_t wu = std::min(p - s - 1, m);
        CHECK(sc.counts().warmup == wu);
        CHECK(sc.counts().steady == m - wu);
        std::uint64_t forwards = 0, backwards = 0, warmup_forwards = 0;
        for (const pipeline_step& step : steps(sc.options())) {
          forwards += step.what == pipeline_step::kind::forward;
          backwards += step.what == pipeline_step::kind::backward;
          warmup_forwards +=
              step.what == pipeline_step::kind::forward && step.phase == pipeline_step::part::warmup;
        }
        CHECK(forwards == m);
        CHECK(backwards == m);
        CHECK(warmup_forwards == wu);
      }
}

TEST_CASE("pipeline: interleaving follows Megatron-Core's schedule table", "[schedule]") {
  // The table of schedules.md: p = 2, N = 3, m = 5, V = 2.
  const aicb::pipeline_schedule t({.stages = 2, .microbatches = 5, .chunks = 2, .microbatch_group = 3});
  std::string mb, chunk;
  for (std::uint64_t k = 0; k < 10; ++k) {
    mb += std::to_string(t.microbatch_of(k));
    chunk += std::to_string(t.chunk_of(k, true));
  }
  CHECK(mb == "0120123434");
  CHECK(chunk == "0001110011");
  CHECK(t.chunk_of(0, false) == 1);  // backward runs the chunks in reverse
  // Warm-up: min(m·V, 2(p − s − 1) + (V − 1)·N).
  for (std::uint64_t p : {2, 4, 8})
    for (std::uint64_t v : {2, 3, 4})
      for (std::uint64_t m : {p, 2 * p, 4 * p})
        for (std::uint64_t s = 0; s < p; ++s) {
          INFO("p " << p << " v " << v << " m " << m << " s " << s);
          const aicb::pipeline_schedule sc({.stages = p, .stage = s, .microbatches = m, .chunks = v});
          CHECK(sc.counts().warmup == std::min(m * v, 2 * (p - s - 1) + (v - 1) * p));
          CHECK(sc.counts().total == m * v);
          std::uint64_t forwards = 0, backwards = 0;
          for (const pipeline_step& step : steps(sc.options())) {
            forwards += step.what == pipeline_step::kind::forward;
            backwards += step.what == pipeline_step::kind::backward;
          }
          CHECK(forwards == m * v);
          CHECK(backwards == m * v);
        }
}

TEST_CASE("pipeline: interleaved calls, overlapped (Megatron's default) and batched", "[schedule]") {
  // p = 2, V = 2, m = 2, stage 1 (the last): Wu = min(4, 0 + 2) = 2. Overlapped: a forward call
  // after each forward, a backward call after each backward, operations in the odd stages' order.
  const aicb::pipeline_schedule odd({.stages = 2, .stage = 1, .microbatches = 2, .chunks = 2});
  CHECK(render(odd) ==
        "[arp0.0] F0.0 [arp1.0 asn0.0] F1.0 [arp0.1 asn1.0] F0.1 [arp1.1] B0.1 [gsp0.1] F1.1 B1.1 [grn0.0 "
        "gsp1.1] "
        "B0.0 [grn1.0 gsp0.0] B1.0 [gsp1.0]");
  for (const pipeline_step& step : steps(odd.options()))
    if (step.what == pipeline_step::kind::communicate) CHECK_FALSE(step.batched);
  // Without overlap (p = 3 here: Megatron needs it on 2 stages), one batched call per steady step.
  bool four_way = false;
  for (std::uint64_t stage = 0; stage < 3; ++stage)
    for (const pipeline_step& step :
         steps({.stages = 3, .stage = stage, .microbatches = 3, .chunks = 2, .overlap_p2p = false})) {
      if (step.what != pipeline_step::kind::communicate) continue;
      CHECK(step.batched);
      for (std::uint8_t i = 1; i < step.op_count; ++i)  // send_prev, recv_prev, send_next, recv_next
        CHECK(step.ops[i - 1].direction < step.ops[i].direction);
      four_way = four_way || step.op_count >= 3;
    }
  CHECK(four_way);
}

TEST_CASE("pipeline: what Megatron-Core refuses is refused", "[schedule]") {
  CHECK_THROWS_WITH(aicb::pipeline_schedule({.stages = 4, .microbatches = 6, .chunks = 2}),
                    Catch::Contains("multiple of pipeline_parallel (4)"));
  CHECK_THROWS_WITH(
      aicb::pipeline_schedule({.stages = 2, .microbatches = 4, .chunks = 2, .overlap_p2p = false}),
      Catch::Contains("needs overlapped"));
  CHECK_THROWS_WITH(
      aicb::pipeline_schedule({.stages = 4, .microbatches = 9, .chunks = 2, .microbatch_group = 4}),
      Catch::Contains("mod 4"));
  CHECK_THROWS_AS(aicb::pipeline_schedule({.stages = 4, .stage = 4, .microbatches = 4}), aicb::config_error);
  CHECK_THROWS_AS(aicb::pipeline_schedule({.stages = 1, .microbatches = 4, .chunks = 2}), aicb::config_error);
  // 1F1B takes any m, fewer micro batches than stages included.
  CHECK_NOTHROW(aicb::pipeline_schedule({.stages = 8, .stage = 0, .microbatches = 3}));
}

TEST_CASE("pipeline: all stages run together: every send meets its receive, and nothing deadlocks",
          "[schedule]") {
  std::uint64_t checked = 0;
  for (std::uint64_t p : {1, 2, 3, 4, 8})
    for (std::uint64_t v : {1, 2, 3})
      for (std::uint64_t m : {1, 2, 3, 4, 5, 8, 16})
        for (bool overlap : {true, false}) {
          if (v > 1 && (p == 1 || m % p != 0 || (p <= 2 && !overlap))) continue;
          INFO("p " << p << " v " << v << " m " << m << " overlap " << overlap);
          const aicb::pipeline_check r =
              aicb::check_pipeline({.stages = p, .microbatches = m, .chunks = v, .overlap_p2p = overlap});
          CHECK(r.problem == "");
          CHECK(r.ok);
          // Every stage boundary carries 2 tensors per micro batch and chunk (activation, gradient),
          // except around the pipeline's two ends: 2·m·(p·V − 1) transfers, each a send and a receive.
          CHECK(r.operations == 2 * 2 * m * (p * v - 1));
          ++checked;
        }
  CHECK(checked > 80);
}

TEST_CASE("pipeline: the check names the stage, the operation and its counterpart when it fails",
          "[schedule]") {
  const aicb::pipeline_options o{.stages = 2, .microbatches = 2};
  std::vector<std::vector<pipeline_step>> stages{steps({.stages = 2, .stage = 0, .microbatches = 2}),
                                                 steps({.stages = 2, .stage = 1, .microbatches = 2})};
  SECTION("a dropped receive") {
    auto& s1 = stages[1];
    s1.erase(s1.begin());  // stage 1's first call: recv_prev of micro batch 0
    const aicb::pipeline_check r = aicb::check_p2p(stages, 1);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.problem, Catch::Contains("stage 0 send_next of the activation of micro batch 0"));
  }
  SECTION("a size that does not match: the wrong micro batch") {
    stages[1][0].ops[0].microbatch = 1;
    const aicb::pipeline_check r = aicb::check_p2p(stages, 1);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.problem, Catch::Contains("received twice") || Catch::Contains("deadlock"));
  }
  SECTION("a cyclic wait: both stages receive before they send") {
    // Stage 0 waits for a gradient first; stage 1 waits for an activation: neither sends.
    pipeline_step wait_gradient;
    wait_gradient.what = pipeline_step::kind::communicate;
    wait_gradient.ops[0] = {p2p_direction::recv_next, false, 0, 0};
    wait_gradient.op_count = 1;
    stages[0].insert(stages[0].begin(), wait_gradient);
    const aicb::pipeline_check r = aicb::check_p2p(stages, 1);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.problem, Catch::StartsWith("deadlock: stage 0 recv_next of the gradient of micro batch 0") ||
                              Catch::StartsWith("deadlock: stage 1"));
  }
  (void)o;
}

TEST_CASE("pipeline: zero-bubble H1, stage by stage, derived by hand from the authors' 1F1B patch",
          "[schedule]") {
  // p = 4, m = 4. Stage 1: Wu = 2, R = 2. Steady step 0 (< s) and the last steady step split their
  // backward (b) and queue W; after the last steady send, W0 (i = 1 >= s); every cool-down backward
  // splits and is followed, after its send, by the oldest W; W3 runs at the end.
  const aicb::pipeline_options o{
      .stages = 4, .stage = 1, .microbatches = 4, .schedule = aicb::pipeline_schedule_kind::zb_h1};
  const aicb::pipeline_schedule s1(o);
  CHECK(s1.kind() == aicb::pipeline_kind::zero_bubble_h1);
  CHECK(s1.counts().warmup == 2);
  CHECK(render(s1) ==
        "[arp0] F0 [asn0] [arp1] F1 [asn1] [arp2] F2 [asn2 grn0] b0 [gsp0 arp3] F3 [asn3 grn1] b1 [gsp1] W0 "
        "[grn2] b2 [gsp2] W1 [grn3] b3 [gsp3] W2 W3");
  // The first stage never splits: its schedule is 1F1B's.
  auto first = o;
  first.stage = 0;
  auto plain = first;
  plain.schedule = aicb::pipeline_schedule_kind::megatron;
  CHECK(render(aicb::pipeline_schedule(first)) == render(aicb::pipeline_schedule(plain)));
  // The last stage splits its first s steady backwards and the last one; W0 after the last send.
  auto last = o;
  last.stage = 3;
  CHECK(render(aicb::pipeline_schedule(last)) ==
        "[arp0] F0 b0 [gsp0 arp1] F1 b1 [gsp1 arp2] F2 b2 [gsp2 arp3] F3 b3 [gsp3] W0 W1 W2 W3");
}

TEST_CASE("pipeline: zero-bubble H1 runs every weight gradient once, after its backward, for any m",
          "[schedule]") {
  for (std::uint64_t p : {2, 3, 4, 8})
    for (std::uint64_t m : {1, 2, 3, 4, 7, 8, 9, 16}) {
      INFO("p " << p << " m " << m);
      const aicb::pipeline_options o{
          .stages = p, .microbatches = m, .schedule = aicb::pipeline_schedule_kind::zb_h1};
      CHECK(aicb::check_pipeline(o).ok);
      for (std::uint64_t s = 0; s < p; ++s) {
        auto at = o;
        at.stage = s;
        std::vector<int> state(m, 0);  // 0 nothing, 1 input gradient done, 2 weight gradient done
        std::uint64_t weights = 0;
        for (const pipeline_step& step : steps(at)) {
          if (step.what == pipeline_step::kind::backward) {
            CHECK(state[step.microbatch] == 0);
            state[step.microbatch] = step.split ? 1 : 2;
            CHECK((s > 0 || !step.split));  // the first stage never splits
          } else if (step.what == pipeline_step::kind::weight) {
            CHECK(state[step.microbatch] == 1);
            state[step.microbatch] = 2;
            ++weights;
          }
        }
        for (std::uint64_t mb = 0; mb < m; ++mb)
          CHECK(state[mb] == 2);
        if (s == 0) CHECK(weights == 0);
      }
    }
}

TEST_CASE("pipeline: the bubbles of 1F1B and zero-bubble H1 are their papers' formulas", "[schedule]") {
  // Narayanan et al. 2021: 1F1B leaves (p - 1)(F + B + W), B + W being the whole backward. Qi et al.
  // 2024 (ZB-H1): (p - 1)(F + B - W), for m >= p micro batches and W no longer than F (a deferred W
  // fills the wait of one forward).
  for (const aicb::step_times t : {aicb::step_times{1, 1, 1, 0}, aicb::step_times{1, 2, 1, 0},
                                   aicb::step_times{2, 3, 2, 0}, aicb::step_times{1, 1.5, 0.5, 0}})
    for (std::uint64_t p : {2, 4, 8})
      for (std::uint64_t m : {p, 2 * p, 3 * p + 1}) {
        INFO("p " << p << " m " << m << " F " << t.forward << " B " << t.input_grad << " W "
                  << t.weight_grad);
        aicb::pipeline_options o{.stages = p, .microbatches = m};
        const aicb::pipeline_time one_f_one_b = aicb::time_pipeline(o, t);
        CHECK(one_f_one_b.bubble == Approx(double(p - 1) * (t.forward + t.input_grad + t.weight_grad)));
        o.schedule = aicb::pipeline_schedule_kind::zb_h1;
        const aicb::pipeline_time zero_bubble = aicb::time_pipeline(o, t);
        CHECK(zero_bubble.bubble == Approx(double(p - 1) * (t.forward + t.input_grad - t.weight_grad)));
      }
  // Transfers lengthen both (at least the 2(p - 1) transfers on the chain from the first forward to
  // the last backward); zero-bubble H1 keeps its lead.
  const aicb::step_times slow{1, 1, 1, 0.25};
  const aicb::pipeline_time one_f_one_b = aicb::time_pipeline({.stages = 4, .microbatches = 8}, slow);
  const aicb::pipeline_time zero_bubble = aicb::time_pipeline(
      {.stages = 4, .microbatches = 8, .schedule = aicb::pipeline_schedule_kind::zb_h1}, slow);
  CHECK(one_f_one_b.bubble >= 3 * 3.0 + 2 * 3 * 0.25);
  CHECK(zero_bubble.bubble >= 3 * 1.0 + 2 * 3 * 0.25);
  CHECK(zero_bubble.iteration < one_f_one_b.iteration);
  CHECK(one_f_one_b.finish.size() == 4);
}

TEST_CASE("pipeline: zero-bubble H1 is refused where it has no meaning", "[schedule]") {
  CHECK_THROWS_WITH(aicb::pipeline_schedule({.stages = 1, .schedule = aicb::pipeline_schedule_kind::zb_h1}),
                    Catch::Contains("zb_h1 needs pipeline_parallel > 1"));
  CHECK_THROWS_WITH(
      aicb::pipeline_schedule(
          {.stages = 4, .microbatches = 4, .chunks = 2, .schedule = aicb::pipeline_schedule_kind::zb_h1}),
      Catch::Contains("one model chunk per stage"));
}

TEST_CASE("pipeline: DualPipe, rank by rank, as DeepSeek's reference loop runs it", "[schedule]") {
  // p = 4, m = 8: micro batches 0-3 go forward (chunk 0, from rank 0), 4-7 backward (chunk 1, from
  // rank 3). Rank 0 (h = 0): F0 ×2, the pair phase, one B1-W1-F1 turn, the main phase (a forward
  // under a backward, twice), one B1 + F&B turn, a backward pair, one W + B0 turn and the last W.
  // Transfers leave in one batched call when the rank next waits for data.
  const aicb::pipeline_options o{
      .stages = 4, .microbatches = 8, .schedule = aicb::pipeline_schedule_kind::dualpipe};
  auto r0 = o, r1 = o;
  r1.stage = 1;
  const aicb::pipeline_schedule s0(r0);
  CHECK(s0.kind() == aicb::pipeline_kind::dualpipe);
  CHECK(s0.bidirectional());
  CHECK(render(s0) ==
        "F0.0 [asn0.0] F1.0 [asn1.0] F2.0 [arn4.1] F4.1 [asn2.0] b4.1 [gsn4.1 arn5.1] W4.1 F5.1 F3.0 "
        "B5.1 [asn3.0 gsn5.1 arn6.1 grn0.0] F6.1 B0.0 B6.1 [gsn6.1 arn7.1 grn1.0] F7.1 B1.0 B7.1 [gsn7.1 "
        "grn2.0] b2.0 W2.0 [grn3.0] b3.0 W3.0");
  CHECK(render(aicb::pipeline_schedule(r1)) ==
        "[arp0.0] F0.0 [asn0.0 arp1.0 arn4.1] F4.1 [asp4.1] F1.0 [asn1.0 arp2.0 arn5.1] F5.1 F2.0 "
        "[asp5.1 grp4.1] B4.1 [asn2.0 gsn4.1 arn6.1 grn0.0] F6.1 B0.0 [asp6.1 gsp0.0 arp3.0 grp5.1] F3.0 "
        "B5.1 [asn3.0 gsn5.1 arn7.1 grn1.0] F7.1 B1.0 [asp7.1 gsp1.0 grp6.1] B6.1 [gsn6.1 grn2.0] B2.0 "
        "[gsp2.0 grp7.1] b7.1 [gsn7.1 grn3.0] b3.0 [gsp3.0] W7.1 W3.0");
}

TEST_CASE("pipeline: DualPipe runs every micro batch once per rank, in its direction's chunk", "[schedule]") {
  for (std::uint64_t p : {2, 4, 6, 8})
    for (std::uint64_t m : {2 * p, 2 * p + 2, 4 * p, 5 * p}) {
      INFO("p " << p << " m " << m);
      const aicb::pipeline_options o{
          .stages = p, .microbatches = m, .schedule = aicb::pipeline_schedule_kind::dualpipe};
      const aicb::pipeline_check c = aicb::check_pipeline(o);
      CHECK(c.problem == "");
      CHECK(c.ok);
      for (std::uint64_t s = 0; s < p; ++s) {
        auto at = o;
        at.stage = s;
        std::vector<int> forwards(m, 0), state(m, 0), overlapped(m, 0);
        for (const pipeline_step& step : steps(at)) {
          if (step.what == pipeline_step::kind::communicate) continue;
          CHECK(step.chunk == (step.microbatch < m / 2 ? 0u : 1u));
          if (step.what == pipeline_step::kind::forward) {
            ++forwards[step.microbatch];
            overlapped[step.microbatch] += step.overlapped;
          } else if (step.what == pipeline_step::kind::backward) {
            CHECK(forwards[step.microbatch] == 1);
            CHECK(state[step.microbatch] == 0);
            state[step.microbatch] = step.split ? 1 : 2;
          } else {
            CHECK(state[step.microbatch] == 1);
            state[step.microbatch] = 2;
          }
        }
        int pairs = 0;
        for (std::uint64_t mb = 0; mb < m; ++mb) {
          CHECK(forwards[mb] == 1);
          CHECK(state[mb] == 2);
          pairs += overlapped[mb];
        }
        CHECK(pairs > 0);  // the main phase overlaps forwards with backwards on every rank
      }
    }
}

TEST_CASE("pipeline: DualPipe's bubble is its authors' formula", "[schedule]") {
  // DualPipe's README: (p/2 - 1)(F&B + B - 3W), B the whole backward, F&B a forward and a backward
  // overlapped — here, on ideal stages, the two back to back (F + B). Exact when the input gradient
  // takes as long as the forward.
  for (const aicb::step_times t :
       {aicb::step_times{1, 1, 1, 0}, aicb::step_times{2, 2, 1, 0}, aicb::step_times{1, 1, 0.5, 0}})
    for (std::uint64_t p : {2, 4, 6, 8})
      for (std::uint64_t m : {2 * p, 3 * p + 1 + (p % 2), 4 * p}) {
        if (m % 2 != 0) continue;
        INFO("p " << p << " m " << m << " F " << t.forward << " B " << t.input_grad << " W "
                  << t.weight_grad);
        const double whole = t.input_grad + t.weight_grad, pair = t.forward + whole;
        const aicb::pipeline_time d = aicb::time_pipeline(
            {.stages = p, .microbatches = m, .schedule = aicb::pipeline_schedule_kind::dualpipe}, t);
        CHECK(d.bubble == Approx(double(p / 2 - 1) * (pair + whole - 3 * t.weight_grad)).margin(1e-9));
      }
}

TEST_CASE("pipeline: DualPipe is refused where it has no meaning", "[schedule]") {
  using aicb::pipeline_schedule_kind;
  CHECK_THROWS_WITH(
      aicb::pipeline_schedule({.stages = 3, .microbatches = 6, .schedule = pipeline_schedule_kind::dualpipe}),
      Catch::Contains("even pipeline_parallel"));
  CHECK_THROWS_WITH(
      aicb::pipeline_schedule({.stages = 4, .microbatches = 6, .schedule = pipeline_schedule_kind::dualpipe}),
      Catch::Contains("at least 2 x pipeline_parallel (8)"));
  CHECK_THROWS_WITH(
      aicb::pipeline_schedule({.stages = 4, .microbatches = 9, .schedule = pipeline_schedule_kind::dualpipe}),
      Catch::Contains("even number of micro batches"));
}
