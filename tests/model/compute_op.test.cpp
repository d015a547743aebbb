// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/compute_op.hpp>

#include <catch2/catch.hpp>

TEST_CASE("op: FLOPs and bytes by kind", "[compute][op]") {
  constexpr aicb::compute_op gemm{.kind = aicb::op_kind::gemm, .m = 4096, .n = 4096, .k = 4096};
  STATIC_REQUIRE(gemm.flops() == 2.0 * 4096 * 4096 * 4096);
  STATIC_REQUIRE(gemm.bytes() == 3.0 * 4096 * 4096 * 2);
  constexpr aicb::compute_op attention{.role = aicb::op_role::attention_core,
                                       .kind = aicb::op_kind::attention,
                                       .batch = 32,
                                       .m = 4096,
                                       .n = 4096,
                                       .k = 128};
  STATIC_REQUIRE(attention.flops() == 0.5 * 4 * 32 * 4096.0 * 4096 * 128);  // causal half of QK^T and PV
  constexpr aicb::compute_op backward{.role = aicb::op_role::attention_core,
                                      .kind = aicb::op_kind::attention,
                                      .pass = aicb::pass_kind::input_grad,
                                      .batch = 32,
                                      .m = 4096,
                                      .n = 4096,
                                      .k = 128};
  STATIC_REQUIRE(backward.flops() == 2.5 * attention.flops());
  constexpr aicb::compute_op fp32_norm{
      .kind = aicb::op_kind::norm, .type = aicb::dtype::fp32, .m = 10, .n = 100};
  STATIC_REQUIRE(fp32_norm.bytes() == 2.0 * 10 * 100 * 4);
  CHECK(aicb::to_string(aicb::op_role::mlp_fc1) == "mlp_fc1");
  CHECK(aicb::to_string(aicb::pass_kind::weight_grad) == "weight_grad");
}
