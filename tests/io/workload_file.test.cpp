// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/model.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/io/workload_file.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include "text_file.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace {
constexpr aicb::job_spec job{aicb::presets::llama2_7b,
                             {.world_size = 8, .tensor_parallel = 2},
                             {.micro_batch = 1, .global_batch = 8, .seq_length = 2048}};
}  // namespace

TEST_CASE("workload file: a SimAI file and its sidecar, counted as written", "[io][workload_file]") {
  const aicb::constant_model compute;
  const aicb::simai_projection w(job, compute);
  std::filesystem::remove("wf.txt");
  std::filesystem::remove("wf.txt.json");
  std::uint64_t estimated = 0;
  const aicb::simai_sidecar about{
      .generator = "test", .mode = aicb::compat_mode::corrected, .compute_model = compute.provenance()};
  aicb::simai_file_options options;
  options.sidecar = [&](const aicb::simai_file_summary& s) {
    return aicb::to_json(about, "dir/wf.txt", w.header(), s);
  };
  options.on_start = [&](std::uint64_t bytes) { estimated = bytes; };
  const aicb::simai_file_summary s = aicb::write_simai_file(w, "wf.txt", options);
  CHECK(s.records == w.size());
  std::uint64_t tp = 0;
  for (const aicb::record& r : w.records())
    for (const aicb::phase* p : {&r.forward, &r.input_grad, &r.weight_grad})
      if (p->comm.active() && p->comm.group == aicb::comm_group::tp) tp += p->comm.size.count();
  CHECK(s.bytes_by_group[static_cast<std::size_t>(aicb::comm_group::tp)] == tp);
  CHECK(tp > 0);
  const std::string text = aicb_test::read_text("wf.txt");
  CHECK(estimated >= text.size());  // an estimate that the free-space check can trust
  const std::string sidecar = aicb_test::read_text("wf.txt.json");
  CHECK(sidecar.find("\"schema\": \"aicb.sidecar/1\"") != std::string::npos);
  CHECK(sidecar.find("\"workload\": \"wf.txt\"") != std::string::npos);  // the name, not the folder
  CHECK(sidecar.find("\"records\": " + std::to_string(w.size())) != std::string::npos);
  CHECK(sidecar.find("\"job\": null") != std::string::npos);
}

TEST_CASE("workload file: a sidecar that fails leaves neither file", "[io][workload_file]") {
  const aicb::constant_model compute;
  const aicb::simai_projection w(job, compute);
  std::filesystem::remove("wf_fail.txt");
  aicb::simai_file_options options;
  options.sidecar = [](const aicb::simai_file_summary&) -> std::string {
    throw std::runtime_error("no sidecar");
  };
  CHECK_THROWS_WITH(aicb::write_simai_file(w, "wf_fail.txt", options), "no sidecar");
  CHECK_FALSE(std::filesystem::exists("wf_fail.txt"));
  CHECK_FALSE(std::filesystem::exists("wf_fail.txt.json"));
}

TEST_CASE("workload file: default places are created, and a file in the way is an io_error",
          "[io][workload_file]") {
  std::filesystem::remove_all("wf_results");
  CHECK(aicb::output_path_or_default("given.txt", "wf_results/workload", "x.txt") == "given.txt");
  CHECK_FALSE(std::filesystem::exists("wf_results"));  // nothing created for a given output
  CHECK(aicb::output_path_or_default("", "wf_results/workload", "x.txt") == "wf_results/workload/x.txt");
  CHECK(std::filesystem::is_directory("wf_results/workload"));
  std::ofstream("wf_results/blocked") << "a file";
  CHECK_THROWS_AS(aicb::output_path_or_default("", "wf_results/blocked", "x.txt"), aicb::io_error);
  std::filesystem::remove_all("wf_results");
}

TEST_CASE("workload file: CSV files land whole, and an impossible size is refused first",
          "[io][workload_file]") {
  const auto three = [](auto&& sink) {
    for (int i = 0; i < 3; ++i)
      sink(aicb::csv_item{});
  };
  CHECK(aicb::write_csv_file("wf.csv", three) == 3u);
  CHECK_NOTHROW(aicb::require_csv_space("wf.csv", three, 1));
  CHECK_THROWS_AS(aicb::require_csv_space("wf.csv", three, ~std::uint64_t{0}), aicb::io_error);
}
