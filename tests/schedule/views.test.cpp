// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/traffic.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/schedule/views.hpp>

#include <catch2/catch.hpp>

#include <range/v3/range/concepts.hpp>
#include <range/v3/view/take.hpp>

#include <cstdint>
#include <ranges>
#include <vector>

namespace {

using aicb::op_phase, aicb::op_type;

const aicb::job_spec job{aicb::presets::llama2_7b,
                         {.world_size = 16,
                          .tensor_parallel = 2,
                          .pipeline_parallel = 2,
                          .sequence_parallel = true,
                          .distributed_optimizer = true},
                         {.global_batch = 16, .seq_length = 4096}};

std::vector<aicb::operation> all(std::uint64_t rank) {
  std::vector<aicb::operation> ops;
  for (const aicb::operation& op : aicb::rank_schedule(job, rank))
    ops.push_back(op);
  return ops;
}

}  // namespace

TEST_CASE("schedule views: a rank's stream is a range for std::ranges and range-v3", "[schedule][views]") {
  STATIC_REQUIRE(std::ranges::input_range<aicb::rank_schedule>);
  STATIC_REQUIRE(ranges::input_range<aicb::rank_schedule>);
  aicb::rank_schedule s(job, 0);
  std::uint64_t n = 0;
  for (const aicb::operation& op : s | ranges::views::take(3))
    CHECK(op.index == n++);
  CHECK(n == 3);
}

TEST_CASE("schedule views: each selection keeps exactly the operations it names, in order",
          "[schedule][views]") {
  const std::vector<aicb::operation> ops = all(8);  // the last stage: sends and receives both ways
  const auto expect = [&](auto keep) {
    std::vector<std::uint64_t> indices;
    for (const aicb::operation& op : ops)
      if (keep(op)) indices.push_back(op.index);
    return indices;
  };
  const auto got = [](auto&& view) {
    std::vector<std::uint64_t> indices;
    for (const aicb::operation& op : view)
      indices.push_back(op.index);
    return indices;
  };
  {
    aicb::rank_schedule s(job, 8);
    const auto c = got(s | aicb::views::collectives);
    CHECK(c == expect([](const aicb::operation& op) { return op.type == op_type::collective; }));
    CHECK_FALSE(c.empty());
  }
  {
    aicb::rank_schedule s(job, 8);
    const auto t = got(s | aicb::views::transfers);
    CHECK(t == expect([](const aicb::operation& op) {
            return op.type == op_type::send || op.type == op_type::recv;
          }));
    CHECK(t.size() == 2 * 4);  // 4 micro batches: an activation in and a gradient out each
  }
  {
    aicb::rank_schedule s(job, 8);
    CHECK(got(s | aicb::views::computations) ==
          expect([](const aicb::operation& op) { return op.type == op_type::compute; }));
  }
  {
    aicb::rank_schedule s(job, 8);
    CHECK(got(s | aicb::views::local_and_collective | aicb::views::in_microbatch(2) |
              aicb::views::backward_work) == expect([](const aicb::operation& op) {
            return (op.type == op_type::compute || op.type == op_type::collective) && op.microbatch == 2 &&
                   (op.phase == op_phase::backward || op.phase == op_phase::recompute);
          }));
  }
  {
    aicb::rank_schedule s(job, 8);
    const auto f = got(s | aicb::views::in_phase(op_phase::finalize));
    CHECK(f == expect([](const aicb::operation& op) { return op.phase == op_phase::finalize; }));
    CHECK(f.size() >= 4);  // gradient reduce-scatter, SP all-reduce, step, weight gather
  }
}

TEST_CASE("schedule views: bytes per group through a pipeline equal the traffic calculator's",
          "[schedule][views]") {
  // The DP and TP figures of aicb/calc/traffic.hpp, summed again as a pipeline over the stream.
  aicb::rank_schedule s(job, 0);
  std::uint64_t tp = 0, dp = 0;
  for (const aicb::operation& op : s | aicb::views::collectives) {
    if (op.group.kind == aicb::group_kind::tp) tp += op.size.count();
    if (op.group.kind == aicb::group_kind::dp_cp) dp += op.size.count();
  }
  const aicb::traffic t = aicb::comm_volume(job, 0);
  CHECK(tp == t.tp.count());
  CHECK(dp == t.dp.count());
  CHECK(tp > 0);
}
