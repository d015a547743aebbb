// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Megatron-Core's pipeline schedules, for one stage, step by step: the forward and backward passes
/// of each micro batch (and model chunk) and the point-to-point calls between them, in the order
/// Megatron issues them (`pipeline_parallel/schedules.py`).
///
/// - **none** (PP = 1): F(0) B(0) F(1) B(1) …
/// - **1F1B** (PP > 1): stage s of p runs `Wu = min(p − s − 1, m)` warm-up forwards, then
///   `R = m − Wu` steady one-forward-one-backward steps, then Wu cool-down backwards.
/// - **interleaved 1F1B** (PP > 1, V model chunks per stage): Megatron's table of virtual
///   micro batches in groups of N = p micro batches (so m must be a multiple of p, as Megatron
///   requires with its default grouping), `Wu = min(m·V, 2(p − s − 1) + (V − 1)·p)` warm-up
///   forwards, its receive rule for the stage that leads each direction, and — Megatron's
///   default — communication overlapped with compute: a forward call after each forward and a
///   backward call after each backward (`overlap_p2p_comm`; without it, one call per steady step).
/// - **zero-bubble H1** (PP > 1, one chunk; Qi et al. 2024, the authors' patch of Megatron's 1F1B):
///   1F1B whose backward is split on every stage but the first into the input gradient (B, what the
///   previous stage waits for) and the weight gradient (W, a `weight` step). Stage s defers W in its
///   first s steady steps, in its last steady step and in every cool-down step, queues it, and runs
///   the oldest queued W after the last steady send and after each cool-down send once the micro
///   batch's index reaches s; the rest run at the end. The stages' backward chain then carries B
///   alone, and the deferred Ws fill the waits: a bubble of (p − 1)(F + B − W) instead of
///   (p − 1)(F + B + W) with m ≥ p micro batches and W ≤ F, at 1F1B's activation memory.
/// - **DualPipe** (PP even, m even and ≥ 2p; DeepSeek's reference implementation, `dualpipe.py`):
///   a bidirectional pipeline. Rank r holds two model chunks: chunk 0 is stage r of the forward
///   direction (micro batches 0 … m/2 − 1 enter at rank 0 and flow to rank p − 1), chunk 1 is stage
///   p − 1 − r of the reverse direction (micro batches m/2 … m − 1 enter at rank p − 1 and flow
///   back). With h = min(r, p − 1 − r) its steps run in eight phases: forwards of its first-half
///   direction ×2(p/2 − h − 1); forward pairs ×(h + 1); B, W, F of the second-half direction
///   ×(p/2 − h − 1), W deferred; the main phase, a forward of one direction overlapped with a
///   backward of the other, twice per turn, ×(m/2 − p + h + 1); B, then F&B, ×(p/2 − h − 1);
///   backward pairs ×(h + 1), the later half split; W and B ×(p/2 − h − 1); the deferred Ws ×(h + 1).
///   Transfers accumulate and go out as one batched call when the rank next waits for data. Its
///   bubble: (p/2 − 1)(F&B + B − 3W), B the whole backward, F&B an overlapped pair.
///
/// - **combined 1F1B** (`combined`, Megatron's `--overlap-moe-expert-parallel-comm`; PP = 1 or
///   interleaved): each steady forward is `overlapped` with the backward after it, which the rank's
///   operations merge layer by layer. Without a pipeline: F(0), F(i + 1)&B(i) for i < m − 1, B(m − 1).
///   Interleaved: one more warm-up forward than without it, and both calls of a steady step after
///   the pair.
///
/// Each call holds up to four operations. Batched calls list them in Megatron's batch order
/// (send_prev, recv_prev, send_next, recv_next); overlapped calls post them one by one, even stages
/// send_next, recv_prev, send_prev, recv_next and odd stages recv_prev, send_next, recv_next,
/// send_prev. The first stage never receives activations nor sends gradients backward; the last
/// stage never sends activations on nor receives gradients from beyond — except, with interleaving,
/// between the model chunks of the last and the first stage, which are neighbours on the ring.
///
/// Steps are produced lazily, by a cursor: memory does not grow with micro batches.
///
/// ```cpp
/// for (const aicb::pipeline_step& step : aicb::pipeline_steps({.stages = 4, .stage = 1, .microbatches = 8}))
///   ...   // F(0) send … F(1) … B(0) …   (the range-v3 view, <aicb/schedule/rank_schedule.hpp>)
/// ```

#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/model/options.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The pipeline schedules Megatron-Core runs.
enum class pipeline_kind : std::uint8_t {
  none,            ///< no pipelining (PP = 1)
  one_f_one_b,     ///< 1F1B (PP > 1, one model chunk)
  interleaved,     ///< interleaved 1F1B (PP > 1, several model chunks)
  zero_bubble_h1,  ///< zero-bubble H1 (PP > 1, one model chunk; weight gradients deferred)
  dualpipe,        ///< DualPipe (PP even: two directions, a model chunk each)
};

/// Where a point-to-point operation goes.
enum class p2p_direction : std::uint8_t { send_prev, recv_prev, send_next, recv_next };

/// One point-to-point operation: the tensor it moves is the activation (forward) or the gradient
/// of micro batch `microbatch` at model chunk `chunk` of this stage — for a send the chunk that
/// produced it, for a receive the chunk that will consume it.
struct p2p_op {
  p2p_direction direction = p2p_direction::send_next;
  bool activation = true;  ///< an activation (forward) or a gradient (backward)
  std::uint64_t microbatch = 0;
  std::uint64_t chunk = 0;

  [[nodiscard]] constexpr bool send() const noexcept {
    return direction == p2p_direction::send_prev || direction == p2p_direction::send_next;
  }
  [[nodiscard]] friend constexpr bool operator==(const p2p_op&, const p2p_op&) = default;
};

/// One step of a stage's schedule.
struct pipeline_step {
  /// `weight`: the weight gradient of a backward that ran split (zero-bubble schedules).
  enum class kind : std::uint8_t { forward, backward, weight, communicate };
  /// Which part of the schedule the step belongs to.
  enum class part : std::uint8_t { warmup, steady, cooldown };

  kind what = kind::forward;
  part phase = part::warmup;
  std::uint64_t microbatch = 0;  ///< forward, backward, weight: the micro batch
  std::uint64_t chunk = 0;       ///< forward, backward, weight: the model chunk
  /// backward: the input gradient only; the weight gradient runs later, as a `weight` step.
  bool split = false;
  /// forward: runs overlapped with the backward step after it (DualPipe's F&B pairs: one
  /// direction's forward under the other's backward, each hiding the other's communication).
  bool overlapped = false;
  std::array<p2p_op, 4> ops{};  ///< communicate: the call's operations, in the order they are posted
  std::uint8_t op_count = 0;
  bool batched =
      true;  ///< communicate: one batched call (batch_isend_irecv), or operations posted one by one

  [[nodiscard]] constexpr const p2p_op* begin() const noexcept { return ops.data(); }
  [[nodiscard]] constexpr const p2p_op* end() const noexcept { return ops.data() + op_count; }
};

/// What a schedule is built from.
struct pipeline_options {
  std::uint64_t stages = 1;        ///< pipeline-parallel size p
  std::uint64_t stage = 0;         ///< this stage, 0 … p − 1
  std::uint64_t microbatches = 1;  ///< micro batches per iteration m
  std::uint64_t chunks = 1;        ///< model chunks per stage V (virtual pipeline)
  /// Interleaved only: overlap point-to-point communication with compute (Megatron's default).
  bool overlap_p2p = true;
  /// Interleaved only: micro batches per group of the schedule table
  /// (`microbatch_group_size_per_vp_stage`); 0 = pipeline_parallel, Megatron's default.
  std::uint64_t microbatch_group = 0;
  /// Megatron-Core's schedules, zero-bubble H1 (one chunk, PP > 1) or DualPipe (PP even, `chunks`
  /// ignored: a chunk per direction).
  pipeline_schedule_kind schedule = pipeline_schedule_kind::megatron;
  /// Megatron's combined 1F1B (`--overlap-moe-expert-parallel-comm`; PP = 1 or interleaved): each
  /// steady forward runs merged with the backward after it (`overlapped`), and the interleaved
  /// schedule warms up one virtual micro batch more, so that the two are independent.
  bool combined = false;
};

/// The number of forward passes a stage runs before its first backward, and the rest.
struct pipeline_counts {
  std::uint64_t warmup = 0;    ///< forwards before the first backward
  std::uint64_t steady = 0;    ///< one-forward-one-backward steps
  std::uint64_t cooldown = 0;  ///< backwards after the last forward
  std::uint64_t total = 0;     ///< forwards (= backwards) of the stage: m · V
};

/// One stage's schedule: its rules, counts and table, and cursors over its steps. See the file comment.
class pipeline_schedule {
 public:
  explicit pipeline_schedule(const pipeline_options& o) : o_(o) {
    const auto fail = [](const char* field, std::uint64_t value, const std::string& rule) {
      AICB_THROW(config_error(field, std::to_string(value), rule));
    };
    if (o.stages == 0) fail("pipeline_parallel", 0, "pipeline_parallel must be at least 1");
    if (o.stage >= o.stages)
      fail("pipeline_stage", o.stage,
           "a stage must be below pipeline_parallel (" + std::to_string(o.stages) + ")");
    if (o.microbatches == 0) fail("microbatches", 0, "an iteration needs at least one micro batch");
    if (o.chunks == 0) fail("virtual_pipeline", 0, "virtual_pipeline must be at least 1");
    if (o.schedule == pipeline_schedule_kind::zb_h1) {
      if (o.stages == 1) fail("pipeline_parallel", 1, "pipeline_schedule zb_h1 needs pipeline_parallel > 1");
      if (o.chunks > 1)
        fail("virtual_pipeline", o.chunks, "pipeline_schedule zb_h1 runs one model chunk per stage");
    }
    if (o.schedule == pipeline_schedule_kind::dualpipe) {
      if (o.stages < 2 || o.stages % 2 != 0)
        fail("pipeline_parallel", o.stages, "pipeline_schedule dualpipe needs an even pipeline_parallel");
      if (o.microbatches % 2 != 0 || o.microbatches < 2 * o.stages)
        fail("microbatches", o.microbatches,
             "pipeline_schedule dualpipe needs an even number of micro batches, at least 2 x "
             "pipeline_parallel (" +
                 std::to_string(2 * o.stages) + ")");
      o_.chunks = 2;
      kind_ = pipeline_kind::dualpipe;
      // Each direction's micro batches pass once: m forwards in all, before the first backward those of
      // the first two phases.
      const std::uint64_t half = o.stages / 2, h = std::min(o.stage, o.stages - 1 - o.stage);
      const std::uint64_t early = 2 * (half - h - 1) + 2 * (h + 1);
      counts_ = {early, o.microbatches - early, 0, o.microbatches};
      return;
    }
    if (o.chunks > 1) {
      if (o.stages == 1)
        fail("virtual_pipeline", o.chunks, "virtual_pipeline > 1 needs pipeline_parallel > 1");
      // Megatron's table groups N micro batches per model chunk (N = p by default): p <= N <= m, and
      // the last group holds m mod N = 0 or at least p of them. With the default, m must be a
      // multiple of p.
      group_ = o.microbatch_group == 0 ? o.stages : o.microbatch_group;
      if (group_ < o.stages || group_ > o.microbatches)
        fail("microbatch_group", group_,
             "with interleaving, the micro batches per group must be between pipeline_parallel (" +
                 std::to_string(o.stages) + ") and the micro batches per iteration (" +
                 std::to_string(o.microbatches) + "), as Megatron-Core requires");
      if (o.microbatches % group_ != 0 && o.microbatches % group_ < o.stages)
        fail("microbatches", o.microbatches,
             o.microbatch_group == 0
                 ? "with interleaving, the micro batches per iteration must be a multiple of "
                   "pipeline_parallel (" +
                       std::to_string(o.stages) + "), as Megatron-Core requires with its default grouping"
                 : "with interleaving, the micro batches left for the last group (micro batches mod " +
                       std::to_string(group_) +
                       ") must be 0 or at least pipeline_parallel, as Megatron-Core requires");
      if (o.stages <= 2 && !o.overlap_p2p)
        fail("pipeline_parallel", o.stages,
             "interleaving on 2 stages needs overlapped point-to-point communication (Megatron-Core)");
    }
    kind_ = o.stages == 1                                 ? pipeline_kind::none
            : o.schedule == pipeline_schedule_kind::zb_h1 ? pipeline_kind::zero_bubble_h1
            : o.chunks == 1                               ? pipeline_kind::one_f_one_b
                                                          : pipeline_kind::interleaved;
    const std::uint64_t total = o.microbatches * o.chunks;
    std::uint64_t warmup = 0;
    if (kind_ == pipeline_kind::one_f_one_b || kind_ == pipeline_kind::zero_bubble_h1)
      warmup = std::min(o.stages - o.stage - 1, o.microbatches);
    else if (kind_ == pipeline_kind::interleaved)
      warmup = std::min(total, 2 * (o.stages - o.stage - 1) + (o.chunks - 1) * group_ + (o.combined ? 1 : 0));
    counts_ = {warmup, total - warmup, warmup, total};
  }

  [[nodiscard]] pipeline_kind kind() const noexcept { return kind_; }
  [[nodiscard]] const pipeline_options& options() const noexcept { return o_; }
  [[nodiscard]] const pipeline_counts& counts() const noexcept { return counts_; }

  /// Whether the two model chunks of a stage are two directions (DualPipe): a transfer then stays on
  /// its chunk, going to the neighbouring rank that direction's way.
  [[nodiscard]] bool bidirectional() const noexcept { return kind_ == pipeline_kind::dualpipe; }

  /// The micro batch of forward (or backward) virtual step `k` (interleaved: Megatron's table).
  [[nodiscard]] std::uint64_t microbatch_of(std::uint64_t k) const noexcept { return table(k).first; }
  /// The model chunk of virtual step `k`, forward or backward (backward runs the chunks in reverse).
  [[nodiscard]] std::uint64_t chunk_of(std::uint64_t k, bool forward) const noexcept {
    const std::uint64_t c = table(k).second;
    return forward ? c : o_.chunks - 1 - c;
  }
  /// Micro batches per group of the interleaved schedule's table (N).
  [[nodiscard]] std::uint64_t microbatch_group() const noexcept { return group_; }

  class cursor;
  /// A pass over the steps, from the first (the schedule must outlive it). aicb::pipeline_steps
  /// (<aicb/schedule/rank_schedule.hpp>) is the same pass as a range-v3 view.
  [[nodiscard]] cursor begin_cursor() const;

 private:
  friend class cursor;

  // Megatron's schedule table (get_schedule_table): for each group of N micro batches — the last
  // group takes all that remain — every chunk in turn runs the group's micro batches in order.
  // Entry k (taken modulo the table's length, as Megatron's lookups are): (micro batch, chunk).
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> table(std::uint64_t k) const noexcept {
    if (kind_ != pipeline_kind::interleaved) return {k, 0};
    const std::uint64_t n = group_, v = o_.chunks, m = o_.microbatches;
    k %= m * v;
    const std::uint64_t full_groups = m / n;         // groups of exactly N
    const std::uint64_t last = m - full_groups * n;  // the short last group (0: none)
    if (k < full_groups * n * v) {
      const std::uint64_t group = k / (n * v), within = k % (n * v);
      return {group * n + within % n, within / n};
    }
    const std::uint64_t rest = k - full_groups * n * v;
    return {full_groups * n + rest % last, rest / last};
  }

  pipeline_options o_;
  std::uint64_t group_ = 1;
  pipeline_kind kind_ = pipeline_kind::none;
  pipeline_counts counts_;
};

/// Walks a schedule, a cursor (read, next, done): each turn of Megatron's loop fills a small buffer
/// with its steps. A value: copies walk on independently.
class pipeline_schedule::cursor {
 public:
  cursor() = default;
  explicit cursor(const pipeline_schedule* s) : s_(s) { advance(); }

  /// The step at the cursor (not when done()).
  [[nodiscard]] const pipeline_step& read() const noexcept { return buffer_[head_]; }
  void next() { advance(); }
  /// Whether the pass is over.
  [[nodiscard]] bool done() const noexcept { return s_ == nullptr; }

 private:
  using part = pipeline_step::part;
  static constexpr std::size_t capacity = 8;

  const pipeline_options& o() const { return s_->o_; }
  bool first_stage() const { return o().stage == 0; }
  bool last_stage() const { return o().stage + 1 == o().stages; }

  void advance() {
    if (!s_) return;
    if (++head_ < size_) return;
    head_ = size_ = 0;
    while (size_ == 0) {
      if (!fill()) {
        s_ = nullptr;
        return;
      }
    }
  }

  void compute(pipeline_step::kind what, part phase, std::uint64_t microbatch, std::uint64_t chunk,
               bool split = false, bool overlapped = false) {
    pipeline_step& step = buffer_[size_++];
    step = {};
    step.what = what;
    step.phase = phase;
    step.microbatch = microbatch;
    step.chunk = chunk;
    step.split = split;
    step.overlapped = overlapped;
  }

  // A call: its operations (those set) sorted in posting order; nothing when it has none.
  void call(part phase, std::initializer_list<std::optional<p2p_op>> ops, bool batched) {
    const pipeline_step step = held_call(phase, ops, batched);
    if (step.op_count > 0) buffer_[size_++] = step;
  }
  // The same call, returned rather than added (the combined 1F1B posts it after the backward).
  pipeline_step held_call(part phase, std::initializer_list<std::optional<p2p_op>> ops, bool batched) const {
    pipeline_step step;
    step.what = pipeline_step::kind::communicate;
    step.phase = phase;
    step.batched = batched;
    static constexpr std::array<p2p_direction, 4> batch_order{
        p2p_direction::send_prev, p2p_direction::recv_prev, p2p_direction::send_next,
        p2p_direction::recv_next};
    static constexpr std::array<p2p_direction, 4> even_order{
        p2p_direction::send_next, p2p_direction::recv_prev, p2p_direction::send_prev,
        p2p_direction::recv_next};
    static constexpr std::array<p2p_direction, 4> odd_order{
        p2p_direction::recv_prev, p2p_direction::send_next, p2p_direction::recv_next,
        p2p_direction::send_prev};
    const auto& order = batched ? batch_order : o().stage % 2 == 0 ? even_order : odd_order;
    for (const p2p_direction d : order)
      for (const std::optional<p2p_op>& op : ops)
        if (op && op->direction == d) step.ops[step.op_count++] = *op;
    return step;
  }

  // Receives on chunk `chunk` are for its micro batches in order (each chunk runs them ascending).
  p2p_op receive(p2p_direction d, bool activation, std::uint64_t chunk) {
    if (received_.empty()) received_.assign(2 * o().chunks, 0);
    std::uint64_t& count = received_[2 * chunk + (activation ? 0 : 1)];
    return {d, activation, count++, chunk};
  }

  bool fill() {
    switch (s_->kind_) {
      case pipeline_kind::none:
        return fill_none();
      case pipeline_kind::one_f_one_b:
      case pipeline_kind::zero_bubble_h1:
        return fill_1f1b();
      case pipeline_kind::interleaved:
        return fill_interleaved();
      case pipeline_kind::dualpipe:
        return fill_dualpipe();
    }
    return false;
  }

  // PP = 1: F(i) B(i). Combined (combined_1f1b_schedule_for_no_pipelining): F(0), then F(i + 1)
  // merged with B(i), then B(m − 1).
  bool fill_none() {
    const std::uint64_t m = o().microbatches, t = turn_++;
    if (!o().combined) {
      if (t == m) return false;
      compute(pipeline_step::kind::forward, part::steady, t, 0);
      compute(pipeline_step::kind::backward, part::steady, t, 0);
      return true;
    }
    if (t > m) return false;
    if (t < m) compute(pipeline_step::kind::forward, part::steady, t, 0, false, t > 0);
    if (t > 0) compute(pipeline_step::kind::backward, part::steady, t - 1, 0);
    return true;
  }

  // 1F1B (M:sch forward_backward_pipelining_without_interleaving). Stage turns: warm-up 0..Wu−1,
  // the receive before the steady state, steady 0..R−1, cool-down 0..Wu−1. Zero-bubble H1 splits
  // backwards and defers their weight gradients as the file comment says; the queued ones then run
  // one per turn.
  bool fill_1f1b() {
    const pipeline_counts& c = s_->counts_;
    const std::uint64_t warmup = c.warmup, steady = c.steady, stage = o().stage;
    const bool zero_bubble = s_->kind_ == pipeline_kind::zero_bubble_h1 && !first_stage();
    // A backward, split or whole; a split one's weight gradient joins the queue.
    const auto backward = [&](part phase, std::uint64_t mb, bool split) {
      compute(pipeline_step::kind::backward, phase, mb, 0, split);
      if (split) deferred_.push_back(mb);
    };
    // The oldest deferred weight gradient, once micro batch `mb` has reached this stage's index.
    const auto weight_after = [&](part phase, std::uint64_t mb) {
      if (!zero_bubble || mb < stage || deferred_.empty()) return;
      compute(pipeline_step::kind::weight, phase, deferred_.front(), 0);
      deferred_.pop_front();
    };
    const auto recv_fwd = [&](std::uint64_t mb) { return p2p_op{p2p_direction::recv_prev, true, mb, 0}; };
    const auto send_fwd = [&](std::uint64_t mb) { return p2p_op{p2p_direction::send_next, true, mb, 0}; };
    const auto recv_bwd = [&](std::uint64_t mb) { return p2p_op{p2p_direction::recv_next, false, mb, 0}; };
    const auto send_bwd = [&](std::uint64_t mb) { return p2p_op{p2p_direction::send_prev, false, mb, 0}; };
    const std::uint64_t t = turn_++;
    if (t < warmup) {
      if (!first_stage()) call(part::warmup, {recv_fwd(t)}, true);
      compute(pipeline_step::kind::forward, part::warmup, t, 0);
      if (!last_stage()) call(part::warmup, {send_fwd(t)}, true);
      return true;
    }
    if (t == warmup) {  // the receive before the steady state
      if (steady > 0 && !first_stage()) call(part::steady, {recv_fwd(warmup)}, true);
      return true;
    }
    if (t <= warmup + steady) {
      const std::uint64_t i = t - warmup - 1, forward = warmup + i;
      const bool last_step = i + 1 == steady;
      compute(pipeline_step::kind::forward, part::steady, forward, 0);
      if (!last_stage()) call(part::steady, {send_fwd(forward), recv_bwd(i)}, true);
      backward(part::steady, i, zero_bubble && (i < stage || last_step));
      if (!first_stage()) {
        if (last_step)
          call(part::steady, {send_bwd(i)}, true);
        else
          call(part::steady, {send_bwd(i), recv_fwd(forward + 1)}, true);
      }
      if (last_step) weight_after(part::steady, i);
      return true;
    }
    if (t <= warmup + steady + warmup) {
      const std::uint64_t i = t - warmup - steady - 1, mb = steady + i;
      if (!last_stage()) call(part::cooldown, {recv_bwd(mb)}, true);
      backward(part::cooldown, mb, zero_bubble);
      if (!first_stage()) call(part::cooldown, {send_bwd(mb)}, true);
      weight_after(part::cooldown, mb);
      return true;
    }
    if (!deferred_.empty()) {  // the weight gradients still queued, one per turn
      compute(pipeline_step::kind::weight, part::cooldown, deferred_.front(), 0);
      deferred_.pop_front();
      return true;
    }
    return false;
  }

  // Megatron's receive rule (recv_tensor_from_previous_stage): whether the call after virtual step
  // `k` receives, and for which chunk. The stage that leads a direction (the first in forward, the
  // last in backward) is p − 1 steps ahead of the stage feeding it around the ring.
  std::pair<bool, std::uint64_t> receive_rule(std::uint64_t k, bool forward) const {
    const std::uint64_t p = o().stages;
    const bool leading = forward ? first_stage() : last_stage();
    if (!leading) return {true, s_->chunk_of(k + 1, forward)};
    if (k < p - 1) return {false, s_->chunk_of(k + 1, forward)};
    const std::uint64_t chunk = s_->chunk_of(k - (p - 1), forward);
    const std::uint64_t terminal = forward ? o().chunks - 1 : 0;
    if (chunk == terminal) return {false, chunk};
    return {true, forward ? chunk + 1 : chunk - 1};
  }

  // Interleaved 1F1B (M:sch forward_backward_pipelining_with_interleaving).
  bool fill_interleaved() {
    const pipeline_counts& c = s_->counts_;
    const std::uint64_t total = c.total, warmup = c.warmup, steady = c.steady, v = o().chunks;
    const bool overlap = o().overlap_p2p, batched = !overlap;
    const bool all_warmup = warmup == total;
    const std::uint64_t t = turn_++;
    const auto sends_forward = [&](std::uint64_t chunk) { return !(last_stage() && chunk == v - 1); };
    const auto sends_backward = [&](std::uint64_t chunk) { return !(first_stage() && chunk == 0); };
    const auto forward = [&](std::uint64_t k, part phase, bool overlapped = false) {
      const std::uint64_t chunk = s_->chunk_of(k, true);
      compute(pipeline_step::kind::forward, phase, s_->microbatch_of(k), chunk, false, overlapped);
      return chunk;
    };
    const auto backward = [&](std::uint64_t k, part phase) {
      const std::uint64_t chunk = s_->chunk_of(k, false);
      compute(pipeline_step::kind::backward, phase, s_->microbatch_of(k), chunk);
      return chunk;
    };
    const std::optional<p2p_op> none;
    using maybe = std::optional<p2p_op>;
    if (t == 0) {  // before the warm-up: the first stage's chunk 0 reads data, every other receives
      if (!first_stage()) call(part::warmup, {receive(p2p_direction::recv_prev, true, 0)}, batched);
      return true;
    }
    if (t <= warmup) {
      const std::uint64_t k = t - 1;
      const std::uint64_t chunk = forward(k, part::warmup);
      auto [recv_prev, next_chunk] = receive_rule(k, true);
      if (k + 1 == total) recv_prev = false;
      const maybe send =
          sends_forward(chunk) ? maybe{{p2p_direction::send_next, true, s_->microbatch_of(k), chunk}} : none;
      const maybe recv = recv_prev ? maybe{receive(p2p_direction::recv_prev, true, next_chunk)} : none;
      const bool first_gradient = k + 1 == warmup && !all_warmup && !last_stage();
      if (!overlap && k + 1 == warmup && !all_warmup) {
        const maybe grad = first_gradient ? maybe{receive(p2p_direction::recv_next, false, v - 1)} : none;
        call(part::warmup, {send, recv, grad}, batched);
      } else {
        call(part::warmup, {send, recv}, batched);
        if (overlap && first_gradient)
          call(part::warmup, {receive(p2p_direction::recv_next, false, v - 1)}, batched);
      }
      return true;
    }
    if (t <= warmup + steady) {
      const std::uint64_t k = t - warmup - 1, fk = warmup + k;
      const bool combined = o().combined;  // the forward merged with the backward: both calls after them
      const std::uint64_t f_chunk = forward(fk, part::steady, combined);
      auto [recv_prev, next_forward] = receive_rule(fk, true);
      if (k + 1 == steady) recv_prev = false;
      const maybe f_send = sends_forward(f_chunk)
                               ? maybe{{p2p_direction::send_next, true, s_->microbatch_of(fk), f_chunk}}
                               : none;
      std::optional<pipeline_step> forward_call;
      if (overlap) {
        const maybe f_recv = recv_prev ? maybe{receive(p2p_direction::recv_prev, true, next_forward)} : none;
        if (combined) {
          forward_call = held_call(part::steady, {f_send, f_recv}, batched);
        } else {
          call(part::steady, {f_send, f_recv}, batched);
        }
      }
      const std::uint64_t b_chunk = backward(k, part::steady);
      if (forward_call && forward_call->op_count > 0) buffer_[size_++] = *forward_call;
      const auto [recv_next, next_backward] = receive_rule(k, false);
      const maybe b_send = sends_backward(b_chunk)
                               ? maybe{{p2p_direction::send_prev, false, s_->microbatch_of(k), b_chunk}}
                               : none;
      const maybe b_recv = recv_next ? maybe{receive(p2p_direction::recv_next, false, next_backward)} : none;
      if (overlap) {
        call(part::steady, {b_send, b_recv}, batched);
      } else {
        const maybe f_recv = recv_prev ? maybe{receive(p2p_direction::recv_prev, true, next_forward)} : none;
        call(part::steady, {f_send, f_recv, b_send, b_recv}, batched);
      }
      return true;
    }
    if (t == warmup + steady + 1) {  // before the cool-down: a stage that only warmed up receives a gradient
      if (all_warmup && !last_stage())
        call(part::cooldown, {receive(p2p_direction::recv_next, false, v - 1)}, batched);
      return true;
    }
    if (t <= warmup + total + 1) {
      const std::uint64_t k = steady + (t - warmup - steady - 2);
      const std::uint64_t chunk = backward(k, part::cooldown);
      auto [recv_next, next_chunk] = receive_rule(k, false);
      if (k + 1 == total) recv_next = false;
      const maybe send = sends_backward(chunk)
                             ? maybe{{p2p_direction::send_prev, false, s_->microbatch_of(k), chunk}}
                             : none;
      const maybe recv = recv_next ? maybe{receive(p2p_direction::recv_next, false, next_chunk)} : none;
      call(part::cooldown, {send, recv}, batched);
      return true;
    }
    return false;
  }

  // DualPipe (dualpipe.py, DualPipe.step): one turn runs one iteration of the current phase's loop.
  // "Phase" 0/1 there is a direction relative to the rank: the forward direction (chunk 0) and the
  // reverse one (chunk 1) for the first half of the ranks, swapped for the second half.
  std::uint64_t direction(int relative) const {
    const bool second_half = o().stage >= o().stages / 2;
    return static_cast<std::uint64_t>(relative) ^ (second_half ? 1u : 0u);
  }
  // Where a direction starts and ends on this rank: its first stage reads the input, its last the loss.
  bool starts(std::uint64_t d) const { return d == 0 ? first_stage() : last_stage(); }
  bool ends(std::uint64_t d) const { return d == 0 ? last_stage() : first_stage(); }
  // Micro batches: 0 … m/2 − 1 in the forward direction, m/2 … m − 1 in the reverse one.
  std::uint64_t dual_microbatch(std::uint64_t d, std::uint64_t i) const {
    return d == 0 ? i : o().microbatches / 2 + i;
  }
  // Transfers wait in a list until the next commit sends them as one batched call.
  void post(p2p_direction where, bool activation, std::uint64_t d, std::uint64_t& counter) {
    if (pending_count_ == pending_.size())
      AICB_THROW(error("pipeline: more than four DualPipe transfers between two waits"));
    pending_[pending_count_++] = {where, activation, dual_microbatch(d, counter++), d};
  }
  // One transfer of a forward activation or a backward gradient, sent or received, in direction `rel`.
  // Direction 0 takes activations from the previous stage and passes them to the next, gradients the
  // other way; direction 1 mirrors it. Nothing crosses the end where the direction starts or stops.
  void transfer(int rel, bool activation, bool send) {
    const std::uint64_t d = direction(rel);
    const bool downstream = activation == send;  // sending activations on, or receiving gradients back
    if (downstream ? ends(d) : starts(d)) return;
    const bool next = downstream == (d == 0);
    const p2p_direction where = send ? (next ? p2p_direction::send_next : p2p_direction::send_prev)
                                     : (next ? p2p_direction::recv_next : p2p_direction::recv_prev);
    std::uint64_t& counter =
        activation ? (send ? dual_.send_f[d] : dual_.recv_f[d]) : (send ? dual_.send_b[d] : dual_.recv_b[d]);
    post(where, activation, d, counter);
  }
  void recv_forward(int rel) { transfer(rel, true, false); }
  void send_forward(int rel) { transfer(rel, true, true); }
  void recv_backward(int rel) { transfer(rel, false, false); }
  void send_backward(int rel) { transfer(rel, false, true); }
  void commit() {
    if (pending_count_ == 0) return;
    pipeline_step step;
    step.what = pipeline_step::kind::communicate;
    step.phase = dual_part();
    step.batched = true;
    step.ops = pending_;
    step.op_count = pending_count_;
    buffer_[size_++] = step;
    pending_count_ = 0;
  }
  part dual_part() const {
    return dual_.phase <= 3 ? part::warmup : dual_.phase <= 5 ? part::steady : part::cooldown;
  }
  void forward_compute(int rel, bool overlapped = false) {
    const std::uint64_t d = direction(rel);
    compute(pipeline_step::kind::forward, dual_part(), dual_microbatch(d, dual_.f[d]++), d, false,
            overlapped);
  }
  void backward_compute(int rel, bool split) {
    const std::uint64_t d = direction(rel);
    const std::uint64_t mb = dual_microbatch(d, dual_.b[d]++);
    compute(pipeline_step::kind::backward, dual_part(), mb, d, split);
    if (split) dual_.deferred.emplace_back(mb, d);
  }
  void forward_chunk(int rel, bool recv = true, bool send = true) {
    if (recv) recv_forward(rel);
    commit();
    forward_compute(rel);
    if (send) send_forward(rel);
  }
  void backward_chunk(int rel, bool split = false, bool recv = true, bool send = true) {
    if (recv) recv_backward(rel);
    commit();
    backward_compute(rel, split);
    if (send) send_backward(rel);
  }
  void forward_backward_chunk(int forward_rel, int backward_rel, bool recv_forward_first = true) {
    if (recv_forward_first) recv_forward(forward_rel);
    recv_backward(backward_rel);
    commit();
    forward_compute(forward_rel, true);
    backward_compute(backward_rel, false);
    send_forward(forward_rel);
    send_backward(backward_rel);
  }
  void weight_chunk() {
    commit();
    const auto [mb, d] = dual_.deferred.front();
    dual_.deferred.pop_front();
    compute(pipeline_step::kind::weight, dual_part(), mb, d);
  }

  bool fill_dualpipe() {
    const std::uint64_t p = o().stages, half = p / 2, h = std::min(o().stage, p - 1 - o().stage);
    const std::uint64_t half_m = o().microbatches / 2;
    const bool middle = o().stage + 1 == half || o().stage == half;
    const std::uint64_t runs[9] = {
        0,     2 * (half - h - 1), h + 1, half - h - 1, half_m - p + h + 1, half - h - 1,
        h + 1, half - h - 1,       h + 1};
    while (dual_.phase <= 8 && dual_.turn == runs[dual_.phase]) {
      ++dual_.phase;
      dual_.turn = 0;
    }
    const std::uint64_t i = dual_.turn++;
    switch (dual_.phase) {
      case 1:  // nF0
        forward_chunk(0);
        return true;
      case 2:  // nF0F1
        if (i == 0) recv_forward(0);
        forward_chunk(0, false, middle);
        recv_forward(0);
        forward_chunk(1, true, !middle || i + 1 < runs[2]);
        if (!middle) send_forward(0);
        return true;
      case 3:  // nB1W1F1, zero bubble
        backward_chunk(1, true);
        recv_forward(1);
        weight_chunk();
        forward_chunk(1, false);
        return true;
      case 4:                    // nF0B1F1B0, the main phase
        if (i == 0 && middle) {  // not overlapped, to shorten the bubble (as the reference does)
          forward_chunk(0, false, false);
          send_forward(1);
          backward_chunk(1, false, true, false);
          send_forward(0);
          send_backward(1);
        } else {
          forward_backward_chunk(0, 1, i > 0);
        }
        forward_backward_chunk(1, 0);
        return true;
      case 5:  // nB1F1B0
        backward_chunk(1);
        forward_backward_chunk(1, 0);
        return true;
      case 6:  // nB1B0, the later half split
        if (i == runs[6] / 2 && h % 2 == 1) dual_.split = true;
        backward_chunk(1, dual_.split);
        if (i == runs[6] / 2 && h % 2 == 0) dual_.split = true;
        backward_chunk(0, dual_.split);
        return true;
      case 7:  // nWB0
        weight_chunk();
        backward_chunk(0, true);
        return true;
      case 8:  // nW
        weight_chunk();
        return true;
      default:  // the last transfers
        if (pending_count_ == 0) return false;
        commit();
        return true;
    }
  }

  const pipeline_schedule* s_ = nullptr;
  std::array<pipeline_step, capacity> buffer_{};
  std::size_t head_ = 0, size_ = 0;
  std::uint64_t turn_ = 0;
  std::vector<std::uint64_t> received_;  // receives so far per chunk: activations, gradients
  std::deque<std::uint64_t> deferred_;   // zero-bubble: micro batches whose weight gradient waits
  // DualPipe: per direction, forwards and backwards run, transfers posted; its deferred weight
  // gradients (micro batch, direction); where the loop is; whether phase 6 splits backwards yet.
  struct dual_state {
    std::array<std::uint64_t, 2> f{}, b{}, send_f{}, send_b{}, recv_f{}, recv_b{};
    std::deque<std::pair<std::uint64_t, std::uint64_t>> deferred;
    int phase = 1;
    std::uint64_t turn = 0;
    bool split = false;
  } dual_;
  std::array<p2p_op, 4> pending_{};  // DualPipe: transfers posted, not yet sent
  std::uint8_t pending_count_ = 0;
};

inline pipeline_schedule::cursor pipeline_schedule::begin_cursor() const { return cursor(this); }

/// The stage and chunk at the other end of a point-to-point operation of stage `stage` (of
/// `stages`): activations go one virtual stage on — from the last stage to the first stage's next
/// chunk — and gradients one back.
struct p2p_peer {
  std::uint64_t stage = 0;
  std::uint64_t chunk = 0;  ///< the peer's chunk the tensor belongs to (its producer or consumer)
};
/// Bidirectional (DualPipe): the tensor stays on its chunk, the direction's own.
[[nodiscard]] constexpr p2p_peer peer_of(const p2p_op& op, std::uint64_t stage, std::uint64_t stages,
                                         bool bidirectional = false) noexcept {
  const bool next = op.direction == p2p_direction::send_next || op.direction == p2p_direction::recv_next;
  if (bidirectional) return {next ? stage + 1 : stage - 1, op.chunk};
  if (next) return {(stage + 1) % stages, stage + 1 == stages ? op.chunk + 1 : op.chunk};
  return {(stage + stages - 1) % stages, stage == 0 ? op.chunk - 1 : op.chunk};
}

/// The outcome of running every stage of a pipeline together.
struct pipeline_check {
  bool ok = true;
  std::string problem;           ///< what went wrong, naming the stage, the operation and its counterpart
  std::uint64_t operations = 0;  ///< point-to-point operations matched
  std::uint64_t calls = 0;       ///< calls completed
};

namespace detail {

// A range's iterator and sentinel as a cursor (read, next, done), so that check_p2p walks ranges and
// schedules' own cursors alike.
template <class Iterator, class Sentinel>
struct range_cursor {
  Iterator at;
  Sentinel end;
  [[nodiscard]] decltype(auto) read() const { return *at; }
  void next() { ++at; }
  [[nodiscard]] bool done() const { return at == end; }
};

// check_p2p over one cursor per stage (the documentation is check_p2p's, below).
template <class Cursor>
[[nodiscard]] pipeline_check check_p2p_cursors(std::vector<Cursor>& at, std::uint64_t chunks,
                                               bool bidirectional = false) {
  const std::uint64_t p = at.size();
  std::vector<bool> posted(p, false);
  // A tensor in flight, by who produced it: (activation, micro batch, producer stage, producer chunk).
  using tensor = std::array<std::uint64_t, 4>;
  struct ends {
    bool sent = false, received = false;
    p2p_peer addressed{};  ///< where the sender sent it
    p2p_peer receiver{};   ///< who posted the receive
    int completed = 0;     ///< calls that completed with it (2: both ends; then it is forgotten)
  };
  std::map<tensor, ends> flight;
  const auto name = [](std::uint64_t stage, const p2p_op& op) {
    static constexpr const char* names[] = {"send_prev", "recv_prev", "send_next", "recv_next"};
    return "stage " + std::to_string(stage) + " " + names[static_cast<int>(op.direction)] + " of the " +
           (op.activation ? "activation" : "gradient") + " of micro batch " + std::to_string(op.microbatch) +
           " (chunk " + std::to_string(op.chunk) + ")";
  };
  const auto key = [&](std::uint64_t stage, const p2p_op& op) {
    const p2p_peer producer = op.send() ? p2p_peer{stage, op.chunk} : peer_of(op, stage, p, bidirectional);
    return tensor{op.activation ? 1u : 0u, op.microbatch, producer.stage, producer.chunk};
  };

  pipeline_check result;
  const auto fail = [&](std::string problem) {
    result.ok = false;
    result.problem = std::move(problem);
    return result;
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (std::uint64_t s = 0; s < p; ++s) {
      while (!at[s].done()) {
        const pipeline_step& step = at[s].read();
        if (step.what == pipeline_step::kind::communicate) {
          if (!posted[s]) {
            for (const p2p_op& op : step) {
              const p2p_peer peer = peer_of(op, s, p, bidirectional);
              if (peer.stage >= p || peer.chunk >= chunks)
                return fail(name(s, op) + ": its counterpart would be chunk " + std::to_string(peer.chunk) +
                            " of stage " + std::to_string(peer.stage) + ", which does not exist");
              ends& e = flight[key(s, op)];
              bool& side = op.send() ? e.sent : e.received;
              if (side)
                return fail(name(s, op) + ": the same tensor is " + (op.send() ? "sent" : "received") +
                            " twice");
              side = true;
              (op.send() ? e.addressed : e.receiver) = op.send() ? peer : p2p_peer{s, op.chunk};
              if (e.sent && e.received &&
                  (e.addressed.stage != e.receiver.stage || e.addressed.chunk != e.receiver.chunk))
                return fail(name(s, op) + ": sent to stage " + std::to_string(e.addressed.stage) + " chunk " +
                            std::to_string(e.addressed.chunk) + " but received by stage " +
                            std::to_string(e.receiver.stage) + " chunk " + std::to_string(e.receiver.chunk));
            }
            posted[s] = true;
            progress = true;
          }
          bool complete = true;
          for (const p2p_op& op : step) {
            const auto it = flight.find(key(s, op));
            complete = complete && it != flight.end() && it->second.sent && it->second.received;
          }
          if (!complete) break;
          for (const p2p_op& op : step) {
            const auto it = flight.find(key(s, op));
            if (++it->second.completed == 2) flight.erase(it);
          }
          result.operations += step.op_count;
          ++result.calls;
          posted[s] = false;
        }
        at[s].next();
        progress = true;
      }
    }
  }
  for (std::uint64_t s = 0; s < p; ++s)
    if (!at[s].done()) {
      const pipeline_step& step = at[s].read();
      for (const p2p_op& op : step) {
        const auto it = flight.find(key(s, op));
        if (it == flight.end() || !it->second.sent || !it->second.received)
          return fail("deadlock: " + name(s, op) + " waits for stage " +
                      std::to_string(peer_of(op, s, p, bidirectional).stage) +
                      ", which never posts its counterpart before waiting itself");
      }
    }
  if (!flight.empty()) {
    const auto& [t, e] = *flight.begin();
    return fail(std::string("unmatched: the ") + (t[0] ? "activation" : "gradient") + " of micro batch " +
                std::to_string(t[1]) + " from stage " + std::to_string(t[2]) + " chunk " +
                std::to_string(t[3]) + " is " +
                (e.sent ? "sent but never received" : "received but never sent"));
  }
  return result;
}

}  // namespace detail

/// Runs the step sequences of all `stages` stages together (`steps[s]`: any range of pipeline_step),
/// as NCCL would: a call posts its operations when its stage reaches it and completes once every
/// operation's counterpart — the other end of the same tensor — is posted; a stage goes on past a
/// call only when it completes. Checks that every tensor is sent once and received once, by the
/// stage and chunk the sender addressed, and that the run ends: no deadlock, nothing left
/// unmatched. Memory holds the tensors in flight only. A failure names the stage, the operation
/// and its counterpart.
template <class Ranges>
[[nodiscard]] pipeline_check check_p2p(const Ranges& steps, std::uint64_t chunks) {
  using cursor = detail::range_cursor<decltype(std::begin(steps[0])), decltype(std::end(steps[0]))>;
  std::vector<cursor> at;
  for (const auto& range : steps)
    at.push_back({std::begin(range), std::end(range)});
  return detail::check_p2p_cursors(at, chunks);
}

/// check_p2p over the schedules of every stage of `o` (its `stage` is ignored).
[[nodiscard]] inline pipeline_check check_pipeline(pipeline_options o) {
  std::vector<pipeline_schedule> schedules;
  schedules.reserve(o.stages);
  for (std::uint64_t s = 0; s < o.stages; ++s) {
    o.stage = s;
    schedules.emplace_back(o);
  }
  std::vector<pipeline_schedule::cursor> at;
  for (const pipeline_schedule& schedule : schedules)
    at.push_back(schedule.begin_cursor());
  return detail::check_p2p_cursors(at, schedules[0].options().chunks, schedules[0].bidirectional());
}

/// How long each kind of step takes, for aicb::time_pipeline: every stage alike.
struct step_times {
  double forward = 1;      ///< F: one micro batch's forward on one model chunk
  double input_grad = 1;   ///< B: its backward's input gradient
  double weight_grad = 1;  ///< W: its backward's weight gradient (a whole backward is B + W)
  double transfer = 0;     ///< from a send to the receive's data, between neighbouring stages
};

/// The timing of a pipeline on ideal stages (aicb::time_pipeline).
struct pipeline_time {
  double iteration = 0;        ///< when the last stage finishes
  double bubble = 0;           ///< the iteration minus one stage's work, m · V · (F + B + W)
  std::vector<double> finish;  ///< each stage's last step
};

/// Plays the schedules of every stage of `o` (its `stage` is ignored) on stages that take `t` per
/// step and do nothing else: a stage's clock advances by each forward, backward and weight step; a
/// send leaves at the sender's clock and a receive waits for its data (`transfer` after it was sent).
/// `on_step(stage, step, start, end)`, when given, sees every forward, backward and weight step with
/// its times (a picture of the schedule: docs/schedules.md). The pipeline schedules' bubbles as their
/// papers state them, measured on the schedule itself —
/// 1F1B: (p − 1)(F + B + W); zero-bubble H1: (p − 1)(F + B − W), with m ≥ p and W ≤ F (a longer W
/// fills no more than a forward's wait).
using pipeline_step_observer =
    std::function<void(std::uint64_t stage, const pipeline_step& step, double start, double end)>;
[[nodiscard]] inline pipeline_time time_pipeline(pipeline_options o, const step_times& t,
                                                 const pipeline_step_observer& on_step = {}) {
  std::vector<pipeline_schedule> schedules;
  schedules.reserve(o.stages);
  for (std::uint64_t s = 0; s < o.stages; ++s) {
    o.stage = s;
    schedules.emplace_back(o);
  }
  std::vector<pipeline_schedule::cursor> at;
  for (const pipeline_schedule& schedule : schedules)
    at.push_back(schedule.begin_cursor());
  const std::uint64_t p = o.stages;
  const bool bidirectional = schedules[0].bidirectional();
  // A tensor by its producer: (activation, micro batch, producer stage, producer chunk) → arrival.
  std::map<std::array<std::uint64_t, 4>, double> arrivals;
  const auto key = [&](std::uint64_t stage, const p2p_op& op) {
    const p2p_peer producer = op.send() ? p2p_peer{stage, op.chunk} : peer_of(op, stage, p, bidirectional);
    return std::array<std::uint64_t, 4>{op.activation ? 1u : 0u, op.microbatch, producer.stage,
                                        producer.chunk};
  };
  pipeline_time out;
  out.finish.assign(p, 0);
  std::vector<bool> posted(p, false);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::uint64_t s = 0; s < p; ++s) {
      double& clock = out.finish[s];
      for (; !at[s].done(); at[s].next(), progress = true) {
        const pipeline_step& step = at[s].read();
        if (step.what != pipeline_step::kind::communicate) {
          const double start = clock;
          clock += step.what == pipeline_step::kind::forward ? t.forward
                   : step.what == pipeline_step::kind::weight
                       ? t.weight_grad
                       : t.input_grad + (step.split ? 0 : t.weight_grad);
          if (on_step) on_step(s, step, start, clock);
        } else {
          if (!posted[s]) {  // a call's sends leave when the stage reaches it
            for (const p2p_op& op : step)
              if (op.send()) arrivals[key(s, op)] = clock + t.transfer;
            posted[s] = true;
          }
          bool ready = true;
          for (const p2p_op& op : step)
            ready = ready && (op.send() || arrivals.contains(key(s, op)));
          if (!ready) break;
          for (const p2p_op& op : step) {
            if (op.send()) continue;
            const auto it = arrivals.find(key(s, op));
            clock = std::max(clock, it->second);
            arrivals.erase(it);
          }
          posted[s] = false;
        }
      }
    }
  }
  for (std::uint64_t s = 0; s < p; ++s)
    if (!at[s].done())
      AICB_THROW(
          config_error("pipeline_parallel", std::to_string(p),
                       "the schedule of stage " + std::to_string(s) + " waits for a transfer never sent"));
  out.iteration = *std::max_element(out.finish.begin(), out.finish.end());
  out.bubble = out.iteration - static_cast<double>(o.microbatches * (bidirectional ? 1 : o.chunks)) *
                                   (t.forward + t.input_grad + t.weight_grad);
  return out;
}

AICB_END_NAMESPACE
