// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::compute_op — one GPU operation a generator needs a duration for: what it is (its role in a
/// layer and its kind), its shape, its dtype and which pass (forward, input gradient, weight
/// gradient). Compute models (aicb/compute/model.hpp) answer for it; they never see the
/// communication, which depends on the job alone.

#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/model/options.hpp>

#include <array>
#include <cstdint>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The kind of computation, which decides how FLOPs and bytes follow from the shape.
enum class op_kind : std::uint8_t {
  gemm,         ///< batch × (m×k)·(k×n)
  attention,    ///< fused causal attention: batch = b·heads, m = query tokens, n = key tokens, k = head size
  norm,         ///< LayerNorm / RMSNorm over m rows of n features
  elementwise,  ///< activation functions, dropout, additions: m × n elements
  embedding,    ///< table lookup of m rows of n features
  optimizer,    ///< Adam step over m parameters
};

/// Which pass of training.
enum class pass_kind : std::uint8_t { forward, input_grad, weight_grad };

/// The role of an operation in a transformer layer (what profiles name).
enum class op_role : std::uint8_t {
  embedding,
  input_norm,
  attention_qkv,
  attention_core,
  attention_out,
  mla_q_down,   ///< MLA: query down-projection and its norm
  mla_q_up,     ///< MLA: query up-projection
  mla_kv_down,  ///< MLA: key/value down-projection and its norm
  mla_kv_up,    ///< MLA: key/value up-projection
  post_attention_norm,
  mlp_fc1,
  mlp_activation,
  mlp_fc2,
  moe_router,
  moe_fc1,  ///< grouped expert GEMM, up (and gate)
  moe_activation,
  moe_fc2,  ///< grouped expert GEMM, down
  final_norm,
  logits,
  optimizer,
  mtp_projection,  ///< multi-token prediction: the 2h → h projection of embedding and hidden state
};

template <>
struct enum_names<op_role> {
  static constexpr std::array<std::string_view, 21> value{
      "embedding", "input_norm",  "attention_qkv", "attention_core",      "attention_out", "mla_q_down",
      "mla_q_up",  "mla_kv_down", "mla_kv_up",     "post_attention_norm", "mlp_fc1",       "mlp_activation",
      "mlp_fc2",   "moe_router",  "moe_fc1",       "moe_activation",      "moe_fc2",       "final_norm",
      "logits",    "optimizer",   "mtp_projection"};
};
template <>
struct enum_names<pass_kind> {
  static constexpr std::array<std::string_view, 3> value{"forward", "input_grad", "weight_grad"};
};
template <>
struct enum_names<op_kind> {
  static constexpr std::array<std::string_view, 6> value{"gemm",        "attention", "norm",
                                                         "elementwise", "embedding", "optimizer"};
};

/// One operation on one GPU (its TP/EP shard), for one micro batch.
struct compute_op {
  op_role role = op_role::attention_qkv;
  op_kind kind = op_kind::gemm;
  pass_kind pass = pass_kind::forward;
  dtype type = dtype::bf16;
  std::uint64_t batch = 1;  ///< independent problems (grouped GEMM groups, b·heads for attention)
  std::uint64_t m = 0, n = 0, k = 0;
  bool causal = true;  ///< attention only: half of the score matrix is computed
  /// The batch runs as one kernel (a batched or grouped GEMM); false: one kernel per problem, one after
  /// another (Megatron's SequentialMLP without --moe-grouped-gemm). FLOPs and bytes are the same.
  bool one_kernel = true;

  /// Floating-point operations (2 per multiply-add). Attention backward recomputes the scores and
  /// computes four products (FlashAttention-2): 2.5 × forward; a GEMM's input- and weight-gradient
  /// passes are one product each, as the forward.
  [[nodiscard]] constexpr double flops() const noexcept {
    const double b = static_cast<double>(batch), M = static_cast<double>(m), N = static_cast<double>(n),
                 K = static_cast<double>(k);
    switch (kind) {
      case op_kind::gemm:
        return 2 * b * M * N * K;
      case op_kind::attention: {
        const double forward = 4 * b * M * N * K * (causal ? 0.5 : 1.0);
        return pass == pass_kind::forward ? forward : 2.5 * forward;
      }
      case op_kind::norm:
        return 5 * b * M * N;
      case op_kind::elementwise:
        return b * M * N;
      case op_kind::embedding:
        return 0;
      case op_kind::optimizer:
        return 12 * b * M;
    }
    return 0;
  }

  /// Bytes read and written in device memory (each operand once).
  [[nodiscard]] constexpr double bytes() const noexcept {
    const double b = static_cast<double>(batch), M = static_cast<double>(m), N = static_cast<double>(n),
                 K = static_cast<double>(k), e = size_of(type);
    switch (kind) {
      case op_kind::gemm:
        return b * (M * K + K * N + M * N) * e;
      case op_kind::attention:
        return b * (2 * M * K + 2 * N * K) * e * (pass == pass_kind::forward ? 1 : 2);
      case op_kind::norm:
      case op_kind::elementwise:
        return b * 2 * M * N * e * (pass == pass_kind::forward ? 1 : 1.5);
      case op_kind::embedding:
        return 2 * b * M * N * e;
      case op_kind::optimizer:
        return b * M * 16;  // fp32 master, m, v read and written, bf16 weight written
    }
    return 0;
  }
};

AICB_END_NAMESPACE
