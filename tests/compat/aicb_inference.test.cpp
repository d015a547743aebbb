// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include "reference.hpp"
#include "text_file.hpp"

#include <aicb/compat/aicb_inference.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("reference: aicb's inference cases I01-I04, byte for byte, from the script's flags",
          "[compat][inference]") {
  const std::filesystem::path cases = aicb_test::reference_dir("aicb/cases");
  int reproduced = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cases)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("I")) continue;
    INFO(name);
    const std::string command = aicb_test::read_text(entry.path() / "command.txt");
    std::vector<std::string> argv = words(command);
    REQUIRE(argv.size() > 2);
    REQUIRE(argv[1] == "scripts/inference_workload_with_aiob.sh");
    argv.erase(argv.begin(), argv.begin() + 2);
    const aicb::aicb_inference_workload w(aicb::parse_aicb_inference_script(argv));
    const std::filesystem::path expected = entry.path() / w.file_name();
    REQUIRE(std::filesystem::exists(expected));  // aicb's file name
    CHECK(w.text() == aicb_test::read_text(expected));
    ++reproduced;
  }
  CHECK(reproduced == 4);
}

TEST_CASE("aicb inference: sizes from aicb's formulas, by hand", "[compat][inference]") {
  // Qwen3-Next-80B decode, batch 32, TP 2: m = 32 tokens, h = 2048, k = 10.
  const aicb::aicb_inference_workload w(aicb::parse_aicb_inference_script(
      {"-m", "qwen3-next-80B", "-p", "decode", "-s", "1024", "-b", "32", "-w", "8", "-t", "2", "-e", "4"}));
  CHECK(w.tp_comm() == 2 * 32 * 2048);
  CHECK(w.combine() == 2 * 32 * 2048 * 10 / 2);
  CHECK(w.dispatch() == w.combine() * 33 / 64);
  CHECK(w.pp_comm() == 0);
  CHECK(w.records() == 5 * 48);
  // Prefill: the sequence, not the batch (aicb ignores the micro batch there).
  const aicb::aicb_inference_workload p(aicb::parse_aicb_inference_script(
      {"-m", "deepseek-671B", "-p", "prefill", "-s", "4096", "-b", "7", "-w", "16", "-t", "2", "-e", "8"}));
  CHECK(p.tp_comm() == 2 * 4096 * 7168);
  CHECK(p.records() == 3 * 2 + 58 * 4);
  // The generator's own spellings give the same file.
  const aicb::aicb_inference_workload g(aicb::parse_aicb_inference_generator(
      {"Qwen3-Next-80B", "--phase", "decode", "--seq_length=1024", "--micro_batch", "32", "--world_size", "8",
       "--tensor_model_parallel_size", "2", "--expert_model_parallel_size", "4", "--moe_enable"},
      aicb::aicb_inference_default_model(aicb::aicb_inference_family::qwen3_next)));
  CHECK(g.text() == w.text());
  CHECK(g.file_name() == w.file_name());
  // A pipeline: pp_comm = 2·b·s·h, beyond SimAI's header integers here: said.
  const aicb::aicb_inference_workload pp(aicb::parse_aicb_inference_script(
      {"-m", "qwen3-235B", "-b", "64", "-s", "8192", "--pipeline_model_parallel", "2"}));
  CHECK(pp.pp_comm() == 2ull * 64 * 8192 * 4096);
  REQUIRE(pp.warnings().size() == 1);
  CHECK(pp.warnings()[0].find("SimAI aborts") != std::string::npos);
  CHECK(pp.header_line().ends_with("pp_comm: " + std::to_string(pp.pp_comm())));
}

TEST_CASE("aicb inference: where aicb fails, a message naming why", "[compat][inference]") {
  using aicb::parse_aicb_inference_script;
  const auto fails = [](const std::vector<std::string>& argv, const std::string& says) {
    CHECK_THROWS_WITH(aicb::aicb_inference_workload(parse_aicb_inference_script(argv)),
                      Catch::Contains(says));
  };
  fails({"-m", "llama-70B"}, "deepseek-671B, qwen3-235B, qwen3-next-80B");
  fails({"-m", "qwen3-235B", "-w", "4", "-e", "8"}, "world_size >= tensor_model_parallel_size");
  fails({"-m", "deepseek-671B", "-t", "3", "-w", "24"}, "power of two");
  fails({"-m", "qwen3-235B", "--aiob_enable"}, "Hopper");
  fails({"-m", "qwen3-235B", "-p", "serve"}, "decode | prefill");
  fails({"-m", "qwen3-235B", "--seq-length", "8"}, "silently stops parsing");
  fails({"-m", "qwen3-235B", "-s", "1e3"}, "whole number");
  fails({"-m", "qwen3-235B", "-s"}, "expects a value");
  fails({"-m", "qwen3-235B", "-b", "99999999999999999999"}, "whole number");
  CHECK_THROWS_WITH(
      aicb::aicb_inference_workload(aicb::parse_aicb_inference_generator({"Llama-3"}, std::nullopt)),
      Catch::Contains("Qwen3-Moe, Qwen3-Next or DeepSeek"));
  CHECK_THROWS_WITH(
      aicb::aicb_inference_workload(aicb::parse_aicb_inference_generator({"DeepSeek-671B"}, std::nullopt)),
      Catch::Contains("no model defaults"));
  // Sizes beyond 64 bits are refused, not wrapped.
  CHECK_THROWS_WITH(aicb::aicb_inference_workload(parse_aicb_inference_script(
                        {"-m", "qwen3-235B", "-p", "prefill", "-s", "9000000000000000000"})),
                    Catch::Contains("2 x tokens"));
}
