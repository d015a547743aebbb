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

/// The largest compute time (ns) of one record's column that SimAI simulates. SimAI-Analytical
/// truncates a time to 32 bits after adding a few hundred nanoseconds to it (`Sys::generate_time`):
/// 2,147,483,500 ns was verified to simulate, 2,147,483,640 ns and every larger value give an empty
/// result with exit 0. The writer refuses and lint rejects anything above this.
inline constexpr std::int64_t simai_max_compute_time = 2'147'483'500;

/// The largest integer SimAI reads with `std::stoi` — every header value and the record count on
/// line 2. A larger one throws std::out_of_range inside SimAI: it aborts.
inline constexpr std::uint64_t simai_max_int = 2147483647;

/// The group SimAI-Analytical charges a collective to. It follows from the token's suffix and the
/// column, not from what the writer meant (SimAI 1.7 Workload.cc:1320-1491): `_EP` → EP,
/// `_DP_EP` → DP_EP, no suffix → TP in the forward and input-gradient columns, DP in the
/// weight-gradient column.
enum class simai_group : std::uint8_t { tp, ep, dp, dp_ep };

/// SimAI's group for a token suffix (0 none, 1 `_EP`, 2 `_DP_EP`) in a column.
[[nodiscard]] constexpr simai_group simai_group_of(int suffix, simai_column column) noexcept {
  if (suffix == 1) return simai_group::ep;
  if (suffix == 2) return simai_group::dp_ep;
  return column == simai_column::weight_grad ? simai_group::dp : simai_group::tp;
}

/// The number of GPUs SimAI's cost model gives a collective (SimAI 1.7 Layer.cc:565-582):
/// in the forward and input-gradient columns EP for an EP token and TP for anything else (a `_DP_EP`
/// token there too); in the weight-gradient column DP/EP for a `_DP_EP` token and DP for anything
/// else (an `_EP` token too). DP is SimAI's `-g` over TP·PP; `gpus` stands for `-g` (the header's
/// `all_gpus`, which the generators write as the job's world size).
[[nodiscard]] constexpr std::uint64_t simai_group_ranks(simai_group group, simai_column column,
                                                        std::uint64_t tp, std::uint64_t ep, std::uint64_t pp,
                                                        std::uint64_t gpus) noexcept {
  const std::uint64_t dp = tp == 0 || pp == 0 ? 0 : gpus / (tp * pp);
  if (column != simai_column::weight_grad) return group == simai_group::ep ? ep : tp;
  return group == simai_group::dp_ep ? (ep == 0 ? 0 : dp / ep) : dp;
}

/// Whether SimAI times the collective through its efficiency tables, which cover 16 MiB to 16 GiB:
/// TP all-gather and reduce-scatter (the NVLink and NIC tables), TP and EP all-to-all (the
/// all-to-all table; Layer.cc:899-939). A larger message there makes SimAI throw inside the
/// simulation ("Data size out of range"), drop the callable and end with exit status 0 and a
/// truncated result. Every other collective — any all-reduce, anything on DP or DP_EP — uses an
/// efficiency of 1 and is simulated correctly at any size (verified with 93 GiB TP all-reduces and
/// 98 GB DP collectives).
[[nodiscard]] constexpr bool simai_uses_ratio_table(collective kind, simai_group group) noexcept {
  if (group == simai_group::tp)
    return kind == collective::all_gather || kind == collective::reduce_scatter ||
           kind == collective::all_to_all;
  return group == simai_group::ep && kind == collective::all_to_all;
}

/// Whether SimAI charges garbage for a collective: one over a TP group of one GPU whose size takes
/// the bandwidth path (1 byte, or 1 MiB and more; sizes in between take a fixed latency that is 0
/// for one rank). SimAI's bus-bandwidth lookup answers −1 for one GPU, and the collective's time
/// wraps to about 1.8·10^16 µs — silently, exit status 0 (Layer.cc:940-1035: the TP branch has no
/// one-rank guard; EP, DP and DP_EP groups of one cost 0, which is right).
[[nodiscard]] constexpr bool simai_single_gpu_garbage(simai_group group, std::uint64_t ranks,
                                                      std::uint64_t size) noexcept {
  return group == simai_group::tp && ranks <= 1 && (size == 1 || size >= (1ULL << 20));
}

AICB_END_NAMESPACE
