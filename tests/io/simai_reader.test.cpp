// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compat/aicb_simai.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/io/simai_lint.hpp>
#include <aicb/io/simai_reader.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include "reference.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {
template <class Workload>
void write(const Workload& w, const std::string& path, bool strict) {
  aicb::simai_writer out(path, w.header(), w.size(), strict);
  auto records = w.records();
  for (const aicb::record& r : records)
    out.write(r);
  out.finish();
}
// Reads `path` back and compares it with what `w` generates, record by record.
template <class Workload>
void check_round_trip(const Workload& w, const std::string& path) {
  aicb::simai_reader in(path);
  CHECK(in.header() == w.header());
  CHECK(in.declared_count() == w.size());
  auto expected = w.records();
  auto it = expected.begin();
  std::uint64_t n = 0;
  for (const aicb::record& r : in.records()) {
    REQUIRE(it != expected.end());
    if (!(r == *it)) FAIL("record " << n << " (" << r.name << ") differs after the round trip");
    ++it;
    ++n;
  }
  CHECK(it == expected.end());
  CHECK(n == w.size());
}
}  // namespace

TEST_CASE("simai reader: whatever the writer produces reads back into equal records, for many jobs",
          "[io][simai][property]") {
  const aicb::constant_model constant(aicb::nanoseconds{17});
  // A grid of models and layouts: dense/MoE/MLA x TP x SP x PP x DP x recompute x optimizer.
  const aicb::model_spec models[] = {aicb::presets::llama2_7b, aicb::presets::mixtral_8x7b,
                                     aicb::presets::deepseek_v2_lite, aicb::presets::qwen3_30b_a3b,
                                     aicb::presets::gpt3_1_3b};
  std::size_t jobs = 0;
  for (const aicb::model_spec& base : models)
    for (std::uint64_t tp : {1, 2, 4})
      for (std::uint64_t pp : {1, 2})
        for (int variant = 0; variant < 3; ++variant) {
          aicb::model_spec m = base;
          m.num_layers = 4;
          if (m.is_moe()) m.first_dense_layers = std::min<std::uint64_t>(m.first_dense_layers, 1);
          aicb::job_spec job{
              m,
              {.world_size = 8 * tp * pp,
               .tensor_parallel = tp,
               .pipeline_parallel = pp,
               .expert_parallel = m.is_moe() ? 2ULL : 1ULL,
               .sequence_parallel = tp > 1 && variant != 1,
               .distributed_optimizer = variant == 2,
               .recompute = variant == 1 ? aicb::recompute_kind::full : aicb::recompute_kind::selective},
              {.micro_batch = 1, .global_batch = 16, .seq_length = 1024}};
          if (m.is_moe() && tp > 1) job.parallel.sequence_parallel = true;
          try {
            aicb::validate(job);
          } catch (const aicb::config_error&) {
            continue;  // e.g. heads that this TP does not divide
          }
          INFO(m.name.view() << " tp " << tp << " pp " << pp << " variant " << variant);
          const aicb::simai_projection w(job, constant, {.iterations = 2, .pipeline_stage = pp - 1});
          write(w, "simai_round_trip.txt", true);
          check_round_trip(w, "simai_round_trip.txt");
          // Every file the corrected mode writes passes the linter, warnings included.
          const aicb::lint_result lint = aicb::lint_simai("simai_round_trip.txt");
          CHECK(lint.errors == 0);
          CHECK(lint.warnings == 0);
          ++jobs;
        }
  CHECK(jobs >= 40);
  std::filesystem::remove("simai_round_trip.txt");
}

TEST_CASE("reference: aicb's SimAI files read back equal to their text", "[io][simai]") {
  const auto cases = aicb_test::reference_dir("aicb/cases");
  std::size_t files = 0;
  for (const auto& dir : std::filesystem::directory_iterator(cases))
    for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
      if (f.path().extension() != ".txt" || f.path().filename().string().rfind("None-", 0) != 0) continue;
      ++files;
      INFO(f.path().string());
      aicb::simai_reader in(f.path().string());
      {
        aicb::simai_writer out("simai_read_back.txt", in.header(), in.declared_count(), false);
        for (const aicb::record& r : in.records())
          out.write(r);
        out.finish();
      }
      CHECK(aicb_test::read_text("simai_read_back.txt") == aicb_test::read_text(f.path()));
    }
  CHECK(files >= 36);
  std::filesystem::remove("simai_read_back.txt");
}

TEST_CASE("simai reader: malformed records are parse errors with their position", "[io][simai]") {
  const std::filesystem::path bad = std::filesystem::path(AICB_SOURCE_DIR) / "tests/data/simai/bad";
  const auto first_error = [](const std::filesystem::path& p) -> std::string {
    try {
      aicb::simai_reader in(p.string());
      for (const aicb::record& r : in.records())
        (void)r;
    } catch (const aicb::parse_error& e) {
      return std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.message();
    }
    return "";
  };
  CHECK(first_error(bad / "08_text_in_number.txt") == "4:20: expected a non-negative integer, found 'abc'");
  CHECK(first_error(bad / "04_typo_collective.txt").rfind("4:25: expected a communication type", 0) == 0);
  CHECK(first_error(bad / "12_count_not_integer.txt") ==
        "2:1: expected the record count (a non-negative integer)");
  CHECK(first_error(bad / "20_key_without_value.txt").find("has no value") != std::string::npos);
  CHECK(first_error(bad / "02_count_too_large.txt")
            .empty());  // SimAI-valid records; the count is the linter's business
}
