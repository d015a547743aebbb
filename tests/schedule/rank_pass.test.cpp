// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_pass.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

namespace {

aicb::job_spec interleaved_job() {
  return {aicb::presets::llama2_7b,
          {.world_size = 16,
           .tensor_parallel = 2,
           .pipeline_parallel = 4,
           .virtual_pipeline = 2,
           .sequence_parallel = true,
           .distributed_optimizer = true},
          {.global_batch = 16, .seq_length = 4096}};
}

}  // namespace

TEST_CASE("rank pass: for_each_operation walks exactly the operations the view yields, in order",
          "[schedule]") {
  const aicb::job_spec job = interleaved_job();
  for (std::uint64_t rank : {0, 5, 15}) {
    std::vector<aicb::operation> walked;
    aicb::for_each_operation(job, rank, [&](const aicb::operation& op) { walked.push_back(op); });
    std::size_t i = 0;
    for (const aicb::operation& op : aicb::rank_schedule(job, rank)) {
      REQUIRE(i < walked.size());
      CHECK(walked[i].index == op.index);
      CHECK(walked[i].name == op.name);
      CHECK(walked[i].size == op.size);
      ++i;
    }
    CHECK(i == walked.size());
    CHECK(walked.front().index == 0);
    CHECK(walked.back().phase == aicb::op_phase::finalize);  // the iteration ends with the finalize
  }
}

TEST_CASE("rank pass: the cursor numbers operations densely and each waits only on earlier ones",
          "[schedule]") {
  const aicb::detail::rank_plan plan(interleaved_job(), 6, {.iterations = 2});
  std::uint64_t expected = 0, finalizes = 0;
  for (aicb::rank_pass pass(plan); !pass.done(); pass.next()) {
    const aicb::operation& op = pass.read();
    CHECK(op.index == expected++);
    for (std::uint8_t a = 0; a < op.after_count; ++a)
      CHECK(op.after[a] < op.index);
    finalizes += op.name == "optimizer_step";
  }
  CHECK(finalizes == 2);  // two iterations
  CHECK_THROWS_AS(aicb::detail::rank_plan(interleaved_job(), 16, {}), aicb::config_error);
}
