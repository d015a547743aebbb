// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb inference` as a library call: the corrected step as SimAI text with its report, a timeline
// beside it or alone, aicb's file from its own flags, and requests that mean nothing refused by field.
#include <aicb/commands/inference.hpp>

#include "../text_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace {
aicb::inference_request decode_step() {
  aicb::inference_request r;
  r.model = "qwen3-235b-a22b";
  r.serving = aicb::serving_spec{};
  r.serving->phase = aicb::inference_phase::decode;
  r.serving->batch = 16;
  r.serving->context = 1024;
  r.serving->tensor_parallel = 4;
  r.serving->attention_data_parallel = 2;
  r.serving->expert_parallel = 8;
  return r;
}
}  // namespace

TEST_CASE("inference: the corrected step as SimAI text, with a timeline beside it", "[commands][inference]") {
  aicb::inference_request r = decode_step();
  r.output = "inference_step.txt";
  r.timeline = "inference_step.json";
  const aicb::written_workload w = aicb::write_inference(r);
  CHECK(w.format == aicb::workload_format::simai);
  CHECK(w.written.records > 0u);
  CHECK(w.about.find("one decode step of rank 0") == 0);
  CHECK(w.simai_command.find("-w inference_step.txt -g 8") != std::string::npos);
  CHECK(w.details.find("wrote inference_step.json: a trace-event JSON timeline, one decode step") == 0);
  CHECK(aicb_test::read_text("inference_step.json").find("\"traceEvents\"") != std::string::npos);
  // Only the timeline: no workload file, no path.
  r.workload = false;
  r.timeline = "inference_only.html";
  r.output = "inference_never.txt";
  std::filesystem::remove(r.output);
  const aicb::written_workload only = aicb::write_inference(r);
  CHECK(only.path.empty());
  CHECK(!std::filesystem::exists(r.output));
  CHECK(aicb_test::read_text("inference_only.html").find("<html") != std::string::npos);
}

TEST_CASE("inference: aicb's file from its script's flags", "[commands][inference]") {
  aicb::inference_request r;
  r.compat = aicb::compat_mode::aicb;
  r.aicb_flags = {"-m", "qwen3-235B", "-p", "decode", "-s", "1024", "-b",
                  "32", "-w",         "8",  "-t",     "1",  "-e",   "8"};
  r.output = "inference_aicb.txt";
  const aicb::written_workload w = aicb::write_inference(r);
  CHECK(w.mode == aicb::compat_mode::aicb);
  CHECK(w.written.records == 470u);
  CHECK(w.about == "aicb, Qwen3-Moe-235B, decode");
  r.timeline = "never.html";
  CHECK_THROWS_WITH(aicb::write_inference(r), Catch::Contains("timeline = never.html"));
}

TEST_CASE("inference: requests that mean nothing are refused by field", "[commands][inference]") {
  aicb::inference_request r = decode_step();
  r.serving.reset();
  CHECK_THROWS_WITH(aicb::write_inference(r), Catch::Contains("phase = (none)"));
  r = decode_step();
  r.model.clear();
  CHECK_THROWS_WITH(aicb::write_inference(r), Catch::Contains("model = (none)"));
  r = decode_step();
  r.aicb_flags = {"-m"};
  CHECK_THROWS_WITH(aicb::write_inference(r), Catch::Contains("--compat aicb"));
  r = decode_step();
  r.ranks = "0-3";
  CHECK_THROWS_WITH(aicb::write_inference(r), Catch::Contains("ranks = 0-3"));
  r = decode_step();
  r.format = aicb::workload_format::csv;
  CHECK_THROWS_WITH(aicb::write_inference(r), Catch::Contains("format = csv"));
}
