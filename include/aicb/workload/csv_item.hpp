// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::csv_item — one item of aicb's physical-cluster workload (a collective, a GEMM, an epoch
/// marker), as aicb's `LogItem` holds it: what the CSV generators emit and the CSV writer
/// (<aicb/io/aicb_csv.hpp>) and reader consume. docs/csv.md describes the columns.

#include <aicb/config.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The operations of aicb's `CommType` enumeration, in aicb's order.
enum class csv_op : std::uint8_t {
  all_reduce,
  isend,
  irecv,
  broadcast,
  all_gather,
  reduce_scatter,
  barrier,
  reduce,
  reduce_scatter_tensor,
  all_gather_into_tensor,
  computation,
  epoch_end,
  all_to_all,
};
inline constexpr std::array<std::string_view, 13> csv_op_names{"all_reduce",
                                                               "isend",
                                                               "irecv",
                                                               "broadcast",
                                                               "all_gather",
                                                               "reduce_scatter",
                                                               "barrier",
                                                               "reduce",
                                                               "reduce_scatter_tensor",
                                                               "all_gather_into_tensor",
                                                               "computation",
                                                               "epoch_end",
                                                               "all_to_all"};
[[nodiscard]] constexpr std::string_view to_string(csv_op op) noexcept {
  return csv_op_names[static_cast<std::size_t>(op)];
}
/// The operation named `name` (aicb's value spelling, e.g. "all_gather").
[[nodiscard]] constexpr std::optional<csv_op> csv_op_from_string(std::string_view name) noexcept {
  for (std::size_t i = 0; i < csv_op_names.size(); ++i)
    if (csv_op_names[i] == name) return static_cast<csv_op>(i);
  return std::nullopt;
}

/// The process groups of aicb's `CommGroup` enumeration; `none` is Python's None.
enum class csv_group : std::uint8_t {
  none,
  dp_group,
  pp_group,
  tp_group,
  ep_group,
  ep_dp_group,
  ep_tp_group,
  embedding_group,
  all,  ///< aicb's `CommGroup.all` (value "all_nodes"): every rank
};
inline constexpr std::array<std::string_view, 9> csv_group_names{
    "None",        "dp_group",    "pp_group",        "tp_group", "ep_group",
    "ep_dp_group", "ep_tp_group", "embedding_group", "all"};
[[nodiscard]] constexpr std::string_view to_string(csv_group g) noexcept {
  return csv_group_names[static_cast<std::size_t>(g)];
}

/// The shape of one GEMM operand of a computation item: 2 or 3 dimensions.
struct csv_shape {
  std::array<std::uint64_t, 3> dims{};
  std::uint8_t rank = 0;
  [[nodiscard]] friend constexpr bool operator==(const csv_shape&, const csv_shape&) = default;
};

/// One line of the CSV.
struct csv_item {
  csv_op op = csv_op::epoch_end;
  csv_group group = csv_group::none;
  std::optional<std::uint64_t> group_size;  ///< None for computation and epoch markers
  std::uint64_t msg_size = 0;               ///< bytes (integer messages)
  /// A message size aicb computes as a float (FP8 dispatch: bytes × 0.515625); written like Python.
  std::optional<double> msg_size_float;
  std::array<csv_shape, 2> shapes{};  ///< the GEMM operands of a computation item
  std::string_view stage;             ///< e.g. "forward.MegatronRowLinear"; static text in generators
  std::optional<std::int64_t> dst, src;
  std::string_view additional;  ///< pipeline items: send_next | recv_prev | recv_next | send_prev
  /// Measurements, None in generated workloads; a replayed log fills them.
  std::optional<double> elapsed_time, algbw, busbw;
  std::uint64_t count = 1;

  [[nodiscard]] bool is_computation() const noexcept { return op == csv_op::computation; }
  /// The message size as a number of bytes (a float size truncated).
  [[nodiscard]] std::uint64_t bytes() const noexcept {
    return msg_size_float ? static_cast<std::uint64_t>(*msg_size_float) : msg_size;
  }
};

AICB_END_NAMESPACE
