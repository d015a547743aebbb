// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/io/aiob_reader.hpp>

#include <catch2/catch.hpp>

#include "reference.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {
const std::filesystem::path data = std::filesystem::path(AICB_SOURCE_DIR) / "tests/data/aiob";
}  // namespace

TEST_CASE("aiob reader: every malformed profile gives its expected error (tests/data/aiob/bad)",
          "[io][aiob]") {
  std::size_t cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data / "bad")) {
    if (entry.path().extension() != ".txt") continue;
    ++cases;
    const std::string name = entry.path().filename().string();
    INFO(name);
    std::string expected =
        aicb_test::read_text(std::filesystem::path(entry.path()).replace_extension(".expect"));
    while (!expected.empty() && expected.back() == '\n')
      expected.pop_back();
    try {
      (void)aicb::read_aiob_file(entry.path().string());
      FAIL("accepted " << name);
    } catch (const aicb::parse_error& e) {
      CHECK(e.file() == entry.path().string());
      CHECK(std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.message() == expected);
    }
  }
  CHECK(cases >= 13);
}

TEST_CASE("aiob reader: what aicb accepts — CRLF, tabs, spacing, decimals, any order", "[io][aiob]") {
  const auto p = aicb::read_aiob_file((data / "good/crlf_tabs_spacing.txt").string());
  REQUIRE(p.sections.size() == 2);
  CHECK(p.train_iter == 3u);
  CHECK(p.sections[0].stat("time_gpu_max") == 857.0);
  CHECK(p.sections[0].stat("time_gpu_min") == 782.0);
  CHECK(p.sections[0].stat("time_gpu_avg") == 799.5);
  CHECK(p.sections[1].name == "layernorm");
  CHECK(p.sections[1].source_line == 7);
  CHECK(p.version() == 1);
}

TEST_CASE("aiob reader: comments before the body are provenance, inside sections metadata", "[io][aiob]") {
  const auto p = aicb::parse_aiob(
      "# aicb-profile: 2\n# gpu: NVIDIA H200\ntrain_iter:5\natten_qkv:\n    # shape: m=4096 n=6144 k=4096\n"
      "    time_gpu_avg: 120.5\n    # backward_avg_us: 241\n");
  CHECK(p.version() == 2);
  CHECK(p.provenance("gpu") == "NVIDIA H200");
  CHECK_FALSE(p.provenance("dtype").has_value());
  CHECK(p.sections[0].note("shape") == "m=4096 n=6144 k=4096");
  CHECK(p.sections[0].note("backward_avg_us") == "241");
}

TEST_CASE("aiob reader: a 100 MB file is read without trouble, and garbage in it is found", "[io][aiob]") {
  std::string text = "train_iter:1\n";
  text.reserve(100 << 20);
  for (std::size_t i = 0; text.size() < (100u << 20); ++i)
    text.append("s")
        .append(std::to_string(i))
        .append(":\n    time_gpu_max: 3\n    time_gpu_min: 1\n    time_gpu_avg: 2\n");
  const auto p = aicb::parse_aiob(text, "big.txt");
  CHECK(p.sections.size() > 1'000'000);
  text += "oops\n";
  CHECK_THROWS_WITH(aicb::parse_aiob(text, "big.txt"),
                    Catch::Contains("big.txt:") && Catch::Contains("found 'o'"));
}

TEST_CASE("aiob reader: a missing file is an io_error", "[io][aiob]") {
  CHECK_THROWS_AS(aicb::read_aiob_file("/nonexistent/profile.txt"), aicb::io_error);
}
