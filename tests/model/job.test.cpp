// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/job.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace {
constexpr aicb::model_spec dense{
    .hidden_size = 4096, .num_layers = 32, .num_attention_heads = 32, .num_kv_heads = 8, .vocab_size = 32000};
constexpr aicb::model_spec moe{.hidden_size = 4096,
                               .num_layers = 32,
                               .num_attention_heads = 32,
                               .num_kv_heads = 8,
                               .vocab_size = 32000,
                               .num_experts = 8,
                               .moe_top_k = 2};
constexpr aicb::job_spec job{dense,
                             {.world_size = 64, .tensor_parallel = 2, .pipeline_parallel = 2},
                             {.micro_batch = 1, .global_batch = 256, .seq_length = 4096}};

std::string fault(const aicb::job_spec& j) {
  try {
    aicb::validate(j);
    return "";
  } catch (const aicb::config_error& e) {
    return e.field();
  }
}
}  // namespace

static_assert(aicb::validate(job));
static_assert(aicb::checked_job<job>.model.head_dim == 128);

TEST_CASE("job: derived layout quantities", "[model][job]") {
  STATIC_REQUIRE(aicb::data_parallel(job) == 16);
  STATIC_REQUIRE(aicb::microbatches(job) == 16);
  STATIC_REQUIRE(aicb::global_batch(job) == 256);
  STATIC_REQUIRE(aicb::padded_vocab(job) == 32000);  // already a multiple of 128 x 2
  STATIC_REQUIRE(aicb::stage_layers(job, 0) == 16 && aicb::stage_layers(job, 1) == 16);
  STATIC_REQUIRE(aicb::expert_tensor_parallel(job) == 2);
  constexpr aicb::job_spec odd_vocab{
      {.hidden_size = 64, .num_layers = 2, .num_attention_heads = 4, .vocab_size = 50257},
      {.world_size = 8, .tensor_parallel = 4},
      {}};
  STATIC_REQUIRE(aicb::padded_vocab(odd_vocab) == 50688);  // ceil(50257 / 512) * 512
  STATIC_REQUIRE(aicb::global_batch(odd_vocab) == 2);      // 0 means micro_batch x DP
  constexpr aicb::job_spec uneven{
      dense, {.world_size = 4, .pipeline_parallel = 4, .first_stage_layers = 5, .last_stage_layers = 7}, {}};
  STATIC_REQUIRE(aicb::stage_layers(uneven, 0) == 5 && aicb::stage_layers(uneven, 1) == 10 &&
                 aicb::stage_layers(uneven, 2) == 10 && aicb::stage_layers(uneven, 3) == 7);
  STATIC_REQUIRE(aicb::validate(uneven));
  constexpr aicb::job_spec experts{
      moe, {.world_size = 64, .tensor_parallel = 2, .expert_parallel = 8, .sequence_parallel = true}, {}};
  STATIC_REQUIRE(aicb::validate(experts));
  STATIC_REQUIRE(aicb::expert_data_parallel(experts) == 4);  // 64 / (1 * 2 * 8)
}

TEST_CASE("job: Megatron's pipeline split with the embedding and the loss counted as layers",
          "[model][job]") {
  // Llama-3.1-405B's 126 layers on PP 8 x VPP 8: 126 + 2 = 128 slots, 2 per model chunk; the very
  // first chunk gives one to the embedding, the very last one to the loss.
  constexpr aicb::job_spec split{aicb::presets::llama3_1_405b,
                                 {.world_size = 64,
                                  .tensor_parallel = 8,
                                  .pipeline_parallel = 8,
                                  .virtual_pipeline = 8,
                                  .account_for_embedding_in_pipeline_split = true,
                                  .account_for_loss_in_pipeline_split = true},
                                 {.global_batch = 8}};
  STATIC_REQUIRE(aicb::validate(split));
  STATIC_REQUIRE(aicb::chunk_layers(split, 0, 0) == 1 && aicb::chunk_layers(split, 0, 1) == 2);
  STATIC_REQUIRE(aicb::chunk_layers(split, 7, 7) == 1 && aicb::chunk_layers(split, 7, 6) == 2);
  STATIC_REQUIRE(aicb::chunk_first_layer(split, 0, 0) == 0 && aicb::chunk_first_layer(split, 1, 0) == 1);
  STATIC_REQUIRE(aicb::chunk_first_layer(split, 0, 1) == 15);  // slot 16, less the embedding's
  STATIC_REQUIRE(aicb::chunk_first_layer(split, 7, 7) == 125);
  STATIC_REQUIRE(aicb::stage_layers(split, 0) == 15 && aicb::stage_layers(split, 3) == 16 &&
                 aicb::stage_layers(split, 7) == 15);
  // Every layer is held exactly once, by the chunks in Megatron's virtual-stage order.
  std::vector<int> held(126, 0);
  std::uint64_t expected_next = 0;
  for (std::uint64_t chunk = 0; chunk < 8; ++chunk)
    for (std::uint64_t stage = 0; stage < 8; ++stage) {
      CHECK(aicb::chunk_first_layer(split, stage, chunk) == expected_next);
      expected_next += aicb::chunk_layers(split, stage, chunk);
    }
  CHECK(expected_next == 126);
  for (std::uint64_t stage = 0; stage < 8; ++stage)
    aicb::for_each_stage_layer(split, stage, [&](std::uint64_t l) { ++held.at(l); });
  CHECK(std::count(held.begin(), held.end(), 1) == 126);
  // Only the embedding counted: 127 slots do not split into 64 chunks; the loss alone neither.
  auto j = split;
  j.parallel.account_for_loss_in_pipeline_split = false;
  CHECK(fault(j) == "num_layers");
  j.parallel.virtual_pipeline = 1;  // 127 slots over 8 stages: no
  CHECK(fault(j) == "num_layers");
  j.model.num_layers = 127;  // 128 slots: 16 per stage, 15 on the first
  j.batch.global_batch = 1;
  CHECK(fault(j).empty());
  CHECK(aicb::stage_layers(j, 0) == 15);
  CHECK(aicb::stage_layers(j, 7) == 16);
  // Not with explicit first/last stage sizes; not when a chunk would be left with no layer.
  j = split;
  j.parallel.first_stage_layers = 14;
  CHECK(fault(j) == "first_stage_layers");
  j = split;
  j.model.num_layers = 62;  // 64 slots: 1 per chunk, none left beside the embedding
  CHECK(fault(j) == "num_layers");
}

TEST_CASE("job: every layout rule names its field at run time", "[model][job]") {
  auto j = job;
  CHECK(fault(j).empty());
  j.parallel.world_size = 63;  // TP x PP = 4 does not divide 63
  CHECK(fault(j) == "world_size");
  j = job;
  j.parallel.tensor_parallel = 3;
  j.parallel.world_size = 48;
  CHECK(fault(j) == "tensor_parallel");  // 3 does not divide 32 heads
  j = job;
  j.parallel.tensor_parallel = 16;
  CHECK(fault(j) == "tensor_parallel");  // 16 does not divide 8 KV heads
  j.parallel.replicate_kv_heads = true;
  CHECK(fault(j).empty());  // unless key/value heads are replicated
  j = job;
  j.parallel.pipeline_parallel = 3;
  j.parallel.world_size = 96;
  j.batch.global_batch = 48;
  CHECK(fault(j) == "pipeline_parallel");  // 3 stages do not split 32 layers
  j.parallel.first_stage_layers = 10;
  CHECK(fault(j).empty());  // 10 + 11 + 11
  j = job;
  j.parallel.virtual_pipeline = 3;
  CHECK(fault(j) == "virtual_pipeline");  // 16 layers per stage are not 3 chunks
  j = job;
  j.batch.global_batch = 100;
  CHECK(fault(j) == "global_batch");  // not a multiple of 1 x 16
  j = job;
  j.parallel.sequence_parallel = true;
  j.batch.seq_length = 4095;
  CHECK(fault(j) == "seq_length");
  j = job;
  j.parallel.context_parallel = 4;
  j.parallel.world_size = 64;
  j.batch.global_batch = 64;
  j.batch.seq_length = 4100;  // not divisible by 2 x 4
  CHECK(fault(j) == "seq_length");
  j = job;
  j.parallel.expert_parallel = 2;
  CHECK(fault(j) == "expert_parallel");  // dense model
  j = aicb::job_spec{
      moe, {.world_size = 64, .tensor_parallel = 2, .expert_parallel = 3, .sequence_parallel = true}, {}};
  CHECK(fault(j) == "expert_parallel");  // 3 does not divide 8 experts
  j.parallel.expert_parallel = 8;
  j.parallel.world_size = 8;
  CHECK(fault(j) == "expert_parallel");  // 8 x 2 does not fit in the 8 ranks of a stage
  j = aicb::job_spec{moe, {.world_size = 8, .tensor_parallel = 2}, {}};
  CHECK(fault(j) == "sequence_parallel");  // MoE with TP needs SP
  j = job;
  j.parallel.zero_stage = 4;
  CHECK(fault(j) == "zero_stage");
  j = job;
  j.model.num_layers = 0;
  CHECK(fault(j) == "num_layers");  // model rules run too
  j = job;
  j.batch.fp8_recipe = aicb::fp8_recipe_kind::tensorwise;
  CHECK(fault(j) == "fp8_recipe");  // a recipe without FP8 GEMMs
  j.batch.dtype = aicb::dtype::fp8;
  CHECK(fault(j).empty());
}

TEST_CASE("job: sizes that would overflow 64 bits are refused, naming the field and the limit",
          "[model][job]") {
  // hidden 2^31 x sequence 2^32+1: once a silent 4 GiB all-reduce.
  aicb::job_spec j{
      {.hidden_size = 1ULL << 31, .num_layers = 2, .num_attention_heads = 16, .vocab_size = 32000},
      {},
      {.seq_length = (1ULL << 32) + 1}};
  CHECK_THROWS_WITH(aicb::validate(j),
                    Catch::Contains("hidden_size = 2147483648") && Catch::Contains("2^50"));
  // 2^32 x 2^32: once 0 bytes.
  j.model.hidden_size = 1ULL << 32;
  j.batch.seq_length = 1ULL << 32;
  CHECK_THROWS_AS(aicb::validate(j), aicb::config_error);
  // A long sequence alone: the activation of a micro batch.
  aicb::job_spec long_sequence = job;
  long_sequence.batch.seq_length = 1ULL << 40;
  long_sequence.batch.global_batch = 32;
  CHECK(fault(long_sequence) == "seq_length");
  aicb::job_spec tokens = job;
  tokens.batch.global_batch = 1ULL << 40;
  CHECK_THROWS_WITH(aicb::validate(tokens),
                    Catch::Contains("global_batch x seq_length") && Catch::Contains("2^50"));
  // Parallel sizes whose product wraps: refused, not divided into a wrong data-parallel size.
  aicb::job_spec wrap = job;
  wrap.parallel.tensor_parallel = 1ULL << 32;
  wrap.parallel.context_parallel = 1ULL << 32;
  CHECK(fault(wrap) == "world_size");
  aicb::job_spec world = job;
  world.parallel.world_size = 1ULL << 31;
  CHECK_THROWS_WITH(aicb::validate(world), Catch::Contains("2^31-1"));
  aicb::job_spec stages = job;
  stages.parallel.world_size = 128;
  stages.parallel.pipeline_parallel = 64;  // more stages than the 32 layers
  CHECK(fault(stages) == "pipeline_parallel");
  // Large but real: a 1M-token context over CP 16 on a 405B-class model passes.
  aicb::job_spec big{
      {.hidden_size = 16384,
       .num_layers = 128,
       .num_attention_heads = 128,
       .num_kv_heads = 8,
       .ffn_hidden_size = 53248,
       .vocab_size = 128256,
       .position = aicb::position_kind::rope},
      {.world_size = 16384, .tensor_parallel = 8, .pipeline_parallel = 16, .context_parallel = 16},
      {.micro_batch = 1, .global_batch = 64, .seq_length = 1 << 20}};
  CHECK(aicb::validate(big));
}

TEST_CASE("job: the sequence fits a learned position table", "[model][job]") {
  aicb::job_spec j = job;
  j.model.position = aicb::position_kind::learned;
  j.model.max_position_embeddings = 2048;
  CHECK_THROWS_WITH(aicb::validate(j), Catch::Contains("seq_length = 4096: seq_length must not exceed "
                                                       "max_position_embeddings") &&
                                           Catch::Contains("(max_position_embeddings = 2048)"));
  j.model.max_position_embeddings = 0;  // a table as long as the sequence
  CHECK(aicb::validate(j));
  j.model.max_position_embeddings = 2048;
  j.model.position = aicb::position_kind::rope;  // no table
  CHECK(aicb::validate(j));
}

TEST_CASE("job: hybrid linear-attention models train, within the rules of their Gated DeltaNet heads",
          "[model][job]") {
  aicb::job_spec job{aicb::presets::qwen3_next_80b_a3b, {.world_size = 8, .expert_parallel = 8}, {}};
  CHECK(aicb::validate_training(job));
  // The heads split over TP: 16 key heads and 32 value heads; TP 32 divides neither's 16.
  aicb::job_spec wide = job;
  wide.model.num_attention_heads = 64;
  wide.model.num_kv_heads = 32;
  wide.parallel = {.world_size = 32,
                   .tensor_parallel = 32,
                   .expert_parallel = 32,
                   .expert_tensor_parallel = 1,
                   .sequence_parallel = true};
  CHECK(aicb::validate(wide));
  CHECK_THROWS_WITH(aicb::validate_training(wide),
                    Catch::Contains("tensor_parallel = 32") && Catch::Contains("linear_num_key_heads"));
  // A sequence's recurrent state would cross the CP ranks.
  aicb::job_spec cp = job;
  cp.parallel = {.world_size = 16, .context_parallel = 2, .expert_parallel = 8};
  CHECK(aicb::validate(cp));
  CHECK_THROWS_WITH(aicb::validate_training(cp),
                    Catch::Contains("context_parallel = 2") && Catch::Contains("Gated DeltaNet"));
}

TEST_CASE("validated job: checked once with the training rules, its model resolved", "[model][job]") {
  aicb::job_spec job{dense, {.world_size = 16, .tensor_parallel = 2}, {.micro_batch = 1, .global_batch = 16}};
  const aicb::validated_job checked(job);
  CHECK(checked->parallel.tensor_parallel == 2u);
  CHECK(checked.job().model == aicb::resolve(job.model));
  CHECK(checked.job().model.head_dim == 128u);  // resolved: 4096 / 32
  CHECK(job.model.head_dim == 0u);              // the given spec is left as it was
  job.parallel.tensor_parallel = 3;
  CHECK_THROWS_WITH(aicb::validated_job(job), Catch::Contains("TPxPPxCP = 3"));
}

TEST_CASE("job: the combined 1F1B's rules, each naming the field and what Megatron needs", "[model][job]") {
  const aicb::job_spec moe{aicb::presets::mixtral_8x7b,
                           {.world_size = 8,
                            .expert_parallel = 8,
                            .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall,
                            .overlap_moe_expert_parallel_comm = true,
                            .delay_wgrad_compute = true},
                           {.micro_batch = 1, .global_batch = 16, .seq_length = 2048}};
  CHECK_NOTHROW(aicb::validate(moe));
  const auto refused = [](aicb::job_spec j, auto change, const std::string& text) {
    change(j);
    INFO(text);
    CHECK_THROWS_WITH(aicb::validate(j), Catch::Contains(text));
  };
  refused(
      moe, [](aicb::job_spec& j) { j.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::allgather; },
      "overlap_moe_expert_parallel_comm = 1: the combined 1F1B needs moe_dispatcher alltoall or flex");
  aicb::job_spec flex = moe;
  flex.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::flex;
  CHECK_NOTHROW(aicb::validate(flex));
  // The flex dispatcher as modelled: experts whole on their GPU, padded to a capacity only on HybridEP.
  refused(
      flex,
      [](aicb::job_spec& j) {
        j.parallel.tensor_parallel = 2;
        j.parallel.sequence_parallel = true;
        j.parallel.expert_parallel = 4;
      },
      "expert_tensor_parallel = 2: the flex dispatcher is modelled with experts whole on their GPU");
  refused(
      flex,
      [](aicb::job_spec& j) {
        j.model.moe_capacity_factor = 1.0;
        j.model.moe_pad_to_capacity = true;
      },
      "moe_pad_to_capacity = 1: the flex dispatcher on DeepEP does not pad");
  refused(
      moe,
      [](aicb::job_spec& j) {
        j.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::allgather;
        j.parallel.overlap_moe_expert_parallel_comm = false;
        j.parallel.delay_wgrad_compute = false;
        j.model.moe_capacity_factor = 1.0;
        j.model.moe_pad_to_capacity = true;
      },
      "moe_pad_to_capacity = 1: Megatron's all-gather dispatcher does not pad");
  aicb::job_spec hybrid = flex;
  hybrid.parallel.moe_flex_backend = aicb::moe_flex_backend_kind::hybridep;
  hybrid.model.moe_capacity_factor = 1.1;
  hybrid.model.moe_pad_to_capacity = true;
  CHECK_NOTHROW(aicb::validate(hybrid));
  refused(
      hybrid, [](aicb::job_spec& j) { j.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::alltoall; },
      "moe_flex_backend = hybridep: HybridEP is a backend of the flex dispatcher");
  refused(
      moe, [](aicb::job_spec& j) { j.parallel.recompute = aicb::recompute_kind::full; },
      "full recomputation");
  refused(
      moe, [](aicb::job_spec& j) { j.parallel.expert_parallel = 1; },
      "expert_parallel > 1 (expert_parallel = 1)");
  refused(
      moe,
      [](aicb::job_spec& j) {
        j.parallel.world_size = 16;
        j.parallel.pipeline_parallel = 2;
      },
      "set virtual_pipeline > 1 (pipeline_parallel = 2)");
  refused(
      moe, [](aicb::job_spec& j) { j.batch.dtype = aicb::dtype::fp32; }, "bf16 or fp16");
  refused(
      moe, [](aicb::job_spec& j) { j.parallel.overlap_moe_expert_parallel_comm = false; },
      "delay_wgrad_compute = 1: delay_wgrad_compute needs overlap_moe_expert_parallel_comm");
  aicb::job_spec interleaved = moe;
  interleaved.parallel.world_size = 16;
  interleaved.parallel.pipeline_parallel = 2;
  interleaved.parallel.virtual_pipeline = 2;
  CHECK_NOTHROW(aicb::validate(interleaved));
}

static std::string training_fault(const aicb::job_spec& j) {
  try {
    aicb::validate_training(j);
    return "";
  } catch (const aicb::config_error& e) {
    return e.field();
  }
}

TEST_CASE("job: chunked attention shorter than the sequence runs fused and without CP", "[model][job]") {
  aicb::job_spec j = job;
  j.model.attention_chunk_size = 8192;
  j.model.attention_chunk_pattern = 4;
  j.batch.seq_length = 16384;
  j.parallel.attention = aicb::attention_kind::flash;
  CHECK(training_fault(j).empty());
  j.parallel.context_parallel = 2;
  CHECK(training_fault(j) == "context_parallel");
  j.parallel.context_parallel = 1;
  j.parallel.attention = aicb::attention_kind::unfused;
  CHECK(training_fault(j) == "attention");
  j.batch.seq_length = 8192;  // one chunk holds the sequence: plain causal attention, any kernel
  CHECK(training_fault(j).empty());
}
