// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/flops.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

namespace {
// Narayanan et al. 2021 (SC'21), Eq. 3: FLOPs per iteration with full recomputation.
double narayanan_eq3(double B, double s, double l, double h, double V) {
  return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}
// The same without recomputation (3 passes instead of 4 for the layers).
double narayanan_no_recompute(double B, double s, double l, double h, double V) {
  return 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
}
}  // namespace

TEST_CASE("flops: dense GPT with full recompute is exactly Narayanan et al. Eq. 3", "[calc][flops]") {
  for (const auto& model :
       {aicb::presets::gpt3_175b, aicb::presets::gpt3_6_7b, aicb::presets::aicb_gpt_22b}) {
    aicb::job_spec job{model,
                       {.world_size = 64, .tensor_parallel = 8, .recompute = aicb::recompute_kind::full},
                       {.micro_batch = 1, .global_batch = 1536, .seq_length = 2048}};
    const auto m = aicb::resolve(model);
    const double expected =
        narayanan_eq3(1536, 2048, static_cast<double>(m.num_layers), static_cast<double>(m.hidden_size),
                      static_cast<double>(m.vocab_size));
    CHECK(aicb::training_flops(job).total() == Approx(expected).epsilon(1e-12));
    job.parallel.recompute = aicb::recompute_kind::none;
    const double without =
        narayanan_no_recompute(1536, 2048, static_cast<double>(m.num_layers),
                               static_cast<double>(m.hidden_size), static_cast<double>(m.vocab_size));
    CHECK(aicb::training_flops(job).total() == Approx(without).epsilon(1e-12));
    CHECK(aicb::training_flops(job).model() == Approx(without).epsilon(1e-12));
  }
}

TEST_CASE("flops: GQA, SwiGLU, selective recompute and MoE change exactly their terms", "[calc][flops]") {
  const double tokens = 4096, seq = 4096;
  aicb::model_spec m{.hidden_size = 4096, .num_layers = 1, .num_attention_heads = 32, .vocab_size = 32000};
  const auto mha = aicb::forward_layer_flops(m, 0, tokens, seq);
  CHECK(mha.gemm == Approx(24 * tokens * 4096.0 * 4096));
  CHECK(mha.core_attention == Approx(4 * tokens * seq * 4096));
  m.num_kv_heads = 8;  // K and V shrink to 1/4: QKV goes from 3h^2 to 1.5h^2
  CHECK(aicb::forward_layer_flops(m, 0, tokens, seq).gemm == Approx((24 - 3) * tokens * 4096.0 * 4096));
  m.num_kv_heads = 0;
  m.activation = aicb::activation_kind::swiglu;
  m.ffn_hidden_size = 4 * 4096;  // three matrices instead of two: +8h^2
  CHECK(aicb::forward_layer_flops(m, 0, tokens, seq).gemm == Approx(32 * tokens * 4096.0 * 4096));
  CHECK(aicb::forward_layer_flops(m, 0, tokens, seq, {.causal_halving = true}).core_attention ==
        Approx(mha.core_attention / 2));
  m.num_experts = 8;
  m.moe_top_k = 2;  // router 2·h·E plus two experts' MLPs
  const auto moe = aicb::forward_layer_flops(m, 0, tokens, seq);
  CHECK(moe.gemm ==
        Approx(8 * tokens * 4096.0 * 4096 + 2 * tokens * 4096 * 8 + 2 * 24 * tokens * 4096.0 * 4096));

  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 8, .recompute = aicb::recompute_kind::selective},
                     {.global_batch = 8, .seq_length = 4096}};
  const auto f = aicb::training_flops(job);
  const double core = 32 * aicb::forward_layer_flops(job.model, 0, 8 * 4096.0, 4096).core_attention;
  CHECK(f.recompute == Approx(core));
  CHECK(f.backward == Approx(2 * f.forward));
}
