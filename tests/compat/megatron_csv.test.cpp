// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compat/megatron_csv.hpp>
#include <aicb/generate/csv_projection.hpp>
#include <aicb/io/aicb_csv.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include "reference.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace {

// The llama_l2 job of aicb's cases P01-P03.
aicb::aicb_args llama_l2() {
  aicb::aicb_args a;
  a.world_size = 16;
  a.tensor_model_parallel_size = 2;
  a.global_batch = 32;
  a.seq_length = 2048;
  a.num_layers = 2;
  a.hidden_size = 4096;
  a.num_attention_heads = 32;
  a.ffn_hidden_size = 11008;
  a.vocab_size = 32000;
  a.swiglu = true;
  a.model_name = "llama_l2";
  return a;
}

std::string csv(const aicb::aicb_args& a) {
  std::string out = std::string(aicb::csv_header) + "\n";
  aicb::megatron_csv_workload(a).generate([&](const aicb::csv_item& i) { aicb::append_csv_line(out, i); });
  return out;
}
std::vector<aicb::csv_item> items(const aicb::megatron_csv_workload& w) {
  std::vector<aicb::csv_item> out;
  w.generate([&](const aicb::csv_item& i) { out.push_back(i); });
  return out;
}
std::size_t count(const std::vector<aicb::csv_item>& is, std::string_view stage) {
  return static_cast<std::size_t>(
      std::count_if(is.begin(), is.end(), [&](const aicb::csv_item& i) { return i.stage == stage; }));
}
std::string golden(const std::string& case_dir, const aicb::aicb_args& a) {
  return aicb_test::read_text(aicb_test::reference_dir("aicb/cases/" + case_dir) /
                              aicb::megatron_csv_file_name(a));
}

}  // namespace

TEST_CASE("reference: megatron csv: dense, SP, distributed optimizer, computation, PP match aicb",
          "[generate][megatron_csv][reference]") {
  aicb::aicb_args a = llama_l2();
  CHECK(csv(a) == golden("P01_megatron_csv_nosp", a));
  a.enable_sequence_parallel = true;
  a.use_distributed_optimizer = true;
  CHECK(csv(a) == golden("P02_megatron_csv_sp_distopt", a));
  a.use_distributed_optimizer = false;
  a.computation_enable = true;
  CHECK(csv(a) == golden("P03_megatron_csv_sp_compute", a));

  aicb::aicb_args pp = llama_l2();
  pp.pipeline_model_parallel = 2;
  pp.num_layers = 4;
  pp.swiglu = false;
  pp.model_name = "llama_l4_pp2";
  CHECK(csv(pp) == golden("P04_megatron_csv_pp2", pp));
}

TEST_CASE("reference: megatron csv: MoE and DeepSeek match aicb", "[generate][megatron_csv][reference]") {
  aicb::aicb_args moe = llama_l2();
  moe.swiglu = false;
  moe.ffn_hidden_size = 14336;
  moe.moe_enable = true;
  moe.num_experts = 8;
  moe.moe_router_topk = 2;
  moe.expert_model_parallel_size = 4;
  moe.enable_sequence_parallel = true;
  moe.model_name = "mixtral_l2";
  CHECK(csv(moe) == golden("P05_megatron_csv_moe", moe));

  aicb::aicb_args ds = moe;
  ds.frame = "DeepSeek";
  ds.global_batch = 16;
  ds.seq_length = 1024;
  ds.hidden_size = 2048;
  ds.num_attention_heads = 16;
  ds.ffn_hidden_size = 1408;
  ds.num_experts = 16;
  ds.moe_router_topk = 6;
  ds.expert_model_parallel_size = 8;
  ds.n_dense_layers = 1;
  ds.model_name = "ds_l2";
  CHECK(csv(ds) == golden("P06_deepseek_csv", ds));
}

TEST_CASE("reference: megatron csv: aicb's megatron_gpt.sh front end, with and without --world_size",
          "[generate][megatron_csv][reference]") {
  aicb::megatron_gpt_script_args s;
  s.model_size = "7";
  s.nproc_per_node = 8;
  aicb::aicb_script_result r = aicb::from_megatron_gpt_script(s);
  CHECK(r.args.global_batch == 0);  // the script's data-parallel size comes from --world_size only
  CHECK(r.args.world_size == 8);
  CHECK(csv(r.args) == golden("S16_megatron_gpt_sh_m7_no_world_size_gbs0", r.args));
  s.world_size = 8;
  r = aicb::from_megatron_gpt_script(s);
  CHECK(r.args.global_batch == 2);
  CHECK(csv(r.args) == golden("S17_megatron_gpt_sh_m7_world8", r.args));
  s.model_size = "99";
  CHECK(aicb::from_megatron_gpt_script(s).fell_back);
  s.model_size = "405";
  s.tensor_model_parallel_size = 4;
  r = aicb::from_megatron_gpt_script(s);
  CHECK(r.args.tensor_model_parallel_size == 8);
  CHECK(r.args.pipeline_model_parallel == 16);
  CHECK(r.overridden.size() == 1);
}

TEST_CASE("megatron csv: the parameter count and the step's gradient volume", "[generate][megatron_csv]") {
  const aicb::megatron_csv_workload w(llama_l2());
  // 4·(V/t)·h + s·h embedding, per layer QKV (h, 3h/t), out (h/t, h), MLP (h, F/t), (F/t, h), 3h norms,
  // the output layer (h, V/t).
  const std::uint64_t h = 4096, f = 11008, v = 32000, s = 2048;
  const std::uint64_t layer = h * 3 * h / 2 + h * h / 2 + h * f / 2 + f / 2 * h + 3 * h;
  CHECK(w.total_params() == 4 * v / 2 * h + s * h + 2 * layer + h * v / 2);
  const auto is = items(w);
  const auto sync = std::find_if(is.begin(), is.end(),
                                 [](const aicb::csv_item& i) { return i.stage == "step.finish_grad_sync"; });
  REQUIRE(sync != is.end());
  CHECK(sync->msg_size == 4 * w.total_params());
}

// The emulator keeps aicb's CSV bugs; the corrected CSV is the graph's (csv_projection), which has
// none of them. One job, both ways.
TEST_CASE("megatron csv: aicb's CSV bugs are kept here and absent from the graph's CSV",
          "[generate][megatron_csv]") {
  aicb::aicb_args pp = llama_l2();
  pp.pipeline_model_parallel = 2;
  pp.num_layers = 4;
  pp.enable_sequence_parallel = true;
  const aicb::megatron_csv_workload compat(pp);
  const auto c = items(compat);
  CHECK(count(c, "step.check_for_nan") == 2);  // BUG-15: two optimizer steps per iteration
  const auto size_of = [](const std::vector<aicb::csv_item>& is, std::string_view stage) {
    for (const auto& i : is)
      if (i.stage == stage) return i.msg_size;
    return std::uint64_t{0};
  };
  CHECK(size_of(c, "step.finish_grad_sync") == 4 * compat.total_params() / 2);  // BUG-18
  CHECK(size_of(c, "step._allreduce_layernorm_grads") == 0);                    // BUG-17

  aicb::model_spec m = aicb::presets::llama2_7b;
  m.num_layers = 4;
  const aicb::job_spec job{
      m,
      {.world_size = 16, .tensor_parallel = 2, .pipeline_parallel = 2, .sequence_parallel = true},
      {.global_batch = 32, .seq_length = 2048}};
  // Items view their stage text in the projection: it outlives the copies kept here.
  const aicb::csv_projection dense(job, {.rank = 0});
  std::vector<aicb::csv_item> g;
  dense.generate([&](const aicb::csv_item& i) { g.push_back(i); });
  CHECK(count(g, "finalize.optimizer_step") == 0);  // a computation: only with computation items
  CHECK(count(g, "finalize.grad_reduce") == 1);     // one reduction per iteration
  CHECK(size_of(g, "finalize.sp_replicated_grad_reduce") > 0);

  // BUG-16: MoE backward communication; BUG-19: SP column GEMMs on the real sequence length.
  aicb::aicb_args moe = llama_l2();
  moe.moe_enable = true;
  moe.num_experts = 8;
  moe.moe_router_topk = 2;
  moe.expert_model_parallel_size = 4;
  moe.enable_sequence_parallel = true;
  moe.computation_enable = true;
  const auto mc = items(aicb::megatron_csv_workload(moe));
  CHECK(count(mc, "backward.MoE.dispatch") == 0);
  const auto first_gemm = [](const std::vector<aicb::csv_item>& is, std::string_view stage) {
    for (const auto& i : is)
      if (i.stage == stage) return i.shapes[0].dims[0];
    return std::uint64_t{0};
  };
  CHECK(first_gemm(mc, "forward.MegatronColumnLinear.attention_column") == 2 * 2048);
  const aicb::job_spec moe_job{aicb::presets::mixtral_8x7b,
                               {.world_size = 16,
                                .tensor_parallel = 2,
                                .expert_parallel = 4,
                                .sequence_parallel = true,
                                .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall},
                               {.global_batch = 8, .seq_length = 2048}};
  aicb::csv_projection_options with_compute;
  with_compute.computation = true;
  const aicb::csv_projection moe_projection(moe_job, with_compute);
  std::vector<aicb::csv_item> mg;
  moe_projection.generate([&](const aicb::csv_item& i) { mg.push_back(i); });
  CHECK(count(mg, "backward.moe_dispatch_grad") == count(mg, "forward.moe_dispatch"));
  CHECK(count(mg, "forward.moe_dispatch") > 0);
  CHECK(first_gemm(mg, "forward.attention_qkv") == 2048);
}

TEST_CASE("megatron csv: memory does not grow with micro batches or iterations", "[generate][megatron_csv]") {
  aicb::aicb_args a = llama_l2();
  a.global_batch = 8 * 1000;  // DP 8: 1000 micro batches per rank
  a.epoch_num = 3;
  const aicb::megatron_csv_workload w(a);
  std::uint64_t n = 0;
  w.generate([&](const aicb::csv_item&) { ++n; });
  // Set-up and an epoch end; per iteration 1000 x (16 forward and backward items), the step, an end.
  CHECK(n == 8 + 3 * (1000 * 16 + 3 + 1));
}

TEST_CASE("megatron csv: what aicb asserts is a config_error", "[generate][megatron_csv]") {
  aicb::aicb_args a = llama_l2();
  a.ffn_hidden_size = 11009;  // not divisible by TP 2
  CHECK_THROWS_AS(aicb::megatron_csv_workload(a), aicb::config_error);
  a = llama_l2();
  a.frame = "DeepSpeed";
  CHECK_THROWS_AS(aicb::megatron_csv_workload(a), aicb::config_error);
  a = llama_l2();
  a.pp_rank = 2;  // no such stage: aicb ignores it
  CHECK_NOTHROW(aicb::megatron_csv_workload(a));
  a = llama_l2();
  a.moe_enable = true;  // aicb: MoE needs sequence parallelism
  CHECK_THROWS_AS(aicb::megatron_csv_workload(a), aicb::config_error);
}
