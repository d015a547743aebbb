// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/traffic.hpp>
#include <aicb/compute/aiob_model.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/generate/megatron.hpp>
#include <aicb/io/aiob_reader.hpp>
#include <aicb/io/simai_lint.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

std::vector<aicb::record> all(const aicb::megatron_workload& w) {
  std::vector<aicb::record> out;
  auto records = w.records();
  for (const aicb::record& r : records)
    out.push_back(r);
  return out;
}
// The records of one micro batch's layer `name`s, in the first micro batch.
const aicb::record& find(const std::vector<aicb::record>& rs, const std::string& name) {
  for (const aicb::record& r : rs)
    if (r.name == name) return r;
  FAIL("no record " << name);
  return rs.front();
}
std::map<aicb::comm_group, std::uint64_t> bytes_by_group(const std::vector<aicb::record>& rs) {
  std::map<aicb::comm_group, std::uint64_t> sum;
  for (const aicb::record& r : rs)
    for (const aicb::phase* p : {&r.forward, &r.input_grad, &r.weight_grad})
      if (p->comm.active()) sum[p->comm.group] += p->comm.size.count();
  return sum;
}
aicb::collective_op op(aicb::collective c, aicb::comm_group g, std::uint64_t n) {
  return {c, g, aicb::bytes{n}};
}

using aicb::collective, aicb::comm_group;
const aicb::constant_model constant;

}  // namespace

TEST_CASE("megatron: dense layer with sequence parallelism, sizes from the formulas",
          "[generate][megatron]") {
  // Llama-2-7B shapes, 2 layers, TP 2 with SP, DP 4, 2 micro batches of 1 x 2048 tokens.
  aicb::model_spec m = aicb::presets::llama2_7b;
  m.num_layers = 2;
  const aicb::job_spec job{m,
                           {.world_size = 8, .tensor_parallel = 2, .sequence_parallel = true},
                           {.micro_batch = 1, .global_batch = 8, .seq_length = 2048}};
  const aicb::megatron_workload w(job, constant);
  const auto rs = all(w);
  const std::uint64_t A = 2048ULL * 1 * 4096 * 2;  // s·b·h bf16
  // All-gather before each block, reduce-scatter after it; the reverse backward (aicb drops it, BUG-10).
  CHECK(find(rs, "input_norm").forward.comm == op(collective::all_gather, comm_group::tp, A));
  CHECK(find(rs, "attention_qkv").input_grad.comm == op(collective::reduce_scatter, comm_group::tp, A));
  CHECK(find(rs, "attention_out").forward.comm == op(collective::reduce_scatter, comm_group::tp, A));
  CHECK(find(rs, "attention_out").input_grad.comm == op(collective::all_gather, comm_group::tp, A));
  CHECK(find(rs, "post_attention_norm").forward.comm == op(collective::all_gather, comm_group::tp, A));
  CHECK(find(rs, "mlp_fc1").input_grad.comm == op(collective::reduce_scatter, comm_group::tp, A));
  CHECK(find(rs, "mlp_fc2").forward.comm == op(collective::reduce_scatter, comm_group::tp, A));
  CHECK(find(rs, "mlp_fc2").input_grad.comm == op(collective::all_gather, comm_group::tp, A));
  // The DP gradient all-reduce: the GPU's parameters (TP 2: half of each layer, vocabulary 32000 / 2)
  // in fp32, once per iteration.
  const std::uint64_t per_layer =
      (4096ULL * (4096 + 2 * 4096) + 4096ULL * 4096) / 2 + 3ULL * 4096 * 11008 / 2 + 2 * 4096;
  const std::uint64_t gpu_params = 2 * per_layer + 2 * (32000ULL / 2 * 4096) + 4096;
  CHECK(bytes_by_group(rs)[comm_group::dp] == gpu_params * 4);
  // Header: SimAI's fields; vpp is virtual stages, not layers (aicb BUG-27).
  CHECK(w.header().tensor_parallel == 2);
  CHECK(w.header().ga == 2);
  CHECK(w.header().vpp == 1);
  CHECK(w.header().pp_comm == "0");
  CHECK(rs.size() == w.size());
}

TEST_CASE("megatron: MoE layer — dispatch, TP gather, experts, combine; sizes from the formulas",
          "[generate][megatron]") {
  // Mixtral shapes, 1 layer, TP 2 + SP, EP 4, 16 GPUs (expert-DP 2).
  aicb::model_spec m = aicb::presets::mixtral_8x7b;
  m.num_layers = 1;
  const aicb::job_spec job{
      m,
      {.world_size = 16, .tensor_parallel = 2, .expert_parallel = 4, .sequence_parallel = true},
      {.micro_batch = 1, .global_batch = 8, .seq_length = 4096}};
  const aicb::megatron_workload w(job, constant);
  const auto rs = all(w);
  const std::uint64_t tokens_per_rank = 4096 / 2;                   // sequence-parallel shard
  const std::uint64_t dispatched = tokens_per_rank * 2 * 4096 * 2;  // top-2, bf16: one rank's send buffer
  CHECK(find(rs, "moe_dispatch").forward.comm == op(collective::all_to_all, comm_group::ep, dispatched));
  CHECK(find(rs, "moe_dispatch").input_grad.comm == op(collective::all_to_all, comm_group::ep, dispatched));
  CHECK(find(rs, "moe_combine").forward.comm == op(collective::all_to_all, comm_group::ep, dispatched));
  CHECK(find(rs, "moe_gather").forward.comm == op(collective::all_gather, comm_group::tp, dispatched * 2));
  CHECK(find(rs, "moe_fc2").forward.comm == op(collective::reduce_scatter, comm_group::tp, dispatched * 2));
  // No all-gather in the MoE layer's norm: tokens stay sequence-parallel into the router.
  const auto norms = std::count_if(rs.begin(), rs.end(), [](const aicb::record& r) {
    return r.name == "post_attention_norm" && r.forward.comm.active();
  });
  CHECK(norms == 0);
  // Expert gradients over DP-within-EP: 2 local experts x (3 x h x F / TP) parameters, fp32.
  const std::uint64_t expert_params = 2ULL * 3 * 4096 * 14336 / 2;
  CHECK(bytes_by_group(rs)[comm_group::dp_ep] == expert_params * 4);
}

TEST_CASE("megatron: DeepSeek MLA + MoE with the real dimensions", "[generate][megatron]") {
  aicb::model_spec m = aicb::presets::deepseek_v3;
  m.num_layers = 4;  // 3 dense layers, then MoE
  const aicb::job_spec job{
      m,
      {.world_size = 64, .tensor_parallel = 2, .expert_parallel = 32, .sequence_parallel = true},
      {.micro_batch = 1, .global_batch = 32, .seq_length = 4096}};
  const aicb::megatron_workload w(job, constant);
  const auto rs = all(w);
  const std::uint64_t tokens = 4096, h = 7168, A = tokens * h * 2;
  CHECK(find(rs, "mla_q_down").input_grad.comm == op(collective::reduce_scatter, comm_group::tp, A));
  CHECK(find(rs, "mla_q_up").input_grad.comm ==
        op(collective::all_reduce, comm_group::tp, tokens * 1536 * 2));
  CHECK(find(rs, "mla_kv_up").input_grad.comm ==
        op(collective::all_reduce, comm_group::tp, tokens * 512 * 2));
  // Top-8 of 256 experts, 8 local experts per rank; the shared expert as a dense MLP of 2048.
  CHECK(find(rs, "moe_dispatch").forward.comm ==
        op(collective::all_to_all, comm_group::ep, tokens / 2 * 8 * h * 2));
  CHECK(find(rs, "shared_fc2").forward.comm == op(collective::reduce_scatter, comm_group::tp, A));
  const auto moe_layers =
      std::count_if(rs.begin(), rs.end(), [](const aicb::record& r) { return r.name == "moe_router"; });
  CHECK(moe_layers == 1 * 1);  // one MoE layer, one micro batch (global batch 32 = DP 32 x 1)
}

// megatron_workload now carries the DeepSpeed projection (data parallelism and ZeRO); the corrected
// Megatron model is the rank graph (schedule/rank_schedule.hpp), which the traffic calculator sums.
// On dense layouts without sequence parallelism or recomputation both must agree exactly; MoE,
// context parallelism, recomputation and sequence parallelism's backward all-gathers and replicated
// norm-gradient all-reduces are the graph's alone (docs/workloads.md).
TEST_CASE("megatron: on dense layouts without SP, bytes per group equal the traffic calculator's",
          "[generate][megatron]") {
  const std::vector<aicb::job_spec> jobs{
      {aicb::presets::llama2_7b,
       {.world_size = 16, .tensor_parallel = 4},
       {.global_batch = 16, .seq_length = 2048}},
      {aicb::presets::llama3_8b,
       {.world_size = 16,
        .tensor_parallel = 2,
        .pipeline_parallel = 2,
        .sequence_parallel = false,
        .distributed_optimizer = true},
       {.global_batch = 32, .seq_length = 4096}},
      {aicb::presets::qwen2_5_7b,
       {.world_size = 8, .tensor_parallel = 1},
       {.global_batch = 16, .seq_length = 8192}},
  };
  for (const aicb::job_spec& job : jobs) {
    INFO(job.model.name.view());
    for (std::uint64_t stage = 0; stage < job.parallel.pipeline_parallel; ++stage) {
      const aicb::megatron_workload w(job, constant, {.pipeline_stage = stage});
      const auto sums = bytes_by_group(all(w));
      const aicb::traffic t = aicb::comm_volume(job, stage);
      const auto get = [&](comm_group g) { return sums.count(g) ? sums.at(g) : 0; };
      CHECK(get(comm_group::tp) == t.tp.count());
      CHECK(get(comm_group::dp) == t.dp.count());
      CHECK(get(comm_group::ep) == t.ep.count());
      CHECK(get(comm_group::dp_ep) == t.dp_ep.count());
      CHECK(get(comm_group::cp) == t.cp.count());
    }
  }
}

TEST_CASE("megatron: the compute model changes compute times only, never the communication",
          "[generate][megatron][compute]") {
  const aicb::job_spec job{
      aicb::presets::mixtral_8x7b,
      {.world_size = 16, .tensor_parallel = 2, .expert_parallel = 4, .sequence_parallel = true},
      {.global_batch = 16, .seq_length = 4096}};
  const aicb::roofline_model roofline("H100");
  const aicb::aiob_model aiob(
      aicb::parse_aiob("atten_qkv:\n    time_gpu_avg: 889\nmlp_linear_1:\n    time_gpu_avg: 1408\n"),
      "profile.txt", &roofline);
  const auto a = all(aicb::megatron_workload(job, constant));
  const auto b = all(aicb::megatron_workload(job, roofline));
  const auto c = all(aicb::megatron_workload(job, aiob));
  REQUIRE(a.size() == b.size());
  REQUIRE(a.size() == c.size());
  bool compute_differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (const auto& other : {b[i], c[i]}) {
      CHECK(other.name == a[i].name);
      CHECK(other.forward.comm == a[i].forward.comm);
      CHECK(other.input_grad.comm == a[i].input_grad.comm);
      CHECK(other.weight_grad.comm == a[i].weight_grad.comm);
    }
    compute_differs = compute_differs || b[i].forward.compute != a[i].forward.compute;
  }
  CHECK(compute_differs);  // the models did time things differently
  CHECK(find(c, "attention_qkv").forward.compute.count() == 889000);
}

TEST_CASE("megatron: iterations, micro batches and layers repeat lazily; stages hold their layers",
          "[generate][megatron]") {
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 4, .pipeline_parallel = 2, .first_stage_layers = 14},
                     {.global_batch = 6, .seq_length = 1024}};
  const aicb::megatron_workload last(job, constant, {.iterations = 3, .pipeline_stage = std::nullopt});
  const aicb::megatron_workload first(job, constant, {.pipeline_stage = 0});
  CHECK(last.size() == 3 * last.records_per_iteration());
  CHECK(all(last).size() == last.size());
  const auto f = all(first), l = all(last);
  const auto count = [](const std::vector<aicb::record>& rs, const char* name) {
    return std::count_if(rs.begin(), rs.end(), [&](const aicb::record& r) { return r.name == name; });
  };
  CHECK(count(f, "embedding") == 3);  // first stage: 3 micro batches
  CHECK(count(f, "logits") == 0);
  CHECK(count(f, "attention_qkv") == 3 * 14);
  CHECK(count(l, "logits") == 3 * 3);  // last stage, 3 iterations
  CHECK(count(l, "attention_qkv") == 3 * 3 * 18);
  CHECK(last.header().pp_comm == std::to_string(1024ULL * 4096 * 2));  // one micro batch's activation
}

namespace {
// n/(n−1) × the bytes one GPU sends over the DP group: an all-reduce moves its message twice
// (reduce-scatter, then all-gather), the others once.
std::uint64_t dp_bus_units(const std::vector<aicb::record>& rs) {
  std::uint64_t units = 0;
  for (const aicb::record& r : rs)
    for (const aicb::phase* p : {&r.forward, &r.input_grad, &r.weight_grad})
      if (p->comm.active() && p->comm.group == comm_group::dp)
        units += (p->comm.kind == collective::all_reduce ? 2 : 1) * p->comm.size.count();
  return units;
}
}  // namespace

TEST_CASE("megatron: ZeRO DP volumes per iteration — stages 1 and 2 as plain DP, stage 3 1.5x",
          "[generate][megatron][zero]") {
  for (const aicb::model_spec& model :
       {aicb::presets::gpt3_1_3b, aicb::presets::llama2_7b, aicb::presets::llama3_8b})
    for (const std::uint64_t dp : {2, 8, 64}) {
      INFO(model.name.view() << " on DP " << dp);
      aicb::job_spec job{model, {.world_size = dp}, {.global_batch = dp, .grad_dtype = aicb::dtype::bf16}};
      const std::uint64_t plain = dp_bus_units(all(aicb::megatron_workload(job, constant)));
      const std::uint64_t psi = aicb::params_on_gpu(job).total();
      CHECK(plain == 2 * 2 * psi);  // one all-reduce of Ψ bf16 gradients
      for (const std::uint64_t stage : {1, 2, 3}) {
        job.parallel.zero_stage = stage;
        const aicb::megatron_workload w(job, constant);
        const std::uint64_t units = dp_bus_units(all(w));
        if (stage < 3)
          CHECK(units == plain);
        else
          CHECK(2 * units == 3 * plain);
        CHECK(bytes_by_group(all(w))[comm_group::dp] == aicb::comm_volume(job).dp.count());
        // The SimAI form lints clean: every DP collective sits in the weight-gradient column.
        const std::string path = "zero" + std::to_string(stage) + "_" + std::to_string(dp) + ".txt";
        aicb::simai_writer out(path, w.header(), w.size(), true);
        auto records = w.records();
        for (const aicb::record& r : records)
          out.write(r);
        out.finish();
        const auto lint = aicb::lint_simai(path);
        CHECK(lint.errors == 0);
        CHECK(lint.warnings == 0);
        std::remove(path.c_str());
      }
    }
}

TEST_CASE("megatron: ZeRO-2/3 repeat their DP collectives in every micro batch",
          "[generate][megatron][zero]") {
  aicb::job_spec job{
      aicb::presets::llama2_7b, {.world_size = 8}, {.global_batch = 32, .grad_dtype = aicb::dtype::bf16}};
  const auto count = [&](std::uint64_t stage, const char* name) {
    job.parallel.zero_stage = stage;
    const auto rs = all(aicb::megatron_workload(job, constant));
    return std::count_if(rs.begin(), rs.end(), [&](const aicb::record& r) { return r.name == name; });
  };
  const auto per_pass = count(2, "zero_grad_reduce") / 4;  // 4 micro batches
  CHECK(per_pass >= 1);
  CHECK(count(2, "zero_grad_reduce") == 4 * per_pass);
  CHECK(count(2, "param_gather") == per_pass);  // weights gathered once, after the step
  CHECK(count(2, "grad_reduce") == 0);
  CHECK(count(3, "zero3_param_gather_fwd") == 4 * per_pass);
  CHECK(count(3, "zero3_param_gather_bwd") == 4 * per_pass);
  CHECK(count(3, "param_gather") == 0);
  aicb::job_spec moe{
      aicb::presets::mixtral_8x7b, {.world_size = 8, .expert_parallel = 8, .zero_stage = 2}, {}};
  CHECK_THROWS_AS(aicb::megatron_workload(moe, constant), aicb::config_error);
}

namespace {
template <class W>
concept records_of_lvalue = requires(W& w) {
  w.records();
};
template <class W>
concept records_of_temporary = requires(W&& w) {
  static_cast<W&&>(w).records();
};
}  // namespace

TEST_CASE("megatron: records() cannot be taken from a temporary workload (it would dangle)", "[generate]") {
  STATIC_REQUIRE(records_of_lvalue<const aicb::megatron_workload>);
  STATIC_REQUIRE_FALSE(records_of_temporary<aicb::megatron_workload>);
  STATIC_REQUIRE_FALSE(records_of_temporary<aicb::aicb_workload>);
  STATIC_REQUIRE_FALSE(records_of_temporary<aicb::simai_reader>);
  STATIC_REQUIRE(records_of_lvalue<aicb::simai_reader>);
}

TEST_CASE("megatron: expert tensor parallelism other than TP is refused for SimAI", "[generate]") {
  aicb::job_spec job{aicb::presets::mixtral_8x7b,
                     {.world_size = 16,
                      .tensor_parallel = 2,
                      .expert_parallel = 4,
                      .expert_tensor_parallel = 1,
                      .sequence_parallel = true},
                     {.global_batch = 8, .seq_length = 4096}};
  CHECK_THROWS_WITH(aicb::megatron_workload(job, constant),
                    Catch::Contains("expert_tensor_parallel = 1") && Catch::Contains("cannot express"));
  job.parallel.expert_tensor_parallel = 2;
  CHECK_NOTHROW(aicb::megatron_workload(job, constant));
}
