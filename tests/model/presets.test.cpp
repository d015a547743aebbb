// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/params.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <string>

TEST_CASE("presets: every preset is valid, uniquely keyed and sourced, aicb's say how they differ",
          "[model][presets]") {
  std::set<std::string_view> keys;
  for (const aicb::preset& p : aicb::all_presets) {
    INFO(std::string(p.key));
    CHECK(keys.insert(p.key).second);
    CHECK_NOTHROW(aicb::validate(p.model));
    CHECK_FALSE(p.source.empty());
    CHECK(aicb::find_preset(p.key) == &p);
  }
  CHECK(aicb::find_preset("llama-2-7b") == nullptr);
  // aicb presets that differ from the model they are named after carry a note saying so.
  for (const char* key :
       {"llama_405B", "Mixtral_8*7B", "DeepSeek_671B", "DeepSeek_236B", "DeepSeek_16B", "gpt_175B"}) {
    INFO(key);
    REQUIRE(aicb::find_preset(key) != nullptr);
    CHECK(aicb::find_preset(key)->from_aicb);
    CHECK_FALSE(aicb::find_preset(key)->note.empty());
  }
}

TEST_CASE("presets: aicb's presets carry aicb's exact values (spec section 1)", "[model][presets]") {
  constexpr auto ds = aicb::presets::aicb_deepseek_671b;
  STATIC_REQUIRE(ds.hidden_size == 18432 && ds.num_layers == 61 && ds.num_attention_heads == 128);
  STATIC_REQUIRE(ds.ffn_hidden_size == 2048 && ds.q_lora_rank == 1536 && ds.kv_lora_rank == 512);
  STATIC_REQUIRE(ds.num_experts == 256 && ds.num_shared_experts == 1 && ds.first_dense_layers == 3);
  STATIC_REQUIRE(aicb::presets::aicb_deepseek_16b.q_lora_rank == 0);
  STATIC_REQUIRE(aicb::presets::aicb_gpt_7b.num_layers == 36 &&
                 aicb::presets::aicb_gpt_7b.vocab_size == 50257);
  STATIC_REQUIRE(aicb::presets::aicb_llama_405b.ffn_hidden_size == 53248);
  STATIC_REQUIRE(aicb::presets::aicb_mixtral_8x7b.num_experts == 1);
}

// Published parameter counts. Each figure's source is in the comment beside it.
TEST_CASE("presets: published parameter counts reproduce within 0.5%", "[model][presets][params]") {
  const auto total = [](const aicb::model_spec& m) {
    return static_cast<double>(aicb::count_params(m).total());
  };
  // Llama 2 model card (meta-llama/llama MODEL_CARD.md): 7B; exact 6,738,415,616 (keras-hub llama2_7b_en).
  CHECK(aicb::count_params(aicb::presets::llama2_7b).total() == 6'738'415'616ULL);
  // Hugging Face model page of Llama-2-70b: 69.0B.
  CHECK(total(aicb::presets::llama2_70b) == Approx(69.0e9).epsilon(0.005));
  // Llama 3 model card: 8B; exact 8,030,261,248 (keras-hub llama3_8b_en).
  CHECK(aicb::count_params(aicb::presets::llama3_8b).total() == 8'030'261'248ULL);
  // Hugging Face model page of Meta-Llama-3-70B: 70.6B.
  CHECK(total(aicb::presets::llama3_70b) == Approx(70.6e9).epsilon(0.005));
  // Hugging Face model page of Llama-3.1-405B: 405.9B (model card: 405B).
  CHECK(total(aicb::presets::llama3_1_405b) == Approx(405.9e9).epsilon(0.005));
  // Mistral AI's Mixtral announcement: 46.7B total, 12.9B active per token.
  CHECK(total(aicb::presets::mixtral_8x7b) == Approx(46.7e9).epsilon(0.005));
  CHECK(static_cast<double>(aicb::count_params(aicb::presets::mixtral_8x7b).active()) ==
        Approx(12.9e9).epsilon(0.005));
  // DeepSeek-V3 README: 671B total, 37B activated; README_WEIGHTS.md: 36.7B activated (without the
  // input embedding) and 11.5B MTP (unique weights) — the headline 37B is 36.7B rounded.
  const auto v3 = aicb::count_params(aicb::presets::deepseek_v3);
  CHECK(static_cast<double>(v3.total()) == Approx(671e9).epsilon(0.005));
  CHECK(static_cast<double>(v3.active_without_input_embedding()) == Approx(36.7e9).epsilon(0.005));
  CHECK(std::llround(static_cast<double>(v3.active_without_input_embedding()) / 1e9) == 37);
  // Qwen3-14B and Qwen3-32B model cards: 14.8B and 32.8B in total, 13.2B and 31.2B without the embeddings.
  CHECK(total(aicb::presets::qwen3_14b) == Approx(14.8e9).epsilon(0.005));
  CHECK(total(aicb::presets::qwen3_32b) == Approx(32.8e9).epsilon(0.005));
  const auto non_embedding = [](const aicb::model_spec& m) {
    const auto p = aicb::count_params(m);
    return static_cast<double>(p.total() - p.embedding - p.output);
  };
  CHECK(non_embedding(aicb::presets::qwen3_14b) == Approx(13.2e9).epsilon(0.005));
  CHECK(non_embedding(aicb::presets::qwen3_32b) == Approx(31.2e9).epsilon(0.005));
  // Qwen3-Next-80B-A3B model card: 80B in total.
  CHECK(total(aicb::presets::qwen3_next_80b_a3b) == Approx(80e9).epsilon(0.005));
  // Brown et al. 2020, Table 2.1 (and the usual 174.6B): GPT-3 175B.
  CHECK(total(aicb::presets::gpt3_175b) == Approx(174.6e9).epsilon(0.005));
}

TEST_CASE("presets: multi-token prediction is counted apart, as DeepSeek-V3's card does",
          "[model][presets][params]") {
  // 671B main model + one MTP module = the 685B Hugging Face checkpoint, with the embedding and head
  // stored again (2 x 129280 x 7168 = 1.85B): 671.03 + 11.61 + 1.85 = 684.49B.
  const auto v3 = aicb::count_params(aicb::presets::deepseek_v3);
  CHECK(v3.mtp == 11'610'068'224ULL);
  CHECK(v3.total() + v3.mtp + 2ULL * 129280 * 7168 == 684'489'845'504ULL);
}
