// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The executor over an in-process transport of one rank: every operation of the rank's schedule
// runs, in order, warm-up excluded; the data check passes on a correct engine and catches a wrong
// one; ranks with other flags and buffers beyond the limit are refused before any traffic. (Many
// ranks: tests/tools/run_cli.sh, under mpirun.)
#include "../loopback_transport.hpp"

#include <aicb/compute/model.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/run/replay.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using aicb_test::loopback;

aicb::job_spec one_rank_job() {
  aicb::job_spec job{
      aicb::presets::llama2_7b, {.world_size = 1}, {.micro_batch = 1, .global_batch = 2, .seq_length = 128}};
  job.model.num_layers = 2;
  job.model.hidden_size = 256;
  job.model.num_attention_heads = job.model.num_kv_heads = 8;
  job.model.ffn_hidden_size = 512;
  job.model.vocab_size = 1024;
  return job;
}

// The rank's schedule (computation only: every group of a one-rank job is the rank alone, and
// the schedule leaves such collectives out), then each collective over the world of one.
std::vector<aicb::operation> operations(const aicb::job_spec& job) {
  std::vector<aicb::operation> ops;
  aicb::rank_schedule s(job, 0);
  for (const aicb::operation& op : s)
    ops.push_back(op);
  for (const aicb::collective kind : {aicb::collective::all_reduce, aicb::collective::all_gather,
                                      aicb::collective::reduce_scatter, aicb::collective::all_to_all}) {
    aicb::operation op;
    op.index = ops.size();
    op.type = aicb::op_type::collective;
    op.name = aicb::to_string(kind);
    op.kind = kind;
    op.group = {aicb::group_kind::world, 0};
    op.size = aicb::bytes{4096};
    ops.push_back(op);
  }
  return ops;
}

}  // namespace

TEST_CASE("replay: every operation runs, warm-up excluded, the check passes", "[run]") {
  const aicb::job_spec job = one_rank_job();
  const std::vector<aicb::operation> ops = operations(job);
  loopback t;
  const aicb::constant_model compute(aicb::nanoseconds{1000});
  const aicb::replay_result r =
      aicb::replay(t, ops, aicb::process_grid(job), &compute,
                   {.warmup = 2, .iterations = 3, .compute_scale = 2, .check = true});
  REQUIRE(r.operations.size() == ops.size());
  CHECK(r.iteration_us.size() == 3);
  CHECK(r.slowest_iteration_us == r.iteration_us);
  std::uint64_t collectives = 0, computations = 0;
  for (const aicb::operation& op : ops) {
    collectives += op.type == aicb::op_type::collective;
    computations += op.type == aicb::op_type::compute;
  }
  REQUIRE(collectives == 4);
  REQUIRE(computations > 0);
  // 2 warm-up + 1 check + 3 measured iterations, each every collective once.
  CHECK(static_cast<std::uint64_t>(std::count_if(t.calls.begin(), t.calls.end(), [](const std::string& c) {
          return c.rfind("group", 0) != 0;
        })) == 6 * collectives);
  CHECK(t.compute_seconds == Approx(6.0 * computations * 2e-6));
  for (const aicb::replayed_operation& m : r.operations) {
    if (m.op.type == aicb::op_type::compute) CHECK(m.modelled_us == Approx(2.0));
    if (m.op.type == aicb::op_type::collective) {
      CHECK(m.mean_us == Approx(1.0));  // what the transport measured
      CHECK(m.algbw == Approx(static_cast<double>(m.op.size.count()) / 1e-6 / 1e9));
      CHECK(m.busbw == 0);  // groups of one move nothing
    }
    CHECK(m.last_start_us <= r.iteration_us.back());  // within the last iteration, in order
  }
  for (std::size_t i = 1; i < r.operations.size(); ++i) {
    if (r.operations[i].last_us == 0) continue;
    CHECK(r.operations[i].last_start_us >= r.operations[i - 1].last_start_us);
  }
  CHECK(r.checked > 0);
  CHECK(r.wrong == 0);
  CHECK(t.calls.front() == "group world");  // the sub-communicators first, once
}

TEST_CASE("replay: wrong data, other flags on another rank and oversized buffers are caught", "[run]") {
  const aicb::job_spec job = one_rank_job();
  const std::vector<aicb::operation> ops = operations(job);
  loopback bad;
  bad.corrupt = true;
  CHECK(
      aicb::replay(bad, ops, aicb::process_grid(job), nullptr, {.warmup = 0, .iterations = 1, .check = true})
          .wrong > 0);
  loopback differ;
  differ.others = {1.0, 2.0};  // rank 1 reports another fingerprint
  CHECK_THROWS_WITH(aicb::replay(differ, ops, aicb::process_grid(job), nullptr, {.fingerprint = "--tp 2"}),
                    Catch::Contains("configuration = ranks 1") && Catch::Contains("differs from rank 0"));
  CHECK(differ.calls.empty());  // refused before any group or traffic
  loopback small;
  CHECK_THROWS_WITH(aicb::replay(small, ops, aicb::process_grid(job), nullptr, {.max_buffer_bytes = 1024}),
                    Catch::Contains("max_buffer_bytes"));
  CHECK(small.calls.empty());  // refused before any group or traffic
}

TEST_CASE("replay: percentiles by the nearest rank, over every iteration or evenly spaced ones", "[run]") {
  std::vector<double> v{5, 1, 3, 2, 4};
  CHECK(aicb::detail::nearest_rank(v, 0.5) == 3);
  CHECK(aicb::detail::nearest_rank(v, 0.99) == 5);
  CHECK(aicb::detail::nearest_rank(v, 0.2) == 1);
  std::vector<double> none;
  CHECK(aicb::detail::nearest_rank(none, 0.5) == 0);
  const aicb::job_spec job = one_rank_job();
  const std::vector<aicb::operation> ops = operations(job);
  const aicb::constant_model compute(aicb::nanoseconds{1000});
  // 40 iterations with room for 8 samples per operation: sampled every 1st, 2nd, 4th, 8th iteration as
  // the samples fill up.
  for (const std::uint64_t room : {std::uint64_t{1} << 23, std::uint64_t{1}}) {
    INFO("samples " << room);
    loopback t;
    const aicb::replay_result r = aicb::replay(t, ops, aicb::process_grid(job), &compute,
                                               {.warmup = 0, .iterations = 40, .max_samples = room});
    for (const aicb::replayed_operation& m : r.operations) {
      CHECK(m.p50_us >= m.min_us);
      CHECK(m.p99_us >= m.p50_us);
      CHECK(m.p99_us <= m.max_us);
      if (m.op.type == aicb::op_type::collective) {
        CHECK(m.p50_us == Approx(1.0));  // what the transport measured, every time
        CHECK(m.p99_us == Approx(1.0));
      }
      // One rank: it is its stage's slowest and fastest.
      CHECK(m.slowest_rank == 0);
      CHECK(m.slowest_mean_us == m.mean_us);
      CHECK(m.fastest_mean_us == m.mean_us);
    }
    REQUIRE(r.rank_compute_us.size() == 1);
    CHECK(r.slowest_rank == 0);
    CHECK(r.rank_mean_iteration_us.size() == 1);
  }
}

TEST_CASE("replay: a slow rank's computation takes its factor longer, and a slow rank must exist", "[run]") {
  const aicb::job_spec job = one_rank_job();
  const std::vector<aicb::operation> ops = operations(job);
  const aicb::constant_model compute(aicb::nanoseconds{1000});
  loopback plain, slow;
  const aicb::replay_result a =
      aicb::replay(plain, ops, aicb::process_grid(job), &compute, {.warmup = 0, .iterations = 2});
  const aicb::replay_result b = aicb::replay(slow, ops, aicb::process_grid(job), &compute,
                                             {.warmup = 0, .iterations = 2, .slow_ranks = {{0, 3.0}}});
  CHECK(slow.compute_seconds == Approx(3 * plain.compute_seconds));
  REQUIRE(a.rank_compute_us.size() == 1);
  CHECK(b.rank_compute_us[0] > 2 * a.rank_compute_us[0]);
  loopback t;
  CHECK_THROWS_WITH(aicb::replay(t, ops, aicb::process_grid(job), &compute, {.slow_ranks = {{5, 2.0}}}),
                    Catch::Contains("slow_rank = 5") && Catch::Contains("one of the job's 1 ranks"));
  CHECK_THROWS_WITH(aicb::replay(t, ops, aicb::process_grid(job), &compute, {.slow_ranks = {{0, 0.5}}}),
                    Catch::Contains("from 1 to 10^6"));
}

TEST_CASE("replay: an uneven all-to-all's blocks — the busiest member's as scheduled, the rest share",
          "[run][replay]") {
  const aicb::all_to_all_split even{.n = 4, .busiest = 1000, .hot = 1, .skew = 0};
  for (std::uint64_t q = 0; q < 4; ++q)
    CHECK(even.block_for(q) == 1000u);
  // Skew 1: the hot member receives twice a balanced block (1000 = 2 x 500); the three others share
  // the remaining 2 blocks of 500: 333 each (rounded down).
  const aicb::all_to_all_split skewed{.n = 4, .busiest = 1000, .hot = 1, .skew = 1};
  CHECK(skewed.block_for(1) == 1000u);
  CHECK(skewed.block_for(0) == 333u);
  std::vector<std::uint64_t> send, receive;
  // The dispatch: member 2 sends each member its block, receives its own (333) from each.
  skewed.counts(2, false, send, receive);
  CHECK(send == std::vector<std::uint64_t>{333, 1000, 333, 333});
  CHECK(receive == std::vector<std::uint64_t>{333, 333, 333, 333});
  // Every member sends what every other receives from it: the blocks pair up across the group.
  for (const bool reverse : {false, true})
    for (std::uint64_t p = 0; p < 4; ++p)
      for (std::uint64_t q = 0; q < 4; ++q) {
        std::vector<std::uint64_t> ps, pr, qs, qr;
        skewed.counts(p, reverse, ps, pr);
        skewed.counts(q, reverse, qs, qr);
        CHECK(ps[q] == qr[p]);
      }
  // The combine returns them: the hot member sends 1000 to each.
  skewed.counts(1, true, send, receive);
  CHECK(send == std::vector<std::uint64_t>{1000, 1000, 1000, 1000});
  CHECK(receive == std::vector<std::uint64_t>{333, 1000, 333, 333});
  // A skew beyond the group: the hot member takes everything.
  const aicb::all_to_all_split all{.n = 4, .busiest = 1000, .hot = 0, .skew = 9};
  CHECK(all.block_for(2) == 0u);
  aicb::replay_options bad;
  bad.all_to_all_skew = -1;
  CHECK_THROWS_WITH(aicb::validate(bad), Catch::Contains("all_to_all_skew"));
}

TEST_CASE(
    "replay: overlapped — collectives wait for what depends on them, gradient reductions start with "
    "the last backward",
    "[run][replay]") {
  // Two micro batches' backward work, then the finalize: two gradient all-reduces over a data-parallel
  // group of two and the optimizer step; and a TP all-reduce that a later computation does not wait for.
  const auto op = [](std::uint64_t index, aicb::op_type type, aicb::op_phase phase, std::uint64_t mb) {
    aicb::operation o;
    o.index = index;
    o.type = type;
    o.phase = phase;
    o.microbatch = mb;
    o.name = type == aicb::op_type::compute ? "work" : "grad_reduce";
    o.compute.m = o.compute.n = o.compute.k = 64;
    if (index > 0) o.after[o.after_count++] = index - 1;
    if (type == aicb::op_type::collective) {
      o.kind = aicb::collective::all_reduce;
      o.group = {aicb::group_kind::dp_cp, 0};
      o.group_size = 2;
      o.size = aicb::bytes{1024};
    }
    return o;
  };
  using aicb::op_phase;
  using aicb::op_type;
  std::vector<aicb::operation> ops{
      op(0, op_type::compute, op_phase::backward, 0),    op(1, op_type::compute, op_phase::backward, 1),
      op(2, op_type::compute, op_phase::backward, 1),    op(3, op_type::collective, op_phase::finalize, 0),
      op(4, op_type::collective, op_phase::finalize, 0), op(5, op_type::compute, op_phase::finalize, 0)};
  const aicb::job_spec job = one_rank_job();
  const aicb::constant_model compute(aicb::nanoseconds{1000});
  const auto calls_of = [&](bool overlapped, bool grad_reduce) {
    loopback t;
    t.log_compute = true;
    (void)aicb::replay(
        t, ops, aicb::process_grid(job), &compute,
        {.warmup = 0, .iterations = 1, .overlapped = overlapped, .overlap_grad_reduce = grad_reduce});
    return std::vector<std::string>(t.calls.begin() + 1, t.calls.end());  // after the group's creation
  };
  // Isolated: in order, each collective on its own.
  CHECK(calls_of(false, true) ==
        std::vector<std::string>{"compute", "compute", "compute", "all_reduce", "all_reduce", "compute"});
  // Overlapped without --overlap-grad-reduce: each reduction is waited for by the next operation, so
  // it runs as in the isolated replay.
  CHECK(calls_of(true, false) ==
        std::vector<std::string>{"compute", "compute", "compute", "all_reduce", "all_reduce", "compute"});
  // A collective nothing waits for at once is started, and finished where it is needed: here the last
  // computation no longer waits for the second reduction, so that reduction runs beside it.
  ops[5].after_count = 0;
  CHECK(calls_of(true, false) == std::vector<std::string>{"compute", "compute", "compute", "all_reduce",
                                                          "start all_reduce", "compute", "finish 0"});
  ops[5].after_count = 1;
  // With it: both reductions start with the last micro batch's backward and run beside it; the
  // optimizer step waits for them all.
  CHECK(calls_of(true, true) == std::vector<std::string>{"compute", "start all_reduce", "start all_reduce",
                                                         "compute", "compute", "finish 0", "finish 1",
                                                         "compute"});
}
