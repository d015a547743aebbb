// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Presets: named model shapes. A preset is only a set of defaults — every field can be
/// overridden, and a model needs no preset at all.
///
/// Two kinds:
/// - the published shapes of real models (`aicb::presets::llama2_7b`, …), each with its source;
/// - aliyun/aicb's own presets under aicb's names (`gpt_7B`, `DeepSeek_671B`, …) with aicb's exact
///   values — including where they differ from the real models, which `note` says — so that aicb's
///   workloads can be reproduced.
///
/// ```cpp
/// constexpr auto m = aicb::presets::llama3_8b;             // a constant model_spec
/// const aicb::preset* p = aicb::find_preset("mixtral-8x7b"); // lookup by key (CLI: --model)
/// ```

#include <aicb/config.hpp>
#include <aicb/model/spec.hpp>

#include <array>
#include <string_view>

AICB_BEGIN_NAMESPACE

namespace presets {

// ---- GPT-3 (Brown et al. 2020, "Language Models are Few-Shot Learners", Table 2.1). GeLU, LayerNorm,
// biases, learned positions over 2048 tokens, embeddings tied, vocabulary 50257.
inline constexpr model_spec gpt3_template{.vocab_size = 50257,
                                          .max_position_embeddings = 2048,
                                          .activation = activation_kind::gelu,
                                          .norm = norm_kind::layernorm,
                                          .position = position_kind::learned,
                                          .linear_bias = true,
                                          .tied_embeddings = true};
[[nodiscard]] constexpr model_spec gpt3(spec_name name, std::uint64_t layers, std::uint64_t hidden,
                                        std::uint64_t heads, std::uint64_t head_dim) {
  model_spec m = gpt3_template;
  m.name = name;
  m.num_layers = layers;
  m.hidden_size = hidden;
  m.num_attention_heads = heads;
  m.head_dim = head_dim;
  m.ffn_hidden_size = 4 * hidden;
  return m;
}
// The paper lists 24 heads of 128 for GPT-3 XL, which contradicts d_model = 2048 and the 1.3B count;
// 16 heads of 128 (as Megatron's GPT-3 1.3B configuration uses) gives both.
inline constexpr model_spec gpt3_1_3b = gpt3("gpt3-1.3b", 24, 2048, 16, 128);
inline constexpr model_spec gpt3_2_7b = gpt3("gpt3-2.7b", 32, 2560, 32, 80);
inline constexpr model_spec gpt3_6_7b = gpt3("gpt3-6.7b", 32, 4096, 32, 128);
inline constexpr model_spec gpt3_13b = gpt3("gpt3-13b", 40, 5140, 40, 128);  // d_model 5140, 40 x 128 heads
inline constexpr model_spec gpt3_175b = gpt3("gpt3-175b", 96, 12288, 96, 128);

// ---- LLaMA family: SwiGLU, RMSNorm, RoPE, no biases, untied embeddings.
[[nodiscard]] constexpr model_spec llama(spec_name name, std::uint64_t layers, std::uint64_t hidden,
                                         std::uint64_t heads, std::uint64_t kv_heads, std::uint64_t ffn,
                                         std::uint64_t vocab) {
  return model_spec{.name = name,
                    .hidden_size = hidden,
                    .num_layers = layers,
                    .num_attention_heads = heads,
                    .num_kv_heads = kv_heads,
                    .ffn_hidden_size = ffn,
                    .vocab_size = vocab,
                    .activation = activation_kind::swiglu,
                    .norm = norm_kind::rmsnorm,
                    .position = position_kind::rope};
}
// Touvron et al. 2023, "LLaMA", Table 2 (ffn from the released params.json).
inline constexpr model_spec llama_65b = llama("llama-65b", 80, 8192, 64, 64, 22016, 32000);
// Llama 2 config.json (meta-llama/Llama-2-*-hf).
inline constexpr model_spec llama2_7b = llama("llama2-7b", 32, 4096, 32, 32, 11008, 32000);
inline constexpr model_spec llama2_13b = llama("llama2-13b", 40, 5120, 40, 40, 13824, 32000);
inline constexpr model_spec llama2_70b = llama("llama2-70b", 80, 8192, 64, 8, 28672, 32000);
// Llama 3 / 3.1 config.json (meta-llama/Meta-Llama-3-*, Meta-Llama-3.1-405B).
inline constexpr model_spec llama3_8b = llama("llama3-8b", 32, 4096, 32, 8, 14336, 128256);
inline constexpr model_spec llama3_70b = llama("llama3-70b", 80, 8192, 64, 8, 28672, 128256);
inline constexpr model_spec llama3_1_405b = llama("llama3.1-405b", 126, 16384, 128, 8, 53248, 128256);
// Mistral 7B v0.1 config.json.
[[nodiscard]] constexpr model_spec mistral(spec_name name) {
  model_spec m = llama(name, 32, 4096, 32, 8, 14336, 32000);
  m.sliding_window = 4096;  // on every layer
  return m;
}
inline constexpr model_spec mistral_7b = mistral("mistral-7b");

// ---- Mixtral (config.json of mistralai/Mixtral-8x7B-v0.1 and 8x22B-v0.1): 8 experts, top-2.
[[nodiscard]] constexpr model_spec mixtral(spec_name name, std::uint64_t layers, std::uint64_t hidden,
                                           std::uint64_t heads, std::uint64_t ffn) {
  model_spec m = llama(name, layers, hidden, heads, 8, ffn, 32000);
  m.num_experts = 8;
  m.moe_top_k = 2;
  m.moe_ffn_hidden_size = ffn;
  return m;
}
inline constexpr model_spec mixtral_8x7b = mixtral("mixtral-8x7b", 32, 4096, 32, 14336);
inline constexpr model_spec mixtral_8x22b = mixtral("mixtral-8x22b", 56, 6144, 48, 16384);

// ---- Qwen (config.json of Qwen/Qwen2.5-7B, -72B; Qwen/Qwen3-8B, -30B-A3B, -235B-A22B).
// Qwen2.5 has biases on q, k, v; Qwen3 has RMSNorm on each query and key head.
[[nodiscard]] constexpr model_spec qwen2_5(spec_name name, std::uint64_t layers, std::uint64_t hidden,
                                           std::uint64_t heads, std::uint64_t kv_heads, std::uint64_t ffn) {
  model_spec m = llama(name, layers, hidden, heads, kv_heads, ffn, 152064);
  m.qkv_bias = true;
  return m;
}
inline constexpr model_spec qwen2_5_7b = qwen2_5("qwen2.5-7b", 28, 3584, 28, 4, 18944);
inline constexpr model_spec qwen2_5_72b = qwen2_5("qwen2.5-72b", 80, 8192, 64, 8, 29568);
[[nodiscard]] constexpr model_spec qwen3(spec_name name, std::uint64_t layers, std::uint64_t hidden,
                                         std::uint64_t heads, std::uint64_t kv_heads, std::uint64_t ffn) {
  model_spec m = llama(name, layers, hidden, heads, kv_heads, ffn, 151936);
  m.head_dim = 128;
  m.qk_norm = true;
  return m;
}
inline constexpr model_spec qwen3_8b = qwen3("qwen3-8b", 36, 4096, 32, 8, 12288);
inline constexpr model_spec qwen3_14b = qwen3("qwen3-14b", 40, 5120, 40, 8, 17408);
inline constexpr model_spec qwen3_32b = qwen3("qwen3-32b", 64, 5120, 64, 8, 25600);
[[nodiscard]] constexpr model_spec qwen3_moe(spec_name name, std::uint64_t layers, std::uint64_t hidden,
                                             std::uint64_t heads, std::uint64_t ffn, std::uint64_t moe_ffn) {
  model_spec m = qwen3(name, layers, hidden, heads, 4, ffn);
  m.num_experts = 128;
  m.moe_top_k = 8;
  m.moe_ffn_hidden_size = moe_ffn;
  return m;
}
inline constexpr model_spec qwen3_30b_a3b = qwen3_moe("qwen3-30b-a3b", 48, 2048, 32, 6144, 768);
inline constexpr model_spec qwen3_235b_a22b = qwen3_moe("qwen3-235b-a22b", 94, 4096, 64, 12288, 1536);
// Qwen3-Next: a hybrid layout — in each group of four layers three Gated DeltaNet (linear attention)
// layers, then one softmax layer with a gated output (q_proj twice as wide); 512 experts of 512 with
// a sigmoid-gated shared expert (Qwen/Qwen3-Next-80B-A3B-Instruct config.json, transformers'
// modeling_qwen3_next.py). Its rotary share (partial_rotary_factor 0.25) is not modelled: the rotary passes
// are priced over whole heads, as training's fused kernels write them.
[[nodiscard]] constexpr model_spec qwen3_next(spec_name name) {
  model_spec m = qwen3(name, 48, 2048, 16, 2, 5120);
  m.head_dim = 256;
  m.num_experts = 512;
  m.moe_top_k = 10;
  m.moe_ffn_hidden_size = 512;
  m.num_shared_experts = 1;
  m.shared_expert_ffn_hidden_size = 512;
  m.shared_expert_gate = true;
  m.attention_output_gate = true;
  m.full_attention_interval = 4;
  m.linear_num_key_heads = 16;
  m.linear_num_value_heads = 32;
  m.linear_key_head_dim = 128;
  m.linear_value_head_dim = 128;
  m.linear_conv_kernel_dim = 4;
  return m;
}
inline constexpr model_spec qwen3_next_80b_a3b = qwen3_next("qwen3-next-80b-a3b");

// ---- GPT-OSS (config.json of openai/gpt-oss-120b and gpt-oss-20b): 64 query heads of 64 over a
// 2880-wide residual, 8 KV heads, sliding-window (128) and full attention alternating, a learned
// sink per head, biases on every linear layer (router and experts too), 4 of E experts of 2880;
// YaRN over a 32-fold context extension, its attention factor 0.1 ln 32 + 1.
[[nodiscard]] constexpr model_spec gpt_oss(spec_name name, std::uint64_t layers, std::uint64_t experts) {
  model_spec m = llama(name, layers, 2880, 64, 8, 2880, 201088);
  m.head_dim = 64;
  m.linear_bias = true;
  m.num_experts = experts;
  m.moe_top_k = 4;
  m.moe_ffn_hidden_size = 2880;
  m.sliding_window = 128;
  m.sliding_window_pattern = 2;
  m.attention_sinks = true;
  m.rope_attention_factor = 1.3465735902799727;
  return m;
}
inline constexpr model_spec gpt_oss_120b = gpt_oss("gpt-oss-120b", 36, 128);
inline constexpr model_spec gpt_oss_20b = gpt_oss("gpt-oss-20b", 24, 32);

// ---- Llama 4 (text_config of meta-llama/Llama-4-Scout-17B-16E and Llama-4-Maverick-17B-128E; the
// language model, without the vision encoder): 48 layers over a 5120-wide residual, 40 query heads of
// 128, 8 KV heads; attention within 8192-token chunks on three layers of four (RoPE), full attention
// on every fourth (no RoPE); top-1 of E experts of 8192 plus one shared expert of 8192 — on every
// layer (Scout, which also L2-normalises the chunked layers' queries and keys) or every second
// (Maverick, whose other layers have a dense MLP of 16384).
[[nodiscard]] constexpr model_spec llama4(spec_name name, std::uint64_t experts, std::uint64_t moe_interval,
                                          bool qk_l2_norm) {
  model_spec m = llama(name, 48, 5120, 40, 8, 16384, 202048);
  m.head_dim = 128;
  m.num_experts = experts;
  m.moe_top_k = 1;
  m.moe_ffn_hidden_size = 8192;
  m.num_shared_experts = 1;
  m.shared_expert_ffn_hidden_size = 8192;
  m.moe_layer_interval = moe_interval;
  m.attention_chunk_size = 8192;
  m.attention_chunk_pattern = 4;
  m.qk_l2_norm = qk_l2_norm;
  return m;
}
inline constexpr model_spec llama4_scout = llama4("llama4-scout-17b-16e", 16, 1, true);
inline constexpr model_spec llama4_maverick = llama4("llama4-maverick-17b-128e", 128, 2, false);

// ---- Nemotron 3 (config.json of nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B): 52 layers of one block
// each — 23 Mamba-2, 23 mixture-of-experts (128 squared-ReLU experts, top-6, one shared), 6 GQA
// attention — over a 2688-wide residual.
[[nodiscard]] constexpr model_spec nemotron3_nano(spec_name name) {
  model_spec m = llama(name, 52, 2688, 32, 2, 1856, 131072);
  m.position = position_kind::none;  // attention without positions: the Mamba-2 layers carry the order
  m.head_dim = 128;
  m.activation = activation_kind::squared_relu;
  m.layer_pattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
  m.mamba_num_heads = 64;
  m.mamba_head_dim = 64;
  m.mamba_state_dim = 128;
  m.mamba_num_groups = 8;
  m.mamba_conv_kernel = 4;
  m.mamba_chunk_size = 128;
  m.mamba_state_fp32 = true;  // mamba_ssm_cache_dtype float32
  m.num_experts = 128;
  m.moe_top_k = 6;
  m.moe_ffn_hidden_size = 1856;
  m.num_shared_experts = 1;
  m.shared_expert_ffn_hidden_size = 3712;
  m.moe_router_bias = true;
  return m;
}
inline constexpr model_spec nemotron3_nano_30b_a3b = nemotron3_nano("nemotron3-nano-30b-a3b");

// ---- Nemotron 3 Super (config.json of nvidia/NVIDIA-Nemotron-3-Super-120B-A12B): 88 layers — 40
// Mamba-2, 40 latent mixture-of-experts (512 squared-ReLU experts of 2688 working in a 1024-wide
// latent, top-22, one shared expert of 5376), 8 GQA attention — over a 4096-wide residual, and one
// multi-token-prediction module (attention, then experts).
[[nodiscard]] constexpr model_spec nemotron3_super(spec_name name) {
  model_spec m = llama(name, 88, 4096, 32, 2, 2688, 131072);
  m.position = position_kind::none;  // attention without positions: the Mamba-2 layers carry the order
  m.head_dim = 128;
  m.activation = activation_kind::squared_relu;
  m.layer_pattern =
      "MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEM*EMEMEMEME";
  m.mamba_num_heads = 128;
  m.mamba_head_dim = 64;
  m.mamba_state_dim = 128;
  m.mamba_num_groups = 8;
  m.mamba_conv_kernel = 4;
  m.mamba_chunk_size = 128;
  m.mamba_state_fp32 = true;  // mamba_ssm_cache_dtype float32
  m.num_experts = 512;
  m.moe_top_k = 22;
  m.moe_ffn_hidden_size = 2688;
  m.moe_latent_size = 1024;
  m.num_shared_experts = 1;
  m.shared_expert_ffn_hidden_size = 5376;
  m.moe_router_bias = true;
  m.num_mtp_layers = 1;
  return m;
}
inline constexpr model_spec nemotron3_super_120b_a12b = nemotron3_super("nemotron3-super-120b-a12b");

// ---- DeepSeek (config.json of deepseek-ai/DeepSeek-V2-Lite and DeepSeek-V3; V2 from its paper's
// Appendix / config_236B): multi-head latent attention, fine-grained experts with shared experts,
// leading dense layers.
[[nodiscard]] constexpr model_spec deepseek(spec_name name, std::uint64_t layers, std::uint64_t hidden,
                                            std::uint64_t heads, std::uint64_t ffn, std::uint64_t vocab,
                                            std::uint64_t q_lora, std::uint64_t experts, std::uint64_t top_k,
                                            std::uint64_t moe_ffn, std::uint64_t shared,
                                            std::uint64_t dense) {
  model_spec m = llama(name, layers, hidden, heads, heads, ffn, vocab);
  m.q_lora_rank = q_lora;
  m.kv_lora_rank = 512;
  m.qk_nope_head_dim = 128;
  m.qk_rope_head_dim = 64;
  m.v_head_dim = 128;
  m.num_experts = experts;
  m.moe_top_k = top_k;
  m.moe_ffn_hidden_size = moe_ffn;
  m.num_shared_experts = shared;
  m.first_dense_layers = dense;
  return m;
}
inline constexpr model_spec deepseek_v2_lite =
    deepseek("deepseek-v2-lite", 27, 2048, 16, 10944, 102400, 0, 64, 6, 1408, 2, 1);
// DeepSeek-V2 routes each token's 6 experts within 3 of 8 expert groups (device-limited routing,
// config.json: topk_method group_limited_greedy, n_group 8, topk_group 3); DeepSeek-V3 its 8 within 4
// of 8 (node-limited routing, noaux_tc, n_group 8, topk_group 4).
inline constexpr model_spec deepseek_v2 = [] {
  model_spec m = deepseek("deepseek-v2", 60, 5120, 128, 12288, 102400, 1536, 160, 6, 1536, 2, 1);
  m.moe_router_num_groups = 8;
  m.moe_router_group_topk = 3;
  return m;
}();
inline constexpr model_spec deepseek_v3 = [] {
  model_spec m = deepseek("deepseek-v3", 61, 7168, 128, 18432, 129280, 1536, 256, 8, 2048, 1, 3);
  m.moe_router_bias = true;
  m.moe_router_num_groups = 8;
  m.moe_router_group_topk = 4;
  m.num_mtp_layers = 1;
  return m;
}();

// DeepSeek-V3.2 (config.json of deepseek-ai/DeepSeek-V3.2-Exp): DeepSeek-V3 with DeepSeek sparse
// attention — a lightning indexer of 64 heads of 128 per layer picks each query's 2048 keys.
inline constexpr model_spec deepseek_v3_2 = [] {
  model_spec m = deepseek_v3;
  m.name = "deepseek-v3.2";
  m.sparse_attention_topk = 2048;
  m.indexer_heads = 64;
  m.indexer_head_dim = 128;
  return m;
}();

// Kimi K2 (config.json of moonshotai/Kimi-K2-Instruct): DeepSeek-V3's architecture with 64 heads,
// 384 experts and one dense layer, no MTP module.
inline constexpr model_spec kimi_k2 = [] {
  model_spec m = deepseek("kimi-k2", 61, 7168, 64, 18432, 163840, 1536, 384, 8, 2048, 1, 1);
  m.moe_router_bias = true;
  return m;
}();

// ---- GLM-4.5 (config.json of zai-org/GLM-4.5-Air): DeepSeek-V3-style experts (sigmoid scores
// with a score-correction bias, one shared expert, a leading dense layer, one MTP module) on
// grouped-query attention: 96 query heads of 128 over a 4096-wide residual, 8 KV heads, biases on
// q, k and v. Its rotary share (partial_rotary_factor 0.5) is not modelled: the rotary passes are priced
// over whole heads, as training's fused kernels write them.
inline constexpr model_spec glm4_5_air = [] {
  model_spec m = llama("glm-4.5-air", 46, 4096, 96, 8, 10944, 151552);
  m.head_dim = 128;
  m.qkv_bias = true;
  m.num_experts = 128;
  m.moe_top_k = 8;
  m.moe_ffn_hidden_size = 1408;
  m.num_shared_experts = 1;
  m.first_dense_layers = 1;
  m.moe_router_bias = true;
  m.num_mtp_layers = 1;
  return m;
}();

// ---- GLM-5 (transformers' GlmMoeDsaConfig, whose defaults are zai-org/GLM-5's): DeepSeek-V3.2's
// architecture on 78 layers of 6144 — multi-head latent attention with a 2048-rank query latent,
// 192 + 64-wide query-key heads and 256-wide values; DeepSeek sparse attention, an indexer of 32
// heads of 128 picking 2048 keys in every layer; 256 experts top-8 with one shared, 3 dense layers,
// one MTP module. GLM-5.2's shared indexers (indexer_pattern) come with its config.json.
inline constexpr model_spec glm5 = [] {
  model_spec m = deepseek("glm-5", 78, 6144, 64, 12288, 154880, 2048, 256, 8, 2048, 1, 3);
  m.qk_nope_head_dim = 192;
  m.v_head_dim = 256;
  m.moe_router_bias = true;
  m.num_mtp_layers = 1;
  m.sparse_attention_topk = 2048;
  m.indexer_heads = 32;
  m.indexer_head_dim = 128;
  return m;
}();

// ---- aliyun/aicb's presets (scripts/megatron_workload_with_aiob.sh, megatron_gpt.sh,
// deepspeed_llama.sh), with aicb's exact values. GPT-style layers (GeLU, LayerNorm with bias, no
// linear biases), learned positions, untied output, vocabulary 50257 (GPT-2).
[[nodiscard]] constexpr model_spec aicb_gpt(spec_name name, std::uint64_t layers, std::uint64_t hidden,
                                            std::uint64_t heads, std::uint64_t ffn = 0) {
  return model_spec{.name = name,
                    .hidden_size = hidden,
                    .num_layers = layers,
                    .num_attention_heads = heads,
                    .ffn_hidden_size = ffn,  // 0: aicb's default, 4h (or its SwiGLU rule with --swiglu)
                    .vocab_size = 50257,
                    .max_position_embeddings = 4096};
}
inline constexpr model_spec aicb_gpt_7b = aicb_gpt("gpt_7B", 36, 4096, 32);
inline constexpr model_spec aicb_gpt_13b = aicb_gpt("gpt_13B", 40, 5120, 40);
inline constexpr model_spec aicb_gpt_22b = aicb_gpt("gpt_22B", 48, 6144, 64);
inline constexpr model_spec aicb_gpt_175b = aicb_gpt("gpt_175B", 96, 12288, 96);
inline constexpr model_spec aicb_llama_65b = aicb_gpt("llama_65B", 80, 8192, 64, 28672);
inline constexpr model_spec aicb_llama_405b = aicb_gpt("llama_405B", 128, 16384, 128, 53248);
inline constexpr model_spec aicb_mixtral_8x7b = [] {
  model_spec m = aicb_gpt("Mixtral_8*7B", 32, 4096, 32, 14336);
  m.num_experts = 1;  // aicb's preset keeps --num_experts 1 and --moe_router_topk 1 unless given
  m.moe_top_k = 1;
  return m;
}();
[[nodiscard]] constexpr model_spec aicb_deepseek(spec_name name, std::uint64_t layers, std::uint64_t hidden,
                                                 std::uint64_t heads, std::uint64_t ffn, std::uint64_t q_lora,
                                                 std::uint64_t experts, std::uint64_t shared,
                                                 std::uint64_t dense) {
  model_spec m = aicb_gpt(name, layers, hidden, heads, ffn);
  m.q_lora_rank = q_lora;
  m.kv_lora_rank = 512;
  m.qk_nope_head_dim = 128;
  m.qk_rope_head_dim = 64;
  m.v_head_dim = 128;
  m.num_experts = experts;
  m.moe_top_k = 1;  // --moe_router_topk default; presets do not set it
  m.moe_ffn_hidden_size = ffn;
  m.num_shared_experts = shared;
  m.first_dense_layers = dense;
  return m;
}
inline constexpr model_spec aicb_deepseek_671b =
    aicb_deepseek("DeepSeek_671B", 61, 18432, 128, 2048, 1536, 256, 1, 3);
inline constexpr model_spec aicb_deepseek_236b =
    aicb_deepseek("DeepSeek_236B", 60, 12288, 128, 1536, 1536, 160, 2, 1);
inline constexpr model_spec aicb_deepseek_16b =
    aicb_deepseek("DeepSeek_16B", 27, 10944, 16, 1408, 0, 64, 2, 1);
// deepspeed_llama.sh: LLaMA-shaped layers (q, k, v, o, gate, up, down; one weight per norm), vocab 32000.
[[nodiscard]] constexpr model_spec aicb_deepspeed_llama(spec_name name, std::uint64_t layers,
                                                        std::uint64_t hidden, std::uint64_t heads,
                                                        std::uint64_t ffn) {
  model_spec m = llama(name, layers, hidden, heads, heads, ffn, 32000);
  return m;
}
inline constexpr model_spec aicb_deepspeed_llama_7b =
    aicb_deepspeed_llama("deepspeed_llama_7B", 32, 4096, 32, 11008);
inline constexpr model_spec aicb_deepspeed_llama_13b =
    aicb_deepspeed_llama("deepspeed_llama_13B", 40, 5120, 40, 13824);
inline constexpr model_spec aicb_deepspeed_llama_30b =
    aicb_deepspeed_llama("deepspeed_llama_30B", 60, 6656, 52, 17920);
inline constexpr model_spec aicb_deepspeed_llama_65b =
    aicb_deepspeed_llama("deepspeed_llama_65B", 80, 8192, 64, 22016);

}  // namespace presets

/// A named model shape with its provenance.
struct preset {
  std::string_view key;     ///< lookup key (CLI `--model`), e.g. "llama2-7b" or aicb's "gpt_7B"
  model_spec model;         ///< the shape
  std::string_view source;  ///< where the numbers come from
  bool from_aicb = false;   ///< one of aliyun/aicb's presets, with aicb's values
  std::string_view note{};  ///< how it differs from the real model it is named after (aicb presets)
};

/// Every preset, real models first, then aicb's.
inline constexpr std::array<preset, 50> all_presets{{
    {"gpt3-1.3b", presets::gpt3_1_3b, "Brown et al. 2020, Table 2.1 (16 heads of 128, see header)"},
    {"gpt3-2.7b", presets::gpt3_2_7b, "Brown et al. 2020, Table 2.1"},
    {"gpt3-6.7b", presets::gpt3_6_7b, "Brown et al. 2020, Table 2.1"},
    {"gpt3-13b", presets::gpt3_13b, "Brown et al. 2020, Table 2.1"},
    {"gpt3-175b", presets::gpt3_175b, "Brown et al. 2020, Table 2.1"},
    {"llama-65b", presets::llama_65b, "Touvron et al. 2023 (LLaMA), Table 2; params.json"},
    {"llama2-7b", presets::llama2_7b, "meta-llama/Llama-2-7b-hf config.json"},
    {"llama2-13b", presets::llama2_13b, "meta-llama/Llama-2-13b-hf config.json"},
    {"llama2-70b", presets::llama2_70b, "meta-llama/Llama-2-70b-hf config.json"},
    {"llama3-8b", presets::llama3_8b, "meta-llama/Meta-Llama-3-8B config.json"},
    {"llama3-70b", presets::llama3_70b, "meta-llama/Meta-Llama-3-70B config.json"},
    {"llama3.1-405b", presets::llama3_1_405b, "meta-llama/Meta-Llama-3.1-405B config.json"},
    {"llama4-scout-17b-16e", presets::llama4_scout,
     "meta-llama/Llama-4-Scout-17B-16E config.json (text_config; no vision encoder)"},
    {"llama4-maverick-17b-128e", presets::llama4_maverick,
     "meta-llama/Llama-4-Maverick-17B-128E config.json (text_config; no vision encoder)"},
    {"mistral-7b", presets::mistral_7b, "mistralai/Mistral-7B-v0.1 config.json"},
    {"mixtral-8x7b", presets::mixtral_8x7b, "mistralai/Mixtral-8x7B-v0.1 config.json"},
    {"mixtral-8x22b", presets::mixtral_8x22b, "mistralai/Mixtral-8x22B-v0.1 config.json"},
    {"qwen2.5-7b", presets::qwen2_5_7b, "Qwen/Qwen2.5-7B config.json"},
    {"qwen2.5-72b", presets::qwen2_5_72b, "Qwen/Qwen2.5-72B config.json"},
    {"qwen3-8b", presets::qwen3_8b, "Qwen/Qwen3-8B config.json"},
    {"qwen3-14b", presets::qwen3_14b, "Qwen/Qwen3-14B config.json"},
    {"qwen3-32b", presets::qwen3_32b, "Qwen/Qwen3-32B config.json"},
    {"qwen3-30b-a3b", presets::qwen3_30b_a3b, "Qwen/Qwen3-30B-A3B config.json"},
    {"qwen3-235b-a22b", presets::qwen3_235b_a22b, "Qwen/Qwen3-235B-A22B config.json"},
    {"qwen3-next-80b-a3b", presets::qwen3_next_80b_a3b, "Qwen/Qwen3-Next-80B-A3B-Instruct config.json"},
    {"deepseek-v2-lite", presets::deepseek_v2_lite, "deepseek-ai/DeepSeek-V2-Lite config.json"},
    {"deepseek-v2", presets::deepseek_v2, "DeepSeek-V2 paper (arXiv 2405.04434), Appendix B"},
    {"deepseek-v3", presets::deepseek_v3, "deepseek-ai/DeepSeek-V3 config.json"},
    {"deepseek-v3.2", presets::deepseek_v3_2, "deepseek-ai/DeepSeek-V3.2-Exp config.json"},
    {"kimi-k2", presets::kimi_k2, "moonshotai/Kimi-K2-Instruct config.json"},
    {"glm-4.5-air", presets::glm4_5_air, "zai-org/GLM-4.5-Air config.json"},
    {"glm-5", presets::glm5, "transformers' GlmMoeDsaConfig (its defaults: zai-org/GLM-5)"},
    {"gpt-oss-120b", presets::gpt_oss_120b, "openai/gpt-oss-120b config.json"},
    {"gpt-oss-20b", presets::gpt_oss_20b, "openai/gpt-oss-20b config.json"},
    {"nemotron3-nano-30b-a3b", presets::nemotron3_nano_30b_a3b,
     "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B config.json"},
    {"nemotron3-super-120b-a12b", presets::nemotron3_super_120b_a12b,
     "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B config.json"},
    {"gpt_7B", presets::aicb_gpt_7b, "aicb megatron_workload_with_aiob.sh -m 7", true,
     "aicb's own shape (36 layers, vocab 50257); not a published model"},
    {"gpt_13B", presets::aicb_gpt_13b, "aicb megatron_workload_with_aiob.sh -m 13 (the default)", true,
     "vocab 50257, hidden 5120 (GPT-3 13B has 5140)"},
    {"gpt_22B", presets::aicb_gpt_22b, "aicb megatron_workload_with_aiob.sh -m 22", true,
     "aicb's own shape; not a published model"},
    {"gpt_175B", presets::aicb_gpt_175b, "aicb megatron_workload_with_aiob.sh -m 175", true,
     "untied output projection and no linear biases, unlike GPT-3 175B"},
    {"llama_65B", presets::aicb_llama_65b, "aicb megatron_gpt.sh -m 65", true,
     "GeLU with ffn 28672, vocab 50257: LLaMA-65B uses SwiGLU, ffn 22016, vocab 32000"},
    {"llama_405B", presets::aicb_llama_405b, "aicb megatron_workload_with_aiob.sh -m 405", true,
     "128 layers, GeLU, MHA, vocab 50257: Llama-3.1-405B has 126 layers, SwiGLU, 8 KV heads, vocab 128256"},
    {"Mixtral_8*7B", presets::aicb_mixtral_8x7b, "aicb megatron_workload_with_aiob.sh -m moe", true,
     "1 expert, top-1, GeLU, MHA unless --experts/--topk: Mixtral has 8 experts, top-2, SwiGLU, 8 KV heads"},
    {"DeepSeek_671B", presets::aicb_deepseek_671b, "aicb megatron_workload_with_aiob.sh -m deepseek671", true,
     "hidden 18432 is V3's dense FFN size (real hidden 7168); ffn 2048 also used for dense layers; top-1"},
    {"DeepSeek_236B", presets::aicb_deepseek_236b, "aicb megatron_workload_with_aiob.sh -m deepseek236", true,
     "hidden 12288 is V2's dense FFN size (real hidden 5120); ffn 1536 also used for dense layers; top-1"},
    {"DeepSeek_16B", presets::aicb_deepseek_16b, "aicb megatron_workload_with_aiob.sh -m deepseek16", true,
     "hidden 10944 is V2-Lite's dense FFN size (real hidden 2048); ffn 1408 also used for dense layers; "
     "top-1"},
    {"deepspeed_llama_7B", presets::aicb_deepspeed_llama_7b, "aicb deepspeed_llama.sh -m 7", true},
    {"deepspeed_llama_13B", presets::aicb_deepspeed_llama_13b, "aicb deepspeed_llama.sh -m 13", true},
    {"deepspeed_llama_30B", presets::aicb_deepspeed_llama_30b, "aicb deepspeed_llama.sh -m 30", true},
    {"deepspeed_llama_65B", presets::aicb_deepspeed_llama_65b, "aicb deepspeed_llama.sh -m 65", true},
}};

/// The preset with key `key` (exact match), or nullptr.
[[nodiscard]] constexpr const preset* find_preset(std::string_view key) noexcept {
  for (const preset& p : all_presets)
    if (p.key == key) return &p;
  return nullptr;
}

AICB_END_NAMESPACE
