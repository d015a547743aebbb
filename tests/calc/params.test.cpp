// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/params.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

TEST_CASE("params: components add up, by the formulas of a dense GPT layer", "[calc][params]") {
  // GPT-3 175B: 12h^2 + 13h per layer (biased QKV and output, 4h MLP, two LayerNorms), tied embedding
  // of V x h plus a 2048 x h position table, final LayerNorm 2h.
  constexpr std::uint64_t h = 12288, L = 96, V = 50257;
  constexpr auto c = aicb::count_params(aicb::presets::gpt3_175b);
  STATIC_REQUIRE(c.total() == L * (12 * h * h + 13 * h) + V * h + 2048 * h + 2 * h);
  STATIC_REQUIRE(c.output == 0);
  STATIC_REQUIRE(c.active() == c.total());
}

TEST_CASE("params: MoE active counts only top-k routed experts", "[calc][params]") {
  constexpr auto m = aicb::resolve(aicb::presets::mixtral_8x7b);
  constexpr auto c = aicb::count_params(m);
  constexpr std::uint64_t expert = 3 * m.hidden_size * m.moe_ffn_hidden_size;
  STATIC_REQUIRE(c.routed_experts == 32 * 8 * expert);
  STATIC_REQUIRE(c.active_routed == 32 * 2 * expert);
  STATIC_REQUIRE(c.router == 32 * 8 * m.hidden_size);
  STATIC_REQUIRE(c.total() - c.active() == 32 * 6 * expert);
}

TEST_CASE("params: shards over TP, PP and EP add back up to the model", "[calc][params]") {
  // Llama-2-7B on TP 2 x PP 2: the two stages' shards, times TP, recover the whole model except for
  // the replicated norms and the (here unpadded) vocabulary.
  constexpr aicb::job_spec job{
      aicb::presets::llama2_7b, {.world_size = 4, .tensor_parallel = 2, .pipeline_parallel = 2}, {}};
  constexpr auto s0 = aicb::params_on_gpu(job, 0), s1 = aicb::params_on_gpu(job, 1);
  constexpr auto c = aicb::count_params(job.model);
  constexpr std::uint64_t norms_per_layer = 2 * 4096;
  STATIC_REQUIRE((s0.total() + s1.total()) * 2 - (32 * norms_per_layer + 4096) == c.total());
  STATIC_REQUIRE(s0.expert == 0);
  // Mixtral with EP 8: each GPU holds one expert per layer; with EP 2, four.
  constexpr aicb::job_spec ep8{aicb::presets::mixtral_8x7b, {.world_size = 8, .expert_parallel = 8}, {}};
  constexpr aicb::job_spec ep2{aicb::presets::mixtral_8x7b, {.world_size = 8, .expert_parallel = 2}, {}};
  constexpr std::uint64_t expert = 3 * 4096 * 14336;
  STATIC_REQUIRE(aicb::params_on_gpu(ep8).expert == 32 * expert);
  STATIC_REQUIRE(aicb::params_on_gpu(ep2).expert == 32 * 4 * expert);
  STATIC_REQUIRE(aicb::params_on_gpu(ep8).dense == aicb::params_on_gpu(ep2).dense);
  // DeepSeek-V3 keeps its first 3 dense layers on stage 0 of a 61-layer split 13 + 16 x 3.
  constexpr aicb::job_spec v3{
      aicb::presets::deepseek_v3, {.world_size = 4, .pipeline_parallel = 4, .first_stage_layers = 13}, {}};
  STATIC_REQUIRE(aicb::stage_first_layer(v3, 2) == 29);
  constexpr auto v3s0 = aicb::params_on_gpu(v3, 0), v3s1 = aicb::params_on_gpu(v3, 1);
  STATIC_REQUIRE(v3s0.expert == 10ULL * 256 * 3 * 7168 * 2048);
  STATIC_REQUIRE(v3s1.expert == 16ULL * 256 * 3 * 7168 * 2048);
  // Its four stages hold the whole model, its MTP module and the MTP's copy of the embedding on the last
  // stage — but the router score biases (256 per MoE layer, 58 + 1 of them), which Megatron-Core keeps
  // as buffers: counted in the model, not among the trained weights of a GPU.
  constexpr std::uint64_t held = aicb::params_on_gpu(v3, 0).total() + aicb::params_on_gpu(v3, 1).total() +
                                 aicb::params_on_gpu(v3, 2).total() + aicb::params_on_gpu(v3, 3).total();
  constexpr aicb::param_counts v3_counts = aicb::count_params(aicb::presets::deepseek_v3);
  STATIC_REQUIRE(held == v3_counts.total() + v3_counts.mtp - 59 * 256 + 129280ULL * 7168);
  // Without MTP the last stage holds neither.
  constexpr aicb::job_spec no_mtp{[] {
                                    aicb::model_spec m = aicb::presets::deepseek_v3;
                                    m.num_mtp_layers = 0;
                                    return m;
                                  }(),
                                  v3.parallel, v3.batch};
  STATIC_REQUIRE(aicb::params_on_gpu(v3, 3).total() - aicb::params_on_gpu(no_mtp, 3).total() ==
                 v3_counts.mtp - 256 + 129280ULL * 7168);
}
