// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compat/aicb_micro.hpp>
#include <aicb/io/aicb_csv.hpp>

#include <catch2/catch.hpp>

#include "reference.hpp"

#include <string>
#include <vector>

TEST_CASE("reference: collective bench: aicb's collective-test CSV and MICRO file, byte for byte",
          "[compat][micro][reference]") {
  aicb::aicb_args a;
  a.frame = "collective_test";
  a.world_size = 16;
  a.test_comm = "all_gather";
  a.begin_size = 1048576;
  a.end_size = 8388608;
  a.iter_num = 3;
  std::string csv = std::string(aicb::csv_header) + "\n";
  aicb::generate_collective_csv(a, [&](const aicb::csv_item& i) { aicb::append_csv_line(csv, i); });
  CHECK(csv == aicb_test::read_text(aicb_test::reference_dir("aicb/cases/M01_collective_test_csv") /
                                    std::string(aicb::collective_csv_file_name)));

  aicb::aicb_args m;
  m.world_size = 16;
  m.test_comm = "all_reduce";
  m.begin_size = 1048576;
  m.end_size = 1073741824;
  CHECK(aicb::micro_file_text(m) ==
        aicb_test::read_text(aicb_test::reference_dir("aicb/cases/M02_simai_microtest") /
                             "microtest_all_reduce.txt"));
  m.multi_all_reduce_enable = true;  // aicb crashes (M03): an error naming the bug, no text
  CHECK_THROWS_WITH(aicb::micro_file_text(m), Catch::Contains("BUG-21"));
}

TEST_CASE("collective bench: the pipeline-group variant of the CSV", "[compat][micro]") {
  aicb::aicb_args a;
  a.frame = "collective_test";
  a.world_size = 8;
  a.pipeline_model_parallel = 4;
  a.iter_num = 2;
  a.multi_all_reduce_enable = true;
  std::vector<aicb::csv_item> items;
  aicb::generate_collective_csv(a, [&](const aicb::csv_item& i) { items.push_back(i); });
  REQUIRE(items.size() == 2 + 1 + 2 + 1);
  CHECK(items[0].group == aicb::csv_group::dp_group);  // warm-up on DP, as aicb does
  CHECK(items[0].group_size == 2);
  CHECK(items[3].group == aicb::csv_group::pp_group);
  CHECK(items[3].group_size == 4);
  a.test_comm = "allreduce";
  CHECK_THROWS_AS(aicb::generate_collective_csv(a, [](const aicb::csv_item&) {}), aicb::config_error);
}

TEST_CASE("collective CSV: the item count is known before writing, and checked", "[compat][micro]") {
  aicb::aicb_args a;
  a.frame = "collective_test";
  a.world_size = 8;
  a.begin_size = 1 << 20;
  a.end_size = 1 << 22;  // 3 sizes
  a.iter_num = 5;
  a.epoch_num = 2;
  std::uint64_t items = 0;
  aicb::generate_collective_csv(a, [&](const aicb::csv_item&) { ++items; });
  CHECK(aicb::collective_csv_items(a) == items);
  CHECK(items == 5 + 1 + 2 * (3 * 5 + 1));
  a.iter_num = ~std::uint64_t{0};
  CHECK_THROWS_AS(aicb::collective_csv_items(a), aicb::config_error);
}
