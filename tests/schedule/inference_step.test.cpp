// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// One serving step's operations, bytes and FLOPs against values derived here by hand from the
// formulas of docs/inference.md.
#include <aicb/calc/params.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/schedule/inference_step.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using u64 = std::uint64_t;

// The operations of layer `layer`, by name (the first of each name).
const aicb::operation& find(const aicb::inference_step& step, u64 layer, std::string_view name) {
  for (const aicb::operation& op : step.operations())
    if (op.layer == layer && op.name == name) return op;
  FAIL("no " << name << " in layer " << layer);
  static aicb::operation none;
  return none;
}
double gemm_flops(double m, double k, double n, double batch = 1) { return 2 * batch * m * k * n; }
double gemm_bytes(double m, double k, double n, double e, double batch = 1) {
  return batch * (m * k + k * n + m * n) * e;
}

}  // namespace

TEST_CASE("inference step: DeepSeek-V3 decode, DP-attention 8 + EP 8, by hand", "[schedule][inference]") {
  // 256 requests over 8 DP-attention groups: 32 requests x 1 token per GPU; context 4096; FP8 weights.
  const aicb::serving_spec s{.phase = aicb::inference_phase::decode,
                             .batch = 256,
                             .context = 4096,
                             .attention_data_parallel = 8,
                             .expert_parallel = 8,
                             .weights = aicb::dtype::fp8};
  const aicb::inference_step step(aicb::presets::deepseek_v3, s, 5);
  const double m = 32, h = 7168, heads = 128, ctx = 4096;
  CHECK(step.tokens() == 32);
  CHECK(step.expert_input_tokens() == 32);  // TP 1: nothing scattered

  // MLA, weight-absorbed: every GEMM's FLOPs and bytes (FP8: 1 byte per element).
  const auto gemm = [&](std::string_view name, double mm, double k, double n, double batch = 1,
                        aicb::dtype type = aicb::dtype::fp8) {
    const aicb::operation& op = find(step, 3, name);
    INFO(name);
    CHECK(op.compute.flops() == Approx(gemm_flops(mm, k, n, batch)));
    CHECK(op.compute.bytes() == Approx(gemm_bytes(mm, k, n, aicb::size_of(type), batch)));
    CHECK(op.compute.type == type);
  };
  gemm("mla_q_down", m, h, 1536);
  gemm("mla_q_up", m, 1536, heads * (128 + 64));
  gemm("mla_kv_down", m, h, 512 + 64);
  gemm("mla_absorb_k", m, 128, 512, heads);
  gemm("mla_absorb_v", m, 512, 128, heads);
  gemm("attention_out", m, heads * 128, h);
  gemm("moe_router", m, h, 256, 1, aicb::dtype::bf16);  // the gate stays in 16 bits
  // 32 experts on this GPU, each receiving 32 tokens x 8 GPUs x top-8 / 256 experts = 8 tokens.
  gemm("moe_fc1", 8, h, 2 * 2048, 32);
  gemm("moe_fc2", 8, 2048, h, 32);
  gemm("shared_fc1", m, h, 2 * 2048);
  gemm("shared_fc2", m, 2048, h);
  // Core attention over one 576-wide latent head, read once (BF16 cache): 2·128·(576 + 512) FLOPs per
  // (query, context token) — 278,528.
  const aicb::operation& core = find(step, 3, "attention_core");
  CHECK(core.compute.flops() == Approx(32 * 1 * ctx * 278528.0));
  CHECK(core.compute.bytes() == Approx(32 * (heads * 576 + heads * 512 + ctx * 576) * 2.0));
  // RoPE in place on the 128 queries' and the one key's 64-wide rotary parts (BF16): read and written.
  const aicb::operation& rotary = find(step, 3, "rotary");
  CHECK(rotary.compute.role == aicb::op_role::rotary);
  CHECK(rotary.compute.bytes() == Approx(2 * 32 * (heads + 1) * 64 * 2.0));
  // A dense layer's MLP (18432).
  const aicb::operation& fc1 = find(step, 0, "mlp_fc1");
  CHECK(fc1.compute.flops() == Approx(gemm_flops(m, h, 2 * 18432)));

  // DeepEP low-latency: dispatch 32·8·(7168 + 7168/128·4 + 16) = 7408 B per (token, expert); combine 32·8·2h.
  const aicb::operation& dispatch = find(step, 3, "moe_dispatch");
  CHECK(dispatch.kind == aicb::collective::all_to_all);
  CHECK(dispatch.group.kind == aicb::group_kind::ep);
  CHECK(dispatch.group_size == 8);
  CHECK(dispatch.size.count() == 32 * 8 * 7408);
  CHECK(dispatch.size.count() == 1896448);
  CHECK(find(step, 3, "moe_combine").size.count() == 32 * 8 * 2 * 7168);
  for (const aicb::operation& op : step.operations())  // TP 1: no TP collective at all
    if (op.type == aicb::op_type::collective) CHECK(op.group.kind == aicb::group_kind::ep);

  // Weights per GPU: attention (replicated over DP-attention) in all 61 layers, 3 dense MLPs, 58 MoE
  // layers of 32 experts + 1 shared + the router, the embedding and the output layer.
  const u64 attention =
      7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 128 * 128 * 512 + 128 * 512 * 128 + 128 * 128 * 7168;
  const u64 expert = 3ull * 7168 * 2048;
  // And the norms, whole: two per layer, MLA's latent norms (1536, 512), the final norm.
  const u64 norms = 61 * (2 * 7168 + 1536 + 512) + 7168;
  const u64 expected = 61 * attention + 3 * (3ull * 7168 * 18432) + 58 * (32 * expert + expert + 7168 * 256) +
                       2ull * 129280 * 7168 + norms;
  CHECK(step.weights() == expected);
  // FP8, but for the embedding table and the LM head, which the FP8 checkpoint keeps in BF16: 2 bytes
  // each for 2 x 129280 x 7168 of them.
  const double wide = 2.0 * 129280 * 7168;
  CHECK(step.weight_bytes() == Approx(static_cast<double>(expected) + wide));
  // The LM head's GEMM runs in BF16 too; the layers' in FP8.
  for (const aicb::operation& op : step.operations())
    if (op.type == aicb::op_type::compute && op.name == "logits") {
      CHECK(op.compute.type == aicb::dtype::bf16);
      CHECK(op.compute.bytes() == Approx(gemm_bytes(m, h, 129280, 2)));
    }
  // KV cache: the latent and the rotary key, 576 BF16 values per layer: 70,272 B per token.
  CHECK(step.kv_bytes_per_token() == 70272);
  CHECK(step.model_kv_bytes_per_token() == 70272);
  CHECK(step.kv_bytes() == Approx(32.0 * 4096 * 70272));
}

TEST_CASE("inference step: Qwen3-235B decode, TP 4 + EP 8, by hand", "[schedule][inference]") {
  // 64 requests over 2 DP-attention groups of TP 4: 32 tokens per group, scattered to 8 per GPU for
  // the experts; context 2048; BF16.
  const aicb::serving_spec s{.phase = aicb::inference_phase::decode,
                             .batch = 64,
                             .context = 2048,
                             .tensor_parallel = 4,
                             .attention_data_parallel = 2,
                             .expert_parallel = 8};
  const aicb::inference_step step(aicb::presets::qwen3_235b_a22b, s, 6);
  const double m = 32, h = 4096;
  CHECK(step.tokens() == 32);
  CHECK(step.expert_input_tokens() == 8);
  // GQA: 16 query heads and 1 KV head per GPU, head 128.
  const aicb::operation& qkv = find(step, 10, "attention_qkv");
  CHECK(qkv.compute.flops() == Approx(gemm_flops(m, h, (16 + 2) * 128)));
  CHECK(qkv.compute.bytes() == Approx(gemm_bytes(m, h, (16 + 2) * 128, 2)));
  const aicb::operation& core = find(step, 10, "attention_core");
  CHECK(core.compute.flops() ==
        Approx(32 * 16 * 2048 * 2.0 * (128 + 128)));  // 32,768 per (query, token) / 2 heads
  CHECK(core.compute.bytes() == Approx(32 * (2 * 16 * 128 + 2 * 2048 * 128) * 2.0));  // one KV head read once
  // The attention's output reduce-scattered over TP, the layer's output all-gathered: 2·32·h each.
  const aicb::operation& rs = find(step, 10, "attention_output_scatter");
  CHECK(rs.kind == aicb::collective::reduce_scatter);
  CHECK(rs.group.kind == aicb::group_kind::tp);
  CHECK(rs.group_size == 4);
  CHECK(rs.size.count() == 2 * 32 * 4096);
  CHECK(find(step, 10, "moe_output_gather").size.count() == 2 * 32 * 4096);
  // Dispatch FP8, 8 tokens x top-8 messages of 4096 + 128 + 16 B; combine BF16.
  CHECK(find(step, 10, "moe_dispatch").size.count() == 8 * 8 * (4096 + 4096 / 128 * 4 + 16));
  CHECK(find(step, 10, "moe_combine").size.count() == 8 * 8 * 2 * 4096);
  CHECK(find(step, 10, "moe_dispatch").group_size == 8);
  // 16 experts per GPU, each 8 tokens x 8 GPUs x 8 / 128 = 4 tokens.
  const aicb::operation& fc1 = find(step, 10, "moe_fc1");
  CHECK(fc1.compute.flops() == Approx(gemm_flops(4, h, 2 * 1536, 16)));
  // Weights: attention over TP 4, 16 experts whole, the router, vocabulary over TP 4 twice (untied).
  const u64 attention = 4096ull * 18 * 128 + 16ull * 128 * 4096;
  // And the norms, whole: two per layer, the q and k norms of 128, the final norm.
  const u64 norms = 94 * (2 * 4096 + 2 * 128) + 4096;
  const u64 expected =
      94 * (attention + 16 * 3ull * 4096 * 1536 + 4096ull * 128) + 2ull * (151936 / 4) * 4096 + norms;
  CHECK(step.weights() == expected);
  CHECK(step.weight_bytes() == Approx(2.0 * static_cast<double>(expected)));
  // KV: 2 (K, V) x 1 head x 128 x 2 B x 94 layers per GPU; the model's 4 heads: 192,512 B.
  CHECK(step.kv_bytes_per_token() == 2 * 128 * 2 * 94);
  CHECK(step.model_kv_bytes_per_token() == 192512);

  // 30 tokens a group do not split evenly over TP 4: each GPU routes 8 (the last share padded), as
  // with 32; and TP 8 without DP-attention (experts over all 8 GPUs) routes 1 of a group's 5 tokens.
  aicb::serving_spec uneven = s;
  uneven.batch = 60;
  const aicb::inference_step padded(aicb::presets::qwen3_235b_a22b, uneven, 6);
  CHECK(padded.tokens() == 30);
  CHECK(padded.expert_input_tokens() == 8);
  CHECK(find(padded, 10, "moe_dispatch").size.count() == find(step, 10, "moe_dispatch").size.count());
  CHECK(find(padded, 10, "moe_output_gather").size.count() == 2 * 30 * 4096);
  const aicb::inference_step tp8(aicb::presets::qwen3_235b_a22b,
                                 {.phase = aicb::inference_phase::decode,
                                  .batch = 5,
                                  .context = 2048,
                                  .tensor_parallel = 8,
                                  .expert_parallel = 8},
                                 6);
  CHECK(tp8.expert_input_tokens() == 1);
  CHECK(find(tp8, 10, "moe_dispatch").size.count() == 1 * 8 * (4096 + 4096 / 128 * 4 + 16));
}

TEST_CASE("inference step: prefill, DeepEP's normal kernels send one message per destination GPU",
          "[schedule][inference]") {
  // Uniform routing over 256 experts, top-8: 5.29, 6.52 and 7.27 distinct GPUs at EP 8, 16, 32.
  CHECK(aicb::expected_destinations(256, 8, 8) == Approx(5.29).margin(0.005));
  CHECK(aicb::expected_destinations(256, 8, 16) == Approx(6.52).margin(0.005));
  CHECK(aicb::expected_destinations(256, 8, 32) == Approx(7.27).margin(0.005));
  // DeepSeek-V3 routes within 4 of its 8 groups of 32 experts (n_group 8, topk_group 4), the 8 experts
  // uniformly among the 128 of the chosen groups. EP 8, a group per GPU: 8 · 4/8 · (1 − C(96,8)/C(128,8))
  // = 3.63; EP 32, a quarter group per GPU: 32 · 4/8 · (1 − C(120,8)/C(128,8)) = 6.60; 4 nodes of two
  // groups each: one of a node's groups chosen with probability C(2,1)·C(6,3)/C(8,4) = 4/7, both 3/14,
  // 4 · (4/7 · (1 − C(96,8)/C(128,8)) + 3/14 · (1 − C(64,8)/C(128,8))) = 2.93.
  CHECK(aicb::expected_destinations(256, 8, 8, 8, 4) == Approx(3.629).margin(0.0005));
  CHECK(aicb::expected_destinations(256, 8, 32, 8, 4) == Approx(6.597).margin(0.0005));
  CHECK(aicb::expected_destinations(256, 8, 4, 8, 4) == Approx(2.928).margin(0.0005));
  // Every group chosen, or one group: routing over all experts.
  CHECK(aicb::expected_destinations(256, 8, 8, 8, 8) == aicb::expected_destinations(256, 8, 8));
  CHECK(aicb::expected_destinations(256, 8, 8, 1, 1) == aicb::expected_destinations(256, 8, 8));
  const aicb::serving_spec s{.phase = aicb::inference_phase::prefill,
                             .batch = 8,
                             .prompt = 4096,
                             .attention_data_parallel = 8,
                             .expert_parallel = 8,
                             .weights = aicb::dtype::fp8};
  const aicb::inference_step step(aicb::presets::deepseek_v3, s);
  const double tokens = 4096, d = aicb::expected_destinations(256, 8, 8, 8, 4);
  CHECK(find(step, 5, "moe_dispatch").size.count() ==
        static_cast<u64>(std::llround(tokens * d * (7168 + 224))));
  CHECK(find(step, 5, "moe_combine").size.count() == static_cast<u64>(std::llround(tokens * d * 2 * 7168)));
  // Prefill decompresses the latent: causal attention over 192-wide keys and 128-wide values,
  // 81,920 FLOPs per (query, key) pair for 128 heads, half of the pairs.
  const aicb::operation& core = find(step, 5, "attention_core");
  CHECK(core.compute.causal);
  CHECK(core.compute.flops() == Approx(81920.0 * 4096 * 4096 / 2));
  // RoPE in place on the 64-wide rotary parts (128 query heads and the one key), then each head's
  // key joined from its 128-wide no-position part and the shared rotary key: 128 × 192 written,
  // 128 × 128 + 64 read per token (BF16).
  CHECK(find(step, 5, "rotary").compute.bytes() == Approx(2 * tokens * 129 * 64 * 2.0));
  CHECK(find(step, 5, "mla_key_join").compute.bytes() == Approx(tokens * (128 * 192 + 128 * 128 + 64) * 2.0));
  // With drafts, the MTP module runs once over the prompt: its input projection (2h -> h) over every
  // prompt token, its head on each request's last token only.
  aicb::serving_spec drafting = s;
  drafting.mtp_drafts = 2;
  const aicb::inference_step with_module(aicb::presets::deepseek_v3, drafting);
  std::size_t projections = 0, heads = 0;
  for (const aicb::operation& op : with_module.operations()) {
    if (op.layer != 61) continue;
    if (op.name == "mtp_eh_proj") {
      ++projections;
      CHECK(op.compute.m == 4096);
      CHECK(op.compute.k == 2 * 7168);
    }
    if (op.name == "logits") {
      ++heads;
      CHECK(op.compute.m == 1);
    }
  }
  CHECK(projections == 1);  // once, whatever the drafts
  CHECK(heads == 1);
  // Only each request's last token reaches the output layer.
  bool found = false;
  for (const aicb::operation& op : step.operations())
    if (op.name == "logits") {
      CHECK(op.compute.m == 1);
      found = true;
    }
  CHECK(found);
}

TEST_CASE("inference step: experts over TP, drafts, and what cannot be served", "[schedule][inference]") {
  // Experts sharded over TP with the attention: all-reduces, no all-to-all.
  const aicb::serving_spec tp{
      .phase = aicb::inference_phase::decode, .batch = 8, .context = 1024, .tensor_parallel = 4};
  const aicb::inference_step a(aicb::presets::qwen3_30b_a3b, tp);
  u64 all_reduce = 0;
  for (const aicb::operation& op : a.operations()) {
    CHECK(op.kind != aicb::collective::all_to_all);
    all_reduce += op.kind == aicb::collective::all_reduce;
  }
  CHECK(all_reduce == 1 + 2 * 48);  // the embedding's, then attention and experts per layer
  // MTP drafts: 1 + 3 tokens verified per request, and the module's layer run once per draft.
  const aicb::serving_spec mtp{.phase = aicb::inference_phase::decode,
                               .batch = 8,
                               .context = 1024,
                               .attention_data_parallel = 8,
                               .expert_parallel = 8,
                               .mtp_drafts = 3};
  const aicb::inference_step b(aicb::presets::deepseek_v3, mtp);
  CHECK(b.tokens() == 4);
  u64 projections = 0;
  for (const aicb::operation& op : b.operations())
    projections += op.name == "mtp_eh_proj";
  CHECK(projections == 3);
  const auto refused = [](aicb::serving_spec s, const std::string& says) {
    CHECK_THROWS_WITH(aicb::inference_step(aicb::presets::deepseek_v3, s), Catch::Contains(says));
  };
  refused({.phase = aicb::inference_phase::decode, .batch = 10, .context = 8, .attention_data_parallel = 8},
          "multiple");
  refused({.phase = aicb::inference_phase::decode, .batch = 8, .context = 0}, "context");
  refused({.phase = aicb::inference_phase::prefill, .batch = 8, .prompt = 0}, "prompt");
  refused({.phase = aicb::inference_phase::decode,
           .batch = 8,
           .context = 8,
           .attention_data_parallel = 8,
           .expert_parallel = 4},
          "partial expert groups");
  refused({.phase = aicb::inference_phase::decode, .batch = 8, .context = 8, .tensor_parallel = 3}, "divide");
}

TEST_CASE("inference step: Qwen3-235B prefill, TP 4 + EP 8, by hand", "[schedule][inference]") {
  // 4 requests of 2048 tokens over 2 DP-attention groups: 4096 tokens per group, 1024 per GPU for the
  // experts.
  const aicb::serving_spec s{.phase = aicb::inference_phase::prefill,
                             .batch = 4,
                             .prompt = 2048,
                             .tensor_parallel = 4,
                             .attention_data_parallel = 2,
                             .expert_parallel = 8};
  const aicb::inference_step step(aicb::presets::qwen3_235b_a22b, s, 1);
  CHECK(step.tokens() == 4096);
  CHECK(step.expert_input_tokens() == 1024);
  // Causal GQA over the prompt: 2 requests x 1 local KV head, its 16 query heads' 2048 tokens.
  const aicb::operation& core = find(step, 7, "attention_core");
  CHECK(core.compute.causal);
  CHECK(core.compute.flops() == Approx(2.0 * 2 * (16 * 2048) * 2048 * (128 + 128) * 0.5));
  // RoPE in place over the GPU's 16 query heads and its one KV head of 4096 tokens (BF16).
  CHECK(find(step, 7, "rotary").compute.bytes() == Approx(2 * 4096 * (16 + 1) * 128 * 2.0));
  // Normal kernels: one FP8 message per distinct destination GPU, no header.
  const double d = aicb::expected_destinations(128, 8, 8);
  CHECK(find(step, 7, "moe_dispatch").size.count() ==
        static_cast<u64>(std::llround(1024 * d * (4096 + 4096 / 128 * 4))));
  CHECK(find(step, 7, "moe_combine").size.count() == static_cast<u64>(std::llround(1024 * d * 2 * 4096)));
  CHECK(find(step, 7, "attention_output_scatter").size.count() == 2 * 4096 * 4096);
  // 16 experts per GPU, each 1024 tokens x 8 GPUs x 8 / 128 = 512 tokens.
  CHECK(find(step, 7, "moe_fc2").compute.flops() == Approx(gemm_flops(512, 1536, 4096, 16)));
  // The prompt's KV cache written: 2 requests x 2048 tokens x 2 x 1 head x 128 x 2 B x 94 layers.
  CHECK(step.kv_bytes() == Approx(2.0 * 2048 * (2 * 128 * 2 * 94)));
}

TEST_CASE("inference step: prefill attends in FP8 over an FP8 cache of per-head keys and values",
          "[schedule][inference]") {
  // Llama-3 8B, one prompt of 1024 tokens: its causal attention in the cache's format when that is
  // FP8 (twice the BF16 tensor rate on the same FLOPs), in BF16 over a BF16 cache; DeepSeek-V3's MLA
  // prefill attends its decompressed heads in BF16 whatever its latent cache holds.
  aicb::serving_spec s{.phase = aicb::inference_phase::prefill, .batch = 1, .prompt = 1024};
  const auto core_type = [&](const aicb::model_spec& m) {
    const aicb::inference_step step(m, s, 0);
    return find(step, 0, "attention_core").compute.type;
  };
  CHECK(core_type(aicb::presets::llama3_8b) == aicb::dtype::bf16);
  s.kv_cache = aicb::dtype::fp8;
  CHECK(core_type(aicb::presets::llama3_8b) == aicb::dtype::fp8);
  const aicb::inference_step fp8(aicb::presets::llama3_8b, s, 0);
  CHECK(find(fp8, 0, "attention_core").compute.flops() == Approx(2.0 * 8 * (4 * 1024) * 1024 * 256 * 0.5));
  s.tensor_parallel = 8;
  CHECK(core_type(aicb::presets::deepseek_v3) == aicb::dtype::bf16);
}

TEST_CASE("inference step: a decode step of few requests runs only the experts its tokens chose",
          "[schedule][inference]") {
  // DeepSeek-V3 on 8 GPUs with its experts split over TP: one request's token picks 8 of the 256
  // experts, so the grouped GEMMs run 8 experts of one row (each GPU its TP slice of them) and read
  // 8 experts' weights, not 256; every expert's weights are still held. 512 requests reach them
  // all: 1 - (1 - 8/256)^512 rounds to every expert, 16 rows each.
  aicb::serving_spec s{.phase = aicb::inference_phase::decode,
                       .batch = 1,
                       .context = 2048,
                       .tensor_parallel = 8,
                       .weights = aicb::dtype::fp8};
  const double h = 7168, slice = 2048 / 8;
  const aicb::inference_step one(aicb::presets::deepseek_v3, s, 0);
  const aicb::operation& fc1 = find(one, 3, "moe_fc1");
  CHECK(fc1.compute.batch == 8);
  CHECK(fc1.compute.m == 1);
  CHECK(fc1.compute.bytes() == Approx(gemm_bytes(1, h, 2 * slice, 1, 8)));
  CHECK(one.weight_bytes() > 256.0 * 3 * h * slice * 58);  // the held experts
  s.batch = 512;
  const aicb::inference_step many(aicb::presets::deepseek_v3, s, 0);
  CHECK(find(many, 3, "moe_fc1").compute.batch == 256);
  CHECK(find(many, 3, "moe_fc1").compute.m == 16);
  CHECK(many.weight_bytes() == Approx(one.weight_bytes()));
}

TEST_CASE("inference step: Qwen3-Next-80B decode and prefill, TP 2 + EP 4, by hand",
          "[schedule][inference]") {
  const aicb::model_spec next = aicb::presets::qwen3_next_80b_a3b;
  const double h = 2048;
  // Layers 0-2 Gated DeltaNet, 3 gated softmax attention, and so on: 36 + 12.
  CHECK(next.is_linear_attention_layer(0));
  CHECK(next.is_linear_attention_layer(2));
  CHECK_FALSE(next.is_linear_attention_layer(3));
  CHECK(next.num_linear_attention_layers() == 36);

  // Decode: 64 requests over 2 DP-attention groups of TP 2: 32 tokens per group, 16 per GPU for the
  // experts; context 4096; BF16.
  const aicb::serving_spec s{.phase = aicb::inference_phase::decode,
                             .batch = 64,
                             .context = 4096,
                             .tensor_parallel = 2,
                             .attention_data_parallel = 2,
                             .expert_parallel = 4};
  const aicb::inference_step step(next, s, 3);
  const double m = 32;
  CHECK(step.tokens() == 32);
  CHECK(step.expert_input_tokens() == 16);

  // Gated DeltaNet on a TP rank: 8 key heads (1024 wide), 16 value heads (2048 wide), heads of 128.
  const double key = 1024, value = 2048, value_heads = 16, dk = 128, dv = 128;
  const aicb::operation& qkvz = find(step, 0, "gdn_in_proj_qkvz");
  CHECK(qkvz.compute.flops() == Approx(gemm_flops(m, h, 2 * key + 2 * value)));
  CHECK(qkvz.compute.bytes() == Approx(gemm_bytes(m, h, 2 * key + 2 * value, 2)));
  CHECK(find(step, 0, "gdn_in_proj_ba").compute.flops() == Approx(gemm_flops(m, h, 2 * value_heads)));
  CHECK(find(step, 0, "gdn_conv").compute.bytes() == Approx(m * (2 * key + value) * 2 * 2));
  // The gated delta rule, one token per request and head: 6·dk·dv on the state plus (dk + dv) within
  // the one-token chunk; the state read and written, q, k, v and the output.
  const aicb::operation& gdn = find(step, 0, "gdn_core");
  CHECK(gdn.compute.kind == aicb::op_kind::linear_attention);
  CHECK(gdn.compute.flops() == Approx(32 * value_heads * (6 * dk * dv + dk + dv)));
  CHECK(gdn.compute.bytes() == Approx(32 * value_heads * ((2 * dk + 2 * dv) + 2 * dk * dv) * 2));
  CHECK(find(step, 0, "gdn_out").compute.flops() == Approx(gemm_flops(m, value, h)));
  // No softmax attention, no KV cache read in a linear layer.
  for (const aicb::operation& op : step.operations())
    if (op.layer == 0) CHECK(op.compute.kind != aicb::op_kind::attention);

  // Gated softmax attention (layer 3): 8 query heads with their gates, 1 KV head, heads of 256.
  const aicb::operation& qkv = find(step, 3, "attention_qkv");
  CHECK(qkv.compute.flops() == Approx(gemm_flops(m, h, (2 * 8 + 2 * 1) * 256)));
  const aicb::operation& core = find(step, 3, "attention_core");
  CHECK(core.compute.flops() == Approx(2.0 * 32 * 8 * 4096 * (256 + 256)));
  CHECK(core.compute.bytes() == Approx(32 * (2 * 8 * 256 + 2 * 4096 * 256) * 2.0));
  CHECK(find(step, 3, "attention_gate").compute.bytes() == Approx(m * 8 * 256 * 3 * 2));
  CHECK(find(step, 3, "attention_out").compute.flops() == Approx(gemm_flops(m, 8 * 256, h)));

  // Every layer's experts: reduce-scatter over TP, FP8 dispatch of 16 tokens x top-10, combine BF16;
  // the 64 routed tokens reach each of the 128 local experts with probability 1 - (1 - 10/512)^64
  // (0.717: 92 of them), which share the 16 x 4 GPUs x 10 / 512 x 128 = 160 rows arriving, 2 each
  // (rounded up); the shared expert and its gate on the GPU's 16 tokens, the all-gather.
  for (const u64 layer : {u64{0}, u64{3}}) {
    INFO("layer " << layer);
    CHECK(find(step, layer, "attention_output_scatter").size.count() == 2 * 32 * 2048);
    CHECK(find(step, layer, "moe_dispatch").size.count() == 16 * 10 * (2048 + 2048 / 128 * 4 + 16));
    CHECK(find(step, layer, "moe_combine").size.count() == 16 * 10 * 2 * 2048);
    CHECK(find(step, layer, "moe_dispatch").group_size == 4);
    const aicb::operation& fc1 = find(step, layer, "moe_fc1");
    CHECK(fc1.compute.batch == 92);
    CHECK(fc1.compute.flops() == Approx(gemm_flops(2, h, 2 * 512, 92)));
    CHECK(fc1.compute.bytes() == Approx(gemm_bytes(2, h, 2 * 512, 2, 92)));
    CHECK(find(step, layer, "shared_fc1").compute.flops() == Approx(gemm_flops(16, h, 2 * 512)));
    CHECK(find(step, layer, "shared_expert_gate").compute.flops() == Approx(gemm_flops(16, h, 1)));
    CHECK(find(step, layer, "moe_output_gather").size.count() == 2 * 32 * 2048);
  }

  // Weights per GPU: 12 gated attention blocks over TP 2, 36 Gated DeltaNet blocks over TP 2 (the
  // projections, the convolution's filters, A and dt bias per value head, one head's norm weight),
  // per layer the router, 128 whole experts, the shared expert and its gate; vocabulary over TP 2
  // twice (untied).
  const u64 attention = 2048ull * (2 * 8 + 2) * 256 + 8ull * 256 * 2048;
  const u64 linear =
      2048ull * (2 * 1024 + 2 * 2048) + 2048ull * 32 + (2 * 1024 + 2048) * 4ull + 32 + 128 + 2048ull * 2048;
  const u64 experts = 2048ull * 512 + 128 * 3ull * 2048 * 512 + 3ull * 2048 * 512 + 2048;
  // And the norms, whole on every GPU: two per layer, the q/k norms of the softmax layers, the final.
  const u64 norms = 48 * 2 * 2048ull + 12 * 2 * 256 + 2048;
  const u64 expected = 12 * attention + 36 * linear + 48 * experts + 2ull * (151936 / 2) * 2048 + norms;
  CHECK(step.weights() == expected);

  // KV: 12 softmax layers x 2 (K, V) x 1 head x 256 x 2 B per GPU; the model's 2 heads: 24,576 B.
  CHECK(step.kv_bytes_per_token() == 12 * 2 * 256 * 2);
  CHECK(step.model_kv_bytes_per_token() == 24576);
  // State per request: 36 layers x (16 heads x 128 x 128 + 4096 channels x 3 inputs) x 2 B per GPU.
  CHECK(step.state_bytes_per_request() == 36.0 * (16 * 128 * 128 + 4096 * 3) * 2);
  CHECK(step.model_state_bytes_per_request() == 36.0 * (32 * 128 * 128 + 8192 * 3) * 2);
  CHECK(step.kv_bytes() == Approx(32 * (4096.0 * 12 * 2 * 256 * 2 + 36.0 * (16 * 128 * 128 + 4096 * 3) * 2)));

  // Prefill: 4 requests of 4096 tokens, 2 per group: 8192 tokens per group, 4096 per GPU to the experts.
  const aicb::serving_spec p{.phase = aicb::inference_phase::prefill,
                             .batch = 4,
                             .prompt = 4096,
                             .tensor_parallel = 2,
                             .attention_data_parallel = 2,
                             .expert_parallel = 4};
  const aicb::inference_step prefill(next, p, 0);
  CHECK(prefill.expert_input_tokens() == 4096);
  // Chunks of 64 tokens: per token and head 6·dk·dv on the state and 64·(dk + dv) within the chunk.
  const aicb::operation& chunked = find(prefill, 1, "gdn_core");
  CHECK(chunked.compute.flops() == Approx(2 * value_heads * 4096 * (6 * dk * dv + 64 * (dk + dv))));
  CHECK(chunked.compute.bytes() == Approx(2 * value_heads * (4096 * (2 * dk + 2 * dv) + 2 * dk * dv) * 2));
  // Causal softmax attention over the prompt: 2 requests x 1 KV head, its 8 query heads' 4096 tokens.
  const aicb::operation& causal = find(prefill, 7, "attention_core");
  CHECK(causal.compute.flops() == Approx(2.0 * 2 * (8 * 4096) * 4096 * (256 + 256) * 0.5));
  const double d = aicb::expected_destinations(512, 10, 4);
  CHECK(d == Approx(4 * (1 - 0.05466)).margin(0.001));  // C(384, 10) / C(512, 10) = 0.05466
  CHECK(find(prefill, 7, "moe_dispatch").size.count() ==
        static_cast<u64>(std::llround(4096 * d * (2048 + 64))));
  CHECK(find(prefill, 7, "moe_combine").size.count() == static_cast<u64>(std::llround(4096 * d * 2 * 2048)));

  // The linear heads are split over TP: TP must divide them.
  aicb::model_spec few = next;
  few.num_kv_heads = 16;
  few.linear_num_key_heads = 4;
  few.linear_num_value_heads = 8;
  CHECK_THROWS_WITH(
      aicb::inference_step(
          few, {.phase = aicb::inference_phase::decode, .batch = 8, .context = 8, .tensor_parallel = 8}),
      Catch::Contains("linear_num_key_heads"));
}

TEST_CASE("inference step: Llama 4 Scout decode keeps one chunk on its chunked layers, by hand",
          "[schedule][inference]") {
  // 8 requests at a 20000-token context over TP 8: one KV head of 128 per GPU, 5 query heads; BF16.
  // Layers 0-2 of every 4 attend within chunks of 8192 (36 layers), layers 3, 7, ... to everything (12).
  const aicb::serving_spec s{
      .phase = aicb::inference_phase::decode, .batch = 8, .context = 20000, .tensor_parallel = 8};
  const aicb::inference_step step(aicb::presets::llama4_scout, s);
  const double per_layer = 2.0 * 128 * 2;  // K and V of one head, BF16, per token and layer
  CHECK(step.kv_bytes_per_token() == Approx(48 * per_layer));
  // The cache a request holds: every token on the 12 full layers, the last 8192 on the 36 others.
  CHECK(step.cache_bytes_per_request() == Approx(20000 * 12 * per_layer + 8192 * 36 * per_layer));
  // The chunked layer reads the keys of its last chunk, 20000 - 16384 = 3616; the full layer all.
  const aicb::operation& chunked = find(step, 0, "attention_core");
  const aicb::operation& full = find(step, 3, "attention_core");
  CHECK(chunked.compute.flops() == Approx(2.0 * 8 * 5 * 3616 * 256));
  CHECK(full.compute.flops() == Approx(2.0 * 8 * 5 * 20000 * 256));
  CHECK(chunked.compute.bytes() == Approx(8 * (2 * 5 * 128 + 2 * 3616 * 128) * 2.0));
}

TEST_CASE("inference step: Nemotron 3 Nano keeps its Mamba-2 state in FP32, by hand",
          "[schedule][inference]") {
  // Its config asks for an FP32 SSM cache (mamba_ssm_cache_dtype): per request and M layer (23), on
  // each of 2 TP ranks, 32 heads of a 64 x 128 state in FP32 and the convolution's last 3 inputs over
  // (4096 + 2·8·128) / 2 channels in BF16.
  const aicb::serving_spec s{
      .phase = aicb::inference_phase::decode, .batch = 8, .context = 8192, .tensor_parallel = 2};
  aicb::model_spec nano = aicb::presets::nemotron3_nano_30b_a3b;
  CHECK(nano.mamba_state_fp32);
  const aicb::inference_step fp32(nano, s);
  CHECK(fp32.state_bytes_per_request() == 23.0 * (32 * 64 * 128 * 4 + 3072 * 3 * 2));
  nano.mamba_state_fp32 = false;
  const aicb::inference_step bf16(nano, s);
  CHECK(bf16.state_bytes_per_request() == 23.0 * (32 * 64 * 128 * 2 + 3072 * 3 * 2));
}

TEST_CASE("inference step: an engine that keeps the recurrent state in FP32 reads and holds twice the bytes",
          "[schedule][inference]") {
  // Qwen3-Next decoding 8 requests on one GPU: per request and Gated DeltaNet layer (36), 32 value
  // heads of a 128 x 128 state and the convolution's last 3 inputs over 8192 channels (BF16).
  const aicb::model_spec next = aicb::presets::qwen3_next_80b_a3b;
  aicb::serving_spec s{.phase = aicb::inference_phase::decode, .batch = 8, .context = 4096};
  const aicb::inference_step model_format(next, s);  // the model's: BF16
  s.recurrent_state = aicb::dtype::fp32;             // SGLang's default
  const aicb::inference_step fp32(next, s);
  CHECK(model_format.state_bytes_per_request() == 36.0 * (32 * 128 * 128 * 2 + 8192 * 3 * 2));
  CHECK(fp32.state_bytes_per_request() == 36.0 * (32 * 128 * 128 * 4 + 8192 * 3 * 2));
  // Each decoding request's scan reads and writes its state once: 2 x 128 x 128 elements per head,
  // beside one token's q, k, v in and its output out (BF16).
  const double dk = 128, dv = 128, heads = 8 * 32;
  CHECK(find(model_format, 0, "gdn_core").compute.bytes() ==
        Approx(heads * ((2 * dk + 2 * dv) * 2 + 2 * dk * dv * 2)));
  CHECK(find(fp32, 0, "gdn_core").compute.bytes() ==
        Approx(heads * ((2 * dk + 2 * dv) * 2 + 2 * dk * dv * 4)));
  // Nemotron 3 Nano's config asks for FP32; a layout can ask for BF16 instead.
  s.recurrent_state = aicb::dtype::bf16;
  const aicb::inference_step nano(aicb::presets::nemotron3_nano_30b_a3b, s);
  CHECK(nano.state_bytes_per_request() == 23.0 * (64 * 64 * 128 * 2 + 6144 * 3 * 2));
  // Only BF16 or FP32, and only for a model that has a recurrent state.
  s.recurrent_state = aicb::dtype::fp8;
  CHECK_THROWS_WITH(aicb::inference_step(next, s),
                    Catch::Contains("recurrent_state = fp8") && Catch::Contains("bf16 or fp32"));
  s.recurrent_state = aicb::dtype::fp32;
  CHECK_THROWS_WITH(aicb::inference_step(aicb::presets::llama3_8b, s), Catch::Contains("no recurrent state"));
}
