// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compat/aicb_simai.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
#include <vector>

TEST_CASE("aicb compat: Python's float repr, as aicb prints pp_comm", "[generate][aicb]") {
  using aicb::detail::python_float_repr;
  CHECK(python_float_repr(16777216.0) == "16777216.0");
  CHECK(python_float_repr(8388608.5) == "8388608.5");
  CHECK(python_float_repr(0.5) == "0.5");
  CHECK(python_float_repr(1e16) == "1e+16");
  CHECK(python_float_repr(123456789012345678.0) == "1.2345678901234568e+17");
  CHECK(python_float_repr(0.0001) == "0.0001");
  CHECK(python_float_repr(0.00001) == "1e-05");
  CHECK(python_float_repr(3.0) == "3.0");
}

TEST_CASE("aicb compat: spec 3.4's worked example — totals, record count, header", "[generate][aicb]") {
  // A02: h 4096, F 11008, a 32, t 2, s 2048, V 32000, L 4, SP, DP 8, GA 4.
  aicb::aicb_args a;
  a.world_size = 16;
  a.tensor_model_parallel_size = 2;
  a.global_batch = 32;
  a.num_layers = 4;
  a.hidden_size = 4096;
  a.num_attention_heads = 32;
  a.ffn_hidden_size = 11008;
  a.swiglu = true;
  a.enable_sequence_parallel = true;
  const aicb::aicb_workload w(a);
  CHECK(w.total_params() == 650'674'176);
  CHECK(w.moe_params() == 0);
  CHECK(w.size() == 86);  // 1 + 2 + 4 x (1 + 4 x 4 + 1 + 1) + 7
  std::vector<aicb::record> rs;
  auto stream = w.records();
  for (const auto& r : stream)
    rs.push_back(r);
  CHECK(rs.size() == 86);
  CHECK(rs[0].name == "grad_norm");
  CHECK(rs[0].forward.comm.size.count() == 2 * 650'674'176ULL);
  CHECK(rs[0].weight_grad.comm.size.count() == 4 * 650'674'176ULL);
  // The embedding item: NONE with a size (aicb BUG-10).
  CHECK(rs[3].name == "embedding_layer");
  CHECK_FALSE(rs[3].forward.comm.active());
  CHECK(rs[3].forward.comm.size.count() == 2 * 2048 * 4096);
  CHECK(w.header().vpp == 4);
  CHECK(w.header().ga == 4);
}

TEST_CASE("aicb compat: pp_comm is an integer without SP and a Python float with it", "[generate][aicb]") {
  aicb::aicb_args a;
  a.world_size = 16;
  a.tensor_model_parallel_size = 2;
  a.pipeline_model_parallel = 2;
  a.global_batch = 32;
  a.micro_batch = 2;
  a.num_layers = 4;
  a.hidden_size = 4096;
  a.num_attention_heads = 32;
  CHECK(aicb::aicb_workload(a).header().pp_comm == "33554432");
  a.enable_sequence_parallel = true;
  CHECK(aicb::aicb_workload(a).header().pp_comm == "16777216.0");
}

TEST_CASE("aicb compat: configurations aicb crashes on are clear errors", "[generate][aicb]") {
  aicb::aicb_args a;
  a.frame = "DeepSeek";
  a.enable_sequence_parallel = true;
  CHECK_THROWS_WITH(aicb::aicb_workload(a), Catch::Contains("BUG-04"));
  a = {};
  a.tensor_model_parallel_size = 2;
  a.world_size = 2;
  a.ffn_hidden_size = 1001;
  CHECK_THROWS_WITH(aicb::aicb_workload(a), Catch::Contains("ffn_hidden_size (1001) must be divisible"));
  a = {};
  a.aiob_enable = true;
  CHECK_THROWS_WITH(aicb::aicb_workload(a), Catch::Contains("--comp_filepath"));
}

TEST_CASE("aicb compat: aicb fails where its generator reaches the entry, not before", "[generate][aicb]") {
  // DeepSeek with sequence parallelism and no AIOB crashes on the first attention_linear entry
  // (BUG-04) — but 2 layers over 4 stages is 0 layers per stage: there is none, and aicb writes
  // its file (the embedding and the final column each micro batch, with embedding_norm).
  aicb::aicb_args a;
  a.frame = "DeepSeek";
  a.world_size = 64;
  a.tensor_model_parallel_size = 4;
  a.pipeline_model_parallel = 4;
  a.global_batch = 13;
  a.micro_batch = 1;
  a.seq_length = 512;
  a.num_layers = 2;
  a.hidden_size = 2056;
  a.num_attention_heads = 32;
  a.ffn_hidden_size = 512;
  a.swiglu = true;
  a.recompute_activations = true;
  a.enable_sequence_parallel = true;
  a.moe_enable = true;
  a.num_experts = 4;
  a.expert_model_parallel_size = 4;
  a.moe_router_topk = 1;
  a.moe_grouped_gemm = true;
  a.n_dense_layers = 1;
  a.n_shared_expert = 2;
  a.q_lora_rank = 0;
  a.kv_lora_rank = 512;
  const aicb::aicb_workload w(a);
  CHECK(w.derived().layers == 0);
  CHECK(w.size() == 17);  // the records aicb's generator writes for these flags
  std::uint64_t records = 0;
  w.for_each_run([&](const aicb::record_run& run) { records += run.records.size() * run.times; });
  CHECK(records == w.size());
  // One layer per stage reaches the entry: aicb's crash.
  a.num_layers = 4;
  CHECK_THROWS_WITH(aicb::aicb_workload(a), Catch::Contains("BUG-04"));
}

TEST_CASE("aicb compat: the SimAI generator takes only aicb's Megatron and DeepSeek frames",
          "[generate][aicb]") {
  aicb::aicb_args a;
  a.frame = "DeepSpeed";
  CHECK_THROWS_WITH(aicb::aicb_workload(a), Catch::Contains("--frame Megatron or DeepSeek"));
}

namespace {
// The records of `w`'s runs, expanded, and the number of runs.
std::pair<std::vector<aicb::record>, std::size_t> expanded_runs(const aicb::aicb_workload& w) {
  std::vector<aicb::record> out;
  std::size_t runs = 0;
  w.for_each_run([&](const aicb::record_run& run) {
    ++runs;
    for (std::uint64_t i = 0; i < run.times; ++i)
      out.insert(out.end(), run.records.begin(), run.records.end());
  });
  return {out, runs};
}
}  // namespace

TEST_CASE("aicb compat: the runs a writer copies are exactly the records, in order", "[generate][aicb]") {
  for (const bool sp : {false, true})
    for (const std::uint64_t ga : {1, 2, 5}) {
      INFO("sp " << sp << " ga " << ga);
      aicb::aicb_args a;
      a.world_size = 16;
      a.tensor_model_parallel_size = 2;
      a.global_batch = 8 * ga;
      a.num_layers = 3;
      a.hidden_size = 1024;
      a.num_attention_heads = 16;
      a.ffn_hidden_size = 4096;
      a.enable_sequence_parallel = sp;
      const aicb::aicb_workload w(a);
      std::vector<aicb::record> streamed;
      auto stream = w.records();
      for (const auto& r : stream)
        streamed.push_back(r);
      const auto [expanded, runs] = expanded_runs(w);
      CHECK(expanded == streamed);
      CHECK(runs == 3);  // the prologue, one micro batch repeated, the epilogue
    }
  // With a profile, times carried from entry to entry may differ between micro batches: one record
  // per run, still the same records.
  aicb::aicb_args a;
  a.world_size = 8;
  a.tensor_model_parallel_size = 2;
  a.global_batch = 12;
  a.num_layers = 2;
  a.hidden_size = 1024;
  a.num_attention_heads = 16;
  a.ffn_hidden_size = 4096;
  a.aiob_enable = true;
  aicb::aiob_profile profile;
  profile.sections = {{"attention_forward", {{false, "time_gpu_avg", "5"}}},
                      {"mlp_backward", {{false, "time_gpu_avg", "7"}}}};
  const aicb::aicb_workload w(a, profile);
  std::vector<aicb::record> streamed;
  auto stream = w.records();
  for (const auto& r : stream)
    streamed.push_back(r);
  const auto [expanded, runs] = expanded_runs(w);
  CHECK(expanded == streamed);
  CHECK(runs == streamed.size());
}
