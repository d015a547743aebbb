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

TEST_CASE("op: the cross-entropy loss moves the bytes of its passes over the logits", "[compute][op]") {
  // 4096 tokens x 16000 logits in BF16. Megatron's unfused forward: cast to FP32 (2 + 4), max (4),
  // subtract (8), exp (8), sum (4), divide (8) = 38 bytes per logit in 6 kernels; fused: cast and max
  // in one (6), exp (8), sum (4), divide (8) = 26 in 4. Backward, both: scale in place (8), cast back
  // (4 + 2) = 14 in 2. FP32 logits skip the casts: 32 in 5, 24 in 4, 8 in 1. Transformer Engine's:
  // one read forward (2), one read and write backward (4), a kernel each.
  aicb::compute_op loss{.role = aicb::op_role::logits,
                        .kind = aicb::op_kind::elementwise,
                        .pass = aicb::pass_kind::forward,
                        .type = aicb::dtype::bf16,
                        .m = 4096,
                        .n = 16000};
  const double logits = 4096.0 * 16000;
  using aicb::loss_kernel;
  const auto check = [&](aicb::pass_kind pass, loss_kernel kernel, double bytes, std::uint64_t kernels) {
    loss.pass = pass;
    loss.loss = kernel;
    CHECK(loss.bytes() == bytes * logits);
    CHECK(loss.loss_kernels() == kernels);
  };
  check(aicb::pass_kind::forward, loss_kernel::unfused, 38, 6);
  check(aicb::pass_kind::forward, loss_kernel::fused, 26, 4);
  check(aicb::pass_kind::forward, loss_kernel::te, 2, 1);
  check(aicb::pass_kind::input_grad, loss_kernel::unfused, 14, 2);
  check(aicb::pass_kind::input_grad, loss_kernel::fused, 14, 2);
  check(aicb::pass_kind::input_grad, loss_kernel::te, 4, 1);
  loss.type = aicb::dtype::fp32;
  check(aicb::pass_kind::forward, loss_kernel::unfused, 32, 5);
  check(aicb::pass_kind::forward, loss_kernel::fused, 24, 4);
  check(aicb::pass_kind::input_grad, loss_kernel::unfused, 8, 1);
}

TEST_CASE("op: the lightning indexer scores every causal pair forward and differentiates the top-k backward",
          "[compute][op]") {
  // One sequence of 4096 queries and keys, 64 FP8 heads of 128 sharing one key head: 2·64·128 FLOPs per
  // causal pair; the queries (4096·64·128) and the key (4096·128) in at a byte each, a 4-byte score per
  // pair written and read by the top-k.
  aicb::compute_op index{.role = aicb::op_role::attention_index,
                         .kind = aicb::op_kind::attention_index,
                         .type = aicb::dtype::fp8,
                         .m = 4096,
                         .n = 4096,
                         .k = 128};
  index.index_heads = 64;
  const double pairs = 4096.0 * 4096 / 2;
  CHECK(index.flops() == pairs * 2 * 64 * 128);
  CHECK(index.bytes() == 4096.0 * 64 * 128 + 4096.0 * 128 + pairs * 8);
  // Backward in BF16 over each query's min(position, 1024) selected keys: the query and key products'
  // gradients (twice the forward's per pair), the inputs read and their gradients written, a 4-byte
  // gradient per selected pair read.
  aicb::compute_op backward = index;
  backward.pass = aicb::pass_kind::input_grad;
  backward.type = aicb::dtype::bf16;
  backward.window = 1024;
  const double selected = 4096.0 * 1024 - 1024.0 * 1024 / 2;
  CHECK(backward.flops() == selected * 4 * 64 * 128);
  CHECK(backward.bytes() == (4096.0 * 64 * 128 + 4096.0 * 128) * 2 * 2 + selected * 4);
  // Decode: one query per sequence against all 100000 cached keys.
  aicb::compute_op decode = index;
  decode.causal = false;
  decode.batch = 8;
  decode.m = 1;
  decode.n = 100000;
  CHECK(decode.flops() == 8 * 100000.0 * 2 * 64 * 128);
  CHECK(aicb::to_string(aicb::op_kind::attention_index) == "attention_index");
  CHECK(aicb::to_string(aicb::op_role::attention_index) == "attention_index");
}
