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

TEST_CASE("params: Qwen3-Next's hybrid layers, by hand", "[calc][params]") {
  // Gated softmax attention (12 layers): q_proj h -> 2 x 16 x 256 (queries and their gates), k and v
  // h -> 2 x 256 each, o_proj 16 x 256 -> h, q/k norms of 256.
  constexpr std::uint64_t h = 2048;
  constexpr std::uint64_t full = h * (2 * 16 * 256 + 2 * 2 * 256) + 16 * 256 * h + 2 * 256;
  // Gated DeltaNet (36 layers): key 16 x 128, value 32 x 128; in_proj_qkvz h -> 2 key + 2 value,
  // in_proj_ba h -> 2 x 32, conv over 2 key + value channels of width 4, A and dt bias per value head,
  // the gated norm over one value head, out_proj value -> h. 33.7M and 27.3M as inference.md says.
  constexpr std::uint64_t key = 16 * 128, value = 32 * 128;
  constexpr std::uint64_t linear =
      h * (2 * key + 2 * value) + h * 64 + (2 * key + value) * 4 + 2 * 32 + 128 + value * h;
  STATIC_REQUIRE(full == 27'263'488);
  STATIC_REQUIRE(linear == 33'718'464);
  constexpr auto c = aicb::count_params(aicb::presets::qwen3_next_80b_a3b);
  STATIC_REQUIRE(c.attention == 12 * full + 36 * linear);
  // 512 experts of 3 x h x 512 per layer; the shared expert and its h-weight sigmoid gate.
  STATIC_REQUIRE(c.routed_experts == 48ull * 512 * 3 * h * 512);
  STATIC_REQUIRE(c.shared_experts == 48 * (3 * h * 512 + h));
  // Qwen's model card: 80B in total and 3B activated (A3B: without embeddings, as rounded).
  CHECK(static_cast<double>(c.total()) == Approx(80e9).epsilon(0.005));
  CHECK(std::llround(static_cast<double>(c.active() - c.embedding - c.output) / 1e9) == 3);
  // A shard of TP 2: each Gated DeltaNet block's projections, filters and per-head parameters
  // halved, the norm's weight whole.
  constexpr auto gdn_weights = [](std::uint64_t tp) {
    aicb::layer_context ctx{.model = aicb::resolve(aicb::presets::qwen3_next_80b_a3b)};
    ctx.tp = tp;
    aicb::weight_tally t;
    aicb::detail::layer_writer<aicb::weight_tally>{ctx, t}.gated_deltanet_forward();
    return t.trained();
  };
  STATIC_REQUIRE(gdn_weights(1) == linear);
  STATIC_REQUIRE(gdn_weights(2) == (linear - 128) / 2 + 128);
}
