// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compat/deepspeed_csv.hpp>
#include <aicb/io/aicb_csv.hpp>

#include <catch2/catch.hpp>

#include "reference.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace {

// The llama_l2 job of aicb's DeepSpeed cases D01-D05.
aicb::aicb_args llama_l2(std::uint64_t stage) {
  aicb::aicb_args a;
  a.frame = "DeepSpeed";
  a.world_size = 8;
  a.global_batch = 16;
  a.seq_length = 2048;
  a.num_layers = 2;
  a.hidden_size = 4096;
  a.num_attention_heads = 32;
  a.ffn_hidden_size = 11008;
  a.vocab_size = 32000;
  a.model_name = "llama_l2";
  a.stage = stage;
  return a;
}

std::string csv(const aicb::aicb_args& a, aicb::compat_mode mode = aicb::compat_mode::aicb) {
  std::string out = std::string(aicb::csv_header) + "\n";
  aicb::generate_deepspeed_csv(a, mode,
                               [&](const aicb::csv_item& item) { aicb::append_csv_line(out, item); });
  return out;
}
std::vector<aicb::csv_item> items(const aicb::aicb_args& a, aicb::compat_mode mode) {
  std::vector<aicb::csv_item> out;
  aicb::generate_deepspeed_csv(a, mode, [&](const aicb::csv_item& item) { out.push_back(item); });
  return out;
}
std::string golden(const std::string& case_dir, const aicb::aicb_args& a) {
  return aicb_test::read_text(aicb_test::reference_dir("aicb/cases/" + case_dir) /
                              aicb::deepspeed_csv_file_name(a));
}

}  // namespace

TEST_CASE("deepspeed: the mocked model's parameters in module order", "[generate][deepspeed]") {
  const auto params = aicb::deepspeed_params(llama_l2(1));
  REQUIRE(params.size() == 1 + 2 * 9 + 2);
  CHECK(params.front().numel() == 32000ULL * 4096);
  CHECK(params[1].cols == 1);                   // input_layernorm
  CHECK(params[2].numel() == 4096ULL * 4096);   // q
  CHECK(params[7].numel() == 4096ULL * 11008);  // gate
  CHECK(params.back().numel() == 4096ULL * 32000);
  std::uint64_t total = 0;
  for (const auto& p : params)
    total += p.numel();
  CHECK(total == 666'914'816);
}

TEST_CASE("reference: deepspeed: ZeRO 1, 2, 2 with contiguous gradients and 3 match aicb byte for byte",
          "[generate][deepspeed][reference]") {
  aicb::aicb_args a = llama_l2(1);
  a.reduce_bucket_size = 100'000'000;
  a.allgather_bucket_size = 200'000'000;
  CHECK(csv(a) == golden("D01_zero1", a));
  a.stage = 2;
  CHECK(csv(a) == golden("D02_zero2", a));
  a.contiguous_gradients = true;
  CHECK(csv(a) == golden("D03_zero2_contiguous", a));

  aicb::aicb_args z3 = llama_l2(3);
  z3.reduce_bucket_size = 100'000'000;
  z3.prefetch_bucket_size = 100'000'000;
  z3.max_live_parameters = 300'000'000;
  z3.param_persistence_threshold = 100'000;
  CHECK(csv(z3) == golden("D04_zero3", z3));
  aicb::aicb_args compute = llama_l2(3);
  compute.computation_enable = true;
  CHECK(csv(compute) == golden("D05_zero3_compute", compute));
}

TEST_CASE("deepspeed: the file name aicb chooses", "[generate][deepspeed]") {
  aicb::aicb_args a = llama_l2(2);
  CHECK(aicb::deepspeed_csv_file_name(a) ==
        "deepspeed_stage2_llama_l2_sp_False_iteration_1_computationEnable_False_8n_workload.csv");
  a.model_name = "llama3.1";  // aicb keeps the name up to its first '.'
  CHECK(aicb::deepspeed_csv_file_name(a) == "deepspeed_stage2_llama3_workload.csv");
}

TEST_CASE("deepspeed: corrected mode drops zero-byte collectives, aicb's are kept in compat mode",
          "[generate][deepspeed]") {
  for (std::uint64_t stage : {1, 3}) {
    aicb::aicb_args a = llama_l2(stage);
    a.reduce_bucket_size = 100'000'000;  // the 131M-element head overflows an empty bucket
    const auto zero = [](const aicb::csv_item& i) {
      return i.op != aicb::csv_op::epoch_end && i.op != aicb::csv_op::computation &&
             i.op != aicb::csv_op::barrier && i.bytes() == 0;
    };
    const auto compat = items(a, aicb::compat_mode::aicb), fixed = items(a, aicb::compat_mode::corrected);
    CHECK(std::count_if(compat.begin(), compat.end(), zero) > 0);
    CHECK(std::count_if(fixed.begin(), fixed.end(), zero) == 0);
    // Everything else is the same.
    std::uint64_t compat_bytes = 0, fixed_bytes = 0;
    for (const auto& i : compat)
      compat_bytes += i.bytes();
    for (const auto& i : fixed)
      fixed_bytes += i.bytes();
    if (stage == 3) CHECK(compat_bytes == fixed_bytes);
  }
}

TEST_CASE("deepspeed: per-iteration gradient and weight volumes follow the ZeRO stage",
          "[generate][deepspeed]") {
  // One micro batch per iteration; buckets large enough for the whole model.
  aicb::aicb_args a = llama_l2(1);
  a.global_batch = 8;
  a.reduce_bucket_size = a.allgather_bucket_size = a.prefetch_bucket_size = 1'000'000'000;
  const std::uint64_t psi = 666'914'816;
  const auto sum = [&](aicb::csv_op op, std::string_view stage_prefix) {
    std::uint64_t n = 0;
    for (const auto& i : items(a, aicb::compat_mode::corrected))
      if (i.op == op && i.stage.starts_with(stage_prefix)) n += i.bytes();
    return n;
  };
  CHECK(sum(aicb::csv_op::all_reduce, "step.allreduce_bucket") == 2 * psi);  // gradients once
  CHECK(sum(aicb::csv_op::all_gather, "step") == 2 * psi);  // updated weights once (dp | psi)
  a.stage = 2;
  a.contiguous_gradients = true;
  CHECK(sum(aicb::csv_op::reduce, "") == 2 * psi);  // each gradient reduced to its owner once
  a.stage = 3;
  // Stage 3: the weights gathered for forward and backward, the gradients reduce-scattered.
  CHECK(sum(aicb::csv_op::reduce_scatter, "") == 2 * psi);
  CHECK(sum(aicb::csv_op::all_gather, "forward") + sum(aicb::csv_op::all_gather, "backward") >= 2 * psi);
}

TEST_CASE("deepspeed: what aicb cannot run is an error that says so", "[generate][deepspeed]") {
  aicb::aicb_args a = llama_l2(1);
  a.amp_enabled = true;
  CHECK_THROWS_WITH(csv(a), Catch::Contains("BUG-29"));
  const auto fixed = items(a, aicb::compat_mode::corrected);
  REQUIRE_FALSE(fixed.empty());
  CHECK(fixed.front().op == aicb::csv_op::barrier);  // no broadcasts; the barrier carries nothing
  CHECK(fixed.front().bytes() == 0);
  a.amp_enabled = false;
  a.stage = 4;
  CHECK_THROWS_AS(csv(a), aicb::config_error);
  a.stage = 1;
  a.tensor_model_parallel_size = 2;
  CHECK_THROWS_AS(csv(a), aicb::config_error);
  a.tensor_model_parallel_size = 1;
  a.frame = "Megatron";
  CHECK_THROWS_AS(csv(a), aicb::config_error);
}

TEST_CASE("deepspeed: the same job for the per-rank model — data parallel only, ZeRO as asked",
          "[generate][deepspeed]") {
  aicb::aicb_args a;
  a.frame = "DeepSpeed";
  a.world_size = 16;
  a.stage = 3;
  a.num_layers = 4;
  a.hidden_size = 2048;
  a.global_batch = 32;
  a.micro_batch = 2;
  const aicb::job_spec job = aicb::deepspeed_job(a);
  CHECK(aicb::validate(job));
  CHECK(job.parallel.zero_stage == 3u);
  CHECK(job.parallel.tensor_parallel == 1u);
  CHECK(aicb::data_parallel(job) == 16u);
  CHECK(job.model.num_attention_heads == 16u);  // heads of 128 when not given
  CHECK(job.model.num_layers == 4u);
  CHECK(aicb::deepspeed_simai_file_name(a) == "deepspeed_stage3_None_16n.txt");
}
