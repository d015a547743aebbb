// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/params.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/schedule/views.hpp>

#include <range/v3/view/take.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <ranges>
#include <string>
#include <tuple>
#include <vector>

namespace {

using aicb::collective, aicb::group_kind, aicb::op_phase, aicb::op_type;

aicb::job_spec llama(std::uint64_t world, std::uint64_t tp, std::uint64_t pp, bool sp, std::uint64_t cp = 1,
                     std::uint64_t vpp = 1, std::uint64_t gbs = 8) {
  return {aicb::presets::llama2_7b,
          {.world_size = world,
           .tensor_parallel = tp,
           .pipeline_parallel = pp,
           .virtual_pipeline = vpp,
           .context_parallel = cp,
           .sequence_parallel = sp},
          {.micro_batch = 1, .global_batch = gbs, .seq_length = 4096}};
}

std::vector<aicb::operation> all(const aicb::job_spec& job, std::uint64_t rank) {
  std::vector<aicb::operation> ops;
  for (const aicb::operation& op : aicb::rank_schedule(job, rank))
    ops.push_back(op);
  return ops;
}

// Collectives of one layer and micro batch in one phase, by (kind, size).
std::map<std::pair<collective, std::uint64_t>, int> layer_collectives(const std::vector<aicb::operation>& ops,
                                                                      std::uint64_t layer, op_phase phase) {
  std::map<std::pair<collective, std::uint64_t>, int> n;
  for (const aicb::operation& op : ops)
    if (op.type == op_type::collective && op.layer == layer && op.microbatch == 0 && op.phase == phase)
      ++n[{op.kind, op.size.count()}];
  return n;
}

// One layer's FP8 scaling work for a GEMM pass: bytes per element of its input (X) and of its output
// gradient (G), and its kernels (compute_op::quantize_input_bytes and the rest).
struct scaling {
  double x, g;
  std::uint32_t kernels;
  bool operator==(const scaling&) const = default;
};
scaling scaling_of(const aicb::compute_op& op) {
  return {op.quantize_input_bytes, op.quantize_output_bytes, op.quantize_kernels};
}
// The scaling of layer 1's `name` in `pass`, on rank 0.
scaling scaling_of(const aicb::job_spec& job, std::string_view name, aicb::pass_kind pass) {
  for (const aicb::operation& op : aicb::rank_schedule(job, 0))
    if (op.type == op_type::compute && op.name == name && op.compute.pass == pass && op.layer == 1)
      return scaling_of(op.compute);
  FAIL("no " << name);
  return scaling{};
}
}  // namespace

TEST_CASE("rank schedule: the cross-entropy's reductions over TP, fused or not", "[schedule]") {
  // Llama-2-7B, TP 2: the loss of a micro batch of 4096 tokens over half the 32000-row vocabulary.
  // Megatron's unfused loss: three all-reduces of one float per token (max, target logit, sum); fused
  // (--cross-entropy-loss-fusion): the max, then the target logit and the sum as one of two floats;
  // Transformer Engine's (--cross-entropy-fusion-impl te): one all-gather of each rank's max, sum and
  // target logit (3 floats per token from each of 2 ranks).
  using aicb::cross_entropy_fusion_kind, aicb::loss_kernel;
  using named = std::vector<std::pair<std::string, std::uint64_t>>;
  const std::tuple<bool, cross_entropy_fusion_kind, loss_kernel, named> cases[] = {
      {false, cross_entropy_fusion_kind::native, loss_kernel::unfused,
       named{{"cross_entropy_max", 4096 * 4},
             {"cross_entropy_target", 4096 * 4},
             {"cross_entropy_sum", 4096 * 4}}},
      {true, cross_entropy_fusion_kind::native, loss_kernel::fused,
       named{{"cross_entropy_max", 4096 * 4}, {"cross_entropy_target_sum", 4096 * 8}}},
      {true, cross_entropy_fusion_kind::te, loss_kernel::te,
       named{{"cross_entropy_stats_gather", 4096 * 12 * 2}}}};
  for (const auto& [fusion, impl, kernel, expected] : cases) {
    aicb::job_spec job = llama(2, 2, 1, true);
    job.parallel.cross_entropy_loss_fusion = fusion;
    job.parallel.cross_entropy_fusion_impl = impl;
    named after_loss;
    std::vector<loss_kernel> kernels;
    bool seen = false;
    for (const aicb::operation& op : all(job, 0)) {
      if (op.microbatch != 0) continue;
      if (op.type == op_type::compute && op.name == "cross_entropy") {
        seen = true;
        kernels.push_back(op.compute.loss);
        CHECK(op.compute.m == 4096);
        CHECK(op.compute.n == 16000);
      } else if (seen && op.type == op_type::collective && op.phase == op_phase::forward) {
        after_loss.emplace_back(op.name, op.size.count());
      }
    }
    CHECK(kernels == std::vector<loss_kernel>{kernel, kernel});  // forward and backward
    CHECK(after_loss == expected);
  }
  // The implementation alone, without the fusion, is refused: Megatron would ignore it.
  aicb::job_spec te_alone = llama(2, 2, 1, true);
  te_alone.parallel.cross_entropy_fusion_impl = cross_entropy_fusion_kind::te;
  CHECK_THROWS_WITH(aicb::validate(te_alone), Catch::Contains("cross_entropy_fusion_impl") &&
                                                  Catch::Contains("needs cross_entropy_loss_fusion"));
}

TEST_CASE("rank schedule: FP8 training runs the layers' GEMMs in FP8 and the output layer's in BF16",
          "[schedule]") {
  // Megatron's output layer is its own ColumnParallelLinear, outside Transformer Engine's FP8 regions.
  aicb::job_spec job = llama(2, 2, 1, true);
  job.batch.dtype = aicb::dtype::fp8;
  int logits = 0, layer_gemms = 0;
  for (const aicb::operation& op : all(job, 0)) {
    if (op.type != op_type::compute || op.compute.kind != aicb::op_kind::gemm) continue;
    if (op.name == "logits") {
      ++logits;
      CHECK(op.compute.type == aicb::dtype::bf16);
    } else {
      ++layer_gemms;
      CHECK(op.compute.type == aicb::dtype::fp8);
    }
  }
  CHECK(logits == 8 * 3);  // 8 micro batches, forward and two gradient passes
  CHECK(layer_gemms > 0);
}

TEST_CASE("rank schedule: FP8 GEMMs carry Transformer Engine's casts and transposes, pass by pass",
          "[schedule]") {
  // Bytes per element of the input (X) and of the output gradient (G), and kernels, of one layer's
  // GEMM passes. QKV and fc1 read a fused norm's FP8 output: no forward cast; their backward
  // cast-transposes G (2 read + 1 + 1 written) and transposes the FP8 input for the weight gradient
  // (1 + 1). The output projections cast their own input: without sequence parallelism a
  // cast-transpose (4), with it a cast (3) and the transpose later (2); under SP their G is gathered:
  // the shard cast (3 / TP) and the gathered G transposed (2), two kernels.
  using aicb::pass_kind;
  aicb::job_spec sp = llama(2, 2, 1, true);
  sp.batch.dtype = aicb::dtype::fp8;
  for (std::string_view in : {"attention_qkv", "mlp_fc1"}) {
    CHECK(scaling_of(sp, in, pass_kind::forward) == scaling{0, 0, 0});
    CHECK(scaling_of(sp, in, pass_kind::input_grad) == scaling{0, 4, 1});
    CHECK(scaling_of(sp, in, pass_kind::weight_grad) == scaling{2, 0, 1});
  }
  for (std::string_view out : {"attention_out", "mlp_fc2"}) {
    CHECK(scaling_of(sp, out, pass_kind::forward) == scaling{3, 0, 1});
    CHECK(scaling_of(sp, out, pass_kind::input_grad) == scaling{0, 3.0 / 2 + 2, 2});
    CHECK(scaling_of(sp, out, pass_kind::weight_grad) == scaling{2, 0, 1});
  }
  aicb::job_spec plain = llama(1, 1, 1, false);
  plain.batch.dtype = aicb::dtype::fp8;
  CHECK(scaling_of(plain, "attention_qkv", pass_kind::weight_grad) == scaling{2, 0, 1});
  for (std::string_view out : {"attention_out", "mlp_fc2"}) {
    CHECK(scaling_of(plain, out, pass_kind::forward) == scaling{4, 0, 1});
    CHECK(scaling_of(plain, out, pass_kind::input_grad) == scaling{0, 4, 1});
    CHECK(scaling_of(plain, out, pass_kind::weight_grad) == scaling{0, 0, 0});
  }
  // BF16 GEMMs quantise nothing.
  CHECK(scaling_of(llama(2, 2, 1, true), "attention_out", pass_kind::input_grad) == scaling{0, 0, 0});
  // Under SP the all-gathers in front of FP8 GEMMs move the FP8 copy (4096 tokens x 4096, 1 byte
  // each): forward the two block inputs, backward the two output gradients and the two re-gathered
  // inputs; the reduce-scatters carry the GEMMs' BF16 outputs.
  const auto ops = all(sp, 0);
  const std::uint64_t A = 4096ULL * 4096;
  const auto fwd = layer_collectives(ops, 1, op_phase::forward);
  CHECK(fwd.at({collective::all_gather, A}) == 2);
  CHECK(fwd.at({collective::reduce_scatter, 2 * A}) == 2);
  const auto bwd = layer_collectives(ops, 1, op_phase::backward);
  CHECK(bwd.at({collective::all_gather, A}) == 4);
  CHECK(bwd.at({collective::reduce_scatter, 2 * A}) == 2);
  // The output layer's GEMM is BF16: its input re-gathered in BF16.
  bool logits_regather = false;
  for (const aicb::operation& op : ops)
    if (op.name == "logits_input_regather") {
      logits_regather = true;
      CHECK(op.size.count() == 2 * A);
    }
  CHECK(logits_regather);
}

TEST_CASE("rank schedule: an FP8 MoE job's router gate runs in BF16, its experts in FP8", "[schedule]") {
  aicb::job_spec job{
      aicb::presets::mixtral_8x7b,
      {.world_size = 2, .expert_parallel = 2, .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall},
      {.micro_batch = 1, .global_batch = 2, .seq_length = 1024, .dtype = aicb::dtype::fp8}};
  job.model.num_layers = 2;
  int router = 0, experts = 0;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.type != op_type::compute || op.compute.kind != aicb::op_kind::gemm) continue;
    if (op.name == "moe_router") {
      ++router;
      CHECK(op.compute.type == aicb::dtype::bf16);
      CHECK(op.compute.quantize_kernels == 0);
    } else if (op.compute.role == aicb::op_role::moe_fc1 || op.compute.role == aicb::op_role::moe_fc2) {
      ++experts;
      CHECK(op.compute.type == aicb::dtype::fp8);
      // Grouped experts quantise their own tokens: a cast-transpose forward and of G backward.
      if (op.compute.pass == aicb::pass_kind::forward) CHECK(op.compute.quantize_input_bytes == 4);
      if (op.compute.pass == aicb::pass_kind::input_grad) CHECK(op.compute.quantize_output_bytes == 4);
    }
  }
  CHECK(router > 0);
  CHECK(experts > 0);
}

TEST_CASE("rank schedule: each FP8 recipe's scaling work, pass by pass", "[schedule]") {
  // As the test above, under the other recipes (aicb::fp8_recipe_kind). Tensorwise scaling reads each
  // cast operand once more for its amax (2 bytes an element) in two more kernels (amax, scale); a
  // norm takes the amax of its own 16-bit output, which its GEMM casts apart (cast-transpose: 4, the
  // weight gradient's transpose then written), so QKV and fc1 cast in two kernels. MXFP8 casts in one
  // kernel, the norm's output apart too.
  using aicb::pass_kind;
  const auto in_fp8 = [](aicb::job_spec j, aicb::fp8_recipe_kind recipe) {
    j.batch.dtype = aicb::dtype::fp8;
    j.batch.fp8_recipe = recipe;
    return j;
  };
  const aicb::job_spec sp = in_fp8(llama(2, 2, 1, true), aicb::fp8_recipe_kind::tensorwise);
  // TP 2 with SP: QKV casts its shard (3 / 2) before the gather; attention_out casts and takes the
  // amax of its whole input (3 + 2) and of its gathered gradient's shard (3 / 2 + 2 + 2 / 2).
  CHECK(scaling_of(sp, "attention_qkv", pass_kind::forward) == scaling{1.5, 0, 2});
  CHECK(scaling_of(sp, "attention_qkv", pass_kind::input_grad) == scaling{0, 6, 3});
  CHECK(scaling_of(sp, "attention_qkv", pass_kind::weight_grad) == scaling{2, 0, 1});
  CHECK(scaling_of(sp, "attention_out", pass_kind::forward) == scaling{5, 0, 3});
  CHECK(scaling_of(sp, "attention_out", pass_kind::input_grad) == scaling{0, 4.5, 4});
  aicb::job_spec plain = in_fp8(llama(1, 1, 1, false), aicb::fp8_recipe_kind::tensorwise);
  CHECK(scaling_of(plain, "attention_qkv", pass_kind::forward) == scaling{4, 0, 2});
  CHECK(scaling_of(plain, "attention_qkv", pass_kind::weight_grad) == scaling{0, 0, 0});
  CHECK(scaling_of(plain, "mlp_fc2", pass_kind::forward) == scaling{6, 0, 3});
  CHECK(scaling_of(plain, "mlp_fc2", pass_kind::input_grad) == scaling{0, 6, 3});
  plain.batch.fp8_recipe = aicb::fp8_recipe_kind::mxfp8;
  CHECK(scaling_of(plain, "mlp_fc1", pass_kind::forward) == scaling{4, 0, 1});
  CHECK(scaling_of(plain, "mlp_fc1", pass_kind::weight_grad) == scaling{0, 0, 0});
  CHECK(scaling_of(plain, "mlp_fc2", pass_kind::input_grad) == scaling{0, 4, 1});

  // Experts: Mixtral's 8 over EP 2, 4 a GPU. Grouped under delayed scaling, one cast-transpose for
  // all four; under the others, or as a loop of linears, four of everything.
  aicb::job_spec moe{aicb::presets::mixtral_8x7b,
                     {.world_size = 2,
                      .expert_parallel = 2,
                      .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall,
                      .moe_grouped_gemm = true},
                     {.micro_batch = 1, .global_batch = 2, .seq_length = 1024, .dtype = aicb::dtype::fp8}};
  moe.model.num_layers = 2;
  const auto expert = [&](aicb::fp8_recipe_kind recipe, pass_kind pass, bool grouped = true) {
    aicb::job_spec j = moe;
    j.batch.fp8_recipe = recipe;
    j.parallel.moe_grouped_gemm = grouped;
    for (const aicb::operation& op : aicb::rank_schedule(j, 0))
      if (op.type == op_type::compute && op.compute.role == aicb::op_role::moe_fc1 &&
          op.compute.pass == pass && op.layer == 1) {
        REQUIRE(op.compute.batch == 4);
        return scaling_of(op.compute);
      }
    FAIL("no moe_fc1");
    return scaling{};
  };
  using aicb::fp8_recipe_kind;
  CHECK(expert(fp8_recipe_kind::delayed, pass_kind::forward) == scaling{4, 0, 1});
  CHECK(expert(fp8_recipe_kind::delayed, pass_kind::forward, false) == scaling{4, 0, 4});
  CHECK(expert(fp8_recipe_kind::tensorwise, pass_kind::forward) == scaling{6, 0, 12});
  CHECK(expert(fp8_recipe_kind::tensorwise, pass_kind::input_grad) == scaling{0, 6, 12});
  CHECK(expert(fp8_recipe_kind::mxfp8, pass_kind::forward) == scaling{4, 0, 4});
  CHECK(expert(fp8_recipe_kind::blockwise, pass_kind::input_grad) == scaling{0, 4, 4});
}

TEST_CASE("rank schedule: sequence parallelism, per layer and micro batch, both directions", "[schedule]") {
  // Llama-2-7B, TP 4, SP: each collective moves s·b·h·2 = 4096 · 4096 · 2 bytes (the gathered
  // activation). Forward: 2 all-gathers, 2 reduce-scatters; backward: 4 all-gathers (two output
  // gradients, two re-gathered inputs for the weight gradients) and 2 reduce-scatters.
  const auto ops = all(llama(8, 4, 1, true), 0);
  const std::uint64_t A = 4096ULL * 4096 * 2;
  const auto fwd = layer_collectives(ops, 3, op_phase::forward);
  CHECK(fwd.at({collective::all_gather, A}) == 2);
  CHECK(fwd.at({collective::reduce_scatter, A}) == 2);
  CHECK(fwd.size() == 2);
  const auto bwd = layer_collectives(ops, 3, op_phase::backward);
  CHECK(bwd.at({collective::all_gather, A}) == 4);
  CHECK(bwd.at({collective::reduce_scatter, A}) == 2);
  CHECK(bwd.size() == 2);
  // Without SP: an all-reduce after each block forward and before it backward.
  const auto no_sp = all(llama(8, 4, 1, false), 0);
  CHECK(layer_collectives(no_sp, 3, op_phase::forward).at({collective::all_reduce, A}) == 2);
  CHECK(layer_collectives(no_sp, 3, op_phase::backward).at({collective::all_reduce, A}) == 2);
  // Every TP collective is on this rank's TP group.
  const aicb::process_grid grid(llama(8, 4, 1, true));
  for (const aicb::operation& op : ops)
    if (op.type == op_type::collective && op.layer != aicb::no_layer) {
      CHECK(op.group == grid.group(group_kind::tp, 0).id());
      CHECK(op.group_size == 4);
    }
}

TEST_CASE("rank schedule: context parallelism is a ring of key/value exchanges", "[schedule]") {
  // CP 4, TP 2: per attention forward CP − 1 = 3 sends of K and V to the next CP rank (and 3
  // receives from the previous); backward 2·(CP − 1) KV-sizes to the previous rank.
  const aicb::job_spec job = llama(16, 2, 1, true, 4);
  const auto ops = all(job, 5);
  const aicb::process_grid grid(job);
  const aicb::rank_group cp = grid.group(group_kind::cp, 5);
  const std::uint64_t at = *cp.position(5);
  const std::uint64_t next = cp.member((at + 1) % 4), prev = cp.member((at + 3) % 4);
  // K and V of the local sequence (4096 / 4) for 32 / 2 = 16 heads of 128: 2 · 1024 · 16 · 128 · 2 bytes.
  const std::uint64_t kv = 2ULL * 1024 * 16 * 128 * 2;
  std::uint64_t forward_sent = 0, backward_sent = 0, forward_sends = 0;
  for (const aicb::operation& op : ops) {
    if (op.type != op_type::send || op.layer != 7 || op.microbatch != 0) continue;
    if (op.phase == op_phase::forward) {
      CHECK(op.peer == next);
      forward_sent += op.size.count();
      ++forward_sends;
    } else {
      CHECK(op.peer == prev);
      backward_sent += op.size.count();
    }
  }
  CHECK(forward_sends == 3);
  CHECK(forward_sent == 3 * kv);
  CHECK(backward_sent == 2 * 3 * kv);
}

TEST_CASE("rank schedule: pipeline transfers go to the neighbouring stages, tagged the same on both ends",
          "[schedule]") {
  const aicb::job_spec job = llama(16, 2, 4, true, 1, 2, 8);  // interleaved: 2 chunks of 4 layers per stage
  const aicb::process_grid grid(job);
  // [S/TP, b, h] in bf16 under SP.
  const std::uint64_t message = 4096 / 2 * 4096 * 2;
  std::map<std::uint64_t, std::uint64_t> sends;  // tag -> sender, over ranks 0, 4, 8, 12 (pipeline group 0)
  std::uint64_t transfers = 0;
  for (const std::uint64_t rank : {0, 4, 8, 12}) {
    for (const aicb::operation& op : aicb::rank_schedule(job, rank)) {
      if (op.type != op_type::send && op.type != op_type::recv) continue;
      CHECK(op.size.count() == message);
      CHECK((op.peer == grid.pipeline_peer(rank, true) || op.peer == grid.pipeline_peer(rank, false)));
      if (op.type == op_type::send) {
        CHECK(sends.emplace(op.tag * 16 + op.peer, rank).second);
        ++transfers;
      }
    }
  }
  for (const std::uint64_t rank : {0, 4, 8, 12})
    for (const aicb::operation& op : aicb::rank_schedule(job, rank))
      if (op.type == op_type::recv) CHECK(sends.at(op.tag * 16 + rank) == op.peer);
  // 4 micro batches (8 sequences over DP 2), 4 · 2 virtual stages: 7 boundaries each way.
  CHECK(transfers == 2 * 4 * 7);
}

TEST_CASE("rank schedule: the weights behind the gradient collectives are the calculators' per-GPU counts",
          "[schedule]") {
  const auto deepseek = aicb::presets::deepseek_v3;  // with its MTP module
  const aicb::job_spec jobs[] = {
      llama(16, 2, 2, true),
      {aicb::presets::gpt3_6_7b, {.world_size = 8, .tensor_parallel = 4}, {.seq_length = 2048}},
      {aicb::presets::mixtral_8x7b,
       {.world_size = 32,
        .tensor_parallel = 2,
        .pipeline_parallel = 2,
        .expert_parallel = 4,
        .sequence_parallel = true},
       {.global_batch = 16, .seq_length = 4096}},
      {aicb::presets::qwen3_8b,
       {.world_size = 16,
        .tensor_parallel = 4,
        .pipeline_parallel = 4,
        .virtual_pipeline = 3,
        .sequence_parallel = true},
       {.global_batch = 16, .seq_length = 4096}},
      {deepseek,
       {.world_size = 128,
        .tensor_parallel = 2,
        .pipeline_parallel = 8,
        .expert_parallel = 8,
        .sequence_parallel = true,
        .first_stage_layers = 5,
        .last_stage_layers = 8},
       {.global_batch = 64, .seq_length = 4096}},
      // 61 layers + the embedding: 30 on the first stage, 31 on the second.
      {deepseek,
       {.world_size = 32,
        .tensor_parallel = 2,
        .pipeline_parallel = 2,
        .expert_parallel = 8,
        .sequence_parallel = true,
        .account_for_embedding_in_pipeline_split = true},
       {.global_batch = 64, .seq_length = 4096}},
      // 126 layers + the embedding + the loss: 2 slots per model chunk.
      {aicb::presets::llama3_1_405b,
       {.world_size = 64,
        .tensor_parallel = 8,
        .pipeline_parallel = 8,
        .virtual_pipeline = 8,
        .sequence_parallel = true,
        .account_for_embedding_in_pipeline_split = true,
        .account_for_loss_in_pipeline_split = true},
       {.global_batch = 8, .seq_length = 4096}}};
  for (const aicb::job_spec& job : jobs) {
    for (std::uint64_t stage = 0; stage < job.parallel.pipeline_parallel; ++stage) {
      INFO(job.model.name.view() << " stage " << stage);
      const aicb::rank_schedule s(job, stage * (job.parallel.world_size / job.parallel.pipeline_parallel));
      const aicb::shard_params p = aicb::params_on_gpu(job, stage);
      // DeepSeek-V3's router score bias is a buffer, not a trained weight: neither side counts it.
      CHECK(s.dense_weights() == p.dense);
      CHECK(s.expert_weights() == p.expert);
    }
  }
}

TEST_CASE("rank schedule: each model chunk runs the layers Megatron's accounted pipeline split gives it",
          "[schedule]") {
  const aicb::job_spec job{aicb::presets::llama3_1_405b,
                           {.world_size = 64,
                            .tensor_parallel = 8,
                            .pipeline_parallel = 8,
                            .virtual_pipeline = 8,
                            .sequence_parallel = true,
                            .account_for_embedding_in_pipeline_split = true,
                            .account_for_loss_in_pipeline_split = true},
                           {.global_batch = 8, .seq_length = 4096}};
  std::vector<int> runs(126, 0);
  for (std::uint64_t stage = 0; stage < 8; ++stage) {
    INFO("stage " << stage);
    // The layers of each chunk's first forward micro batch, in the order they run.
    std::map<std::uint64_t, std::vector<std::uint64_t>> layers;
    for (const aicb::operation& op : aicb::rank_schedule(job, stage * 8))
      if (op.phase == op_phase::forward && op.microbatch == 0 && op.layer != aicb::no_layer &&
          (layers[op.chunk].empty() || layers[op.chunk].back() != op.layer))
        layers[op.chunk].push_back(op.layer);
    for (std::uint64_t c = 0; c < 8; ++c) {
      std::vector<std::uint64_t> expected;
      for (std::uint64_t l = 0; l < aicb::chunk_layers(job, stage, c); ++l)
        expected.push_back(aicb::chunk_first_layer(job, stage, c) + l);
      CHECK(layers[c] == expected);
      for (const std::uint64_t l : expected)
        ++runs.at(l);
    }
  }
  CHECK(std::count(runs.begin(), runs.end(), 1) == 126);
}

TEST_CASE("rank schedule: each micro batch's embedding backward writes the dense gradient of its table shard",
          "[schedule]") {
  // Llama-2-7B over TP 2, PP 2: the first stage's embedding holds 32000 / 2 vocabulary rows of 4096.
  const aicb::job_spec job = llama(8, 2, 2, true);
  int backwards = 0;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0))
    if (op.type == op_type::compute && op.compute.role == aicb::op_role::embedding &&
        op.compute.pass == aicb::pass_kind::weight_grad) {
      ++backwards;
      CHECK(op.compute.k == 16000);
      CHECK(op.compute.bytes() == Approx(2.0 * 4096 * 4096 * 2 + 16000.0 * 4096 * 12));
    }
  CHECK(backwards == 4);  // one per micro batch (global batch 8 over DP 2)
  // The last stage (ranks 4-7) looks nothing up.
  for (const aicb::operation& op : aicb::rank_schedule(job, 4))
    CHECK_FALSE((op.type == op_type::compute && op.compute.role == aicb::op_role::embedding));
}

TEST_CASE("rank schedule: finalize reduces gradients as Megatron-Core does", "[schedule]") {
  aicb::job_spec job = llama(16, 2, 2, true);
  job.parallel.distributed_optimizer = true;
  job.model.tied_embeddings = true;
  const aicb::process_grid grid(job);
  std::vector<std::string> names;
  const aicb::rank_schedule last(job, 8);
  for (const aicb::operation& op : aicb::rank_schedule(job, 8))
    if (op.phase == op_phase::finalize) {
      names.emplace_back(op.name);
      if (op.name == "grad_reduce") {
        CHECK(op.kind == collective::reduce_scatter);  // distributed optimizer
        CHECK(op.group == grid.group(group_kind::dp_cp, 8).id());
        CHECK(op.size.count() == last.dense_weights() * 4);  // fp32 gradients, one bucket
      }
      if (op.name == "embedding_grad_reduce") {
        CHECK(op.group.kind == group_kind::embedding);
        CHECK(op.group_size == 2);
      }
      if (op.name == "optimizer_step") {
        // Adam on the DP shard (DP 4); the whole buffer zeroed, read for the NaN check, and read and
        // written to scale it by 1/DP.
        CHECK(op.compute.m == last.dense_weights() / 4);
        CHECK(op.compute.n == last.dense_weights());
        CHECK(op.compute.k == 3 * last.dense_weights());
        CHECK(op.compute.bytes() == Approx(38.0 * op.compute.m + 16.0 * op.compute.n));
      }
    }
  CHECK(names == std::vector<std::string>{"grad_reduce", "sp_replicated_grad_reduce", "embedding_grad_reduce",
                                          "optimizer_step", "param_gather"});
  // Without data parallelism nothing is scaled: the buffer is zeroed and checked only.
  const aicb::job_spec alone = llama(4, 2, 2, true);
  for (const aicb::operation& op : aicb::rank_schedule(alone, 0))
    if (op.name == "optimizer_step") {
      CHECK(op.compute.m == op.compute.n);
      CHECK(op.compute.k == op.compute.n);
    }
  // With overlap_grad_reduce the first stage reduces in buckets of max(40M, 1M · |DP×CP|) elements.
  job.parallel.overlap_grad_reduce = true;
  std::uint64_t buckets = 0, total = 0;
  const aicb::rank_schedule first(job, 0);
  for (const aicb::operation& op : aicb::rank_schedule(job, 0))
    if (op.name == "grad_reduce") {
      ++buckets;
      total += op.size.count();
      CHECK(op.size.count() <= 40'000'000ULL * 4);
    }
  CHECK(total == first.dense_weights() * 4);
  CHECK(buckets == (first.dense_weights() + 39'999'999) / 40'000'000);
  // ...but later stages keep one bucket per buffer.
  std::uint64_t later = 0;
  for (const aicb::operation& op : aicb::rank_schedule(job, 8))
    later += op.name == "grad_reduce" ? 1 : 0;
  CHECK(later == 1);
}

TEST_CASE("rank schedule: MoE dispatchers — allgather (Megatron's default) and alltoall", "[schedule]") {
  aicb::job_spec job{
      aicb::presets::mixtral_8x7b,
      {.world_size = 32, .tensor_parallel = 2, .expert_parallel = 4, .sequence_parallel = true},
      {.global_batch = 16, .seq_length = 4096}};
  CHECK(job.parallel.moe_dispatcher == aicb::moe_dispatcher_kind::allgather);
  // T = 4096 / 2 tokens per rank, top-2, h = 4096, bf16.
  const std::uint64_t T = 2048, h = 4096;
  std::map<std::string, aicb::operation> first;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0))
    if (op.type == op_type::collective && op.microbatch == 0 && op.layer == 0) first.emplace(op.name, op);
  CHECK(first.at("moe_tokens_gather").group.kind == group_kind::etp_ep);
  CHECK(first.at("moe_tokens_gather").size.count() == T * h * 2 * 8);  // gathered over ETP x EP = 8
  CHECK(first.at("moe_output_scatter").kind == collective::reduce_scatter);
  CHECK(first.count("moe_dispatch") == 0);
  job.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::alltoall;
  first.clear();
  for (const aicb::operation& op : aicb::rank_schedule(job, 0))
    if (op.type == op_type::collective && op.microbatch == 0 && op.layer == 0) first.emplace(op.name, op);
  CHECK(first.at("moe_dispatch").group.kind == group_kind::ep);
  CHECK(first.at("moe_dispatch").size.count() == T * 2 * h * 2);  // T·k·h·bf16, balanced routing
  CHECK(first.at("moe_combine").size.count() == T * 2 * h * 2);
  CHECK(first.at("moe_expert_tp_gather").group.kind == group_kind::etp);
}

TEST_CASE("rank schedule: experts run in a loop unless --moe-grouped-gemm groups them", "[schedule]") {
  // Megatron-Core's SequentialMLP (the default) runs each local expert's GEMMs in turn; with
  // --moe-grouped-gemm one GroupedMLP kernel runs them all. Same FLOPs, different kernels.
  aicb::job_spec job{
      aicb::presets::mixtral_8x7b,
      {.world_size = 16, .tensor_parallel = 2, .expert_parallel = 2, .sequence_parallel = true},
      {.global_batch = 16, .seq_length = 4096}};
  CHECK_FALSE(job.parallel.moe_grouped_gemm);
  const auto expert_gemms = [&] {
    std::uint64_t loops = 0, grouped = 0;
    double flops = 0;
    for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
      if (op.type != op_type::compute || op.layer != 0 || op.microbatch != 0) continue;
      const aicb::op_role r = op.compute.role;
      if (r != aicb::op_role::moe_fc1 && r != aicb::op_role::moe_fc2) continue;
      CHECK(op.compute.batch == 4);  // 8 experts over EP 2
      (op.compute.one_kernel ? grouped : loops) += 1;
      flops += op.compute.flops();
    }
    return std::tuple{loops, grouped, flops};
  };
  const auto [loops, none, sequential_flops] = expert_gemms();
  CHECK(loops == 6);  // fc1 and fc2: forward, input and weight gradients
  CHECK(none == 0);
  job.parallel.moe_grouped_gemm = true;
  const auto [no_loops, grouped, grouped_flops] = expert_gemms();
  CHECK(no_loops == 0);
  CHECK(grouped == 6);
  CHECK(grouped_flops == sequential_flops);
}

TEST_CASE("rank schedule: recomputation repeats the forward in the backward", "[schedule]") {
  aicb::job_spec job = llama(8, 2, 1, true);
  const auto count = [&](op_phase phase, std::string_view name) {
    std::uint64_t n = 0;
    for (const aicb::operation& op : aicb::rank_schedule(job, 0))
      n += op.phase == phase && op.name == name ? 1 : 0;
    return n;
  };
  CHECK(count(op_phase::recompute, "attention_qkv") == 0);
  job.parallel.recompute = aicb::recompute_kind::full;
  // Every layer, every micro batch (8 sequences over DP 4: 2 micro batches).
  CHECK(count(op_phase::recompute, "attention_qkv") == 32 * 2);
  CHECK(count(op_phase::recompute, "attention_input_gather") == 32 * 2);
  job.parallel.recompute = aicb::recompute_kind::selective;
  CHECK(count(op_phase::backward, "attention_core_recompute") == 32 * 2);
}

// Megatron-Core's MultiTokenPredictionLayer (transformer/multi_token_prediction.py, _concat_embeddings):
// on the last stage, after the decoder's final norm: the embedding of the shifted tokens (reduced over
// TP as the first stage's), enorm and hnorm, the concatenation all-gathered under SP and projected by the
// column-parallel eh_proj (2h → h/TP), its output all-gathered over TP (gather_output is False, then
// gather_from_tensor_model_parallel_region), split onto the sequence shards (no communication), one
// transformer layer, a final norm; then its logits and loss through the shared output layer. The
// embedding is shared with the first stage: its gradient is all-reduced over the embedding group.
TEST_CASE("rank schedule: DeepSeek-V3's multi-token prediction runs on the last stage", "[schedule]") {
  const aicb::job_spec job{aicb::presets::deepseek_v3,
                           {.world_size = 64,
                            .tensor_parallel = 2,
                            .pipeline_parallel = 4,
                            .expert_parallel = 8,
                            .sequence_parallel = true,
                            .first_stage_layers = 13},
                           {.global_batch = 32, .seq_length = 4096}};
  REQUIRE(job.model.num_mtp_layers == 1);
  const std::uint64_t tokens = 4096, h = 7168, A = tokens * h * 2;  // bf16, gathered over TP 2
  aicb::rank_schedule last(job, 48);                                // stage 3
  REQUIRE(last.coordinates().pp == 3);
  std::vector<aicb::operation> mtp_forward;
  std::uint64_t logits_forward = 0, mtp_moe = 0;
  std::vector<std::string> finalize;
  for (const aicb::operation& op : last) {
    if (op.microbatch == 0 && op.phase == op_phase::forward && op.layer == 61) mtp_forward.push_back(op);
    if (op.microbatch == 0 && op.phase == op_phase::forward && op.name == "logits") ++logits_forward;
    if (op.layer == 61 && op.name == "moe_router" && op.phase == op_phase::forward) ++mtp_moe;
    if (op.phase == op_phase::finalize) finalize.emplace_back(op.name);
  }
  std::vector<std::string> names;
  for (const auto& op : mtp_forward)
    names.emplace_back(op.name);
  REQUIRE(names.size() > 8);
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 7) ==
        std::vector<std::string>{"mtp_embedding", "mtp_embedding_reduce", "mtp_enorm", "mtp_hnorm",
                                 "mtp_proj_input_gather", "mtp_eh_proj", "mtp_proj_output_gather"});
  CHECK(mtp_forward[1].kind == collective::reduce_scatter);
  CHECK(mtp_forward[1].size.count() == A);
  CHECK(mtp_forward[4].size.count() == 2 * A);
  CHECK(mtp_forward[5].compute.m == tokens);
  CHECK(mtp_forward[5].compute.k == 2 * h);
  CHECK(mtp_forward[5].compute.n == h / 2);
  CHECK(mtp_forward[6].kind == collective::all_gather);
  CHECK(mtp_forward[6].size.count() == A);
  // In FP8 training the projection's input is gathered as its FP8 copy (1 byte an element), its output
  // in BF16.
  aicb::job_spec fp8 = job;
  fp8.batch.dtype = aicb::dtype::fp8;
  std::uint64_t fp8_gathers = 0;
  for (const aicb::operation& op : aicb::rank_schedule(fp8, 48)) {
    if (op.microbatch != 0 || op.layer != 61) continue;
    if (op.name == "mtp_proj_input_gather" || op.name == "mtp_proj_input_regather") {
      ++fp8_gathers;
      CHECK(op.size.count() == 2 * tokens * h);
    }
    if (op.name == "mtp_proj_output_gather") CHECK(op.size.count() == A);
  }
  CHECK(fp8_gathers == 2);
  // After the layer, the module's final norm, then its own logits and loss through the output layer.
  const auto norm = std::find(names.begin(), names.end(), "mtp_final_norm");
  REQUIRE(norm + 2 < names.end());
  CHECK(norm[1] == "logits_input_gather");
  CHECK(norm[2] == "logits");
  CHECK(names.back() == "cross_entropy_sum");
  CHECK(mtp_moe == 4);         // an MoE layer per micro batch (4 of them)
  CHECK(logits_forward == 2);  // the MTP module's logits and the main model's
  CHECK(std::count(finalize.begin(), finalize.end(), "embedding_grad_reduce") == 1);
  // The first stage takes part in the embedding's all-reduce too; a middle stage does not.
  const auto finalize_has = [&](std::uint64_t rank, std::string_view name) {
    for (const aicb::operation& op : aicb::rank_schedule(job, rank))
      if (op.phase == op_phase::finalize && op.name == name) return true;
    return false;
  };
  CHECK(finalize_has(0, "embedding_grad_reduce"));
  CHECK_FALSE(finalize_has(16, "embedding_grad_reduce"));
  // Its weights are the calculators': the module and the embedding copy.
  CHECK(last.dense_weights() == aicb::params_on_gpu(job, 3).dense);
  CHECK(last.expert_weights() == aicb::params_on_gpu(job, 3).expert);
}

TEST_CASE("rank schedule: the stream is lazy, owns its state, and refuses what it does not model",
          "[schedule]") {
  // A temporary in a range-for is safe (ASan checks it in the sanitizer build).
  std::uint64_t n = 0;
  for (const aicb::operation& op : aicb::rank_schedule(llama(16, 2, 2, true), 3))
    n += op.index == n ? 1 : 0;
  CHECK(n > 100);
  aicb::job_spec mtp{aicb::presets::deepseek_v3,
                     {.world_size = 64,
                      .tensor_parallel = 2,
                      .context_parallel = 2,
                      .expert_parallel = 8,
                      .sequence_parallel = true},
                     {.global_batch = 32, .seq_length = 4096}};
  CHECK_THROWS_WITH(aicb::rank_schedule(mtp, 0), Catch::Contains("multi-token prediction with context"));
  CHECK_THROWS_WITH(aicb::rank_schedule(llama(16, 2, 2, true), 16), Catch::Contains("below world_size"));
  aicb::job_spec interleaved = llama(16, 2, 4, true, 1, 2, 12);  // 6 micro batches: not a multiple of 4
  CHECK_THROWS_WITH(aicb::rank_schedule(interleaved, 0), Catch::Contains("multiple of pipeline_parallel"));
}

// DeepSpeed's ZeRO-3 (stage3.py's pre-forward / pre-backward hooks fetch a module's partitioned
// weights; its gradient hooks reduce-scatter them as each module's backward ends); ZeRO-2 only the
// reduce-scatters. Derived by hand for Llama-2-7B on DP 8: a layer holds 4h² + 3·h·ffn + 2h weights.
TEST_CASE("rank schedule: ZeRO-2/3 gather and reduce-scatter module by module", "[schedule][zero]") {
  aicb::job_spec job = llama(8, 1, 1, false, 1, 1, 16);  // 2 micro batches
  const std::uint64_t h = 4096, ffn = 11008, layer = 4 * h * h + 3 * h * ffn + 2 * h;
  const std::uint64_t bucket = 40'000'000;  // Megatron's default at DP 8
  const std::uint64_t layer_buckets = (layer + bucket - 1) / bucket;
  job.parallel.zero_stage = 3;
  const auto ops = all(job, 0);
  const auto named = [&](std::string_view name, op_phase phase, std::uint64_t l) {
    std::vector<aicb::operation> out;
    for (const aicb::operation& op : ops)
      if (op.name == name && op.phase == phase && op.layer == l && op.microbatch == 1) out.push_back(op);
    return out;
  };
  // Layer 5's weights gathered (bf16, the all-gather's output) before its forward and again before
  // its backward; its gradients reduce-scattered after it; all over DP.
  const auto gathers = named("zero_param_gather", op_phase::forward, 5);
  REQUIRE(gathers.size() == layer_buckets);
  std::uint64_t gathered = 0;
  for (const aicb::operation& op : gathers) {
    CHECK(op.kind == collective::all_gather);
    CHECK(op.group.kind == group_kind::dp_cp);
    CHECK(op.group_size == 8);
    gathered += op.size.count();
  }
  CHECK(gathered == 2 * layer);
  CHECK(named("zero_param_gather", op_phase::backward, 5).size() == layer_buckets);
  std::uint64_t scattered = 0;
  for (const aicb::operation& op : named("zero_grad_scatter", op_phase::backward, 5))
    scattered += op.kind == collective::reduce_scatter ? op.size.count() : 0;
  CHECK(scattered == 4 * layer);  // fp32 gradients (the job's default grad dtype)
  // Order: the gather before the layer's first GEMM, the reduce-scatter after its last backward GEMM.
  const auto at = [&](std::string_view name, op_phase phase, std::uint64_t l, bool last) {
    std::uint64_t found = ~std::uint64_t{0};
    for (const aicb::operation& op : ops)
      if (op.name == name && op.phase == phase && op.layer == l && op.microbatch == 1 &&
          (last || found == ~std::uint64_t{0}))
        found = op.index;
    return found;
  };
  CHECK(at("zero_param_gather", op_phase::forward, 5, true) <
        at("attention_qkv", op_phase::forward, 5, false));
  CHECK(at("zero_param_gather", op_phase::backward, 5, true) < at("mlp_fc2", op_phase::backward, 5, false));
  CHECK(at("zero_grad_scatter", op_phase::backward, 5, false) >
        at("attention_qkv", op_phase::backward, 5, true));
  // Finalize: no gradient reduction left, the step on 1/8 of the weights, no weight gather.
  std::uint64_t finalize_collectives = 0;
  for (const aicb::operation& op : ops)
    if (op.phase == op_phase::finalize && op.type == op_type::collective) ++finalize_collectives;
  CHECK(finalize_collectives == 0);

  job.parallel.zero_stage = 2;
  const auto ops2 = all(job, 0);
  std::map<std::string, int> finalize_names;
  std::uint64_t gathers2 = 0, scatters2 = 0;
  for (const aicb::operation& op : ops2) {
    if (op.phase == op_phase::finalize) ++finalize_names[std::string(op.name)];
    gathers2 += op.name == "zero_param_gather" ? 1 : 0;
    scatters2 += op.name == "zero_grad_scatter" && op.microbatch == 1 && op.layer == 5 ? 1 : 0;
  }
  CHECK(gathers2 == 0);
  CHECK(scatters2 == layer_buckets);
  CHECK(finalize_names["grad_reduce"] == 0);
  CHECK(finalize_names["param_gather"] > 0);  // the updated weights, after the step

  // What DeepSpeed does not run with these stages is refused.
  aicb::job_spec pipelined = llama(16, 1, 2, false, 1, 1, 16);
  pipelined.parallel.zero_stage = 2;
  CHECK_THROWS_WITH(aicb::rank_schedule(pipelined, 0), Catch::Contains("pipeline_parallel = 2"));
  aicb::job_spec moe{
      aicb::presets::mixtral_8x7b, {.world_size = 8, .expert_parallel = 8, .zero_stage = 3}, {}};
  CHECK_THROWS_WITH(aicb::rank_schedule(moe, 0), Catch::Contains("experts"));
}

TEST_CASE("rank schedule: a range-v3 view, composed with adaptors, safe on temporaries, passes independent",
          "[schedule][views]") {
  const aicb::job_spec job = llama(16, 2, 2, true);
  static_assert(ranges::view_<aicb::rank_schedule>);
  static_assert(std::ranges::input_range<aicb::rank_schedule>);
  // A temporary piped into range-v3 adaptors: the view is moved into the pipeline, which owns it.
  std::vector<aicb::operation> first;
  for (const aicb::operation& op :
       aicb::rank_schedule(job, 3) | aicb::views::collectives | ranges::views::take(100))
    first.push_back(op);
  REQUIRE(first.size() == 100);
  for (const aicb::operation& op : first)
    CHECK(op.type == aicb::op_type::collective);
  // The same selection written by hand over a named schedule gives the same operations.
  const aicb::rank_schedule schedule(job, 3);
  std::vector<std::uint64_t> by_hand;
  for (const aicb::operation& op : schedule) {
    if (op.type != aicb::op_type::collective) continue;
    by_hand.push_back(op.index);
    if (by_hand.size() == 100) break;
  }
  REQUIRE(by_hand.size() == 100);
  for (std::size_t i = 0; i < by_hand.size(); ++i)
    CHECK(first[i].index == by_hand[i]);
  // Each begin() is a pass of its own, from the first operation; an iterator keeps its pass (and the
  // plan it reads) alive after the view is gone.
  auto it = aicb::rank_schedule(job, 3).begin();
  CHECK((*it).index == 0);
  ++it;
  CHECK((*it).index == 1);
  CHECK((*schedule.begin()).index == 0);
  // One stage's pipeline steps are a view too: four stages, 8 micro batches, 1F1B on stage 1.
  std::uint64_t forwards = 0;
  for (const aicb::pipeline_step& step : aicb::pipeline_steps({.stages = 4, .stage = 1, .microbatches = 8}))
    forwards += step.what == aicb::pipeline_step::kind::forward;
  CHECK(forwards == 8);
}

TEST_CASE("rank schedule: a validated job gives the same operations, checked once", "[schedule]") {
  aicb::job_spec job{
      aicb::presets::llama2_7b,
      {.world_size = 16, .tensor_parallel = 2, .pipeline_parallel = 2, .sequence_parallel = true},
      {.micro_batch = 1, .global_batch = 16, .seq_length = 1024}};
  job.model.num_layers = 4;
  const aicb::validated_job checked(job);
  std::vector<aicb::operation> from_spec, from_checked;
  for (const aicb::operation& op : aicb::rank_schedule(job, 9))
    from_spec.push_back(op);
  for (const aicb::operation& op : aicb::rank_schedule(checked, 9))
    from_checked.push_back(op);
  REQUIRE(from_spec.size() == from_checked.size());
  for (std::size_t i = 0; i < from_spec.size(); ++i) {
    CHECK(from_spec[i].name == from_checked[i].name);
    CHECK(from_spec[i].size == from_checked[i].size);
  }
  // The fewest micro batches the schedule allows, still a validated job: 1 × DP of 4.
  const aicb::validated_job few = aicb::with_fewest_microbatches(checked);
  CHECK(few->batch.global_batch == 4u);
  CHECK(aicb::microbatches(few.job()) == 1u);
}

TEST_CASE("rank schedule: zero-bubble H1 moves weight gradients and keeps every operation", "[schedule]") {
  // TP 2 x PP 4, 8 micro batches. Stage 2: Wu = 1, R = 7; micro batches 0, 1 (steady steps below s),
  // 6 (the last steady step) and 7 (cool-down) run split; 2..5 run whole.
  aicb::job_spec zb = llama(8, 2, 4, true, 1, 1, 8);
  zb.parallel.pipeline_schedule = aicb::pipeline_schedule_kind::zb_h1;
  const aicb::job_spec plain = llama(8, 2, 4, true, 1, 1, 8);
  using key = std::tuple<op_type, std::string, op_phase, std::uint64_t, std::uint64_t, aicb::pass_kind>;
  const auto keys = [](const std::vector<aicb::operation>& ops) {
    std::vector<key> out;
    for (const aicb::operation& op : ops)
      out.emplace_back(op.type, std::string(op.name), op.phase, op.microbatch, op.layer, op.compute.pass);
    return out;
  };
  // The first stage never splits: the same stream.
  CHECK(keys(all(zb, 0)) == keys(all(plain, 0)));
  const std::uint64_t rank = 4;  // TP rank 0 of stage 2
  REQUIRE(aicb::process_grid(zb).coordinates(rank).pp == 2);
  const auto ops = all(zb, rank);
  auto a = keys(ops), b = keys(all(plain, rank));
  CHECK(a != b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a == b);  // the same operations, in another order
  // Where a micro batch's weight gradients run relative to the gradient it sends back.
  for (std::uint64_t mb = 0; mb < 8; ++mb) {
    INFO("micro batch " << mb);
    std::uint64_t sent = 0, last_weight = 0, weights = 0;
    for (const aicb::operation& op : ops) {
      if (op.microbatch != mb || op.phase == op_phase::finalize) continue;
      if (op.type == op_type::send && op.name == "send_gradient") sent = op.index;
      if (op.type == op_type::compute && op.compute.pass == aicb::pass_kind::weight_grad) {
        last_weight = op.index;
        ++weights;
      }
    }
    CHECK(weights > 0);
    const bool split = mb < 2 || mb >= 6;
    CHECK((last_weight > sent) == split);
  }
}

TEST_CASE("rank schedule: a zero-bubble job is refused where the schedule has no meaning", "[schedule]") {
  aicb::job_spec one_stage = llama(8, 2, 1, true);
  one_stage.parallel.pipeline_schedule = aicb::pipeline_schedule_kind::zb_h1;
  CHECK_THROWS_WITH(aicb::validate(one_stage), Catch::Contains("zb_h1 needs pipeline_parallel > 1"));
  aicb::job_spec interleaved = llama(8, 2, 4, true, 1, 2, 8);
  interleaved.parallel.pipeline_schedule = aicb::pipeline_schedule_kind::zb_h1;
  CHECK_THROWS_WITH(aicb::validate(interleaved), Catch::Contains("virtual_pipeline"));
}

TEST_CASE("rank schedule: DualPipe runs a stage and its mirror, both directions, and sums the two copies",
          "[schedule]") {
  // Llama-2-7B (32 layers), TP 2 x PP 4, 8 micro batches: rank 2 (stage 1) holds layers 8-15 as chunk 0
  // (micro batches 0-3, entering at stage 0) and stage 2's layers 16-23 as chunk 1 (micro batches
  // 4-7, entering at stage 3).
  aicb::job_spec job = llama(8, 2, 4, true, 1, 1, 8);
  job.parallel.pipeline_schedule = aicb::pipeline_schedule_kind::dualpipe;
  const aicb::process_grid grid(job);
  const std::uint64_t rank = 2;
  REQUIRE(grid.coordinates(rank).pp == 1);
  std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> layers;  // chunk -> [min, max]
  std::map<std::uint64_t, std::uint64_t> chunk_of_microbatch;
  std::uint64_t sent_to_mirror = 0, received_from_mirror = 0;
  const std::uint64_t mirror = grid.group(group_kind::pp, rank).member(2);
  for (const aicb::operation& op : aicb::rank_schedule(job, rank)) {
    if (op.phase == op_phase::finalize) {
      if (op.type == op_type::send && op.peer == mirror) sent_to_mirror += op.size.count();
      if (op.type == op_type::recv && op.peer == mirror) received_from_mirror += op.size.count();
      continue;
    }
    CHECK(op.name != "embedding");  // a middle stage holds neither end of the model
    if (op.layer != aicb::no_layer) {
      auto [it, fresh] = layers.try_emplace(op.chunk, op.layer, op.layer);
      it->second.first = std::min(it->second.first, op.layer);
      it->second.second = std::max(it->second.second, op.layer);
    }
    const auto [it, fresh] = chunk_of_microbatch.try_emplace(op.microbatch, op.chunk);
    CHECK(it->second == op.chunk);
  }
  CHECK(layers[0] == std::pair<std::uint64_t, std::uint64_t>{8, 15});
  CHECK(layers[1] == std::pair<std::uint64_t, std::uint64_t>{16, 23});
  for (std::uint64_t mb = 0; mb < 8; ++mb)
    CHECK(chunk_of_microbatch[mb] == (mb < 4 ? 0u : 1u));
  // Both chunks' gradients go to the mirror and come back: 16 layers' weights over TP 2 (attention
  // 4h², the SwiGLU MLP 3·h·11008, split; two norms of h, replicated), in the gradients' type.
  const std::uint64_t layer_weights = 4096ULL * 4096 * 4 / 2 + 3 * 4096ULL * 11008 / 2 + 2 * 4096;
  CHECK(sent_to_mirror == 16 * layer_weights * aicb::size_of(job.batch.grad_dtype));
  CHECK(received_from_mirror == sent_to_mirror);
  // The first rank holds the embedding (forward direction) and the loss (reverse direction).
  std::uint64_t embedding_chunk = 9, loss_chunk = 9;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.type != op_type::compute || op.phase != op_phase::forward) continue;
    if (op.compute.role == aicb::op_role::embedding) embedding_chunk = op.chunk;
    if (op.compute.role == aicb::op_role::logits) loss_chunk = op.chunk;
  }
  CHECK(embedding_chunk == 0);
  CHECK(loss_chunk == 1);
  // The main phase's forwards run under the other direction's backwards: paired operations of both
  // passes, on both chunks; Megatron's schedule pairs none.
  std::map<std::pair<op_phase, std::uint64_t>, int> paired;
  for (const aicb::operation& op : aicb::rank_schedule(job, rank))
    if (op.paired) ++paired[{op.phase, op.chunk}];
  CHECK(paired[{op_phase::forward, 0}] > 0);
  CHECK(paired[{op_phase::forward, 1}] > 0);
  CHECK(paired[{op_phase::backward, 0}] > 0);
  CHECK(paired[{op_phase::backward, 1}] > 0);
  for (const aicb::operation& op : aicb::rank_schedule(llama(8, 2, 4, true, 1, 1, 8), rank))
    CHECK_FALSE(op.paired);
}

namespace {

// Mixtral with 2 layers on EP 8, the combined 1F1B (PP 1, 3 micro batches).
aicb::job_spec combined_moe(bool delay_wgrad) {
  aicb::job_spec job{aicb::presets::mixtral_8x7b,
                     {.world_size = 8,
                      .expert_parallel = 8,
                      .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall,
                      .moe_grouped_gemm = true,
                      .overlap_moe_expert_parallel_comm = true,
                      .delay_wgrad_compute = delay_wgrad},
                     {.micro_batch = 1, .global_batch = 24, .seq_length = 2048}};
  job.model.num_layers = 2;
  return job;
}

bool is_ep_exchange(const aicb::operation& op) {
  return op.type == op_type::collective && op.kind == collective::all_to_all &&
         op.group.kind == group_kind::ep;
}

}  // namespace

TEST_CASE(
    "rank schedule: the combined 1F1B merges a forward with a backward layer by layer, each "
    "all-to-all between the other pass's computations",
    "[schedule]") {
  for (const bool delay : {false, true}) {
    INFO("delay_wgrad_compute " << delay);
    const aicb::job_spec job = combined_moe(delay);
    const auto ops = all(job, 0);
    // The same operations as without merging, in another order.
    aicb::job_spec separate = job;
    separate.parallel.overlap_moe_expert_parallel_comm = false;
    separate.parallel.delay_wgrad_compute = false;
    const auto plain = all(separate, 0);
    REQUIRE(ops.size() == plain.size());
    std::map<std::tuple<std::string, op_phase, std::uint64_t, std::uint64_t>, int> count;
    for (const aicb::operation& op : ops)
      ++count[{std::string(op.name), op.phase, op.microbatch, op.layer}];
    for (const aicb::operation& op : plain)
      --count[{std::string(op.name), op.phase, op.microbatch, op.layer}];
    CHECK(std::all_of(count.begin(), count.end(), [](const auto& c) { return c.second == 0; }));
    std::size_t paired = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const aicb::operation& op = ops[i];
      CHECK(op.index == i);
      for (std::uint8_t a = 0; a < op.after_count; ++a) {
        CHECK(op.after[a] < op.index);  // every dependency points backwards
        // Within a merged step (forward j + 1 with backward j) neither pass waits for the other.
        const aicb::operation& before = ops[op.after[a]];
        if (op.paired && before.paired) {
          const bool forward_on_its_backward = op.phase == op_phase::forward &&
                                               before.phase == op_phase::backward &&
                                               before.microbatch + 1 == op.microbatch;
          const bool backward_on_its_forward = op.phase == op_phase::backward &&
                                               before.phase == op_phase::forward &&
                                               before.microbatch == op.microbatch + 1;
          CHECK_FALSE(forward_on_its_backward);
          CHECK_FALSE(backward_on_its_forward);
        }
      }
      paired += op.paired ? 1 : 0;
    }
    // F(0) alone, F(1)+B(0) and F(2)+B(1) merged, B(2) alone.
    std::size_t f0 = 0, b2 = 0;
    for (const aicb::operation& op : ops) {
      f0 += op.phase == op_phase::forward && op.microbatch == 0;
      b2 += op.phase == op_phase::backward && op.microbatch == 2;
    }
    CHECK(paired > 0);
    CHECK(paired == 2 * f0 + 2 * b2);
    // The first merged step: forward of micro batch 1, layer 0, with backward of micro batch 0, layer 1.
    std::vector<std::string> exchanges;
    std::vector<std::string> between;  // what runs between the combine's gradient and the dispatch
    bool after_combine_grad = false;
    for (const aicb::operation& op : ops) {
      if (!op.paired || op.microbatch > 1) continue;
      const bool pair = (op.phase == op_phase::forward && op.microbatch == 1 && op.layer == 0) ||
                        (op.phase == op_phase::backward && op.microbatch == 0 && op.layer == 1);
      if (!pair) continue;
      if (is_ep_exchange(op)) {
        exchanges.emplace_back(op.name);
        after_combine_grad = op.name == "moe_combine_grad";
      } else if (after_combine_grad && exchanges.size() == 1 && op.type == op_type::compute) {
        between.push_back(std::string(aicb::to_string(op.phase)) + " " + std::string(op.name));
      }
    }
    CHECK(exchanges == std::vector<std::string>{"moe_combine_grad", "moe_dispatch", "moe_dispatch_probs",
                                                "moe_dispatch_grad", "moe_dispatch_probs_grad",
                                                "moe_combine"});
    // The forward's attention and the backward's experts hide the dispatch.
    CHECK(std::find(between.begin(), between.end(), "forward attention_core") != between.end());
    CHECK(std::find(between.begin(), between.end(), "backward moe_fc2") != between.end());
    // delay_wgrad_compute: the experts' weight gradients run after the dispatch, beside the chain —
    // the dispatch's gradient waits for the input gradients only.
    std::uint64_t dispatch = 0, dispatch_grad = 0, last_weight = 0;
    for (const aicb::operation& op : ops) {
      if (!op.paired || op.microbatch > 1) continue;
      if (op.name == "moe_dispatch" && op.microbatch == 1 && op.layer == 0) dispatch = op.index;
      if (op.name == "moe_dispatch_grad" && op.microbatch == 0 && op.layer == 1) dispatch_grad = op.index;
      if (op.phase == op_phase::backward && op.microbatch == 0 && op.layer == 1 &&
          op.type == op_type::compute && op.compute.pass == aicb::pass_kind::weight_grad &&
          (op.compute.role == aicb::op_role::moe_fc1 || op.compute.role == aicb::op_role::moe_fc2))
        last_weight = op.index;
    }
    REQUIRE(dispatch_grad > 0);
    CHECK((last_weight > dispatch) == delay);
    const aicb::operation& grad = ops[dispatch_grad];
    CHECK((std::find(grad.after.begin(), grad.after.begin() + grad.after_count, last_weight) !=
           grad.after.begin() + grad.after_count) == !delay);
  }
}
