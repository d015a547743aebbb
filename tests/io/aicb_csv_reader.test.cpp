// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/io/aicb_csv.hpp>
#include <aicb/io/aicb_csv_reader.hpp>

#include <catch2/catch.hpp>

#include "reference.hpp"

#include <filesystem>
#include <string>

namespace {
const std::string header = std::string(aicb::csv_header) + "\n";

// The line and column of the parse error `text` raises.
std::pair<std::size_t, std::size_t> fault(const std::string& text) {
  try {
    (void)aicb::read_csv(text, "bad.csv");
  } catch (const aicb::parse_error& e) {
    return {e.line(), e.column()};
  }
  FAIL("no parse error for: " << text);
  return {};
}
}  // namespace

TEST_CASE("reference: aicb csv reader: every CSV aicb wrote reads back and writes out identically",
          "[io][csv][reference]") {
  const auto cases = aicb_test::reference_dir("aicb/cases");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(cases)) {
    if (entry.path().extension() != ".csv") continue;
    INFO(entry.path().string());
    const aicb::csv_document doc = aicb::read_csv_file(entry.path().string());
    std::string again = header;
    for (const aicb::csv_item& item : doc.items)
      aicb::append_csv_line(again, item);
    CHECK(again == doc.text);
    ++files;
  }
  CHECK(files >= 14);  // D01-D05, M01, P01-P06, S16, S17
}

TEST_CASE("aicb csv reader: fields are typed", "[io][csv]") {
  const aicb::csv_document doc = aicb::read_csv(
      header +
      "CommType.isend,CommGroup.pp_group,1,16777216,forward_step,None,None,send_next,None,None,None,1\n"
      "CommType.all_to_all,CommGroup.ep_group,None,6488064.0,forward.MoE.dispatch,None,None,,None,None,None,"
      "1\n"
      "CommType.computation,None,None,((2048 1 2048) (2048 4096)),forward.x,None,None,,1.5,2,3,1\r\n"
      "CommType.reduce,CommGroup.dp_group,8,95415296,backward.average_tensor,6,None,,None,None,None,1\n");
  REQUIRE(doc.items.size() == 4);
  CHECK(doc.items[0].op == aicb::csv_op::isend);
  CHECK(doc.items[0].additional == "send_next");
  CHECK(doc.items[1].group_size == std::nullopt);
  CHECK(doc.items[1].msg_size_float == 6488064.0);
  CHECK(doc.items[2].shapes[0] == aicb::csv_shape{{2048, 1, 2048}, 3});
  CHECK(doc.items[2].shapes[1] == aicb::csv_shape{{2048, 4096, 0}, 2});
  CHECK(doc.items[2].elapsed_time == 1.5);
  CHECK(doc.items[2].busbw == 3.0);
  CHECK(doc.items[3].dst == 6);
}

TEST_CASE("aicb csv reader: faults are reported with line and column", "[io][csv]") {
  CHECK(fault("") == std::pair<std::size_t, std::size_t>{1, 1});
  CHECK(fault("comm_type,comm_group\n") == std::pair<std::size_t, std::size_t>{1, 1});
  const std::string ok = "CommType.all_reduce,CommGroup.dp_group,8,8,init,None,None,,None,None,None,1\n";
  CHECK(fault(header + ok + "CommType.allreduce,CommGroup.dp_group,8,8,init,None,None,,None,None,None,1\n") ==
        std::pair<std::size_t, std::size_t>{3, 1});
  CHECK(fault(header + "CommType.all_reduce,CommGroup.dq_group,8,8,init,None,None,,None,None,None,1\n") ==
        std::pair<std::size_t, std::size_t>{2, 21});
  CHECK(fault(header + "CommType.all_reduce,CommGroup.dp_group,8,-8,init,None,None,,None,None,None,1\n")
            .second == 42);
  CHECK(fault(header + "CommType.all_reduce,CommGroup.dp_group,8,8,init,None,None,,None,None\n").first == 2);
  CHECK(
      fault(header + "CommType.all_reduce,CommGroup.dp_group,8,8,a,b,None,None,,None,None,None,1\n").first ==
      2);
  CHECK(
      fault(header + "CommType.computation,None,None,((1 2) (3 x)),f,None,None,,None,None,None,1\n").second ==
      42);
  CHECK(fault(header + "CommType.all_reduce,None,8,8,init,None,None,,None,None,None,1\n").second == 21);
  CHECK(fault(header + ok + "\n" + ok).first == 3);
  CHECK_THROWS_AS(aicb::read_csv_file("/nonexistent/workload.csv"), aicb::io_error);
}

TEST_CASE("aicb csv reader: the fuzz seeds — good files read, bad_* files are refused", "[io][csv]") {
  int good = 0, bad = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(AICB_SOURCE_DIR) / "tests/data/csv")) {
    INFO(entry.path().string());
    if (entry.path().filename().string().starts_with("bad_")) {
      CHECK_THROWS_AS(aicb::read_csv_file(entry.path().string()), aicb::parse_error);
      ++bad;
    } else {
      CHECK_FALSE(aicb::read_csv_file(entry.path().string()).items.empty());
      ++good;
    }
  }
  CHECK(good >= 2);
  CHECK(bad >= 2);
}
