// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/spec.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace {
constexpr aicb::model_spec dense{
    .name = "dense", .hidden_size = 4096, .num_layers = 32, .num_attention_heads = 32, .vocab_size = 32000};
}

// A valid constant model passes in a constant expression, and is usable as a template argument.
static_assert(aicb::validate(dense));
static_assert(aicb::checked_model<dense>.head_dim == 128);

TEST_CASE("spec: resolve fills every 0-means-default field by its documented rule", "[model][spec]") {
  constexpr auto m = aicb::resolve(dense);
  STATIC_REQUIRE(m.num_kv_heads == 32);
  STATIC_REQUIRE(m.head_dim == 128);
  STATIC_REQUIRE(m.ffn_hidden_size == 4 * 4096);
  constexpr auto swiglu = [] {
    auto s = dense;
    s.activation = aicb::activation_kind::swiglu;
    return aicb::resolve(s);
  }();
  STATIC_REQUIRE(swiglu.ffn_hidden_size ==
                 10880);                  // floor(4096 * 8 / 3 / 64) * 64, aicb's and Megatron's rule
  STATIC_REQUIRE(aicb::resolve(m) == m);  // idempotent
  constexpr auto moe = [] {
    auto s = dense;
    s.num_experts = 8;
    s.moe_top_k = 2;
    s.num_shared_experts = 1;
    return aicb::resolve(s);
  }();
  STATIC_REQUIRE(moe.moe_ffn_hidden_size == moe.ffn_hidden_size);
  STATIC_REQUIRE(moe.shared_expert_ffn_hidden_size == moe.moe_ffn_hidden_size);
  STATIC_REQUIRE(moe.num_moe_layers() == 32 && moe.num_dense_layers() == 0);
}

namespace {
// The field a broken model is reported against, or "" when it is valid.
std::string fault(aicb::model_spec m) {
  try {
    aicb::validate(m);
    return "";
  } catch (const aicb::config_error& e) {
    return e.field();
  }
}
}  // namespace

TEST_CASE("spec: every rule names its field at run time", "[model][spec]") {
  CHECK(fault(dense).empty());
  auto m = dense;
  m.hidden_size = 0;
  CHECK(fault(m) == "hidden_size");
  m = dense;
  m.num_attention_heads = 48;  // 4096 / 48 is not whole
  CHECK(fault(m) == "num_attention_heads");
  m.head_dim = 128;  // an explicit head size makes it legal
  CHECK(fault(m).empty());
  m = dense;
  m.num_kv_heads = 5;
  CHECK(fault(m) == "num_kv_heads");
  m.num_kv_heads = 64;
  CHECK(fault(m) == "num_kv_heads");
  m = dense;
  m.num_experts = 8;
  CHECK(fault(m) == "moe_top_k");  // top-k missing
  m.moe_top_k = 9;
  CHECK(fault(m) == "moe_top_k");
  m.moe_top_k = 2;
  m.first_dense_layers = 32;
  CHECK(fault(m) == "first_dense_layers");
  // Group-limited routing: both sizes or neither, equal groups, a token's experts within the chosen
  // groups' experts.
  m.first_dense_layers = 0;
  m.moe_router_num_groups = 4;
  CHECK(fault(m) == "moe_router_group_topk");
  m.moe_router_group_topk = 1;
  CHECK(fault(m).empty());      // 2 of the chosen group's 2 experts
  m.moe_router_num_groups = 3;  // 8 experts in 3 groups
  CHECK(fault(m) == "moe_router_num_groups");
  m.moe_router_num_groups = 8;  // 1 expert a group, 1 group chosen: fewer than top-2
  CHECK(fault(m) == "moe_top_k");
  m.moe_router_group_topk = 9;
  CHECK(fault(m) == "moe_router_group_topk");
  m = dense;
  m.moe_top_k = 2;  // without experts
  CHECK(fault(m) == "num_experts");
  m.moe_top_k = 0;
  m.moe_router_num_groups = m.moe_router_group_topk = 2;
  CHECK(fault(m) == "num_experts");
  m = dense;
  m.kv_lora_rank = 512;  // MLA without its head sizes
  CHECK(fault(m) == "qk_rope_head_dim");
  m = dense;
  m.q_lora_rank = 1536;  // a query rank without MLA
  CHECK(fault(m) == "q_lora_rank");
  // Hybrid layouts: the linear attention's sizes come with the interval, and only with it.
  m = dense;
  m.linear_num_key_heads = 16;
  CHECK(fault(m) == "linear_num_key_heads");
  m.full_attention_interval = 4;
  CHECK(fault(m) == "linear_num_value_heads");
  m.linear_num_value_heads = 24;  // not a multiple of the key heads
  m.linear_key_head_dim = m.linear_value_head_dim = 128;
  m.linear_conv_kernel_dim = 4;
  CHECK(fault(m) == "linear_num_value_heads");
  m.linear_num_value_heads = 32;
  CHECK(fault(m).empty());
  CHECK(m.num_linear_attention_layers() == 24);  // 32 layers: 3, 7, ..., 31 softmax
  m.full_attention_interval = 1;                 // every layer softmax: the sizes are unused
  CHECK(fault(m) == "linear_num_key_heads");
  m = dense;
  m.shared_expert_gate = true;  // a gate without shared experts
  CHECK(fault(m) == "shared_expert_gate");
  // Chunked attention (Llama 4): its pattern and its L2 norm need the chunks; one kind of local
  // attention per model; one kind of query/key norm.
  m = dense;
  m.attention_chunk_pattern = 4;
  CHECK(fault(m) == "attention_chunk_pattern");
  m.attention_chunk_size = 8192;
  CHECK(fault(m).empty());
  CHECK(m.num_local_attention_layers() == 24);  // 32 layers: 3, 7, ..., 31 attend to everything
  CHECK(m.is_local_attention_layer(0));
  CHECK_FALSE(m.is_local_attention_layer(3));
  CHECK(m.local_attention_span() == 8192);
  m.sliding_window = 4096;
  CHECK(fault(m) == "attention_chunk_size");
  m = dense;
  m.qk_l2_norm = true;
  CHECK(fault(m) == "qk_l2_norm");
  m.attention_chunk_size = 8192;
  CHECK(fault(m).empty());
  m.qk_norm = true;
  CHECK(fault(m) == "qk_l2_norm");
  // Interleaved experts: every N-th layer after the dense ones; at least one MoE layer; no MTP.
  m = dense;
  m.num_experts = 16;
  m.moe_top_k = 1;
  m.moe_layer_interval = 3;
  m.first_dense_layers = 4;
  CHECK(fault(m).empty());
  CHECK(m.num_moe_layers() == 9);  // layers 5, 8, ..., 29 of 32
  std::uint64_t counted = 0;
  for (std::uint64_t layer = 0; layer < m.num_layers; ++layer)
    counted += m.is_moe_layer(layer) ? 1 : 0;
  CHECK(counted == m.num_moe_layers());
  CHECK(m.num_dense_layers() == 23);
  m.num_mtp_layers = 1;
  CHECK(fault(m) == "moe_layer_interval");
  m.num_mtp_layers = 0;
  m.moe_layer_interval = 33;  // no layer left with experts
  CHECK(fault(m) == "moe_layer_interval");
  m = dense;
  m.moe_layer_interval = 2;  // without experts
  CHECK(fault(m) == "num_experts");
  m = dense;
  m.moe_latent_size = 1024;  // latent experts without experts
  CHECK(fault(m) == "num_experts");
}

TEST_CASE("spec: the run-time message carries field, value, rule and the related field", "[model][spec]") {
  auto m = dense;
  m.num_kv_heads = 5;
  try {
    aicb::validate(m);
    FAIL("validate accepted 5 key/value heads for 32 query heads");
  } catch (const aicb::config_error& e) {
    CHECK(e.value() == "5");
    CHECK(std::string(e.what()) ==
          "num_kv_heads = 5: num_kv_heads must divide num_attention_heads (each key/value head serves a "
          "whole group "
          "of queries) (num_attention_heads = 32)");
  }
}

TEST_CASE("spec: every field has help text", "[model][spec]") {
  CHECK(aicb::model_spec::help("hidden_size") == "hidden size h (d_model)");
  CHECK(aicb::model_spec::help("no_such_field").empty());
}

TEST_CASE("model: dimensions and weight counts beyond 64-bit arithmetic are refused", "[model]") {
  const aicb::model_spec base{
      .hidden_size = 4096, .num_layers = 32, .num_attention_heads = 32, .vocab_size = 32000};
  aicb::model_spec m = base;
  m.vocab_size = 1ULL << 60;
  CHECK_THROWS_WITH(aicb::validate(m), Catch::Contains("vocab_size = 1152921504606846976") &&
                                           Catch::Contains("must not exceed 2^50"));
  m = base;
  m.vocab_size = 1ULL << 40;  // a dimension within 2^50, but vocab x hidden is not
  CHECK_THROWS_WITH(aicb::validate(m), Catch::Contains("vocab_size x hidden_size"));
  m = base;
  m.num_layers = (1ULL << 20) + 1;
  CHECK_THROWS_WITH(aicb::validate(m), Catch::Contains("num_layers must not exceed 2^20"));
  m = base;
  m.ffn_hidden_size = 1ULL << 40;
  CHECK_THROWS_WITH(aicb::validate(m), Catch::Contains("the MLP weights"));
  for (const double factor : {-1.0, 0.5, 1e300, std::numeric_limits<double>::quiet_NaN()}) {
    aicb::model_spec moe = base;
    moe.num_experts = 8;
    moe.moe_top_k = 2;
    moe.moe_capacity_factor = factor;
    INFO(factor);
    CHECK_THROWS_WITH(aicb::validate(moe), Catch::Contains("moe_capacity_factor ="));
  }
}

TEST_CASE("spec: DeepSeek sparse attention comes with MLA's query latent and all of the indexer's sizes",
          "[model][spec]") {
  aicb::model_spec mla{.name = "mla",
                       .hidden_size = 2048,
                       .num_layers = 4,
                       .num_attention_heads = 16,
                       .vocab_size = 32000,
                       .q_lora_rank = 512,
                       .kv_lora_rank = 256,
                       .qk_nope_head_dim = 128,
                       .qk_rope_head_dim = 64,
                       .v_head_dim = 128};
  mla.sparse_attention_topk = 256;
  mla.indexer_heads = 16;
  mla.indexer_head_dim = 128;
  CHECK(aicb::validate(mla));
  aicb::model_spec no_heads = mla;
  no_heads.indexer_heads = 0;
  CHECK_THROWS_WITH(
      aicb::validate(no_heads),
      Catch::Contains("indexer_heads = 0") && Catch::Contains("needs indexer_heads and indexer_head_dim"));
  aicb::model_spec no_topk = mla;
  no_topk.sparse_attention_topk = 0;
  CHECK_THROWS_WITH(aicb::validate(no_topk), Catch::Contains("indexer sizes need DeepSeek sparse attention"));
  aicb::model_spec no_latent = mla;
  no_latent.q_lora_rank = 0;
  CHECK_THROWS_WITH(aicb::validate(no_latent), Catch::Contains("query latent"));
  aicb::model_spec narrow = mla;
  narrow.indexer_head_dim = 32;
  CHECK_THROWS_WITH(aicb::validate(narrow), Catch::Contains("at least qk_rope_head_dim"));
  // Shared indexers: one F or S per layer, the first F, and only with sparse attention.
  aicb::model_spec shared = mla;
  shared.indexer_pattern = "FSSF";
  CHECK(aicb::validate(shared));
  CHECK(shared.num_indexer_layers() == 2);
  CHECK(shared.runs_indexer(0));
  CHECK_FALSE(shared.runs_indexer(1));
  CHECK(shared.runs_indexer(4));  // an MTP module's layer runs its own
  CHECK(mla.num_indexer_layers() == 4);
  const auto refused = [&](const char* pattern, const char* rule) {
    aicb::model_spec m = shared;
    m.indexer_pattern = aicb::layer_pattern_text::from(pattern);
    CHECK_THROWS_WITH(aicb::validate(m), Catch::Contains("indexer_pattern") && Catch::Contains(rule));
  };
  refused("FSS", "one character per layer");
  refused("FSXF", "F (runs its own indexer)");
  refused("SFFF", "starts with F");
  aicb::model_spec dense = no_topk;
  dense.indexer_heads = dense.indexer_head_dim = 0;
  dense.indexer_pattern = "FSSF";
  CHECK_THROWS_WITH(aicb::validate(dense), Catch::Contains("needs DeepSeek sparse attention"));
}
