// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The umbrella writes, the opt-in readers header reads back: a workload round trip, a profile and a
// config.json, with nothing else included.
#include <aicb/aicb.hpp>
#include <aicb/readers.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

TEST_CASE("readers.hpp: what the umbrella writes, the readers read back", "[umbrella]") {
  constexpr aicb::job_spec job{aicb::presets::llama2_7b,
                               {.world_size = 8, .tensor_parallel = 2},
                               {.micro_batch = 1, .global_batch = 8, .seq_length = 2048}};
  const aicb::roofline_model gpu("H100");
  const aicb::simai_projection workload(job, gpu);
  std::vector<aicb::record> written;
  {
    aicb::simai_writer out("readers_round_trip.txt", workload.header(), workload.size());
    for (const aicb::record& r : workload.records()) {
      out.write(r);
      written.push_back(r);
    }
    out.finish();
  }
  aicb::simai_reader in("readers_round_trip.txt");
  std::vector<aicb::record> read;
  for (const aicb::record& r : in.records())
    read.push_back(r);
  CHECK(read == written);
  CHECK(aicb::lint_simai("readers_round_trip.txt").errors == 0);

  const aicb::aiob_profile profile = aicb::parse_aiob("train_iter:5\natten_qkv:\n    time_gpu_avg: 120.5\n");
  REQUIRE(profile.sections.size() == 1);
  CHECK(profile.sections[0].stat("time_gpu_avg") == 120.5);

  const aicb::hf_import imported = aicb::from_hf_config(nlohmann::json::parse(
      R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
          "intermediate_size": 11008, "vocab_size": 32000})"));
  CHECK(imported.model.hidden_size == 4096u);
  CHECK(imported.model.num_layers == 32u);
}
