// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::operation — one thing one rank does in a training iteration: a computation, a collective
/// over one of its process groups, or a point-to-point send or receive to a peer rank — with where
/// it sits in the schedule (micro batch, model chunk, layer, pass) and what it waits for.
///
/// This is the vocabulary of the per-rank operation graph (aicb/schedule/rank_schedule.hpp), the
/// one corrected model that every output projects.
///
/// Sizes: a collective's `size` follows the convention of aicb's and SimAI's files — the whole
/// buffer: an all-reduce's buffer, an all-gather's gathered output, a reduce-scatter's input, an
/// all-to-all's send buffer; `per_rank_size()` gives what one rank contributes (the shard for
/// all-gather and reduce-scatter). Durations are not here: a compute model prices an operation's
/// `compute` (FLOPs, bytes), so the communication pattern never depends on where times come from.

#include <aicb/config.hpp>
#include <aicb/model/compute_op.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/units/bytes.hpp>
#include <aicb/workload/collective.hpp>

#include <array>
#include <cstdint>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// What an operation is.
enum class op_type : std::uint8_t { compute, collective, send, recv };

template <>
struct enum_names<op_type> {
  static constexpr std::array<std::string_view, 4> value{"compute", "collective", "send", "recv"};
};

/// Where in the iteration an operation belongs.
enum class op_phase : std::uint8_t {
  forward,    ///< a micro batch's forward pass
  backward,   ///< its backward pass (input and weight gradients)
  recompute,  ///< forward work repeated in the backward pass (activation recomputation)
  finalize,   ///< once per iteration, after the last backward: gradient reduction, optimizer step
};

template <>
struct enum_names<op_phase> {
  static constexpr std::array<std::string_view, 4> value{"forward", "backward", "recompute", "finalize"};
};

/// "No layer": an operation of the embedding, the output layer, the pipeline or the iteration.
inline constexpr std::uint64_t no_layer = ~std::uint64_t{0};

/// One operation of one rank. See the file comment.
struct operation {
  std::uint64_t index = 0;  ///< position in the rank's stream (what dependencies name)
  op_type type = op_type::compute;
  std::string_view name;  ///< what it is, e.g. "attention_qkv", "grad_reduce" (static text)
  op_phase phase = op_phase::forward;
  std::uint64_t microbatch = 0;  ///< forward, backward, recompute
  std::uint64_t chunk = 0;       ///< model chunk (virtual pipeline stage) of this stage
  std::uint64_t layer = no_layer;

  compute_op compute{};  ///< compute: kind, shapes, dtype, pass; FLOPs and bytes through its methods

  collective kind = collective::none;  ///< collective: which
  group_id group{};                    ///< collective: its group (members through aicb::process_grid)
  std::uint64_t group_size = 1;        ///< collective: ranks in the group
  bytes size{};                        ///< collective (the whole buffer, see the file comment), send, recv

  std::uint64_t peer = 0;  ///< send, recv: the other rank
  std::uint64_t tag = 0;   ///< send, recv: equal on both ends of one transfer, unique per pair of ranks

  /// Part of an overlapped forward-and-backward pair (DualPipe's F&B: one micro batch's forward run
  /// under another's backward), whose communication can hide under the other's computation.
  bool paired = false;

  /// Operations of the same rank this one waits for (indices; at most 8).
  std::array<std::uint64_t, 8> after{};
  std::uint8_t after_count = 0;

  /// What one rank contributes to a collective: the shard for all-gather and reduce-scatter, the
  /// whole buffer otherwise.
  [[nodiscard]] constexpr bytes per_rank_size() const {
    if ((kind == collective::all_gather || kind == collective::reduce_scatter) && group_size > 0)
      return size / group_size;
    return size;
  }
  [[nodiscard]] constexpr bool is_communication() const noexcept { return type != op_type::compute; }
  /// A point-to-point send or receive.
  [[nodiscard]] constexpr bool is_transfer() const noexcept {
    return type == op_type::send || type == op_type::recv;
  }
  /// Part of micro batch `mb`'s passes (forward, backward, recompute); the finalize belongs to none.
  [[nodiscard]] constexpr bool in_microbatch(std::uint64_t mb) const noexcept {
    return phase != op_phase::finalize && microbatch == mb;
  }
  /// A micro batch's backward work: its backward pass and the forward work recomputed in it.
  [[nodiscard]] constexpr bool is_backward_work() const noexcept {
    return phase == op_phase::backward || phase == op_phase::recompute;
  }
};

AICB_END_NAMESPACE
