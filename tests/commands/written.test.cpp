// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The writing commands' one result shape and its two reports: the line a person reads (its noun by
// format) and the versioned document a program reads (the members of its format only).
#include <aicb/commands/written.hpp>

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("written: the summary line names what was written in its format's unit", "[commands][written]") {
  aicb::written_workload w;
  w.path = "a.txt";
  w.written.records = 12;
  w.about = "2 iteration(s) x 4 micro batches";
  w.details = "next: aicb lint a.txt\n";
  CHECK(aicb::format_written(w) ==
        "wrote a.txt: 12 records (2 iteration(s) x 4 micro batches)\nnext: aicb lint a.txt\n");
  w.format = aicb::workload_format::csv;
  w.items = 7;
  w.about.clear();
  w.details.clear();
  CHECK(aicb::format_written(w) == "wrote a.txt: 7 items\n");
  w.format = aicb::workload_format::chakra;
  w.path = "set";
  w.files = 16;
  w.items = 5000;
  CHECK(aicb::format_written(w) == "wrote set/: 16 Chakra traces and 5000 nodes\n");
  // Only a timeline written: its own line, no workload line.
  aicb::written_workload t;
  t.timeline = "step.html";
  t.details = "wrote step.html: an HTML timeline\n";
  CHECK(aicb::format_written(t) == t.details);
}

TEST_CASE("written: the document is named by its command and holds its format's members",
          "[commands][written]") {
  aicb::written_workload w;
  w.path = "zero.txt";
  w.written.records = 40;
  w.written.bytes_by_group[static_cast<std::size_t>(aicb::comm_group::dp)] = 1024;
  w.header.ga = 4;
  w.warnings = {"a \"quoted\" warning"};
  const std::string simai = aicb::written_json(w, "deepspeed", 0.5);
  CHECK(simai.find("\"schema\": \"aicb.deepspeed/1\"") != std::string::npos);
  CHECK(simai.find("\"records\": 40") != std::string::npos);
  CHECK(simai.find("\"micro_batches\": 4") != std::string::npos);
  CHECK(simai.find("\"dp\": 1024") != std::string::npos);
  CHECK(simai.find("\\\"quoted\\\"") != std::string::npos);  // escaped
  CHECK(simai.find("\"items\"") == std::string::npos);
  w.format = aicb::workload_format::csv;
  w.items = 9;
  const std::string csv = aicb::written_json(w, "micro", 0);
  CHECK(csv.find("\"schema\": \"aicb.micro/1\"") != std::string::npos);
  CHECK(csv.find("\"items\": 9") != std::string::npos);
  CHECK(csv.find("\"records\"") == std::string::npos);
}

TEST_CASE("written: one rule for the default format", "[commands][written]") {
  STATIC_REQUIRE(aicb::default_format(aicb::compat_mode::corrected) == aicb::workload_format::simai);
  STATIC_REQUIRE(aicb::default_format(aicb::compat_mode::corrected, aicb::workload_format::csv) ==
                 aicb::workload_format::simai);
  STATIC_REQUIRE(aicb::default_format(aicb::compat_mode::aicb, aicb::workload_format::csv) ==
                 aicb::workload_format::csv);
}
