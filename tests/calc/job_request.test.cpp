// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/job_request.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace {
const std::string llama_small =
    (std::filesystem::path(AICB_SOURCE_DIR) / "tests/data/hf/llama_small.json").string();
}  // namespace

TEST_CASE("job request: a model from a preset, one of aicb's names, a size or a config.json",
          "[model][job_request]") {
  CHECK(aicb::build_job({.model = "llama2-7b"}).job.model == aicb::presets::llama2_7b);
  // aicb's names: its GPT shapes, and the real models its other names stand for.
  CHECK(aicb::build_job({.model = "13"}).job.model == aicb::presets::aicb_gpt_13b);
  CHECK(aicb::build_job({.model = "moe"}).job.model == aicb::presets::mixtral_8x7b);
  CHECK(aicb::build_job({.model = "deepseek671"}).job.model == aicb::presets::deepseek_v3);
  // A bare number is billions; "15", "15B" and --size 15B are one request.
  const aicb::built_job a = aicb::build_job({.model = "15"});
  const aicb::built_job b = aicb::build_job({.model = "15B"});
  const aicb::built_job c = aicb::build_job({.size = "15B"});
  CHECK(a.job.model == b.job.model);
  CHECK(b.job.model == c.job.model);
  CHECK(c.job.model.activation == aicb::activation_kind::swiglu);  // llama, the one default family
  REQUIRE(c.notes.size() == 1);
  CHECK_THAT(c.notes[0], Catch::StartsWith("size 15B: the standard llama shape llama-15."));
  const auto params = aicb::count_params(c.job.model, c.job.batch.seq_length).total();
  CHECK(params > 14'000'000'000ULL);
  CHECK(params < 16'000'000'000ULL);
  CHECK(aicb::build_job({.size = "15B", .family = "gpt"}).job.model.activation ==
        aicb::activation_kind::gelu);
  // config.json.
  const aicb::job_spec imported = aicb::build_job({.hf_config = llama_small}).job;
  CHECK(imported.model.hidden_size == 512);
  CHECK(imported.model.num_kv_heads == 2);
}

TEST_CASE("job request: fields apply on top of the model, and a size is fitted to them",
          "[model][job_request]") {
  const aicb::job_spec job = aicb::build_job({.model = "llama2-7b",
                                              .fields = {{"num_layers", "8"},
                                                         {"world_size", "16"},
                                                         {"tensor_parallel", "2"},
                                                         {"global_batch", "32"},
                                                         {"recompute", "full"}}})
                                 .job;
  CHECK(job.model.num_layers == 8);
  CHECK(job.model.hidden_size == 4096);  // the preset's, untouched
  CHECK(job.parallel.world_size == 16);
  CHECK(job.parallel.tensor_parallel == 2);
  CHECK(job.batch.global_batch == 32);
  CHECK(job.parallel.recompute == aicb::recompute_kind::full);
  // The shape for a size counts the vocabulary the fields give: a larger vocabulary, fewer layers.
  const aicb::job_spec small_vocab = aicb::build_job({.size = "7B", .fields = {{"vocab_size", "32000"}}}).job;
  const aicb::job_spec big_vocab = aicb::build_job({.size = "7B", .fields = {{"vocab_size", "256000"}}}).job;
  CHECK(small_vocab.model.vocab_size == 32000);
  CHECK(big_vocab.model.vocab_size == 256000);
  CHECK(aicb::count_params(small_vocab.model, 4096).total() / 1'000'000'000 == 6);
  CHECK(big_vocab.model.num_layers * big_vocab.model.hidden_size <
        small_vocab.model.num_layers * small_vocab.model.hidden_size);
  // A name given is kept.
  CHECK(aicb::build_job({.size = "7B", .fields = {{"name", "mine"}}}).job.model.name.view() == "mine");
}

TEST_CASE("job request: errors name the field, the value and the rule", "[model][job_request]") {
  CHECK_THROWS_WITH(aicb::build_job({.model = "llama2-7", .fields = {}}),
                    Catch::Contains("model = llama2-7") && Catch::Contains("did you mean"));
  CHECK_THROWS_WITH(aicb::build_job({.model = "llama2-7b", .size = "7B"}),
                    Catch::Contains("only one model source"));
  CHECK_THROWS_WITH(aicb::build_job({.fields = {{"hiden_size", "8"}}}),
                    Catch::Contains("hiden_size = 8") && Catch::Contains("did you mean hidden_size?"));
  CHECK_THROWS_WITH(aicb::build_job({.fields = {{"hidden_size", "many"}}}), Catch::Contains("hidden_size"));
  CHECK_THROWS_WITH(aicb::build_job({.size = "7B", .family = "bert"}), Catch::Contains("gpt | llama"));
  CHECK_THROWS_AS(aicb::build_job({.hf_config = "/nonexistent/config.json"}), aicb::io_error);
}
