// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb micro` as a library call: the sweep SimAI-Analytical runs, aicb's collective-test CSV and
// MICRO file, their default names, and collectives a format cannot hold refused by field.
#include <aicb/commands/micro.hpp>

#include "../text_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

TEST_CASE("micro: the sweep has a record per size, collective and repetition", "[commands][micro]") {
  aicb::micro_request r;
  r.args.world_size = 16;
  r.args.begin_size = 1 << 20;
  r.args.end_size = 4 << 20;
  r.collectives = {aicb::collective::all_reduce, aicb::collective::all_to_all};
  r.repeat = 2;
  r.output = "micro_sweep.txt";
  const aicb::written_workload w = aicb::write_micro(r);
  CHECK(w.format == aicb::workload_format::simai);
  CHECK(w.written.records == 3u * 2 * 2);
  CHECK(w.about == "3 sizes x 2 collectives x 2; run with SimAI -g 16");
  CHECK(aicb_test::read_text("micro_sweep.txt").find("ALLTOALL") != std::string::npos);
  // The default name carries the collectives and the GPUs.
  r.output.clear();
  CHECK(aicb::write_micro(r).path == "results/workload/microbench_all_reduce-all_to_all_16n.txt");
}

TEST_CASE("micro: aicb's files hold one collective, the sweep only what SimAI simulates",
          "[commands][micro]") {
  aicb::micro_request r;
  r.args.world_size = 8;
  r.format = aicb::workload_format::csv;
  r.collectives = {aicb::collective::all_gather};
  r.repeat = 3;
  r.output = "micro_test.csv";
  const aicb::written_workload csv = aicb::write_micro(r);
  CHECK(csv.items > 3u);
  CHECK(aicb_test::read_text("micro_test.csv").find("all_gather") != std::string::npos);
  r.collectives = {aicb::collective::all_gather, aicb::collective::all_reduce};
  CHECK_THROWS_WITH(aicb::write_micro(r), Catch::Contains("hold one collective"));
  r.format = aicb::workload_format::simai;
  r.collectives = {aicb::collective::broadcast};
  CHECK_THROWS_WITH(aicb::write_micro(r), Catch::Contains("test_comm = broadcast"));
  r.format = aicb::workload_format::micro;
  r.collectives = {aicb::collective::all_reduce};
  r.output = "micro_file.txt";
  const aicb::written_workload micro = aicb::write_micro(r);
  CHECK(micro.mode == aicb::compat_mode::aicb);
  CHECK(micro.written.records == aicb::sweep_sizes(r.args.begin_size, r.args.end_size).size());
  CHECK(aicb_test::read_text("micro_file.txt")
            .rfind("MICRO\n" + std::to_string(micro.written.records) + "\n", 0) == 0);
  CHECK(!micro.warnings.empty());  // SimAI-Analytical cannot run it
  CHECK(std::filesystem::exists("micro_file.txt"));
}
