// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/aiob_model.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/io/aiob_reader.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

namespace {
const char* profile_text =
    "Emb:\n    time_gpu_avg: 799\nlayernorm:\n    time_gpu_avg: 70\natten_qkv:\n    time_gpu_avg: 889\n"
    "atten_core_qk:\n    time_gpu_avg: 100\natten_core_softmax:\n    time_gpu_avg: 50\n"
    "atten_core_contex:\n    time_gpu_avg: 150.5\nmlp_linear_1:\n    time_gpu_avg: 1408\n"
    "    # backward_avg_us: 3000\n";

aicb::compute_op op(aicb::op_role role, aicb::op_kind kind, aicb::pass_kind pass = aicb::pass_kind::forward) {
  return {.role = role, .kind = kind, .pass = pass, .m = 4096, .n = 4096, .k = 4096};
}
}  // namespace

TEST_CASE("aiob model: per-operation lookups by aicb's section names, summed where aicb splits",
          "[compute][aiob]") {
  const aicb::aiob_model m(aicb::parse_aiob(profile_text), "test.txt");
  using aicb::op_kind, aicb::op_role, aicb::pass_kind;
  CHECK(m.duration(op(op_role::embedding, op_kind::embedding)).count() == 799000);
  CHECK(m.duration(op(op_role::attention_qkv, op_kind::gemm)).count() == 889000);
  CHECK(m.duration(op(op_role::attention_core, op_kind::attention)).count() ==
        300500);  // qk + softmax + context
}

TEST_CASE("aiob model: backward times follow the stated rule, or the profile's own", "[compute][aiob]") {
  const aicb::aiob_model m(aicb::parse_aiob(profile_text), "test.txt");
  using aicb::op_kind, aicb::op_role, aicb::pass_kind;
  CHECK(m.duration(op(op_role::attention_qkv, op_kind::gemm, pass_kind::input_grad)).count() == 889000);
  CHECK(m.duration(op(op_role::attention_qkv, op_kind::gemm, pass_kind::weight_grad)).count() == 889000);
  CHECK(m.duration(op(op_role::attention_core, op_kind::attention, pass_kind::input_grad)).count() == 751250);
  CHECK(m.duration(op(op_role::attention_core, op_kind::attention, pass_kind::weight_grad)).count() == 0);
  CHECK(m.duration(op(op_role::input_norm, op_kind::norm, pass_kind::input_grad)).count() == 140000);
  // mlp_linear_1 records its backward (3000 us): a GEMM's is split between input and weight gradient.
  CHECK(m.duration(op(op_role::mlp_fc1, op_kind::gemm, pass_kind::input_grad)).count() == 1500000);
  CHECK(m.duration(op(op_role::mlp_fc1, op_kind::gemm, pass_kind::weight_grad)).count() == 1500000);
}

TEST_CASE("aiob model: uncovered operations are an error, or go to the fallback and are reported",
          "[compute][aiob]") {
  using aicb::op_kind, aicb::op_role;
  const aicb::aiob_model strict(aicb::parse_aiob(profile_text), "test.txt");
  CHECK_THROWS_WITH(strict.duration(op(op_role::logits, op_kind::gemm)),
                    Catch::Contains("test.txt") && Catch::Contains("logits"));
  const aicb::roofline_model roofline("H100");
  const aicb::aiob_model lenient(aicb::parse_aiob(profile_text), "test.txt", &roofline);
  CHECK(lenient.duration(op(op_role::logits, op_kind::gemm)) ==
        roofline.duration(op(op_role::logits, op_kind::gemm)));
  CHECK(lenient.missing_roles() == std::vector<aicb::op_role>{op_role::logits});
  CHECK_THAT(lenient.provenance(),
             Catch::Contains("aiob: test.txt (v1: GPU, dtype and shapes not recorded") &&
                 Catch::Contains("roofline"));
}

TEST_CASE("aiob model: a profile's provenance is compared with the job", "[compute][aiob]") {
  const aicb::job_spec job{
      aicb::presets::llama2_7b, {.world_size = 8, .tensor_parallel = 2}, {.seq_length = 4096}};
  const auto v1 = aicb::parse_aiob(profile_text);
  CHECK_THAT(aicb::profile_mismatches(v1, job).front(), Catch::Contains("records no provenance"));
  const auto v2 = aicb::with_provenance(v1, {{"gpu", "NVIDIA H200"},
                                             {"dtype", "bf16"},
                                             {"tensor_parallel", "4"},
                                             {"hidden_size", "4096"},
                                             {"seq_length", "4096"},
                                             {"micro_batch", "1"}});
  const auto messages = aicb::profile_mismatches(v2, job, "H100");
  REQUIRE(messages.size() == 2);
  CHECK(messages[0] == "gpu: profile NVIDIA H200, job H100");
  CHECK(messages[1] == "tensor_parallel: profile 4, job 2");
  CHECK(aicb::profile_mismatches(v2, job, "H200").size() == 1);
}

TEST_CASE("aiob model: a section times its role's own kernel, not the others that carry the role",
          "[compute][aiob]") {
  using aicb::op_kind, aicb::op_role, aicb::pass_kind;
  // The loss after the logits, a projection's norm, the router's softmax: each priced as its section's
  // GEMM, these would count the GEMM again (the loss's backward twice more).
  const char* text =
      "atten_qkv:\n    time_gpu_avg: 889\nlogit_time:\n    time_gpu_avg: 2000\nmoe_router:\n    "
      "time_gpu_avg: 40\n"
      "moe_permute:\n    time_gpu_avg: 3\n";
  const aicb::roofline_model roofline("H100");
  const aicb::aiob_model m(aicb::parse_aiob(text), "test.txt", &roofline);
  CHECK(m.duration(op(op_role::logits, op_kind::gemm)).count() == 2000000);
  const aicb::compute_op loss = op(op_role::logits, op_kind::elementwise, pass_kind::input_grad);
  CHECK(m.duration(loss) == roofline.duration(loss));
  const aicb::compute_op qk_norm = op(op_role::attention_qkv, op_kind::norm);
  CHECK(m.duration(qk_norm) == roofline.duration(qk_norm));
  const aicb::compute_op softmax = op(op_role::moe_router, op_kind::softmax);
  CHECK(m.duration(softmax) == roofline.duration(softmax));
  // The MoE permutations: one section cannot time kernels of different shapes.
  const aicb::compute_op permute = op(op_role::moe_permute, op_kind::elementwise);
  CHECK(m.duration(permute) == roofline.duration(permute));
  CHECK(m.missing_roles().empty());
  CHECK(m.unprofiled().size() == 4u);
  CHECK(aicb::aiob_model::profiled_text(op_role::moe_permute).find("each of its own shape") !=
        std::string::npos);
  // Without a fallback: an error naming the section and the kind.
  const aicb::aiob_model strict(aicb::parse_aiob(text), "test.txt");
  CHECK_THROWS_WITH(strict.duration(qk_norm),
                    Catch::Contains("attention_qkv section times its gemm, not its norm"));
}
