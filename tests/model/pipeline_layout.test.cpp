// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Megatron's explicit pipeline layout: the text unrolled as Megatron unrolls it, each chunk's layers,
// the rules, and a schedule that holds together across ranks.
#include <aicb/model/job.hpp>
#include <aicb/model/pipeline_layout.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/schedule/job_check.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include "refusal.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

namespace {

using u64 = std::uint64_t;

std::string unrolled(std::string_view text) {
  std::string out;
  if (!aicb::unroll_pipeline_layout(text, [&](char c) { out += c; })) return "<not a layout>";
  return out;
}

// DeepSeek-V3 (61 layers, one MTP module) on 8 stages x 2 chunks, its Megatron-Bridge B200 layout.
aicb::job_spec deepseek_layout(std::string_view layout) {
  aicb::job_spec j;
  j.model = aicb::presets::deepseek_v3;
  j.parallel.world_size = 256;
  j.parallel.pipeline_parallel = 8;
  j.parallel.virtual_pipeline = 2;
  j.parallel.expert_parallel = 32;
  j.parallel.pipeline_layout = aicb::pipeline_layout_text::from(layout);
  j.batch = {.micro_batch = 1, .global_batch = 4096, .seq_length = 4096};
  return j;
}

}  // namespace

TEST_CASE("pipeline layout: the text unrolls as Megatron's parser unrolls it", "[model][pipeline_layout]") {
  // Megatron's own examples (PipelineParallelLayerLayout.parse_str_to_list).
  CHECK(unrolled("Ettt|(tt|)*2,m|L") == "Ettt|tt|tt|m|L");
  CHECK(unrolled("xy") == "<not a layout>");
  CHECK(unrolled("Et*3|t*2L") == "Ettt|ttL");
  CHECK(unrolled("(t*2|)*2") == "tt|tt|");
  CHECK(unrolled("((t|)*2)*2") == "<not a layout>");  // groups do not nest
  CHECK(unrolled("(t|)") == "<not a layout>");        // a group needs its count
  CHECK(unrolled("Et*|L") == "<not a layout>");
  static_assert(aicb::pipeline_layout_stages("Et*4|(t*4|)*14tmL") == 16);
  constexpr aicb::pipeline_layout_contents last = aicb::pipeline_layout_stage("Et*4|(t*4|)*14tmL", 15);
  static_assert(last.decoder == 1 && last.mtp == 1 && last.loss && !last.embedding);
  static_assert(aicb::pipeline_layout_stage("Et*4|(t*4|)*14tmL", 0).embedding);
  static_assert(aicb::pipeline_layout_layers_before("Et*4|(t*4|)*14tmL", 15) == 60);
}

TEST_CASE("pipeline layout: each chunk holds its virtual stage's layers, in Megatron's order",
          "[model][pipeline_layout]") {
  const aicb::job_spec j = deepseek_layout("Et*4|(t*4|)*14tmL");
  CHECK(aicb_test::refusal(j).empty());
  // Virtual stage v is chunk v / PP of stage v % PP: stage 0 holds virtual stages 0 and 8, stage 7
  // virtual stages 7 and 15.
  CHECK(aicb::chunk_layers(j, 0, 0) == 4);
  CHECK(aicb::chunk_first_layer(j, 0, 0) == 0);
  CHECK(aicb::chunk_layers(j, 0, 1) == 4);
  CHECK(aicb::chunk_first_layer(j, 0, 1) == 32);  // after virtual stages 0-7, 4 layers each
  CHECK(aicb::chunk_layers(j, 7, 1) == 1);
  CHECK(aicb::chunk_first_layer(j, 7, 1) == 60);
  CHECK(aicb::stage_layers(j, 7) == 5);
  u64 total = 0;
  for (u64 stage = 0; stage < 8; ++stage)
    total += aicb::stage_layers(j, stage);
  CHECK(total == 61);
}

TEST_CASE("pipeline layout: every rule names the field, the text and what is wrong",
          "[model][pipeline_layout]") {
  CHECK_THAT(aicb_test::refusal(deepseek_layout("Et*4|(t*4|)*14tmX")),
             Catch::Contains("not a pipeline layout"));
  CHECK_THAT(aicb_test::refusal(deepseek_layout("Et*4|(t*4|)*13tmL")),
             Catch::Contains("it has 15 virtual stages"));
  CHECK_THAT(aicb_test::refusal(deepseek_layout("t*4|E(t*4|)*14tmL")),
             Catch::Contains("the embedding (E) comes first"));
  CHECK_THAT(aicb_test::refusal(deepseek_layout("Et*4|(t*4|)*14tLm")),
             Catch::Contains("the loss (L) comes last"));
  CHECK_THAT(aicb_test::refusal(deepseek_layout("Et*4|(t*4|)*14ttmL")),
             Catch::Contains("places 62 transformer layers; num_layers is 61"));
  CHECK_THAT(aicb_test::refusal(deepseek_layout("Et*4|(t*4|)*14tL")), Catch::Contains("num_mtp_layers is 1"));
  CHECK_THAT(aicb_test::refusal(deepseek_layout("Et*8|(t*4|)*12t*5||mL")),
             Catch::Contains("virtual stage 14 holds nothing"));
  aicb::job_spec j = deepseek_layout("Et*4|(t*4|)*14tmL");
  j.parallel.first_stage_layers = 4;
  CHECK_THAT(aicb_test::refusal(j), Catch::Contains("replaces first_stage_layers"));
}

TEST_CASE("pipeline layout: an uneven layout schedules and checks across every rank",
          "[model][pipeline_layout]") {
  // Llama-2 7B's 32 layers over 4 stages x 2 chunks, heavier in the middle.
  aicb::job_spec j;
  j.model = aicb::presets::llama2_7b;
  j.parallel.world_size = 4;
  j.parallel.pipeline_parallel = 4;
  j.parallel.virtual_pipeline = 2;
  j.parallel.pipeline_layout = aicb::pipeline_layout_text::from("Et|t*5|t*5|t*3|t*3|t*5|t*5|t*5L");
  j.batch = {.micro_batch = 1, .global_batch = 8, .seq_length = 1024};
  REQUIRE(aicb_test::refusal(j).empty());
  CHECK(aicb::stage_layers(j, 0) == 1 + 3);
  CHECK(aicb::stage_layers(j, 1) == 5 + 5);
  // Each rank's forward runs its chunks' layers: stage 1 holds layers 1-5 and 17-21.
  u64 forward_layers = 0;
  for (const aicb::operation& op : aicb::rank_schedule(j, 1))
    if (op.phase == aicb::op_phase::forward && op.microbatch == 0 && op.type == aicb::op_type::compute &&
        op.name == "input_norm") {
      ++forward_layers;
      CHECK(((op.layer >= 1 && op.layer <= 5) || (op.layer >= 17 && op.layer <= 21)));
    }
  CHECK(forward_layers == 10);
  const aicb::job_check checked = aicb::check_job(j);
  INFO(checked.problem);
  CHECK(checked.ok);
}

TEST_CASE("pipeline layout: a chunk of only the multi-token prediction and the loss schedules and checks",
          "[model][pipeline_layout]") {
  // Megatron-Bridge's DeepSeek-V3 H100 layout gives its last virtual stage the MTP module and the loss
  // alone (Et|(tt|)*30mL): here DeepSeek-V3's shape cut to 5 layers on 2 stages x 2 chunks.
  CHECK(aicb_test::refusal(deepseek_layout("Et*5|(t*4|)*14mL")).empty());
  aicb::job_spec j = deepseek_layout("Ett|tt|t|mL");
  j.model.num_layers = 5;
  j.model.first_dense_layers = 1;
  j.parallel.world_size = 4;
  j.parallel.pipeline_parallel = 2;
  j.parallel.expert_parallel = 2;
  j.batch = {.micro_batch = 1, .global_batch = 8, .seq_length = 256};
  REQUIRE(aicb_test::refusal(j).empty());
  CHECK(aicb::chunk_layers(j, 1, 1) == 0);
  CHECK(aicb::stage_layers(j, 1) == 2);
  // Stage 1's second chunk receives the last layer's output and runs the MTP module and the loss only.
  u64 decoder = 0, mtp = 0, logits = 0;
  for (const aicb::operation& op : aicb::rank_schedule(j, 2))
    if (op.phase == aicb::op_phase::forward && op.microbatch == 0 && op.chunk == 1 &&
        op.type == aicb::op_type::compute) {
      decoder += op.name == "input_norm" && op.layer < j.model.num_layers
                     ? 1
                     : 0;  // the MTP block's own norm comes after
      mtp += op.name.find("mtp") != std::string_view::npos ? 1 : 0;
      logits += op.name == "logits" ? 1 : 0;
    }
  CHECK(decoder == 0);
  CHECK(mtp > 0);
  CHECK(logits >= 1);
  const aicb::job_check checked = aicb::check_job(j);
  INFO(checked.problem);
  CHECK(checked.ok);
}
