// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compat/aicb_inference_config.hpp>

#include <catch2/catch.hpp>

TEST_CASE("aicb inference config: the keys aicb's generator reads", "[compat][inference]") {
  const aicb::aicb_inference_model m = aicb::parse_aicb_inference_config(
      R"({"hidden_size": 7168, "num_hidden_layers": 61, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
          "n_shared_experts": 1, "vocab_size": 129280})",
      "deepseek.json");
  CHECK(m.hidden_size == 7168);
  CHECK(m.num_layers == 61);
  CHECK(m.top_k == 8);
  CHECK(m.first_dense_layers == 3);
  CHECK(m.shared_experts == 1);
  // moe_router_topk wins over num_experts_per_tok, as in aicb (G:112).
  CHECK(aicb::parse_aicb_inference_config(R"({"moe_router_topk": 4, "num_experts_per_tok": 8})", "x").top_k ==
        4);
  // With the default config's values, the generator's form writes what the script does.
  aicb::aicb_inference_model full = m;
  const aicb::aicb_inference_workload by_config(aicb::parse_aicb_inference_generator(
      {"DeepSeek-671B", "deepseek.json", "--phase", "decode", "--micro_batch", "32", "--world_size", "8",
       "--expert_model_parallel_size", "8", "--seq_length", "1024"},
      full));
  const aicb::aicb_inference_workload by_script(aicb::parse_aicb_inference_script({"-m", "deepseek-671B"}));
  CHECK(by_config.text() == by_script.text());
}

TEST_CASE("aicb inference config: what is not a config is refused, naming the file", "[compat][inference]") {
  CHECK_THROWS_WITH(aicb::parse_aicb_inference_config("{", "c.json"),
                    Catch::Contains("c.json") && Catch::Contains("not JSON"));
  CHECK_THROWS_WITH(aicb::parse_aicb_inference_config("[1]", "c.json"), Catch::Contains("JSON object"));
  CHECK_THROWS_WITH(aicb::parse_aicb_inference_config(R"({"hidden_size": -1})", "c.json"),
                    Catch::Contains("hidden_size") && Catch::Contains("whole number"));
  CHECK_THROWS_WITH(aicb::read_aicb_inference_config("no-such-config.json"),
                    Catch::Contains("cannot open file"));
}
