// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb deepspeed` as a library call: the default format by the one rule, the same operations in
// SimAI text and in the corrected CSV, aicb's CSV under compat_mode::aicb, and what aicb lacks refused.
#include <aicb/commands/deepspeed.hpp>

#include "../text_file.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace {
aicb::deepspeed_request zero(std::uint64_t stage) {
  aicb::deepspeed_request r;
  r.args.stage = stage;
  r.args.world_size = 8;
  r.args.global_batch = 8;
  r.args.num_layers = 2;
  return r;
}
}  // namespace

TEST_CASE("deepspeed: SimAI text by default, aicb's CSV by default under compat aicb",
          "[commands][deepspeed]") {
  aicb::deepspeed_request r = zero(3);
  r.output = "ds_default.txt";
  const aicb::written_workload simai = aicb::write_deepspeed(r);
  CHECK(simai.format == aicb::workload_format::simai);
  CHECK(simai.written.records > 0u);
  CHECK(simai.about.find("ZeRO-3, DP 8") == 0);
  CHECK(aicb_test::read_text("ds_default.txt").find("all_gpus: 8") != std::string::npos);
  r.compat = aicb::compat_mode::aicb;
  r.output = "ds_aicb.csv";
  const aicb::written_workload aicb_csv = aicb::write_deepspeed(r);
  CHECK(aicb_csv.format == aicb::workload_format::csv);
  CHECK(aicb_csv.mode == aicb::compat_mode::aicb);
  CHECK(aicb_csv.items > 0u);
  CHECK(aicb_csv.about == "ZeRO-3, aicb");
}

TEST_CASE("deepspeed: the corrected CSV is rank 0 of the model the SimAI form writes",
          "[commands][deepspeed]") {
  aicb::deepspeed_request r = zero(2);
  r.format = aicb::workload_format::csv;
  r.output = "ds_corrected.csv";
  const aicb::written_workload csv = aicb::write_deepspeed(r);
  REQUIRE(csv.job);
  CHECK(*csv.job == aicb::deepspeed_job(r.args));
  CHECK(csv.job->parallel.zero_stage == 2u);
  CHECK(csv.about.find("corrected: rank 0, DP 8") != std::string::npos);
}

TEST_CASE("deepspeed: what aicb has no file for is refused", "[commands][deepspeed]") {
  aicb::deepspeed_request r = zero(1);
  r.compat = aicb::compat_mode::aicb;
  r.format = aicb::workload_format::simai;
  CHECK_THROWS_WITH(aicb::write_deepspeed(r), Catch::Contains("aicb writes no SimAI file for DeepSpeed"));
  r.compat = aicb::compat_mode::corrected;
  r.format = aicb::workload_format::chakra;
  CHECK_THROWS_WITH(aicb::write_deepspeed(r), Catch::Contains("format = chakra"));
}
