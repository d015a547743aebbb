// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/params.hpp>
#include <aicb/calc/sizing.hpp>

#include <catch2/catch.hpp>

#include <cmath>

TEST_CASE("sizing: a standard shape for a size, by the documented rule", "[model][sizing]") {
  for (auto family : {aicb::model_family::gpt, aicb::model_family::llama}) {
    for (const char* size : {"1.3B", "7B", "15B", "70B", "175B", "1T"}) {
      INFO(size);
      const std::uint64_t target = aicb::parse_param_count(size);
      const aicb::model_spec m = aicb::shape_for_size(family, target);
      CHECK_NOTHROW(aicb::validate(m));
      const double count = static_cast<double>(aicb::count_params(m).total());
      CHECK(count == Approx(static_cast<double>(target)).epsilon(0.02));  // within the rule's 2% window
      CHECK(m.hidden_size == 128 * m.num_attention_heads);                // heads of 128
      CHECK(m.num_attention_heads % 8 == 0);                              // TP up to 8 divides them
      CHECK(m.num_layers % 2 == 0);
      const double aspect = static_cast<double>(m.hidden_size) / static_cast<double>(m.num_layers);
      CHECK(aspect > 64);
      CHECK(aspect < 256);
    }
  }
  // The rule recovers GPT-3's own shapes at its sizes.
  const auto g175 = aicb::shape_for_size(aicb::model_family::gpt, 175'000'000'000ULL);
  CHECK(g175.num_layers == 96);
  CHECK(g175.hidden_size == 12288);
  const auto g13 = aicb::shape_for_size(aicb::model_family::gpt, 1'300'000'000ULL);
  CHECK(g13.num_layers == 24);
  CHECK(g13.hidden_size == 2048);
  // The user's question: a 15B LLaMA-style model.
  const auto l15 = aicb::shape_for_size(aicb::model_family::llama, 15'000'000'000ULL);
  CHECK(l15.name.view() == "llama-15.1B");
  CHECK(l15.num_kv_heads == 8);
}

TEST_CASE("sizing: the shape is chosen for the job's own model, and its count is the job's count",
          "[model][sizing]") {
  // A GPT-style base with a SwiGLU MLP (aicb generate -m 15 --swiglu): the third MLP matrix is in
  // the count the shape is chosen for, so the model is 15B, not 15B of GeLU widened to 19.6B.
  aicb::model_spec base = aicb::family_template(aicb::model_family::gpt);
  base.activation = aicb::activation_kind::swiglu;
  const aicb::model_spec m = aicb::shape_for_size(base, 15'000'000'000ULL, 4096);
  CHECK(m.activation == aicb::activation_kind::swiglu);
  CHECK(m.ffn_hidden_size == (8 * m.hidden_size / 3 + 255) / 256 * 256);
  const double count = static_cast<double>(aicb::count_params(m, 4096).total());
  CHECK(count == Approx(15e9).epsilon(0.02));
  // The learned position table is as long as the sequence: 4096 rows are in the count.
  CHECK(m.max_position_embeddings == 0);
  CHECK(aicb::count_params(m, 4096).embedding == (m.vocab_size + 4096) * m.hidden_size);
  // A vocabulary of 256k changes the shape, not the size.
  base.vocab_size = 256'000;
  const aicb::model_spec wide = aicb::shape_for_size(base, 15'000'000'000ULL, 4096);
  CHECK(static_cast<double>(aicb::count_params(wide, 4096).total()) == Approx(15e9).epsilon(0.02));
  CHECK(wide.num_layers * wide.hidden_size < m.num_layers * m.hidden_size);
  // Dimensions the base fixes stay.
  base.num_layers = 40;
  const aicb::model_spec fixed = aicb::shape_for_size(base, 15'000'000'000ULL, 4096);
  CHECK(fixed.num_layers == 40);
  base.num_kv_heads = 48;  // only head counts that are multiples of 48 are candidates
  CHECK(aicb::shape_for_size(base, 15'000'000'000ULL, 4096).num_attention_heads % 48 == 0);
  base.num_kv_heads = 300;  // no head count of the rule (8 to 256) is a multiple of it
  CHECK_THROWS_WITH(aicb::shape_for_size(base, 15'000'000'000ULL, 4096), Catch::Contains("key/value heads"));
}

TEST_CASE("sizing: parameter counts parse with suffixes, nonsense is an error", "[model][sizing]") {
  CHECK(aicb::parse_param_count("15B") == 15'000'000'000ULL);
  CHECK(aicb::parse_param_count("1.3b") == 1'300'000'000ULL);
  CHECK(aicb::parse_param_count("350M") == 350'000'000ULL);
  CHECK(aicb::parse_param_count("1T") == 1'000'000'000'000ULL);
  CHECK(aicb::parse_param_count("7e9") == 7'000'000'000ULL);
  CHECK_THROWS_AS(aicb::parse_param_count("15X"), aicb::config_error);
  CHECK_THROWS_AS(aicb::parse_param_count("big"), aicb::config_error);
  CHECK_THROWS_AS(aicb::parse_param_count("-5B"), aicb::config_error);
  CHECK_THROWS_AS(aicb::shape_for_size(aicb::model_family::gpt, 1000), aicb::config_error);
}
