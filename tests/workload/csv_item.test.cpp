// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/workload/csv_item.hpp>

#include <catch2/catch.hpp>

#include <cstddef>

TEST_CASE("csv item: operation names are aicb's CommType values and read back", "[workload][csv]") {
  for (std::size_t i = 0; i < aicb::enum_names<aicb::csv_op>::value.size(); ++i) {
    const auto op = static_cast<aicb::csv_op>(i);
    CHECK(aicb::from_string<aicb::csv_op>(aicb::to_string(op)) == op);
  }
  CHECK(aicb::to_string(aicb::csv_op::all_to_all) == "all_to_all");  // aicb's last member
  CHECK_FALSE(aicb::from_string<aicb::csv_op>("alltoall").has_value());
  CHECK(aicb::to_string(aicb::csv_group::none) == "None");
  CHECK(aicb::to_string(aicb::csv_group::embedding_group) == "embedding_group");
}

TEST_CASE("csv item: its size in bytes, integer or aicb's FP8 float", "[workload][csv]") {
  aicb::csv_item item;
  item.op = aicb::csv_op::all_to_all;
  item.msg_size = 1024;
  CHECK(item.bytes() == 1024);
  item.msg_size_float = 6488064.0 * 0.515625;  // aicb's FP8 dispatch factor
  CHECK(item.bytes() == 3345408);
  CHECK_FALSE(item.is_computation());
  item.op = aicb::csv_op::computation;
  CHECK(item.is_computation());
}
