// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Selective recomputation's modules: the names, the rules, and what each repeats and frees, by hand.
#include <aicb/calc/flops.hpp>
#include <aicb/calc/memory.hpp>
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/recompute.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include "refusal.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>

namespace {

using u64 = std::uint64_t;
using aicb::recompute_module;

// Two layers of experts (4 of 512, top 2, SwiGLU) over 1024 hidden; one GPU, one sequence of 256.
aicb::job_spec small_moe(std::string_view modules) {
  aicb::job_spec j;
  j.model = {.hidden_size = 1024,
             .num_layers = 2,
             .num_attention_heads = 8,
             .vocab_size = 1024,
             .activation = aicb::activation_kind::swiglu,
             .num_experts = 4,
             .moe_top_k = 2,
             .moe_ffn_hidden_size = 512};
  j.parallel.world_size = 1;
  j.parallel.recompute = aicb::recompute_kind::selective;
  j.parallel.recompute_modules = aicb::recompute_modules_text::from(modules);
  j.parallel.moe_grouped_gemm = true;
  j.batch = {.micro_batch = 1, .global_batch = 1, .seq_length = 256};
  return j;
}

// The forward-pass operations written inside the backward of rank 0's iteration, by name.
std::vector<std::string> recomputed_ops(const aicb::job_spec& j) {
  std::vector<std::string> names;
  for (const aicb::operation& op : aicb::rank_schedule(j, 0))
    if (op.phase == aicb::op_phase::backward &&
        ((op.type == aicb::op_type::compute && op.compute.pass == aicb::pass_kind::forward) ||
         op.type == aicb::op_type::collective))
      names.emplace_back(op.name);
  return names;
}
bool has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

TEST_CASE("recompute: module names parse with commas or spaces, and the default is core attention",
          "[model][recompute]") {
  const auto set = aicb::parse_recompute_modules("moe_act, layernorm mla_up_proj");
  REQUIRE(set.has_value());
  CHECK(set->has(recompute_module::moe_act));
  CHECK(set->has(recompute_module::layernorm));
  CHECK(set->has(recompute_module::mla_up_proj));
  CHECK_FALSE(set->has(recompute_module::moe));
  std::string_view bad;
  CHECK_FALSE(aicb::parse_recompute_modules("moe_act,attention", &bad).has_value());
  CHECK(bad == "attention");

  aicb::parallel_spec p;
  CHECK(aicb::recomputed_modules(p).empty());  // no recomputation
  p.recompute = aicb::recompute_kind::selective;
  CHECK(aicb::recomputed_modules(p) == aicb::recompute_set{}.add(recompute_module::core_attn));
  p.recompute_modules = aicb::recompute_modules_text::from("moe");
  CHECK(aicb::recomputed_modules(p) == aicb::recompute_set{}.add(recompute_module::moe));
}

TEST_CASE("recompute: each module rule names the field, the value and Megatron's rule",
          "[model][recompute]") {
  CHECK(aicb_test::refusal(small_moe("moe,layernorm,moe_act")).empty());
  CHECK_THAT(aicb_test::refusal(small_moe("moe,attention")),
             Catch::Contains("recompute_modules") && Catch::Contains("'attention' is not a module"));
  aicb::job_spec j = small_moe("moe");
  j.parallel.recompute = aicb::recompute_kind::full;
  CHECK_THAT(aicb_test::refusal(j), Catch::Contains("set recompute = selective"));
  j = small_moe("moe_act");
  j.parallel.moe_grouped_gemm = false;
  CHECK_THAT(aicb_test::refusal(j), Catch::Contains("moe_act is recomputed only with moe_grouped_gemm"));
  CHECK_THAT(aicb_test::refusal(small_moe("mla_up_proj")),
             Catch::Contains("mla_up_proj needs multi-latent attention"));
}

TEST_CASE("recompute: the whole MoE block's forward runs again in the backward, its FLOPs by hand",
          "[model][recompute]") {
  const double tokens = 256, h = 1024, E = 4, k = 2, F = 512, layers = 2;
  // The router (h × E) and each token's k experts (three h × F matrices of SwiGLU), per layer.
  const double moe_forward = layers * tokens * (2 * h * E + k * 3 * 2 * h * F);
  const aicb::job_spec moe = small_moe("moe");
  CHECK(aicb::training_flops(moe).recompute == Approx(moe_forward));
  // The block's forward operations, its all-to-all-free token path included, sit in the backward.
  const auto names = recomputed_ops(moe);
  CHECK(has(names, "moe_router"));
  CHECK(has(names, "moe_fc1"));
  CHECK(has(names, "moe_fc2"));
  CHECK(has(names, "moe_permute"));
  // Elementwise modules repeat no model FLOPs but their kernels: moe_act before the second GEMM's
  // gradients, layernorm the norm in front of the experts.
  const aicb::job_spec light = small_moe("moe_act,layernorm");
  CHECK(aicb::training_flops(light).recompute == 0);
  const auto light_names = recomputed_ops(light);
  CHECK(has(light_names, "moe_act"));
  CHECK(has(light_names, "post_attention_norm"));
  CHECK_FALSE(has(light_names, "moe_fc1"));
  // Core attention alone, the default: the attention core once more, nothing of the experts.
  const auto core_names = recomputed_ops(small_moe(""));
  CHECK(has(core_names, "attention_core_recompute"));
  CHECK_FALSE(has(core_names, "moe_act"));
}

TEST_CASE("recompute: with expert parallelism the recomputed block exchanges its tokens again",
          "[model][recompute]") {
  aicb::job_spec j = small_moe("moe");
  j.parallel.world_size = 2;
  j.parallel.expert_parallel = 2;
  j.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::alltoall;
  j.batch.global_batch = 2;
  const auto names = recomputed_ops(j);
  CHECK(std::count(names.begin(), names.end(), "moe_dispatch") == 2);  // one per layer
  CHECK(std::count(names.begin(), names.end(), "moe_combine") == 2);
}

TEST_CASE("recompute: what each module frees, in s·b·h units by hand", "[model][recompute]") {
  // TP 2 with sequence parallelism: the MLP side of an expert layer is (8 + 4F/h)/t with
  // F = k·F_expert = 1024, h = 1024: (8 + 4)/2 = 6; the attention side 10/2 = 5.
  aicb::job_spec j = small_moe("");
  j.parallel.world_size = 2;
  j.parallel.tensor_parallel = 2;
  j.parallel.sequence_parallel = true;
  j.batch.global_batch = 1;
  const double sbh = 256.0 * 1 * 1024, t = 2, F = 2 * 512;
  const auto bytes = [&](std::string_view modules) {
    j.parallel.recompute_modules = aicb::recompute_modules_text::from(modules);
    return aicb::layer_activation_bytes(j, F, true, true, true) / sbh;
  };
  CHECK(bytes("") == Approx(5 + 6));
  CHECK(bytes("layernorm") == Approx(5 + 6 - 2 / t));           // the norm before the experts
  CHECK(bytes("moe_act") == Approx(5 + 6 - 2 * F / 1024 / t));  // the activation's output
  CHECK(bytes("moe") == Approx(5 + 5 / t));                     // norm in and out, residual mask
  CHECK(bytes("moe,layernorm") == Approx(5 + 3 / t));
  CHECK(bytes("core_attn") == Approx(bytes("")));  // fused attention: nothing held
  // The stage total follows: two layers of experts, one micro batch in flight.
  j.parallel.recompute_modules = aicb::recompute_modules_text::from("moe");
  const double with = static_cast<double>(aicb::memory_per_gpu(j).activations.count());
  j.parallel.recompute_modules = aicb::recompute_modules_text::from("core_attn");
  const double without = static_cast<double>(aicb::memory_per_gpu(j).activations.count());
  CHECK(without - with == Approx(2 * sbh * (6 - 5 / t)));
}

TEST_CASE("recompute: the estimate pays for what is repeated", "[model][recompute][estimate]") {
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  const auto time = [&](std::string_view modules,
                        aicb::recompute_kind kind = aicb::recompute_kind::selective) {
    aicb::job_spec j = small_moe(modules);
    j.parallel.recompute = kind;
    j.batch.seq_length = 4096;
    return aicb::estimate_iteration(j, gpu, c).iteration_s;
  };
  const double none = time("", aicb::recompute_kind::none), act = time("moe_act"), whole = time("moe");
  CHECK(act > none);
  CHECK(whole > act);
  // The whole block's forward again costs at least its expert GEMMs' forward time.
  aicb::job_spec j = small_moe("");
  j.parallel.recompute = aicb::recompute_kind::none;
  j.batch.seq_length = 4096;
  double fc_forward = 0;
  for (const aicb::operation& op : aicb::rank_schedule(j, 0))
    if (op.phase == aicb::op_phase::forward && op.type == aicb::op_type::compute &&
        (op.compute.role == aicb::op_role::moe_fc1 || op.compute.role == aicb::op_role::moe_fc2))
      fc_forward += static_cast<double>(gpu.duration(op.compute).count()) / 1e9;
  CHECK(whole - none > fc_forward);
}
