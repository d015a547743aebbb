// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/aiob_profile.hpp>
#include <aicb/io/aiob_reader.hpp>

#include <catch2/catch.hpp>

#include "reference.hpp"

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace {

// aicb's reader, applied literally: a section starts at a line matching ^(\w+):, and within it the
// first `time_gpu_avg:\s+(\d+(\.\d+)?)` / `time_gpu_min:…` match gives the value.
std::map<std::string, std::pair<double, double>> aicb_reader_view(const std::string& text) {
  std::map<std::string, std::pair<double, double>> sections;
  const std::regex header(R"(^(\w+):)"), avg(R"(time_gpu_avg:\s+(\d+(\.\d+)?))"),
      min(R"(time_gpu_min:\s+(\d+(\.\d+)?))");
  std::istringstream in(text);
  std::string line, current;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, header, std::regex_constants::match_continuous)) {
      current = m[1];
      sections[current] = {-1, -1};
    } else if (!current.empty() && std::regex_search(line, m, avg) && sections[current].first < 0) {
      sections[current].first = std::stod(m[1]);
    } else if (!current.empty() && std::regex_search(line, m, min) && sections[current].second < 0) {
      sections[current].second = std::stod(m[1]);
    }
  }
  return sections;
}
}  // namespace

TEST_CASE("reference: Example.txt parses and gives aicb's compute cache exactly (spec 6.3)",
          "[compute][aiob]") {
  const auto p = aicb::read_aiob_file((aicb_test::reference_dir("aicb/aiob") / "Example.txt").string());
  CHECK(p.train_iter == 10u);
  CHECK(p.sections.size() == 12);
  const auto cache = aicb::aicb_cache_from_profile(p, false);
  const std::vector<std::pair<std::string, std::int64_t>> expected{{"attention_forward", 1820000},
                                                                   {"attention_backward", 1820000},
                                                                   {"mlp_forward", 2478000},
                                                                   {"mlp_backward", 2478000},
                                                                   {"grad_forward", 16647000},
                                                                   {"grad_backward", 17374000},
                                                                   {"Emb", 799000},
                                                                   {"layernorm_post", 70000},
                                                                   {"logit_time", 12824000},
                                                                   {"attention_linear_q_lora", 0},
                                                                   {"attention_q_column", 0},
                                                                   {"attention_linear_kv_lora", 0},
                                                                   {"attention_kv_column", 0},
                                                                   {"attention_o_row", 0}};
  CHECK(cache.entries == expected);
  // With --recompute_activations aicb doubles the flash-attention section (512 us) in the sum.
  CHECK(aicb::aicb_cache_from_profile(p, true).find("attention_forward") == 1820000 + 512000);
}

TEST_CASE("reference: aicb's round-trip demo X01 — processed profile to compute cache", "[compute][aiob]") {
  const auto dir = aicb_test::reference_dir("aicb/cases/X01_aiob_roundtrip_demo");
  const auto p = aicb::read_aiob_file((dir / "2_after_process_all_keys.txt").string());
  std::vector<std::pair<std::string, std::int64_t>> expected;
  std::istringstream cache_file(aicb_test::read_text(dir / "3_compute_cache_from_extract_averages.txt"));
  for (std::string line; std::getline(cache_file, line);) {
    const auto colon = line.find(": ");
    if (colon != std::string::npos)
      expected.emplace_back(line.substr(0, colon), std::stoll(line.substr(colon + 2)));
  }
  REQUIRE(expected.size() == 14);
  CHECK(aicb::aicb_cache_from_profile(p, false).entries == expected);
}

TEST_CASE("reference: aicb's profiles are written back byte for byte", "[compute][aiob]") {
  const auto dir = aicb_test::reference_dir("aicb");
  for (const auto& path : {dir / "aiob/Example.txt", dir / "aiob/deepseek_mla_comp.txt",
                           dir / "cases/X01_aiob_roundtrip_demo/2_after_process_all_keys.txt"}) {
    INFO(path);
    const std::string text = aicb_test::read_text(path);
    CHECK(aicb::write_aiob(aicb::parse_aiob(text, path.string())) == text);
  }
}

TEST_CASE("aiob: version 2 round-trips and means the same forward times to aicb's own reader",
          "[compute][aiob]") {
  const std::string v1 =
      "train_iter:10\nEmb:\n    time_gpu_max: 857\n    time_gpu_min: 782\n    time_gpu_avg: 799\n"
      "atten_qkv:\n    time_gpu_max: 1255\n    time_gpu_min: 862\n    time_gpu_avg: 889.25\n"
      "param_time:\n    time_gpu_max: 23746\n    time_gpu_min: 16647\n    time_gpu_avg: 17374\n";
  aicb::aiob_profile p = aicb::parse_aiob(v1);
  p.sections[1].lines.insert(p.sections[1].lines.begin(), {true, " shape: m=4096 n=6144 k=4096", ""});
  p.sections[1].lines.push_back({true, " backward_avg_us: 1778.5", ""});
  p.sections[1].lines.push_back({true, " backward_min_us: 1700", ""});
  const auto v2 =
      aicb::with_provenance(p, {{"gpu", "NVIDIA H200"}, {"dtype", "bf16"}, {"tensor_parallel", "2"}});
  const std::string text = aicb::write_aiob(v2);
  CHECK(v2.version() == 2);
  CHECK(aicb::parse_aiob(text) == v2);  // v2 round-trips exactly
  CHECK(aicb::write_aiob(aicb::parse_aiob(text)) == text);
  CHECK(aicb_reader_view(text) == aicb_reader_view(v1));  // aicb sees the same forward times
  CHECK(aicb::aicb_cache_from_profile(v2, false).entries ==
        aicb::aicb_cache_from_profile(aicb::parse_aiob(v1), false).entries);
  CHECK(text.rfind("# aicb-profile: 2\n# gpu: NVIDIA H200\n", 0) == 0);
  // An entry is one comment line: a line break would write a profile line aicb's reader rejects.
  CHECK_THROWS_WITH(aicb::with_provenance(p, {{"gpu", "A\nEmb:\n    time_gpu_avg: 1"}}),
                    Catch::StartsWith("gpu = A\\nEmb:") && Catch::Contains("no line breaks"));
  CHECK_THROWS_WITH(aicb::with_provenance(p, {{"g\rpu", "A"}}), Catch::Contains("no line breaks"));
  CHECK_THROWS_WITH(aicb::with_provenance(p, {{"a:b", "A"}}), Catch::Contains("no ':'"));
  CHECK_THROWS_WITH(aicb::with_provenance(p, {{"", "A"}}), Catch::Contains("needs a key"));
}
