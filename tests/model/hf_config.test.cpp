// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/params.hpp>
#include <aicb/model/hf_config.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include "reference.hpp"

#include <cmath>
#include <fstream>
#include <string>

namespace {

struct published_model {
  const char* file;
  std::uint64_t total;   // exact count by the usual formula (hf-configs/INDEX.md, computed column)
  std::uint64_t active;  // idem; for DeepSeek "activated" without the input embedding (their convention)
  double published_total, published_active;  // the published figures, in billions
  int total_digits, active_digits;           // significant digits those figures are given with
};

// Sources of the published figures: hf-configs/INDEX.md (model cards, vendor announcements).
const published_model models[] = {
    {"Llama-2-7b-hf.json", 6738415616, 6738415616, 6.738415616, 6.738415616, 10, 10},
    {"Llama-2-13b-hf.json", 13015864320, 13015864320, 13, 13, 2, 2},
    {"Llama-2-70b-hf.json", 68976648192, 68976648192, 69.0, 69.0, 3, 3},
    {"Meta-Llama-3-8B.resaved.json", 8030261248, 8030261248, 8.030261248, 8.030261248, 10, 10},
    {"Meta-Llama-3-70B.json", 70553706496, 70553706496, 70.6, 70.6, 3, 3},
    {"Llama-3.1-405B.json", 405853388800, 405853388800, 406, 406, 3, 3},
    {"Mistral-7B-v0.1.json", 7241732096, 7241732096, 7.241732096, 7.241732096, 10, 10},
    {"Mixtral-8x7B-v0.1.json", 46702792704, 12879925248, 46.7, 12.9, 3, 3},
    {"Mixtral-8x22B-v0.1.json", 140620634112, 39152031744, 141, 39, 3, 2},
    {"Qwen2.5-7B.json", 7615616512, 7615616512, 7.61, 7.61, 3, 3},
    {"Qwen2.5-72B.json", 72706203648, 72706203648, 72.706203648, 72.706203648, 11, 11},
    {"Qwen3-8B.json", 8190735360, 8190735360, 8.19073536, 8.19073536, 9, 9},
    {"Qwen3-30B-A3B.json", 30532122624, 3353032704, 30.532122624, 3.3, 11, 2},
    {"Qwen3-235B-A22B.json", 235093634560, 22190763520, 235.09363456, 22, 11, 2},
    {"DeepSeek-V2-Lite.json", 15706484224, 2451435008, 15.7, 2.4, 3, 2},
    {"DeepSeek-V3.json", 671026419200, 36625618432, 671, 36.7, 3, 3},
};

// Within 0.5%, or — for a figure given with 2 significant digits — within one unit of its last digit.
bool matches_published(std::uint64_t computed, double published_billions, int digits) {
  const double value = static_cast<double>(computed) / 1e9;
  if (std::abs(value - published_billions) <= 0.005 * published_billions) return true;
  if (digits > 2) return false;
  const double unit = std::pow(10.0, std::floor(std::log10(published_billions)) - 1);
  return std::abs(value - published_billions) <= unit;
}

}  // namespace

TEST_CASE("reference: every real config.json imports to its published parameter counts",
          "[model][hf_config]") {
  const auto dir = aicb_test::reference_dir("hf-configs");
  for (const auto& m : models) {
    INFO(m.file);
    const aicb::hf_import imported = aicb::load_hf_config((dir / m.file).string());
    CHECK(imported.ignored_keys.empty());
    const aicb::param_counts c = aicb::count_params(imported.model);
    CHECK(c.total() == m.total);
    const bool deepseek = imported.model.is_mla();
    CHECK((deepseek ? c.active_without_input_embedding() : c.active()) == m.active);
    CHECK(matches_published(c.total(), m.published_total, m.total_digits));
    CHECK(matches_published(deepseek ? c.active_without_input_embedding() : c.active(), m.published_active,
                            m.active_digits));
  }
}

TEST_CASE("reference: imported configs equal the presets of the same models", "[model][hf_config]") {
  const auto dir = aicb_test::reference_dir("hf-configs");
  const std::pair<const char*, aicb::model_spec> pairs[] = {
      {"Llama-2-70b-hf.json", aicb::presets::llama2_70b},
      {"Mixtral-8x22B-v0.1.json", aicb::presets::mixtral_8x22b},
      {"Qwen2.5-7B.json", aicb::presets::qwen2_5_7b},
      {"Qwen3-235B-A22B.json", aicb::presets::qwen3_235b_a22b},
      {"DeepSeek-V3.json", aicb::presets::deepseek_v3},
      {"DeepSeek-V2-Lite.json", aicb::presets::deepseek_v2_lite}};
  for (const auto& [file, preset] : pairs) {
    INFO(file);
    aicb::model_spec imported = aicb::resolve(aicb::load_hf_config((dir / file).string()).model);
    aicb::model_spec expected = aicb::resolve(preset);
    imported.name = expected.name;
    imported.max_position_embeddings = expected.max_position_embeddings;  // presets leave it to the job
    CHECK(imported == expected);
  }
}

TEST_CASE("hf_config: DeepSeek's router groups import where its top-k method limits them",
          "[model][hf_config]") {
  const auto dir = aicb_test::reference_dir("hf-configs");
  // DeepSeek-V3: topk_method noaux_tc, n_group 8, topk_group 4 — a token's experts within 4 groups.
  const aicb::model_spec v3 = aicb::load_hf_config((dir / "DeepSeek-V3.json").string()).model;
  CHECK(v3.moe_router_num_groups == 8);
  CHECK(v3.moe_router_group_topk == 4);
  // DeepSeek-V2-Lite: greedy over all 64 experts (n_group 1).
  const aicb::model_spec lite = aicb::load_hf_config((dir / "DeepSeek-V2-Lite.json").string()).model;
  CHECK(lite.moe_router_num_groups == 0);
  CHECK(lite.moe_router_group_topk == 0);
  // Kimi K2 (noaux_tc, one group): routing over all 384 experts.
  const aicb::model_spec kimi =
      aicb::load_hf_config(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/kimi-k2-instruct.json").model;
  CHECK(kimi.moe_router_num_groups == 0);
}

TEST_CASE("hf_config: GPT-OSS imports to its model card's parameter counts and to its presets",
          "[model][hf_config]") {
  // tests/data/hf/gpt-oss-*.json: the config.json files of openai/gpt-oss-120b and openai/gpt-oss-20b
  // on Hugging Face. The model card (arXiv 2508.10925, Table 1) gives 116.83B parameters in all and
  // 5.13B active per token for gpt-oss-120b, 20.91B and 3.61B for gpt-oss-20b — active counting the
  // unembedding, not the input embedding.
  const struct {
    const char* file;
    aicb::model_spec preset;
    std::uint64_t total, active;
    double published_total, published_active;
  } cases[] = {
      {"gpt-oss-120b.json", aicb::presets::gpt_oss_120b, 116'829'156'672, 5'132'849'472, 116.83, 5.13},
      {"gpt-oss-20b.json", aicb::presets::gpt_oss_20b, 20'914'757'184, 3'608'307'264, 20.91, 3.61}};
  for (const auto& c : cases) {
    INFO(c.file);
    const aicb::hf_import imported =
        aicb::load_hf_config(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/" + c.file);
    CHECK(imported.ignored_keys.empty());
    const aicb::param_counts counts = aicb::count_params(imported.model);
    CHECK(counts.total() == c.total);
    CHECK(counts.active_without_input_embedding() == c.active);
    CHECK(std::abs(static_cast<double>(counts.total()) / 1e9 - c.published_total) < 0.005);
    CHECK(std::abs(static_cast<double>(counts.active_without_input_embedding()) / 1e9 - c.published_active) <
          0.005);
    aicb::model_spec m = aicb::resolve(imported.model);
    const aicb::model_spec expected = aicb::resolve(c.preset);
    m.name = expected.name;
    m.max_position_embeddings = expected.max_position_embeddings;
    CHECK(m == expected);
    CHECK(m.is_sliding_window_layer(0));
    CHECK_FALSE(m.is_sliding_window_layer(1));
    // YaRN over 32 times the 4096 positions, no mscale terms: the attention factor 0.1 ln 32 + 1.
    CHECK(m.rope_attention_factor == Approx(0.1 * std::log(32.0) + 1).epsilon(1e-15));
  }
  // A layout other than the published alternation is refused, naming layer_types.
  nlohmann::json config;
  {
    std::ifstream in(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/gpt-oss-20b.json");
    in >> config;
  }
  config["layer_types"][0] = "full_attention";
  try {
    (void)aicb::from_hf_config(config);
    FAIL("a non-alternating GPT-OSS layout imported");
  } catch (const aicb::config_error& e) {
    CHECK(e.field() == "layer_types");
  }
  // Mistral 7B v0.1's window covers every layer; Qwen's inactive window is no window.
  const auto dir = aicb_test::reference_dir("hf-configs");
  CHECK(aicb::load_hf_config((dir / "Mistral-7B-v0.1.json").string()).model.sliding_window == 4096);
  CHECK(aicb::load_hf_config((dir / "Qwen2.5-7B.json").string()).model.sliding_window == 0);
}

TEST_CASE("hf_config: YaRN's attention factor, as transformers and Megatron-Core derive it",
          "[model][hf_config]") {
  nlohmann::json config;
  {
    std::ifstream in(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/gpt-oss-20b.json");
    in >> config;
  }
  const auto factor_of = [&](const nlohmann::json& scaling) {
    nlohmann::json c = config;
    c["rope_scaling"] = scaling;
    return aicb::from_hf_config(c).model.rope_attention_factor;
  };
  // Both mscale terms given: their ratio, 0.1·m·ln(factor) + 1 each (DeepSeek-V3's and Kimi K2's: 1).
  CHECK(factor_of({{"rope_type", "yarn"}, {"factor", 40}, {"mscale", 1.0}, {"mscale_all_dim", 1.0}}) == 1.0);
  CHECK(factor_of({{"type", "yarn"}, {"factor", 40}, {"mscale", 1.0}, {"mscale_all_dim", 0.5}}) ==
        Approx((0.1 * std::log(40.0) + 1) / (0.05 * std::log(40.0) + 1)));
  // Without them 0.1 ln(factor) + 1; an explicit attention_factor wins; other scalings have none.
  CHECK(factor_of({{"rope_type", "yarn"}, {"factor", 4}}) == Approx(0.1 * std::log(4.0) + 1));
  CHECK(factor_of({{"rope_type", "yarn"}, {"factor", 4}, {"attention_factor", 1.25}}) == 1.25);
  CHECK(factor_of({{"rope_type", "llama3"}, {"factor", 8}}) == 1.0);
  CHECK(factor_of(nullptr) == 1.0);
  for (const auto& bad : {nlohmann::json{{"rope_type", "yarn"}, {"factor", "32"}},
                          nlohmann::json{{"rope_type", "yarn"}, {"factor", 0.5}}}) {
    try {
      (void)factor_of(bad);
      FAIL("a malformed YaRN factor imported: " << bad.dump());
    } catch (const aicb::config_error& e) {
      CHECK(e.field() == "rope_scaling.factor");
    }
  }
  // The DeepSeek-V3.2 and Kimi K2 configs' own: 1, so their rotations stay fused.
  for (const char* file : {"deepseek-v3.2-exp.json", "kimi-k2-instruct.json"})
    CHECK(aicb::load_hf_config(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/" + file)
              .model.rope_attention_factor == Approx(1.0));
}

TEST_CASE("hf_config: Llama 4 Scout and Maverick import their language models to the cards' counts",
          "[model][hf_config]") {
  // tests/data/hf/llama4-*.json: the config.json of meta-llama/Llama-4-Scout-17B-16E (as transformers
  // 4.51 prints its Llama4Config) and of Llama-4-Maverick-17B-128E (its text_config as TensorRT-LLM's
  // Llama 4 tests record it, with the 48 layers and the default no_rope_layers restored). Model cards:
  // Scout 17B active of ~109B, Maverick 17B active of ~400B — the totals with the vision encoder,
  // which aicb leaves out (the job is the language model).
  // By hand: attention 5120·5120 (q) + 2·5120·1024 (k, v) + 5120·5120 (o) and two norms per layer (the
  // L2 query/key norm has no weights); an expert 3·5120·8192, the shared one as wide; a router of
  // E x 5120; Maverick's dense layers 3·5120·16384; two 202048 x 5120 embeddings and the final norm.
  const std::uint64_t attention = 5120ull * 5120 * 2 + 2 * 5120ull * 1024 + 2 * 5120;
  const std::uint64_t expert = 3ull * 5120 * 8192, dense = 3ull * 5120 * 16384, embedding = 202048ull * 5120;
  {
    const aicb::hf_import scout =
        aicb::load_hf_config(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/llama4-scout-17b-16e.json");
    CHECK(scout.ignored_keys.empty());
    const aicb::param_counts c = aicb::count_params(scout.model);
    CHECK(c.total() == 48 * (attention + 17 * expert + 16 * 5120) + 2 * embedding + 5120);
    CHECK(c.total() == 107'769'861'120ull);
    CHECK(c.active() == 48 * (attention + 2 * expert + 16 * 5120) + 2 * embedding + 5120);
    CHECK(std::floor(static_cast<double>(c.active()) / 1e9) == 17);
    CHECK(scout.model.attention_chunk_size == 8192);
    CHECK(scout.model.attention_chunk_pattern == 4);
    CHECK(scout.model.qk_l2_norm);
    CHECK(scout.model.is_chunked_attention_layer(2));
    CHECK_FALSE(scout.model.is_chunked_attention_layer(3));
    aicb::model_spec m = aicb::resolve(scout.model);
    const aicb::model_spec expected = aicb::resolve(aicb::presets::llama4_scout);
    m.name = expected.name;
    m.max_position_embeddings = expected.max_position_embeddings;
    CHECK(m == expected);
  }
  nlohmann::json config;
  {
    std::ifstream in(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/llama4-maverick-17b-128e.json");
    in >> config;
  }
  {
    const aicb::hf_import maverick = aicb::from_hf_config(config);
    const aicb::param_counts c = aicb::count_params(maverick.model);
    CHECK(c.total() == 48 * attention + 24 * dense + 24 * (129 * expert + 128 * 5120) + 2 * embedding + 5120);
    CHECK(std::floor(static_cast<double>(c.total()) / 1e9) == 400);
    CHECK(std::floor(static_cast<double>(c.active()) / 1e9) == 17);
    CHECK(maverick.model.num_moe_layers() == 24);
    CHECK(maverick.model.is_moe_layer(1));
    CHECK_FALSE(maverick.model.is_moe_layer(0));
    aicb::model_spec m = aicb::resolve(maverick.model);
    const aicb::model_spec expected = aicb::resolve(aicb::presets::llama4_maverick);
    m.name = expected.name;
    m.max_position_embeddings = expected.max_position_embeddings;
    CHECK(m == expected);
  }
  // The language model alone: llama4_text imports the same model.
  {
    nlohmann::json text = config["text_config"];
    const aicb::hf_import alone = aicb::from_hf_config(text);
    CHECK(alone.model.num_moe_layers() == 24);
    CHECK(alone.model.attention_chunk_size == 8192);
  }
  // What is not modelled is refused, naming the key.
  const auto refused = [](nlohmann::json c, const char* key) {
    try {
      (void)aicb::from_hf_config(c);
      FAIL("imported with " << key << " changed");
    } catch (const aicb::config_error& e) {
      CHECK(e.field() == key);
    }
  };
  {
    nlohmann::json c = config;
    c["text_config"]["moe_layers"] = {0, 2};
    refused(c, "moe_layers");
  }
  {
    nlohmann::json c = config;
    c["text_config"]["no_rope_layers"][5] = 0;
    refused(c, "no_rope_layers");
  }
  {
    nlohmann::json c = config;
    c["text_config"]["no_rope_layers"] = "every fourth";
    refused(c, "no_rope_layers");
  }
  {
    nlohmann::json c = config;
    c["text_config"]["layer_types"] = nlohmann::json::array();
    for (int i = 0; i < 48; ++i)
      c["text_config"]["layer_types"].push_back(i % 2 ? "chunked_attention" : "full_attention");
    refused(c, "layer_types");
  }
  {
    nlohmann::json c = config;
    c.erase("text_config");
    refused(c, "text_config");
  }
  {
    nlohmann::json c = config;
    c["text_config"]["layer_types"] = nlohmann::json::array();
    for (int i = 0; i < 48; ++i)
      c["text_config"]["layer_types"].push_back("full_attention");
    c["text_config"]["use_qk_norm"] = true;
    refused(c, "use_qk_norm");
  }
}

TEST_CASE("hf_config: GLM-4.5-Air and Kimi K2 import to their model cards' counts and their presets",
          "[model][hf_config]") {
  // tests/data/hf/glm-4.5-air.json: zai-org/GLM-4.5-Air's config.json (its Glm4MoeConfig as
  // transformers 4.54.1 prints it). Model card: 106B parameters in all, 12B active.
  // By hand: attention 4096·12288 (q) + 2·4096·1024 (k, v) + 12288·4096 (o), biases on q, k, v
  // (12288 + 2·1024), two norms, on 46 layers; layer 0's MLP 3·4096·10944; 45 MoE layers of 129
  // experts (128 routed, 1 shared) of 3·4096·1408, a 128 x 4096 router and its 128 score-correction
  // biases; two 151552 x 4096 embeddings and the final norm. Active: 9 of the 129 experts.
  {
    const aicb::hf_import glm =
        aicb::load_hf_config(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/glm-4.5-air.json");
    CHECK(glm.ignored_keys.empty());
    const std::uint64_t attention = 4096ull * 12288 * 2 + 2 * 4096ull * 1024 + 12288 + 2 * 1024 + 2 * 4096;
    const std::uint64_t expert = 3ull * 4096 * 1408, router = 128ull * 4096 + 128;
    const std::uint64_t embedding = 151552ull * 4096;
    const aicb::param_counts c = aicb::count_params(glm.model);
    CHECK(c.total() ==
          46 * attention + 3ull * 4096 * 10944 + 45 * (129 * expert + router) + 2 * embedding + 4096);
    CHECK(c.total() == 106'852'251'264ull);
    CHECK(c.active_without_input_embedding() ==
          46 * attention + 3ull * 4096 * 10944 + 45 * (9 * expert + router) + embedding + 4096);
    CHECK(std::floor(static_cast<double>(c.total()) / 1e9) == 106);
    CHECK(std::floor(static_cast<double>(c.active_without_input_embedding() - embedding) / 1e9) == 12);
    CHECK(glm.model.qkv_bias);
    CHECK_FALSE(glm.model.linear_bias);
    CHECK(glm.model.num_mtp_layers == 1);
    aicb::model_spec m = aicb::resolve(glm.model);
    const aicb::model_spec expected = aicb::resolve(aicb::presets::glm4_5_air);
    m.name = expected.name;
    m.max_position_embeddings = expected.max_position_embeddings;
    CHECK(m == expected);
  }
  // tests/data/hf/kimi-k2-instruct.json: the keys of moonshotai/Kimi-K2-Instruct's config.json
  // (model_type kimi_k2: DeepSeek-V3's architecture, Moonshot's model card), as public
  // repositories record them. Model card: 1T parameters in all, 32B activated.
  // By hand: MLA 7168·1536 + 1536 + 1536·64·192 + 7168·576 + 512 + 512·64·256 + 64·128·7168 and two
  // norms on 61 layers; layer 0's MLP 3·7168·18432; 60 MoE layers of 385 experts of 3·7168·2048, a
  // 384 x 7168 router and its biases; two 163840 x 7168 embeddings, the final norm.
  {
    const aicb::hf_import k2 =
        aicb::load_hf_config(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/kimi-k2-instruct.json");
    CHECK(k2.ignored_keys.empty());
    const std::uint64_t attention = 7168ull * 1536 + 1536 + 1536ull * 64 * 192 + 7168ull * 576 + 512 +
                                    512ull * 64 * 256 + 64ull * 128 * 7168 + 2 * 7168;
    const std::uint64_t expert = 3ull * 7168 * 2048, router = 384ull * 7168 + 384;
    const std::uint64_t embedding = 163840ull * 7168, dense = 3ull * 7168 * 18432;
    const aicb::param_counts c = aicb::count_params(k2.model);
    CHECK(c.total() == 61 * attention + dense + 60 * (385 * expert + router) + 2 * embedding + 7168);
    CHECK(c.active_without_input_embedding() ==
          61 * attention + dense + 60 * (9 * expert + router) + embedding + 7168);
    CHECK(std::llround(static_cast<double>(c.total()) / 1e12) == 1);
    CHECK(std::floor(static_cast<double>(c.active()) / 1e9) == 32);
    aicb::model_spec m = aicb::resolve(k2.model);
    const aicb::model_spec expected = aicb::resolve(aicb::presets::kimi_k2);
    m.name = expected.name;
    m.max_position_embeddings = expected.max_position_embeddings;
    CHECK(m == expected);
  }
}

TEST_CASE("hf_config: DeepSeek-V3.2-Exp imports its sparse attention to DeepSeek's counts and its preset",
          "[model][hf_config]") {
  // tests/data/hf/deepseek-v3.2-exp.json: deepseek-ai/DeepSeek-V3.2-Exp's config.json as public
  // repositories record it — DeepSeek-V3's keys with model_type deepseek_v32 and the indexer's
  // index_topk 2048, index_n_heads 64, index_head_dim 128 (DeepSeek's inference/model.py: the indexer's
  // wq_b 1536 x 64·128, wk 7168 x 128 with a LayerNorm, weights_proj 7168 x 64). DeepSeek: 671B in all,
  // 37B activated.
  const aicb::hf_import v32 =
      aicb::load_hf_config(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/deepseek-v3.2-exp.json");
  CHECK(v32.ignored_keys.empty());
  CHECK(v32.model.sparse_attention_topk == 2048);
  CHECK(v32.model.indexer_heads == 64);
  CHECK(v32.model.indexer_head_dim == 128);
  const std::uint64_t indexer = 1536ull * 64 * 128 + 7168ull * 128 + 2 * 128 + 7168ull * 64;
  const aicb::param_counts c = aicb::count_params(v32.model);
  CHECK(c.total() == 671'026'419'200ull + 61 * indexer);  // DeepSeek-V3's total and the indexers
  CHECK(std::floor(static_cast<double>(c.total()) / 1e9) == 671);
  CHECK(std::llround(static_cast<double>(c.active_without_input_embedding()) / 1e9) == 37);
  aicb::model_spec m = aicb::resolve(v32.model);
  const aicb::model_spec expected = aicb::resolve(aicb::presets::deepseek_v3_2);
  m.name = expected.name;
  m.max_position_embeddings = expected.max_position_embeddings;
  CHECK(m == expected);
}

TEST_CASE("hf_config: GLM-5 imports to its published counts, GLM-5.2's shared indexers as its config says",
          "[model][hf_config]") {
  // tests/data/hf/glm-5.json: GLM-5's keys with the values of transformers' GlmMoeDsaConfig, whose
  // defaults are zai-org/GLM-5's (its docstring's checkpoint): 78 layers of 6144, MLA (q_lora_rank
  // 2048, heads of 192 + 64 query-key and 256 value), the indexer (32 heads of 128, top 2048), 256
  // experts top-8 of 2048 with one shared, 3 dense layers of 12288, vocabulary 154880, untied. The
  // transformers documentation: 744B parameters, 40B active.
  // By hand: MLA 6144·2048 + 2048 + 2048·64·256 + 6144·576 + 512 + 512·64·448 + 64·256·6144 and two
  // norms, the indexer 2048·32·128 + 6144·128 + 2·128 + 6144·32, on 78 layers; 3 dense MLPs of
  // 3·6144·12288; 75 MoE layers of 257 experts of 3·6144·2048, a 256 x 6144 router and its biases;
  // two 154880 x 6144 embeddings and the final norm.
  const std::string path = std::string(AICB_SOURCE_DIR) + "/tests/data/hf/glm-5.json";
  const aicb::hf_import glm = aicb::load_hf_config(path);
  CHECK(glm.ignored_keys.empty());
  const std::uint64_t attention = 6144ull * 2048 + 2048 + 2048ull * 64 * 256 + 6144ull * 576 + 512 +
                                  512ull * 64 * 448 + 64ull * 256 * 6144 + 2 * 6144;
  const std::uint64_t indexer = 2048ull * 32 * 128 + 6144ull * 128 + 2 * 128 + 6144ull * 32;
  const std::uint64_t expert = 3ull * 6144 * 2048, router = 256ull * 6144 + 256;
  const std::uint64_t embedding = 154880ull * 6144, dense = 3ull * 6144 * 12288;
  const aicb::param_counts c = aicb::count_params(glm.model);
  CHECK(c.total() ==
        78 * (attention + indexer) + 3 * dense + 75 * (257 * expert + router) + 2 * embedding + 6144);
  CHECK(std::llround(static_cast<double>(c.total()) / 1e9) == 744);
  CHECK(c.active_without_input_embedding() ==
        78 * (attention + indexer) + 3 * dense + 75 * (9 * expert + router) + embedding + 6144);
  CHECK(std::floor(static_cast<double>(c.active_without_input_embedding()) / 1e9) == 40);  // 40.8B
  CHECK(glm.model.indexer_pattern.empty());  // GLM-5: every layer runs its own indexer
  aicb::model_spec m = aicb::resolve(glm.model);
  const aicb::model_spec expected = aicb::resolve(aicb::presets::glm5);
  m.name = expected.name;
  m.max_position_embeddings = expected.max_position_embeddings;
  CHECK(m == expected);

  std::ifstream in(path);
  const nlohmann::json config = nlohmann::json::parse(in);
  // GLM-5.2's IndexShare: the first three layers run their indexers, then every fourth from layer 6
  // (index_topk_freq 4 from index_skip_topk_offset 3: max(i − 2, 0) divisible by 4); the others reuse
  // the previous full layer's selection. The same layout as an explicit indexer_types list.
  std::string expected_pattern;
  for (int i = 0; i < 78; ++i)
    expected_pattern += (i < 3 || i % 4 == 2) ? 'F' : 'S';
  nlohmann::json freq = config;
  freq["index_topk_freq"] = 4;
  freq["index_skip_topk_offset"] = 3;
  const aicb::hf_import shared = aicb::from_hf_config(freq, "glm-5.2");
  CHECK(shared.model.indexer_pattern.view() == expected_pattern);
  CHECK(shared.model.num_indexer_layers() == 21);
  CHECK(aicb::count_params(glm.model).total() - aicb::count_params(shared.model).total() == 57 * indexer);
  nlohmann::json listed = config;
  listed["indexer_types"] = nlohmann::json::array();
  for (const char ch : expected_pattern)
    listed["indexer_types"].push_back(ch == 'F' ? "full" : "shared");
  CHECK(aicb::from_hf_config(listed, "glm-5.2").model == shared.model);
  nlohmann::json letters = config;
  letters["index_topk_pattern"] = expected_pattern;
  CHECK(aicb::from_hf_config(letters, "glm-5.2").model == shared.model);
  // indexer_types wins over the keys it supersedes, which are read, not refused as unknown.
  nlohmann::json both = listed;
  both["index_topk_freq"] = 1;
  both["index_topk_pattern"] = std::string(78, 'F');
  const aicb::hf_import precedence = aicb::from_hf_config(both, "glm-5.2");
  CHECK(precedence.ignored_keys.empty());
  CHECK(precedence.model == shared.model);
  // What is not modelled, or contradicts itself, is refused, naming the key.
  const auto refused = [](nlohmann::json c, const char* key) {
    CHECK_THROWS_WITH(aicb::from_hf_config(c, "glm"), Catch::Contains(key));
  };
  nlohmann::json mtp_share = config;
  mtp_share["index_share_for_mtp_iteration"] = true;
  refused(mtp_share, "index_share_for_mtp_iteration");
  nlohmann::json moe_first = config;
  moe_first["mlp_layer_types"] = nlohmann::json::array();
  for (int i = 0; i < 78; ++i)
    moe_first["mlp_layer_types"].push_back(i < 1 ? "dense" : "sparse");
  refused(moe_first, "mlp_layer_types");
  nlohmann::json short_list = config;
  short_list["indexer_types"] = {"full", "shared"};
  refused(short_list, "indexer_types");
  nlohmann::json shared_first = letters;
  shared_first["index_topk_pattern"] = "S" + expected_pattern.substr(1);
  refused(shared_first, "indexer_pattern");
  nlohmann::json head = config;
  head["head_dim"] = 128;
  refused(head, "head_dim");
}

TEST_CASE("hf_config: Nemotron 3 Nano's hybrid pattern imports to its model card's counts and its preset",
          "[model][hf_config]") {
  // tests/data/hf/nemotron-3-nano-30b-a3b.json: the keys of nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B's
  // config.json on Hugging Face. Its model card: 31.6B parameters in all, about 3.2B active per
  // token (3.6B with the embeddings).
  const aicb::hf_import imported =
      aicb::load_hf_config(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/nemotron-3-nano-30b-a3b.json");
  CHECK(imported.ignored_keys.empty());
  const aicb::param_counts c = aicb::count_params(imported.model);
  // By hand: Mamba-2 layer 2688·10304 + 6144·5 + 3·64 + 4096 + 4096·2688 + 2688; attention layer
  // 2688·(4096 + 2·256) + 4096·2688 + 2688; MoE layer 2688·128 + 128·2·2688·1856 + 2·2688·3712 + 2688
  // and the router's 128 score-correction biases (counted as DeepSeek-V3's are); 23 + 6 + 23 of
  // them, two 131072 x 2688 embeddings and the final norm.
  const std::uint64_t mamba = 2688ull * 10304 + 6144 * 5 + 3 * 64 + 4096 + 4096ull * 2688 + 2688;
  const std::uint64_t attention = 2688ull * (4096 + 2 * 256) + 4096ull * 2688 + 2688;
  const std::uint64_t moe = 2688ull * 128 + 128 + 128ull * 2 * 2688 * 1856 + 2ull * 2688 * 3712 + 2688;
  CHECK(c.total() == 23 * mamba + 6 * attention + 23 * moe + 2 * 131072ull * 2688 + 2688);
  CHECK(std::abs(static_cast<double>(c.total()) / 1e9 - 31.6) < 0.05);
  CHECK(std::abs(static_cast<double>(c.active_without_input_embedding()) / 1e9 - 3.2) < 0.05);
  CHECK(std::abs(static_cast<double>(c.active()) / 1e9 - 3.6) < 0.05);
  aicb::model_spec m = aicb::resolve(imported.model);
  const aicb::model_spec expected = aicb::resolve(aicb::presets::nemotron3_nano_30b_a3b);
  m.name = expected.name;
  m.max_position_embeddings = expected.max_position_embeddings;
  CHECK(m == expected);
  CHECK(m.position == aicb::position_kind::none);  // attention without positions
  CHECK(m.pattern_count('M') == 23);
  CHECK(m.pattern_count('E') == 23);
  CHECK(m.pattern_count('*') == 6);
  nlohmann::json config;
  {
    std::ifstream in(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/nemotron-3-nano-30b-a3b.json");
    in >> config;
  }
  // Its FP32 SSM cache is read; a format aicb does not know is refused.
  CHECK(aicb::from_hf_config(config).model.mamba_state_fp32);
  config["mamba_ssm_cache_dtype"] = "bfloat16";
  CHECK_FALSE(aicb::from_hf_config(config).model.mamba_state_fp32);
  config["mamba_ssm_cache_dtype"] = "int8";
  CHECK_THROWS_WITH(aicb::from_hf_config(config), Catch::Contains("mamba_ssm_cache_dtype"));
}

TEST_CASE("hf_config: Nemotron 3 Super imports its latent experts and MTP module to the card's counts",
          "[model][hf_config]") {
  // tests/data/hf/nemotron-3-super-120b-a12b.json: the keys of nvidia/NVIDIA-Nemotron-3-Super-120B-A12B's
  // config.json as public repositories record them (without the quantised release's
  // quantization_config). Model card: 120B parameters, 12B active. By hand, per layer kind with its
  // norm: Mamba-2 in_proj 4096·(2·8192 + 2·8·128 + 128), the convolution over 10240 channels (4 taps
  // and a bias), dt bias, A and D per head, the gated norm over 8192, out_proj 8192·4096; attention
  // 4096·4096 (q) + 2·4096·256 (k, v) + 4096·4096 (o); latent experts: a 512 x 4096 router and its
  // 512 score-correction biases, the latent projections 4096·1024 down and up, 512 experts of
  // 1024·2688 up and 2688·1024 down (squared ReLU, not gated), a shared expert of 4096·5376 up and
  // down. Cross-checked with the BF16 release's safetensors headers as public repositories sum them:
  // 123,611,012,096 weights with the MTP module's 2,942,324,736, the 20,480 FP32 score-correction
  // biases not among them; inactive experts 107,898,470,400.
  const aicb::hf_import super =
      aicb::load_hf_config(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/nemotron-3-super-120b-a12b.json");
  CHECK(super.ignored_keys.empty());
  const std::uint64_t mamba = 4096ull * 18560 + 10240 * 4 + 10240 + 3 * 128 + 8192 + 8192ull * 4096 + 4096;
  const std::uint64_t attention = 4096ull * 4096 * 2 + 2 * 4096ull * 256 + 4096;
  const std::uint64_t expert = 2ull * 1024 * 2688;
  const std::uint64_t moe =
      512ull * 4096 + 512 + 2 * 4096ull * 1024 + 512 * expert + 2 * 4096ull * 5376 + 4096;
  const std::uint64_t embedding = 131072ull * 4096;
  const aicb::param_counts c = aicb::count_params(super.model);
  CHECK(c.total() == 40 * mamba + 8 * attention + 40 * moe + 2 * embedding + 4096);
  CHECK(c.total() - 40 * 512 == 123'611'012'096ull - 2'942'324'736ull);
  CHECK(c.total() - c.active() == 107'898'470'400ull);
  CHECK(std::llround(static_cast<double>(c.total()) / 1e9) == 121);  // the card's "120B": 120.67
  CHECK(std::floor(static_cast<double>(c.active()) / 1e9) == 12);
  CHECK(c.mtp - 512 == 2'942'324'736ull);  // its attention and latent-expert blocks, projection and norms
  CHECK(super.model.moe_latent_size == 1024);
  CHECK(super.model.num_mtp_layers == 1);
  CHECK(super.model.mamba_state_fp32);
  aicb::model_spec m = aicb::resolve(super.model);
  const aicb::model_spec expected = aicb::resolve(aicb::presets::nemotron3_super_120b_a12b);
  m.name = expected.name;
  m.max_position_embeddings = expected.max_position_embeddings;
  CHECK(m == expected);
  // An MTP module other than attention-then-experts is refused, naming the key.
  nlohmann::json config;
  {
    std::ifstream in(std::string(AICB_SOURCE_DIR) + "/tests/data/hf/nemotron-3-super-120b-a12b.json");
    in >> config;
  }
  config["mtp_hybrid_override_pattern"] = "*M";
  CHECK_THROWS_WITH(aicb::from_hf_config(config), Catch::Contains("mtp_hybrid_override_pattern"));
}

TEST_CASE("hf_config: unknown and missing keys are errors that list them all", "[model][hf_config]") {
  nlohmann::json config = {{"model_type", "llama"},      {"hidden_size", 4096},
                           {"num_hidden_layers", 32},    {"num_attention_heads", 32},
                           {"intermediate_size", 11008}, {"vocab_size", 32000},
                           {"rope_theta", 10000.0},      {"torch_dtype", "float16"}};
  CHECK_NOTHROW(aicb::from_hf_config(config));
  config["frobnicate"] = 1;
  config["wibble"] = true;
  CHECK_THROWS_WITH(aicb::from_hf_config(config),
                    Catch::Contains("unknown keys") && Catch::Contains("frobnicate, wibble"));
  const auto accepted = aicb::from_hf_config(config, "config.json", {.allow_unknown_keys = true});
  CHECK(accepted.ignored_keys == std::vector<std::string>{"frobnicate", "wibble"});
  config.erase("vocab_size");
  config.erase("num_hidden_layers");
  CHECK_THROWS_WITH(aicb::from_hf_config(config), Catch::Contains("missing required keys") &&
                                                      Catch::Contains("num_hidden_layers") &&
                                                      Catch::Contains("vocab_size"));
}

TEST_CASE("hf_config: unsupported types, values and files give clear errors", "[model][hf_config]") {
  CHECK_THROWS_WITH(aicb::from_hf_config({{"model_type", "gpt2"}}), Catch::Contains("supported model types"));
  CHECK_THROWS_WITH(aicb::from_hf_config(nlohmann::json::array()), Catch::Contains("must be a JSON object"));
  nlohmann::json config = {{"model_type", "llama"}, {"hidden_size", -4096}};
  CHECK_THROWS_WITH(aicb::from_hf_config(config),
                    Catch::Contains("hidden_size = -4096: expected a non-negative integer"));
  config = {{"model_type", "qwen3_moe"}, {"hidden_size", 2048},       {"num_hidden_layers", 4},
            {"num_attention_heads", 16}, {"intermediate_size", 6144}, {"vocab_size", 1000},
            {"num_experts", 8},          {"num_experts_per_tok", 2},  {"moe_intermediate_size", 768},
            {"decoder_sparse_step", 2}};
  CHECK_THROWS_WITH(aicb::from_hf_config(config), Catch::Contains("decoder_sparse_step"));
  CHECK_THROWS_AS(aicb::load_hf_config("/nonexistent/config.json"), aicb::io_error);
  const std::string path = "hf_config_test_not_json.json";
  std::ofstream(path) << "{ not json";
  CHECK_THROWS_AS(aicb::load_hf_config(path), aicb::parse_error);
  std::remove(path.c_str());
}

TEST_CASE("hf config: malformed text is a parse_error at its position, never a foreign exception",
          "[model][hf]") {
  try {
    (void)aicb::parse_hf_config("{\"model_type\": \"llama\",\n \"hidden_size\": 1e400}", "big.json");
    FAIL("no error");
  } catch (const aicb::parse_error& e) {
    CHECK(e.file() == "big.json");
    CHECK(e.line() == 2);
    CHECK(e.column() == 17);
    CHECK_THAT(e.message(), Catch::Contains("1e400"));
  }
  CHECK_THROWS_AS(aicb::parse_hf_config("{\"model_type\": ", "cut.json"), aicb::parse_error);
  CHECK_THROWS_AS(aicb::parse_hf_config("[1, 2]", "array.json"), aicb::config_error);
  const std::string huge =
      R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 18446744073709551615,
    "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000})";
  CHECK_THROWS_WITH(aicb::parse_hf_config(huge, "huge.json"), Catch::Contains("num_layers"));
  std::filesystem::create_directory("hf_dir");
  CHECK_THROWS_WITH(aicb::load_hf_config("hf_dir"), Catch::Contains("is a directory"));
  std::filesystem::remove("hf_dir");
}

TEST_CASE("hf_config: Qwen3-Next's hybrid layout imports to its preset", "[model][hf_config]") {
  // The keys of Qwen/Qwen3-Next-80B-A3B-Instruct's config.json.
  nlohmann::json config = {{"architectures", {"Qwen3NextForCausalLM"}},
                           {"attention_bias", false},
                           {"attention_dropout", 0.0},
                           {"bos_token_id", 151643},
                           {"decoder_sparse_step", 1},
                           {"eos_token_id", 151645},
                           {"full_attention_interval", 4},
                           {"head_dim", 256},
                           {"hidden_act", "silu"},
                           {"hidden_size", 2048},
                           {"initializer_range", 0.02},
                           {"intermediate_size", 5120},
                           {"linear_conv_kernel_dim", 4},
                           {"linear_key_head_dim", 128},
                           {"linear_num_key_heads", 16},
                           {"linear_num_value_heads", 32},
                           {"linear_value_head_dim", 128},
                           {"max_position_embeddings", 262144},
                           {"mlp_only_layers", nlohmann::json::array()},
                           {"model_type", "qwen3_next"},
                           {"moe_intermediate_size", 512},
                           {"norm_topk_prob", true},
                           {"num_attention_heads", 16},
                           {"num_experts", 512},
                           {"num_experts_per_tok", 10},
                           {"num_hidden_layers", 48},
                           {"num_key_value_heads", 2},
                           {"output_router_logits", false},
                           {"partial_rotary_factor", 0.25},
                           {"rms_norm_eps", 1e-06},
                           {"rope_scaling", nullptr},
                           {"rope_theta", 10000000},
                           {"router_aux_loss_coef", 0.001},
                           {"shared_expert_intermediate_size", 512},
                           {"tie_word_embeddings", false},
                           {"torch_dtype", "bfloat16"},
                           {"transformers_version", "4.57.0.dev0"},
                           {"use_cache", true},
                           {"use_sliding_window", false},
                           {"vocab_size", 151936}};
  const aicb::hf_import imported = aicb::from_hf_config(config);
  CHECK(imported.ignored_keys.empty());
  aicb::model_spec m = aicb::resolve(imported.model);
  const aicb::model_spec expected = aicb::resolve(aicb::presets::qwen3_next_80b_a3b);
  m.name = expected.name;
  m.max_position_embeddings = expected.max_position_embeddings;
  CHECK(m == expected);
  // A per-layer list must follow the interval; one that does not is refused, naming it.
  nlohmann::json types = nlohmann::json::array();
  for (int i = 0; i < 48; ++i)
    types.push_back((i + 1) % 4 == 0 ? "full_attention" : "linear_attention");
  config["layer_types"] = types;
  CHECK(aicb::resolve(aicb::from_hf_config(config).model).full_attention_interval == 4);
  config["layer_types"][0] = "full_attention";
  CHECK_THROWS_WITH(aicb::from_hf_config(config), Catch::Contains("layer_types"));
  config.erase("layer_types");
  config.erase("linear_num_value_heads");
  CHECK_THROWS_WITH(aicb::from_hf_config(config), Catch::Contains("linear_num_value_heads"));
}
