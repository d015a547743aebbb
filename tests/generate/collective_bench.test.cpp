// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/generate/collective_bench.hpp>
#include <aicb/io/simai_lint.hpp>
#include <aicb/io/simai_writer.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

TEST_CASE("collective bench: sizes double from begin to end", "[generate][micro]") {
  CHECK(aicb::sweep_sizes(1, 8) == std::vector<std::uint64_t>{1, 2, 4, 8});
  CHECK(aicb::sweep_sizes(3, 20) == std::vector<std::uint64_t>{3, 6, 12});
  CHECK(aicb::sweep_sizes(16, 8).empty());
  CHECK(aicb::sweep_sizes(1ULL << 62, ~0ULL) == std::vector<std::uint64_t>{1ULL << 62, 1ULL << 63});
  CHECK_THROWS_AS(aicb::sweep_sizes(0, 8), aicb::config_error);  // aicb loops forever
  CHECK(aicb::sweep_collective("reduce_scatter") == aicb::collective::reduce_scatter);
  CHECK_THROWS_AS(aicb::sweep_collective("broadcast"), aicb::config_error);
}

TEST_CASE("collective bench: the SimAI sweep is a workload SimAI-Analytical runs, and lints clean",
          "[generate][micro]") {
  const aicb::collective_sweep_workload w(
      {.world_size = 16,
       .collectives = {aicb::collective::all_reduce, aicb::collective::all_to_all},
       .begin_size = 1024,
       .end_size = 4096,
       .iterations = 2});
  CHECK(w.size() == 2 * 3 * 2);
  CHECK(w.header().tensor_parallel == 1);
  CHECK(w.header().all_gpus == 16);
  const aicb::record last = w.at(w.size() - 1);
  CHECK(last.name == "all_to_all_4096B_1");
  CHECK(last.weight_grad.comm.group == aicb::comm_group::dp);
  CHECK(last.weight_grad.comm.size.count() == 4096);
  CHECK_FALSE(last.forward.comm.active());

  const std::string path = "collective_sweep_test.txt";
  aicb::simai_writer out(path, w.header(), w.size(), true);
  std::uint64_t n = 0;
  auto records = w.records();
  for (const aicb::record& r : records) {
    out.write(r);
    ++n;
  }
  out.finish();
  CHECK(n == w.size());
  const auto lint = aicb::lint_simai(path);
  CHECK(lint.errors == 0);
  CHECK(lint.warnings == 0);
  std::remove(path.c_str());

  CHECK_THROWS_AS(aicb::collective_sweep_workload({.world_size = 1}), aicb::config_error);
  CHECK_THROWS_AS(aicb::collective_sweep_workload({.world_size = 8, .iterations = 0}), aicb::config_error);
  CHECK_THROWS_AS(
      aicb::collective_sweep_workload({.world_size = 8, .collectives = {aicb::collective::broadcast}}),
      aicb::config_error);
}
