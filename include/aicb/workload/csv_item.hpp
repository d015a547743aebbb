// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::csv_item — one item of aicb's physical-cluster workload (a collective, a GEMM, an epoch
/// marker), as aicb's `LogItem` holds it: what the CSV generators emit and the CSV writer
/// (<aicb/io/aicb_csv.hpp>) and reader consume. docs/csv.md describes the columns.

#include <aicb/config.hpp>
#include <aicb/enum_names.hpp>

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
/// aicb's value spellings of the operations, e.g. "all_gather" (aicb::to_string, aicb::from_string<csv_op>).
template <>
struct enum_names<csv_op> {
  static constexpr std::array<std::string_view, 13> value{"all_reduce",
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
};

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
/// The groups as aicb's CSV names them ("None" for none).
template <>
struct enum_names<csv_group> {
  static constexpr std::array<std::string_view, 9> value{"None",        "dp_group",        "pp_group",
                                                         "tp_group",    "ep_group",        "ep_dp_group",
                                                         "ep_tp_group", "embedding_group", "all"};
};

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
