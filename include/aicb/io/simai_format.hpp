// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The SimAI workload format's vocabulary, shared by the writer, the reader and the linter: the
/// header fields, the policies and header keys SimAI reads, the three record columns and how a
/// collective and its group are spelled in each (docs/lint.md).

#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/workload/record.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The SimAI header fields of a workload (the keys SimAI reads from line 1).
struct simai_header {
  std::string policy = "HYBRID_TRANSFORMER_FWD_IN_BCKWD";
  std::uint64_t tensor_parallel = 1;    ///< model_parallel_NPU_group
  std::uint64_t expert_parallel = 1;    ///< ep
  std::uint64_t pipeline_parallel = 1;  ///< pp
  std::uint64_t vpp = 1;                ///< vpp
  std::uint64_t ga = 1;                 ///< ga
  std::uint64_t all_gpus = 1;           ///< all_gpus
  std::uint64_t checkpoints = 0;
  std::uint64_t checkpoint_initiates = 0;
  std::string pp_comm = "0";  ///< bytes, as text (aicb writes a Python float with SP)

  [[nodiscard]] friend bool operator==(const simai_header&, const simai_header&) = default;
};

/// The parallelism policies SimAI 1.7 decodes (Workload.cc decode_parallelsim).
inline constexpr std::array<std::string_view, 11> simai_policies{"DATA",
                                                                 "HYBRID_TRANSFORMER",
                                                                 "HYBRID_TRANSFORMER_FWD_IN_BCKWD",
                                                                 "HYBRID_DLRM",
                                                                 "HYBRID_DLRM_ENHANCED",
                                                                 "MODEL",
                                                                 "HYBRID_DATA_MODEL",
                                                                 "HYBRID_MODEL_DATA",
                                                                 "HYBRID_CUSTOMIZED",
                                                                 "MICRO",
                                                                 "DISTRIBUTED_INFERENCE"};

/// The header keys SimAI reads, with and without the colon (pp_comm is accepted both ways).
inline constexpr std::array<std::string_view, 10> simai_header_keys{
    "model_parallel_NPU_group:", "ep:",      "pp:",    "vpp:", "ga:", "all_gpus:", "checkpoints:",
    "checkpoint_initiates:",     "pp_comm:", "pp_comm"};

/// The three record columns, which decide how SimAI maps a collective to a group.
enum class simai_column : std::uint8_t { forward, input_grad, weight_grad };

/// SimAI's token for `op` in `column`: `ALLREDUCE`, `ALLGATHER_EP`, `REDUCESCATTER_DP_EP`, `NONE`, …
/// SimAI reads an unsuffixed token as TP in the forward and input-gradient columns and as DP in the
/// weight-gradient column; `_EP` as EP, `_DP_EP` as DP-within-EP. Throws config_error for a
/// collective or a group SimAI cannot express there.
[[nodiscard]] inline std::string_view simai_comm_token(const collective_op& op, simai_column column) {
  if (op.kind == collective::none) return "NONE";
  // [kind][suffix]: no suffix, _EP, _DP_EP.
  static constexpr std::string_view tokens[4][3] = {
      {"ALLREDUCE", "ALLREDUCE_EP", "ALLREDUCE_DP_EP"},
      {"ALLGATHER", "ALLGATHER_EP", "ALLGATHER_DP_EP"},
      {"REDUCESCATTER", "REDUCESCATTER_EP", "REDUCESCATTER_DP_EP"},
      {"ALLTOALL", "ALLTOALL_EP", "ALLTOALL_DP_EP"}};
  int kind = 0;
  switch (op.kind) {
    case collective::all_reduce:
      kind = 0;
      break;
    case collective::all_gather:
      kind = 1;
      break;
    case collective::reduce_scatter:
      kind = 2;
      break;
    case collective::all_to_all:
      kind = 3;
      break;
    default:
      AICB_THROW(config_error("collective", std::string(to_string(op.kind)),
                              "SimAI simulates only all-reduce, all-gather, reduce-scatter and all-to-all"));
  }
  const bool weight = column == simai_column::weight_grad;
  switch (op.group) {
    case comm_group::tp:
      if (!weight) return tokens[kind][0];
      break;
    case comm_group::dp:
      if (weight) return tokens[kind][0];
      break;
    case comm_group::ep:
      if (!weight) return tokens[kind][1];
      break;
    case comm_group::dp_ep:
      return tokens[kind][2];
    default:
      break;
  }
  AICB_THROW(config_error(
      "group", std::string(to_string(op.group)),
      std::string("SimAI cannot express a ") + std::string(to_string(op.group)) + " collective in the " +
          (weight ? "weight-gradient" : "forward/input-gradient") +
          " column (tp/ep/dp_ep there; dp/dp_ep in the weight-gradient column; no cp, pp or world)"));
}

/// The header line (without the newline).
[[nodiscard]] inline std::string simai_header_line(const simai_header& h) {
  return h.policy + " model_parallel_NPU_group: " + std::to_string(h.tensor_parallel) +
         " ep: " + std::to_string(h.expert_parallel) + " pp: " + std::to_string(h.pipeline_parallel) +
         " vpp: " + std::to_string(h.vpp) + " ga: " + std::to_string(h.ga) +
         " all_gpus: " + std::to_string(h.all_gpus) + " checkpoints: " + std::to_string(h.checkpoints) +
         " checkpoint_initiates: " + std::to_string(h.checkpoint_initiates) + " pp_comm: " + h.pp_comm;
}

/// Largest message SimAI's analytical backend can time (its efficiency table ends at 16 GiB).
inline constexpr std::uint64_t simai_max_message = 16ULL << 30;

AICB_END_NAMESPACE
