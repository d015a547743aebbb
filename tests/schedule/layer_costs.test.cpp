// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// One layer's computations, as the per-rank schedules give them to the compute models: each
// operation's FLOPs and bytes against values derived here by hand (docs/compute-model.md has the
// formulas), for a dense, a mixture-of-experts and a multi-head-latent-attention layer.
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <catch2/catch.hpp>

#include <map>
#include <string>

namespace {

// The forward computations of layer `layer` in micro batch 0 of rank 0, by name.
std::map<std::string, aicb::compute_op> layer_forward(const aicb::job_spec& job, std::uint64_t layer) {
  std::map<std::string, aicb::compute_op> ops;
  for (const aicb::operation& op : aicb::rank_schedule(aicb::with_fewest_microbatches(job), 0))
    if (op.type == aicb::op_type::compute && op.phase == aicb::op_phase::forward && op.microbatch == 0 &&
        op.layer == layer)
      ops.emplace(std::string(op.name), op.compute);
  return ops;
}

void check(const std::map<std::string, aicb::compute_op>& ops, const std::string& name, double flops,
           double bytes) {
  INFO(name);
  REQUIRE(ops.count(name) == 1);
  CHECK(ops.at(name).flops() == flops);
  CHECK(ops.at(name).bytes() == bytes);
}

}  // namespace

TEST_CASE("layer costs: a dense Llama layer on TP 2 with sequence parallelism", "[schedule][compute]") {
  // Llama-2-7B: h 4096, 32 heads of 128 (MHA), SwiGLU FFN 11008; TP 2: 16 heads and 5504 FFN columns
  // per GPU; s = 4096 tokens, 2048 of them local under SP; bf16 (2 bytes).
  const aicb::job_spec job{aicb::presets::llama2_7b,
                           {.world_size = 2, .tensor_parallel = 2, .sequence_parallel = true},
                           {.micro_batch = 1, .global_batch = 1, .seq_length = 4096}};
  const auto ops = layer_forward(job, 0);
  const double T = 4096, L = 2048, h = 4096, e = 2;
  check(ops, "input_norm", 5 * L * h, 2 * L * h * e);
  check(ops, "attention_qkv", 2 * T * h * 6144, (T * h + h * 6144 + T * 6144) * e);  // (16 + 2·16) heads
  // Fused causal attention over 16 heads: half of 4·s·s·d; Q, K, V and O read or written once.
  check(ops, "attention_core", 4 * 16 * T * T * 128 / 2, 16 * (2 * T * 128 + 2 * T * 128) * e);
  check(ops, "attention_out", 2 * T * 2048 * h, (T * 2048 + 2048 * h + T * h) * e);
  check(ops, "attention_residual", L * h, L * h * (3 * e + 1));  // x, residual in; sum, mask out
  check(ops, "post_attention_norm", 5 * L * h, 2 * L * h * e);
  check(ops, "mlp_fc1", 2 * T * h * 11008, (T * h + h * 11008 + T * 11008) * e);  // gate and up
  check(ops, "mlp_act", T * 5504, 3 * T * 5504 * e);  // SwiGLU: gate and up in, one out
  check(ops, "mlp_fc2", 2 * T * 5504 * h, (T * 5504 + 5504 * h + T * h) * e);
  check(ops, "mlp_residual", L * h, L * h * (3 * e + 1));
  // RoPE (Megatron's fused kernel): the 16 query and 16 key heads of every token each read and
  // written as a new tensor.
  check(ops, "rotary_q", T * 16 * 128, 2 * T * 16 * 128 * e);
  check(ops, "rotary_k", T * 16 * 128, 2 * T * 16 * 128 * e);
  CHECK(ops.size() == 12);

  // Unfused attention: the full score matrix, and the scores written, softmaxed, dropped out, read.
  aicb::job_spec unfused = job;
  unfused.parallel.attention = aicb::attention_kind::unfused;
  const double S = 16 * T * T;
  check(layer_forward(unfused, 0), "attention_core", 4 * 16 * T * T * 128,
        2 * 16 * (T + T) * 128 * e + S * (6 * e + 1));

  // FP8: the GEMMs in FP8 (1 byte), everything else in BF16.
  aicb::job_spec fp8 = job;
  fp8.batch.dtype = aicb::dtype::fp8;
  const auto f = layer_forward(fp8, 0);
  check(f, "attention_qkv", 2 * T * h * 6144, (T * h + h * 6144 + T * 6144) * 1);
  check(f, "mlp_act", T * 5504, 3 * T * 5504 * e);
  CHECK(f.at("attention_core").type == aicb::dtype::bf16);
  CHECK(f.at("input_norm").type == aicb::dtype::bf16);
  CHECK(f.at("mlp_fc2").type == aicb::dtype::fp8);
}

TEST_CASE("layer costs: a Mixtral MoE layer on EP 8", "[schedule][compute]") {
  // Mixtral-8x7B: h 4096, 32 heads / 8 KV heads of 128, 8 experts of FFN 14336, top-2; EP 8: one expert
  // per GPU receiving 4096·2·8/8 = 8192 token rows (balanced routing); s = 4096.
  const aicb::job_spec job{aicb::presets::mixtral_8x7b,
                           {.world_size = 8, .expert_parallel = 8},
                           {.micro_batch = 1, .global_batch = 8, .seq_length = 4096}};
  const auto ops = layer_forward(job, 0);
  const double T = 4096, h = 4096, e = 2, rows = 8192, f = 14336;
  check(ops, "attention_qkv", 2 * T * h * 6144, (T * h + h * 6144 + T * 6144) * e);  // (32 + 2·8)·128
  check(ops, "moe_router", 2 * T * h * 8, (T * h + h * 8 + T * 8) * e);
  check(ops, "moe_fc1", 2 * rows * h * 2 * f, (rows * h + h * 2 * f + rows * 2 * f) * e);
  check(ops, "moe_act", rows * f, 3 * rows * f * e);
  check(ops, "moe_fc2", 2 * rows * f * h, (rows * f + f * h + rows * h) * e);
  check(ops, "mlp_residual", T * h, T * h * (3 * e + 1));
}

TEST_CASE("layer costs: a DeepSeek-V2-Lite MLA layer", "[schedule][compute]") {
  // DeepSeek-V2-Lite: h 2048, 16 heads, no query compression, KV latent 512 + rope 64, q/k head
  // 128 + 64, v head 128; s = 4096 on one GPU.
  const aicb::job_spec job{aicb::presets::deepseek_v2_lite,
                           {.world_size = 1},
                           {.micro_batch = 1, .global_batch = 1, .seq_length = 4096}};
  const auto ops = layer_forward(job, 0);
  const double T = 4096, h = 2048, e = 2;
  check(ops, "mla_kv_down", 2 * T * h * 576, (T * h + h * 576 + T * 576) * e);
  check(ops, "mla_kv_norm", 5 * T * 512, 2 * T * 512 * e);
  check(ops, "mla_q", 2 * T * h * 16 * 192, (T * h + h * 3072 + T * 3072) * e);
  check(ops, "mla_kv_up", 2 * T * 512 * 16 * 256, (T * 512 + 512 * 4096 + T * 4096) * e);
  // Core attention with q/k 192 and v 128: priced at their mean, 160, per head.
  check(ops, "attention_core", 4 * 16 * T * T * 160 / 2, 16 * (4 * T * 160) * e);
  check(ops, "attention_out", 2 * T * 16 * 128 * h, (T * 2048 + 2048 * h + T * h) * e);
  // RoPE: the queries' 64-wide rotary parts in place; the key and value built from the
  // up-projection's output (16 heads of 128 + 128) and the shared 64-wide rotary key, written as 16
  // keys of 192 and 16 values of 128.
  check(ops, "rotary_q", T * 16 * 64, 2 * T * 16 * 64 * e);
  check(ops, "rotary_kv", T * 16 * 320, T * (16 * 320 + 16 * 256 + 64) * e);
}

TEST_CASE("layer costs: rotary passes only where a layer has rotary positions", "[schedule][compute]") {
  const auto has = [](const std::map<std::string, aicb::compute_op>& ops, const std::string& name) {
    return ops.count(name) == 1;
  };
  // GPT-3's learned positions: no rotary pass.
  const aicb::job_spec gpt{aicb::presets::gpt3_175b,
                           {.world_size = 8, .tensor_parallel = 8},
                           {.micro_batch = 1, .global_batch = 1, .seq_length = 2048}};
  CHECK_FALSE(has(layer_forward(gpt, 0), "rotary_q"));
  // Nemotron 3 Nano: its attention layers (the sixth, index 5) have no positions.
  const aicb::job_spec nano{aicb::presets::nemotron3_nano_30b_a3b,
                            {.world_size = 8, .expert_parallel = 8},
                            {.micro_batch = 1, .global_batch = 8, .seq_length = 4096}};
  const auto nano_ops = layer_forward(nano, 5);
  REQUIRE(has(nano_ops, "attention_core"));
  CHECK_FALSE(has(nano_ops, "rotary_q"));
  // Llama 4: the chunked layers rotate, every fourth (full attention) does not.
  const aicb::job_spec scout{
      aicb::presets::llama4_scout,
      {.world_size = 16, .tensor_parallel = 8, .expert_parallel = 2, .sequence_parallel = true},
      {.micro_batch = 1, .global_batch = 1, .seq_length = 8192}};
  CHECK(has(layer_forward(scout, 0), "rotary_q"));
  const auto full = layer_forward(scout, 3);
  REQUIRE(full.at("attention_core").attention_chunk == 0);
  CHECK_FALSE(has(full, "rotary_q"));
}
