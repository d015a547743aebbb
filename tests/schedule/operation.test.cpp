// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/schedule/operation.hpp>

#include <catch2/catch.hpp>

TEST_CASE("operation: a collective states both size conventions", "[schedule]") {
  using namespace aicb::literals;
  aicb::operation op;
  op.type = aicb::op_type::collective;
  op.group_size = 4;
  op.size = 64_MiB;
  op.kind = aicb::collective::all_gather;  // the gathered output; each rank brings a quarter
  CHECK(op.per_rank_size() == 16_MiB);
  op.kind = aicb::collective::reduce_scatter;  // the input; each rank keeps a quarter
  CHECK(op.per_rank_size() == 16_MiB);
  op.kind = aicb::collective::all_reduce;
  CHECK(op.per_rank_size() == 64_MiB);
  op.kind = aicb::collective::all_to_all;  // the send buffer
  CHECK(op.per_rank_size() == 64_MiB);
  CHECK(op.is_communication());
  CHECK(aicb::to_string(aicb::op_phase::finalize) == "finalize");
  CHECK(aicb::to_string(aicb::op_type::recv) == "recv");
}
