// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/io/simai_writer.hpp>

#include <catch2/catch.hpp>

#include "text_file.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

using namespace aicb::literals;
using aicb::collective, aicb::comm_group, aicb::simai_column;

namespace {
aicb::record sample() {
  return {"attention_row",
          {910'000ns, {collective::reduce_scatter, comm_group::tp, 16_MiB}},
          {910'000ns, {collective::all_gather, comm_group::tp, 16_MiB}},
          {910'000ns, {collective::all_reduce, comm_group::dp, 1_GiB}},
          100ns};
}
}  // namespace

TEST_CASE("simai writer: tokens by column and group, as SimAI reads them", "[io][simai]") {
  CHECK(aicb::simai_comm_token({collective::all_reduce, comm_group::tp, 1_B}, simai_column::forward) ==
        "ALLREDUCE");
  CHECK(aicb::simai_comm_token({collective::all_reduce, comm_group::dp, 1_B}, simai_column::weight_grad) ==
        "ALLREDUCE");
  CHECK(aicb::simai_comm_token({collective::all_to_all, comm_group::ep, 1_B}, simai_column::input_grad) ==
        "ALLTOALL_EP");
  CHECK(aicb::simai_comm_token({collective::all_gather, comm_group::dp_ep, 1_B}, simai_column::weight_grad) ==
        "ALLGATHER_DP_EP");
  CHECK(aicb::simai_comm_token({}, simai_column::forward) == "NONE");
  // What SimAI cannot express is refused, not written as something else.
  CHECK_THROWS_AS(
      aicb::simai_comm_token({collective::all_reduce, comm_group::dp, 1_B}, simai_column::forward),
      aicb::config_error);
  CHECK_THROWS_AS(
      aicb::simai_comm_token({collective::all_reduce, comm_group::tp, 1_B}, simai_column::weight_grad),
      aicb::config_error);
  CHECK_THROWS_AS(aicb::simai_comm_token({collective::broadcast, comm_group::tp, 1_B}, simai_column::forward),
                  aicb::config_error);
  CHECK_THROWS_AS(
      aicb::simai_comm_token({collective::all_gather, comm_group::cp, 1_B}, simai_column::forward),
      aicb::config_error);
}

TEST_CASE("simai writer: header, count and tab-separated records", "[io][simai]") {
  aicb::simai_header h;
  h.tensor_parallel = 2;
  h.ga = 4;
  h.all_gpus = 16;
  aicb::simai_writer w("simai_writer_test.txt", h, 1);
  w.write(sample());
  w.finish();
  CHECK(aicb_test::read_text("simai_writer_test.txt") ==
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 1 ga: 4 all_gpus: 16 "
        "checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0\n1\n"
        "attention_row\t-"
        "1\t910000\tREDUCESCATTER\t16777216\t910000\tALLGATHER\t16777216\t910000\tALLREDUCE\t1073741824\t100"
        "\n");
  std::filesystem::remove("simai_writer_test.txt");
}

TEST_CASE("simai writer: a wrong count or a record SimAI would misread leaves no file", "[io][simai]") {
  aicb::simai_header h;
  h.tensor_parallel = 2;
  h.all_gpus = 16;
  {
    aicb::simai_writer w("simai_writer_bad.txt", h, 2);
    w.write(sample());
    CHECK_THROWS_WITH(w.finish(), Catch::Contains("1 records written but the header announced 2"));
  }
  CHECK_FALSE(std::filesystem::exists("simai_writer_bad.txt"));
  aicb::simai_writer strict("simai_writer_bad.txt", h, 1);
  aicb::record r = sample();
  r.input_grad.comm = {collective::none, comm_group::tp, 5_B};  // NONE with a size
  CHECK_THROWS_WITH(strict.write(r), Catch::Contains("a NONE column carries no size"));
  r = sample();
  r.name = "two words";
  CHECK_THROWS_AS(strict.write(r), aicb::config_error);
  // Above 16 GiB: a DP all-reduce is simulated correctly by SimAI (no efficiency table) ...
  r = sample();
  r.weight_grad.comm.size = 17_GiB;
  CHECK_NOTHROW(strict.write(r));
  // ... a TP all-gather is not: SimAI's table ends at 16 GiB and it drops the collective.
  r = sample();
  r.input_grad.comm.size = 17_GiB;
  CHECK_THROWS_WITH(strict.write(r),
                    Catch::Contains("ALLGATHER of 18253611008 bytes") && Catch::Contains("efficiency table"));
  r = sample();
  r.forward.comm = {collective::all_to_all, comm_group::ep, 17_GiB};
  CHECK_THROWS_AS(strict.write(r), aicb::config_error);
  h.ga = 0;
  CHECK_THROWS_WITH(aicb::simai_writer("simai_writer_bad.txt", h, 0), Catch::Contains("SimAI divides by ga"));
  h.ga = 1;
  h.pipeline_parallel = 2;
  CHECK_THROWS_WITH(aicb::simai_writer("simai_writer_bad.txt", h, 0),
                    Catch::Contains("pp_comm must be 0 exactly when pp is 1"));
  h.pp_comm = "4294967296";
  CHECK_THROWS_WITH(aicb::simai_writer("simai_writer_bad.txt", h, 0), Catch::Contains("2^31-1"));
  // aicb compatibility writes aicb's quirks as they are.
  aicb::simai_writer lenient("simai_writer_lenient.txt", aicb::simai_header{}, 1, false);
  r = sample();
  r.input_grad.comm = {collective::none, comm_group::tp, 5_B};
  lenient.write(r);
  lenient.finish();
  CHECK_THAT(aicb_test::read_text("simai_writer_lenient.txt"), Catch::Contains("\tNONE\t5\t"));
  std::filesystem::remove("simai_writer_lenient.txt");
}

TEST_CASE("simai writer: a collective over a TP group of one GPU is refused (SimAI times it as garbage)",
          "[io][simai]") {
  aicb::simai_header h;  // model_parallel_NPU_group: 1
  h.all_gpus = 8;
  aicb::simai_writer w("simai_writer_one_gpu.txt", h, 1);
  CHECK_THROWS_WITH(w.write(sample()), Catch::Contains("TP group of one GPU"));
  // What SimAI charges correctly: a small message (fixed latency, 0 for one rank) and EP and DP groups.
  aicb::record r = sample();
  r.forward.comm = {collective::all_reduce, comm_group::tp, 64_KiB};
  r.input_grad.comm = {collective::all_to_all, comm_group::ep, 16_MiB};
  CHECK_NOTHROW(w.write(r));
  CHECK_FALSE(std::filesystem::exists("simai_writer_one_gpu.txt"));
}

TEST_CASE("simai writer: header values and record counts SimAI's stoi cannot read are refused in every mode",
          "[io][simai]") {
  aicb::simai_header h;
  for (const bool strict : {true, false}) {
    INFO(strict);
    CHECK_THROWS_WITH(aicb::simai_writer("never.txt", h, 2147483648ULL, strict),
                      Catch::Contains("records = 2147483648") && Catch::Contains("2^31-1"));
    h.ga = 1ULL << 32;
    CHECK_THROWS_WITH(aicb::simai_writer("never.txt", h, 1, strict), Catch::Contains("ga = 4294967296"));
    h.ga = 1;
    h.all_gpus = 1ULL << 31;
    CHECK_THROWS_WITH(aicb::simai_writer("never.txt", h, 1, strict), Catch::Contains("all_gpus"));
    h.all_gpus = 1;
  }
  CHECK_FALSE(std::filesystem::exists("never.txt"));
  CHECK_NOTHROW(aicb::simai_writer("never.txt", h, 2147483647ULL));  // the largest count is fine
}

TEST_CASE("simai writer: the size of a file is estimated from its first records", "[io][simai]") {
  aicb::simai_header h;
  h.tensor_parallel = 2;
  h.all_gpus = 16;
  const std::vector<aicb::record> records(1000, sample());
  aicb::simai_writer w("simai_writer_estimate.txt", h, records.size());
  for (const aicb::record& r : records)
    w.write(r);
  w.finish();
  const auto size = std::filesystem::file_size("simai_writer_estimate.txt");
  CHECK(aicb::estimate_simai_bytes(h, records.size(), records) == size);      // a repeating pattern: exact
  CHECK(aicb::estimate_simai_bytes(h, records.size(), records, 10) == size);  // from 10 of them too
  CHECK(aicb::estimate_simai_bytes(h, 1ULL << 62, records) == ~std::uint64_t{0});  // saturates
  std::filesystem::remove("simai_writer_estimate.txt");
}

TEST_CASE("simai writer: a block written n times is the same file as its records written one by one",
          "[io][simai]") {
  aicb::simai_header h;
  h.tensor_parallel = 2;
  h.all_gpus = 16;
  aicb::record other = sample();
  other.name = "mlp_column";
  other.weight_grad = {};
  const std::vector<aicb::record> block{sample(), other};
  // Enough copies to fill the 1 MiB buffer several times, and a remainder.
  const std::uint64_t times = 25'001;
  {
    aicb::simai_writer one_by_one("simai_writer_runs_a.txt", h, 1 + 2 * times);
    one_by_one.write(other);
    for (std::uint64_t i = 0; i < times; ++i)
      for (const aicb::record& r : block)
        one_by_one.write(r);
    one_by_one.finish();
    aicb::simai_writer runs("simai_writer_runs_b.txt", h, 1 + 2 * times);
    runs.write(std::span<const aicb::record>(&other, 1), 1);
    runs.write(block, times);
    runs.write(block, 0);  // nothing
    runs.finish();
  }
  const std::string a = aicb_test::read_text("simai_writer_runs_a.txt");
  CHECK(a.size() > 4 * (1 << 20));
  CHECK(a == aicb_test::read_text("simai_writer_runs_b.txt"));
  // The count still has to match, and a block is checked like single records.
  aicb::simai_writer short_count("simai_writer_runs_c.txt", h, 3);
  short_count.write(block, 2);
  CHECK_THROWS_WITH(short_count.finish(), Catch::Contains("4 records written"));
  aicb::simai_writer strict("simai_writer_runs_d.txt", h, 2);
  aicb::record bad = sample();
  bad.name = "two words";
  const std::vector<aicb::record> bad_block{bad};
  CHECK_THROWS_WITH(strict.write(bad_block, 2), Catch::Contains("one token"));
  CHECK_FALSE(std::filesystem::exists("simai_writer_runs_c.txt"));
  CHECK_FALSE(std::filesystem::exists("simai_writer_runs_d.txt"));
  std::filesystem::remove("simai_writer_runs_a.txt");
  std::filesystem::remove("simai_writer_runs_b.txt");
}

TEST_CASE("simai writer: what SimAI cannot simulate is never written, sizes never wrap",
          "[io][simai][wrap]") {
  aicb::simai_header h;
  h.all_gpus = 16;
  const std::string path = "simai_writer_limits.txt";
  std::filesystem::remove(path);
  // A compute time SimAI truncates to 32 bits (an empty result, exit 0): refused in every mode,
  // naming the record and the column; nothing is left behind.
  for (const bool strict : {true, false}) {
    aicb::record r = sample();
    r.input_grad.compute = std::chrono::nanoseconds{aicb::simai_max_compute_time + 1};
    aicb::simai_writer w(path, h, 1, strict);
    CHECK_THROWS_WITH(w.write(r),
                      Catch::Contains("attention_row: input-gradient compute time 2147483501 ns") &&
                          Catch::Contains("SimAI cannot simulate"));
    const std::vector<aicb::record> block{r};
    CHECK_THROWS_WITH(w.write(block, 3), Catch::Contains("SimAI cannot simulate"));
  }
  CHECK_FALSE(std::filesystem::exists(path));
  // The largest time SimAI was seen to simulate is written.
  {
    aicb::record r = sample();
    r.forward.compute = std::chrono::nanoseconds{aicb::simai_max_compute_time};
    aicb::simai_writer w(path, h, 1, false);
    w.write(r);
    w.finish();
    CHECK_THAT(aicb_test::read_text(path), Catch::Contains("attention_row\t-1\t2147483500\t"));
  }
  // A size of 2^63 bytes and above is printed as the unsigned number it is, never negative.
  {
    aicb::record r{"micro_test", {}, {}, {}, 1ns};
    r.weight_grad.comm = {collective::all_reduce, comm_group::dp, aicb::bytes{std::uint64_t{1} << 63}};
    aicb::simai_writer w(path, h, 1, false);
    w.write(r);
    w.finish();
    const std::string text = aicb_test::read_text(path);
    CHECK_THAT(text, Catch::Contains("ALLREDUCE\t9223372036854775808\t"));
    CHECK(text.find('-', text.find("micro_test") + 12) == std::string::npos);
  }
}
