// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::replay — runs one rank's operations for real, on a distributed engine, and measures them:
/// the execution code every backend shares (MPI on CPUs, NCCL on GPUs). A backend implements
/// aicb::replay_transport — buffers, the collectives over its sub-communicators, non-blocking
/// sends and receives, a compute delay, reductions over ranks and a job-wide abort — and the
/// executor does the rest:
///
/// - before any traffic, every rank's configuration fingerprint is compared (a rank started with
///   other flags is named, and nothing is sent), and the sub-communicator of every group kind the
///   operations use is created once, by every rank, in one order;
/// - each rank replays its own operations (so pipeline sends meet their receives) in stream
///   order: collectives block; sends and receives are started and completed when an operation
///   that depends on them (or the end of the iteration) needs them; computation is a timed delay of
///   the compute model's duration × `compute_scale` (0: communication only);
/// - `warmup` iterations run first and are excluded (NCCL and MPI set connections up on first use);
///   with `check`, one more untimed iteration fills every buffer with a known pattern and verifies
///   what each collective and transfer delivered;
/// - each operation is timed (backend clocks: wall time on CPUs, CUDA events on GPUs), each
///   iteration by wall time, and the iteration's time is the slowest rank's;
/// - an operation that does not complete within `timeout` ends the whole job with a message
///   naming the rank and the operation.
///
/// ```cpp
/// my_mpi_transport t;                      // one process per rank
/// aicb::rank_schedule s(job, t.rank());
/// const aicb::replay_result r = aicb::replay(t, {s.begin(), s.end()}, aicb::process_grid(job),
///                                            &compute, {.warmup = 2, .iterations = 10});
/// ```
///
/// Buffers hold 16-bit elements (size / 2, rounded up; all-gather, reduce-scatter and all-to-all
/// padded to a multiple of the group), allocated before the first iteration and reused.

#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/workload/bandwidth.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The element the replay's buffers hold: 16 bits, summed with wrap-around (an integer type, so
/// every engine can reduce it and a check is exact).
using replay_element = std::uint16_t;

/// What a distributed engine gives the executor. See the file comment.
class replay_transport {
 public:
  using buffer = std::uint64_t;   ///< a buffer of the backend's (host or device memory)
  using request = std::uint64_t;  ///< a started send or receive

  virtual ~replay_transport() = default;
  [[nodiscard]] virtual std::uint64_t rank() const = 0;
  [[nodiscard]] virtual std::uint64_t world() const = 0;
  /// Creates, on every rank and in this order, the sub-communicator of each of `kinds` (this
  /// rank's group of that kind in `grid`; ranks outside every group of a kind take no part).
  virtual void create_groups(const process_grid& grid, const std::vector<group_kind>& kinds) = 0;

  /// A buffer of `elements`; and copies between it and the host (for checks).
  [[nodiscard]] virtual buffer allocate(std::uint64_t elements) = 0;
  virtual void write(buffer b, std::span<const replay_element> host) = 0;
  virtual void read(buffer b, std::span<replay_element> host) = 0;

  /// Runs collective `kind` over this rank's group `group` of `n` ranks on the first `elements` of
  /// `data` — an all-reduce and an all-gather in place (all-gather: this rank's shard at its
  /// position), a reduce-scatter's shard and an all-to-all's receive into `out` — and returns its
  /// time in seconds once this rank's part is complete.
  virtual double run_collective(collective kind, group_id group, std::uint64_t n, buffer data, buffer out,
                                std::uint64_t elements) = 0;
  /// An all-to-all with uneven blocks over this rank's group `group` of `n` ranks: block q of `data`
  /// (`send_counts[q]` elements, blocks consecutive in member order) goes to member q, and member q's
  /// block for this rank lands in `out` at block q (`receive_counts[q]` elements, consecutive). Returns
  /// its time in seconds. A backend without one refuses (config_error).
  virtual double run_all_to_all_v(group_id group, std::uint64_t n, buffer data, buffer out,
                                  std::span<const std::uint64_t> send_counts,
                                  std::span<const std::uint64_t> receive_counts) {
    (void)group, (void)n, (void)data, (void)out, (void)send_counts, (void)receive_counts;
    AICB_THROW(config_error("moe_load_skew", "> 0", "this backend replays no uneven all-to-all"));
  }
  /// Starts collective `kind` as run_collective runs it, without waiting for it: finish() completes it
  /// (the overlapped replay, replay_options::overlapped). On GPUs it runs on a communication stream
  /// beside the computation's; on CPUs as MPI's non-blocking collectives, progressed while computation
  /// busy-waits. Default: runs it to completion at once and returns `completed`.
  [[nodiscard]] virtual request start_collective(collective kind, group_id group, std::uint64_t n,
                                                 buffer data, buffer out, std::uint64_t elements) {
    (void)run_collective(kind, group, n, data, out, elements);
    return completed;
  }
  /// A request that needs no finish() (start_collective's default).
  static constexpr request completed = ~request{0};
  /// Non-blocking transfers of the first `elements` of `b`; finish() completes one.
  [[nodiscard]] virtual request start_send(std::uint64_t peer, std::uint64_t tag, buffer b,
                                           std::uint64_t elements) = 0;
  [[nodiscard]] virtual request start_receive(std::uint64_t peer, std::uint64_t tag, buffer b,
                                              std::uint64_t elements) = 0;
  virtual void finish(request r) = 0;
  /// Computation taking `duration` (a spin on the device, a busy wait on a CPU); its time, s.
  virtual double compute(std::chrono::nanoseconds duration) = 0;
  /// Waits for everything issued (a device synchronisation; nothing on CPUs).
  virtual void synchronize() {}
  virtual void barrier() = 0;
  /// Every rank's `value`, in rank order, on every rank.
  [[nodiscard]] virtual std::vector<double> all_gather(double value) = 0;
  /// Element-wise maximum over ranks, in place.
  virtual void max_over_ranks(std::span<double> values) = 0;
  /// Every rank's `values` (any length each), in rank order, on rank 0; empty elsewhere.
  [[nodiscard]] virtual std::vector<std::vector<double>> gather_to_first(std::span<const double> values) = 0;
  /// Sums of checked values stay at or below this (a 16-bit integer reduction: 65535; NCCL, which
  /// reduces 16-bit elements as FP16: 2048, the largest range of integers it holds exactly).
  [[nodiscard]] virtual std::uint64_t exact_sum_limit() const { return 65535; }
  /// Ends every rank of the job with `message` (printed once, naming this rank). Safe to call from
  /// the executor's watchdog thread.
  [[noreturn]] virtual void abort(const std::string& message) = 0;
  /// The machine this rank runs on (MPI's processor name): ranks with one name share a node.
  [[nodiscard]] virtual std::string host_name() const { return "localhost"; }
  /// The communication library and its version, for a result's provenance ("Open MPI v4.1.4", …).
  [[nodiscard]] virtual std::string library() const { return "in-process"; }
};

/// How to replay.
struct replay_options {
  std::uint64_t warmup = 1;                   ///< iterations run first and not measured
  std::uint64_t iterations = 5;               ///< measured iterations
  double compute_scale = 1;                   ///< × the compute model's durations; 0 = communication only
  bool check = false;                         ///< one untimed iteration verifying every buffer's contents
  std::chrono::milliseconds timeout{120000};  ///< per operation, before the job is ended
  std::string fingerprint{};  ///< the configuration, equal on every rank (else refused before traffic)
  std::uint64_t max_buffer_bytes = std::uint64_t{4} << 30;  ///< largest buffer a rank may allocate
  /// Stragglers: a rank's computation this many times longer (a factor of at least 1), to see what
  /// one slow rank costs the job and that the report finds it.
  std::map<std::uint64_t, double> slow_ranks{};
  /// Overlapped replay: collectives are started without waiting and completed when an operation
  /// that depends on them needs them (or at the iteration's end), so that communication runs beside
  /// computation where the schedule's dependencies allow — one the next operation waits for runs as
  /// in the isolated replay (two chains of a combined 1F1B step, pipeline
  /// transfers); with `overlap_grad_reduce`, the data-parallel gradient reductions start with the
  /// last micro batch's backward, as Megatron's --overlap-grad-reduce issues them during it. Measured
  /// iterations and warm-ups only: a check runs isolated. False: every collective on its own.
  bool overlapped = false;
  bool overlap_grad_reduce = false;  ///< the job's (model/parallel.hpp), for the overlapped replay
  /// Routing imbalance of the expert-parallel all-to-alls (the model's moe_load_skew): 0 replays each
  /// as an even all-to-all of the schedule's size; above 0, as an all-to-all-v whose blocks follow
  /// aicb::all_to_all_split (the busiest member, rotating by layer, receives the schedule's size).
  double all_to_all_skew = 0;
  /// Iteration times kept for the percentiles, over all operations (8 per operation at least): past
  /// it, every other one is dropped and iterations are sampled half as often, evenly.
  std::uint64_t max_samples = std::uint64_t{1} << 23;
  /// Told each phase as it starts ("setup", "warm-up 1/2", "check", "iteration 3/5"), on every rank;
  /// the tool prints rank 0's, flushed, so a long run is never silent.
  std::function<void(std::string_view)> progress{};
};

/// The most a replay's scale, time limit and iteration counts may be.
inline constexpr double max_replay_compute_scale = 1e6;
inline constexpr std::chrono::milliseconds max_replay_timeout{std::chrono::hours(24 * 7)};
inline constexpr std::uint64_t max_replay_iterations = 1'000'000;

/// Refuses, naming the field, options no replay can mean: a compute scale that is negative, not
/// finite or above 10^6; a timeout of zero or beyond a week; more than 10^6 iterations.
inline void validate(const replay_options& o) {
  if (!(o.compute_scale >= 0 && o.compute_scale <= max_replay_compute_scale))
    AICB_THROW(config_error("compute_scale", std::to_string(o.compute_scale),
                            "expected a finite factor from 0 (communication only) to 10^6"));
  if (o.timeout <= std::chrono::milliseconds::zero() || o.timeout > max_replay_timeout)
    AICB_THROW(config_error("timeout", std::to_string(o.timeout.count()) + " ms",
                            "expected more than 0 and at most a week"));
  if (o.iterations > max_replay_iterations || o.warmup > max_replay_iterations)
    AICB_THROW(config_error(o.iterations > max_replay_iterations ? "iterations" : "warmup",
                            std::to_string(std::max(o.iterations, o.warmup)), "expected at most 10^6"));
  for (const auto& [rank, factor] : o.slow_ranks)
    if (!(factor >= 1 && factor <= max_replay_compute_scale))
      AICB_THROW(config_error("slow_rank", std::to_string(rank) + ":" + std::to_string(factor),
                              "a slow rank's factor must be from 1 to 10^6"));
  if (!(o.all_to_all_skew >= 0 && o.all_to_all_skew <= 1e6))
    AICB_THROW(config_error("all_to_all_skew", std::to_string(o.all_to_all_skew), "expected 0 to 10^6"));
}

/// One operation's measurements on this rank.
struct replayed_operation {
  operation op;
  double modelled_us = 0;  ///< compute: the model's duration × compute_scale
  double mean_us = 0, min_us = 0, max_us = 0;
  /// Over the measured iterations (nearest rank; every iteration up to max_samples / operations of
  /// them, then every 2nd, 4th, … evenly): the median and the 99th percentile, µs.
  double p50_us = 0, p99_us = 0;
  /// Rank 0 only: the same operation's mean on every rank of its pipeline stage (their streams are
  /// alike) — the slowest rank decides a collective — and the fastest's.
  std::uint64_t slowest_rank = 0;
  double slowest_mean_us = 0, fastest_mean_us = 0;
  /// In the last measured iteration: when it started after the iteration's start, and how long it
  /// took (transfers: from being started to being completed), µs.
  double last_start_us = 0, last_us = 0;
  /// Collectives and transfers: nccl-tests' algorithm and bus bandwidth at the mean time, GB/s.
  double algbw = 0, busbw = 0;
  /// An all-to-all replayed with uneven blocks (replay_options::all_to_all_skew).
  bool uneven = false;
};

/// The blocks of an uneven all-to-all (see replay_options::all_to_all_skew). The schedule sizes an
/// expert all-to-all for the busiest member (aicb::model_spec::moe_load_factor), so over `n` members
/// the busiest, `hot`, gets a block of `busiest` elements from every member, h = min(1 + skew, n)
/// times a balanced block, and the others share what remains: busiest·(n − h)/((n − 1)·h) each. In the
/// dispatch member p sends block_for(q) to each q and receives block_for(p) from each; the combine
/// (`reverse`) returns them.
struct all_to_all_split {
  std::uint64_t n = 1, busiest = 0, hot = 0;
  double skew = 0;

  /// What every member sends to member q in the dispatch.
  [[nodiscard]] std::uint64_t block_for(std::uint64_t q) const noexcept {
    if (n <= 1 || skew <= 0 || q == hot) return busiest;
    const double h = std::min(1 + skew, static_cast<double>(n)), members = static_cast<double>(n);
    return static_cast<std::uint64_t>(static_cast<double>(busiest) * (members - h) / ((members - 1) * h));
  }
  /// Member p's counts to (send) and from (receive) each member, by member.
  void counts(std::uint64_t p, bool reverse, std::vector<std::uint64_t>& send,
              std::vector<std::uint64_t>& receive) const {
    send.assign(n, 0);
    receive.assign(n, 0);
    for (std::uint64_t q = 0; q < n; ++q) {
      send[q] = reverse ? block_for(p) : block_for(q);
      receive[q] = reverse ? block_for(q) : block_for(p);
    }
  }
};

/// What a replay measured.
struct replay_result {
  std::uint64_t rank = 0, world = 0;
  replay_options options;
  std::vector<replayed_operation> operations;  ///< this rank's, in stream order
  std::vector<double> iteration_us;            ///< wall time of each measured iteration, this rank
  std::vector<double> slowest_iteration_us;    ///< the same, the slowest rank's
  /// Rank 0 only, by rank: each rank's mean iteration (about equal: collectives make the ranks wait
  /// for each other) and its own computation per iteration (where a straggler shows).
  std::vector<double> rank_mean_iteration_us, rank_compute_us;
  /// Rank 0 only: the rank whose computation takes longest — the one the others wait for.
  std::uint64_t slowest_rank = 0;
  std::uint64_t checked = 0, wrong = 0;  ///< elements verified / wrong, over all ranks
  std::vector<group_kind> groups;        ///< the group kinds the operations use
};

namespace detail {

// The `q` quantile of `values` (0 < q <= 1) by the nearest-rank rule: the smallest value with at least
// q·n of them at or below it. 0 for none. Reorders `values`.
[[nodiscard]] inline double nearest_rank(std::vector<double>& values, double q) {
  if (values.empty()) return 0;
  const auto n = static_cast<double>(values.size());
  const std::size_t k = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n))) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

// Known contents: element `i` of the data member `position` of a group of `members` contributes.
// Values stay below `limit` / members, so that no sum over the group leaves the range the engine
// adds exactly (16-bit integer sums: some engines wrap, some vectorised reductions saturate).
[[nodiscard]] constexpr replay_element replay_pattern(std::uint64_t position, std::uint64_t i,
                                                      std::uint64_t members = 1,
                                                      std::uint64_t limit = 65535) noexcept {
  const std::uint64_t bound = limit / (members ? members : 1);
  return static_cast<replay_element>((position * 7919 + i * 31 + 1) % (bound > 1 ? bound : 2));
}

// 64-bit FNV-1a of the configuration text, split in two exact doubles.
[[nodiscard]] constexpr std::uint64_t replay_fingerprint(std::string_view text) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// Elements of an operation's buffer: half its bytes rounded up, padded to the group where shards
// are involved.
[[nodiscard]] inline std::uint64_t replay_elements(const operation& op) {
  std::uint64_t e = (op.size.count() + 1) / 2;
  if (op.type == op_type::collective &&
      (op.kind == collective::all_gather || op.kind == collective::reduce_scatter ||
       op.kind == collective::all_to_all) &&
      op.group_size > 1)
    e = (e + op.group_size - 1) / op.group_size * op.group_size;
  return e;
}

// Stops the job when one operation runs past the timeout.
class replay_watchdog {
 public:
  replay_watchdog(replay_transport& t, std::chrono::milliseconds timeout) : t_(t), timeout_(timeout) {
    thread_ = std::thread([this] { watch(); });
  }
  replay_watchdog(const replay_watchdog&) = delete;
  replay_watchdog& operator=(const replay_watchdog&) = delete;
  ~replay_watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void begin(std::string what) {
    std::lock_guard lock(mutex_);
    what_ = std::move(what);
    since_ = std::chrono::steady_clock::now();
    busy_ = true;
  }
  void end() {
    std::lock_guard lock(mutex_);
    busy_ = false;
  }

 private:
  void watch() {
    std::unique_lock lock(mutex_);
    while (!done_) {
      wake_.wait_for(lock, std::chrono::milliseconds(100));
      if (busy_ && std::chrono::steady_clock::now() - since_ > timeout_)
        t_.abort(what_ + " did not complete within " + std::to_string(timeout_.count()) +
                 " ms (a peer failed, hangs or never calls it)");
    }
  }
  replay_transport& t_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
  bool done_ = false, busy_ = false;
  std::string what_;
  std::chrono::steady_clock::time_point since_{};
};

// "operation #12 grad_reduce (all_reduce over dp[1], 4 ranks, 1048576 B)".
[[nodiscard]] inline std::string replay_describe(std::uint64_t rank, const operation& op) {
  std::string text = "rank " + std::to_string(rank) + ": operation #" + std::to_string(op.index) + " " +
                     std::string(op.name) + " (";
  switch (op.type) {
    case op_type::compute:
      text.append("compute");
      break;
    case op_type::collective:
      text.append(to_string(op.kind))
          .append(" over ")
          .append(to_string(op.group))
          .append(", ")
          .append(std::to_string(op.group_size))
          .append(" ranks, ")
          .append(std::to_string(op.size.count()))
          .append(" B");
      break;
    case op_type::send:
    case op_type::recv:
      text.append(op.type == op_type::send ? "send to rank " : "receive from rank ")
          .append(std::to_string(op.peer))
          .append(", tag ")
          .append(std::to_string(op.tag))
          .append(", ")
          .append(std::to_string(op.size.count()))
          .append(" B");
      break;
  }
  return text.append(")");
}

}  // namespace detail

/// Every rank's host name hashed (48 bits of FNV-1a: names stay private, one per machine), by rank
/// (collective: every rank calls it).
[[nodiscard]] inline std::vector<std::uint64_t> host_hashes(replay_transport& transport) {
  const std::uint64_t hash = detail::replay_fingerprint(transport.host_name());
  const std::vector<double> all = transport.all_gather(static_cast<double>(hash >> 16));  // exact in a double
  std::vector<std::uint64_t> out;
  for (const double h : all)
    out.push_back(static_cast<std::uint64_t>(h));
  return out;
}

/// Every rank's node, by rank, from host_hashes: the ranks of one host get one number, the first of
/// them counting from 0 in rank order.
[[nodiscard]] inline std::vector<std::uint64_t> node_of_ranks(const std::vector<std::uint64_t>& hashes) {
  std::vector<std::uint64_t> node(hashes.size());
  std::vector<std::uint64_t> seen;
  for (std::size_t r = 0; r < hashes.size(); ++r) {
    const auto at = std::find(seen.begin(), seen.end(), hashes[r]);
    node[r] = static_cast<std::uint64_t>(at - seen.begin());
    if (at == seen.end()) seen.push_back(hashes[r]);
  }
  return node;
}

/// What a communication operation's bandwidths are computed for: its collective kind (a send or a
/// receive as collective::send / recv) and the ranks it involves (a transfer's two).
[[nodiscard]] constexpr collective communication_kind(const operation& op) noexcept {
  return op.type == op_type::collective ? op.kind
         : op.type == op_type::send     ? collective::send
                                        : collective::recv;
}
[[nodiscard]] constexpr std::uint64_t communication_ranks(const operation& op) noexcept {
  return op.type == op_type::collective ? op.group_size : 2;
}

/// Replays `ops` (this rank's operations of one iteration, in stream order) `options.warmup` +
/// `options.iterations` times over `transport`; `grid` gives the groups, `compute` the durations
/// (nullptr: no computation) — or `durations`, one per operation, where they are given (a saved
/// workload's). Collective on every rank: all must call it with the same configuration. See the
/// file comment.
[[nodiscard]] inline replay_result replay(replay_transport& transport, const std::vector<operation>& ops,
                                          const process_grid& grid, const compute_model* compute,
                                          const replay_options& options,
                                          std::span<const std::chrono::nanoseconds> durations_given = {}) {
  validate(options);
  const auto progress = [&](const std::string& phase) {
    if (options.progress) options.progress(phase);
  };
  progress("setup");
  replay_result result;
  result.rank = transport.rank();
  result.world = transport.world();
  result.options = options;
  result.options.progress = nullptr;
  const std::uint64_t rank = result.rank;

  // 1. The same configuration everywhere, before any traffic.
  const std::uint64_t mine = detail::replay_fingerprint(options.fingerprint);
  const std::vector<double> high = transport.all_gather(static_cast<double>(mine >> 32)),
                            low = transport.all_gather(static_cast<double>(mine & 0xffffffffu));
  std::string differ;
  for (std::uint64_t r = 0; r < high.size(); ++r)
    if (high[r] != high[0] || low[r] != low[0])
      differ.append(differ.empty() ? "" : ", ").append(std::to_string(r));
  if (!differ.empty())
    AICB_THROW(
        config_error("configuration", "ranks " + differ,
                     "differs from rank 0's: every rank must be started with the same job and options"));

  // 2. Buffers large enough for every rank's operations — refused on every rank alike when one
  // rank's would exceed the limit.
  std::vector<double> largest_anywhere{1};
  for (const operation& op : ops)
    if (op.is_communication())
      largest_anywhere[0] = std::max(largest_anywhere[0], static_cast<double>(detail::replay_elements(op)));
  transport.max_over_ranks(largest_anywhere);
  const std::uint64_t largest = static_cast<std::uint64_t>(largest_anywhere[0]);
  if (largest * sizeof(replay_element) > options.max_buffer_bytes)
    AICB_THROW(config_error("max_buffer_bytes", std::to_string(options.max_buffer_bytes),
                            "an operation needs a " + std::to_string(largest * sizeof(replay_element)) +
                                "-byte buffer; raise the limit (--max-buffer) or replay a smaller job"));

  // 3. The groups the operations use, on every rank (a kind any rank uses is created by all).
  std::vector<double> used(static_cast<std::size_t>(group_kind::world) + 1, 0.0);
  for (const operation& op : ops)
    if (op.type == op_type::collective) used[static_cast<std::size_t>(op.group.kind)] = 1;
  transport.max_over_ranks(used);
  for (std::size_t k = 0; k < used.size(); ++k)
    if (used[k] > 0) result.groups.push_back(static_cast<group_kind>(k));
  transport.create_groups(grid, result.groups);

  for (const auto& [slow, factor] : options.slow_ranks)
    if (slow >= result.world)
      AICB_THROW(
          config_error("slow_rank", std::to_string(slow),
                       "a slow rank must be one of the job's " + std::to_string(result.world) + " ranks"));

  // 4. Buffers and durations, before the first iteration.
  const replay_transport::buffer data = transport.allocate(largest), out = transport.allocate(largest);
  std::vector<std::chrono::nanoseconds> durations(ops.size(), std::chrono::nanoseconds{0});
  result.operations.resize(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    result.operations[i].op = ops[i];
    result.operations[i].min_us = 1e300;
    const bool given = i < durations_given.size();
    if (ops[i].type == op_type::compute && (compute || given) && options.compute_scale > 0) {
      const double modelled = given ? static_cast<double>(durations_given[i].count())
                                    : static_cast<double>(compute->duration(ops[i].compute).count());
      const auto slow = options.slow_ranks.find(rank);
      const double ns =
          modelled * options.compute_scale * (slow == options.slow_ranks.end() ? 1 : slow->second);
      durations[i] = std::chrono::nanoseconds(static_cast<std::int64_t>(ns));
      result.operations[i].modelled_us = ns / 1000;
    }
  }
  // Transfers in flight use buffers of their own, from a pool reused across iterations.
  struct slot {
    replay_transport::buffer b;
    std::uint64_t elements;
    bool busy;
  };
  std::vector<slot> pool;
  const auto take = [&](std::uint64_t elements) -> std::size_t {
    for (std::size_t s = 0; s < pool.size(); ++s)
      if (!pool[s].busy && pool[s].elements >= elements) {
        pool[s].busy = true;
        return s;
      }
    pool.push_back({transport.allocate(elements), elements, true});
    return pool.size() - 1;
  };

  const std::uint64_t limit = transport.exact_sum_limit();
  detail::replay_watchdog watchdog(transport, options.timeout);
  std::vector<replay_element> host, expected;
  std::vector<std::uint64_t> send_counts, receive_counts;  // an uneven all-to-all's blocks
  const auto position_in = [&](group_id id) { return grid.group(id.kind, rank).position(rank).value_or(0); };

  // The overlapped replay's gradient reductions (replay_options::overlap_grad_reduce): the finalize's
  // all-reduces and reduce-scatters over data-parallel groups before its first computation, started
  // together at `hoist_from`, the first operation of the last micro batch's backward work.
  std::vector<std::size_t> hoisted;
  std::size_t hoist_from = ops.size();
  if (options.overlapped && options.overlap_grad_reduce) {
    std::uint64_t last = 0;
    bool any = false;
    for (const operation& op : ops)
      if (op.is_backward_work()) last = std::max(last, op.microbatch), any = true;
    for (std::size_t i = 0; any && i < ops.size() && hoist_from == ops.size(); ++i)
      if (ops[i].is_backward_work() && ops[i].microbatch == last) hoist_from = i;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const operation& op = ops[i];
      if (op.phase != op_phase::finalize || i <= hoist_from) continue;
      if (op.type == op_type::compute) break;
      if (op.type == op_type::collective && is_data_parallel(op.group.kind) && op.group_size > 1 &&
          (op.kind == collective::all_reduce || op.kind == collective::reduce_scatter))
        hoisted.push_back(i);
    }
  }

  std::chrono::steady_clock::time_point iteration_start{};
  // Each operation's time in the sampled iterations (every `stride`-th), for its percentiles; at most
  // `cap` each (2^23 in all): when full, every other one is dropped and the stride doubles.
  std::vector<std::vector<double>> samples(ops.size());
  const std::size_t cap = std::max<std::size_t>(
      8, static_cast<std::size_t>(options.max_samples / std::max<std::size_t>(ops.size(), 1)));
  std::uint64_t stride = 1;
  bool sampled = false;  // the iteration being measured is sampled
  // A measured iteration's time of operation `i`, started at `began`, taking `us`.
  const auto record = [&](std::size_t i, std::chrono::steady_clock::time_point began, double us) {
    replayed_operation& m = result.operations[i];
    if (sampled) samples[i].push_back(us);
    m.mean_us += us;
    m.min_us = std::min(m.min_us, us);
    m.max_us = std::max(m.max_us, us);
    m.last_start_us = std::chrono::duration<double, std::micro>(began - iteration_start).count();
    m.last_us = us;
  };
  // One pass over the operations; `measure` records times, `check` fills and verifies buffers.
  const auto run_iteration = [&](bool measure, bool check) {
    struct in_flight {
      replay_transport::request r;
      std::size_t slot;
      std::chrono::steady_clock::time_point start;
      bool active = false;
      std::size_t out_slot = ~std::size_t{0};  // a started collective's second buffer
    };
    std::vector<in_flight> pending(ops.size());
    const auto complete = [&](std::size_t i) {
      in_flight& f = pending[i];
      if (!f.active) return;
      watchdog.begin(detail::replay_describe(rank, ops[i]));
      if (f.r != replay_transport::completed) transport.finish(f.r);
      watchdog.end();
      f.active = false;
      if (f.out_slot < pool.size()) pool[f.out_slot].busy = false;
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - f.start).count();
      if (measure) record(i, f.start, us);
      if (check && ops[i].type == op_type::recv) {
        const std::uint64_t n = detail::replay_elements(ops[i]);
        host.assign(pool[f.slot].elements, 0);
        transport.read(pool[f.slot].b, host);
        for (std::uint64_t e = 0; e < n; ++e) {
          ++result.checked;
          result.wrong += host[e] != detail::replay_pattern(ops[i].tag, e, 1, limit);
        }
      }
      pool[f.slot].busy = false;
    };
    const bool overlap = options.overlapped && !check;
    // Starts collective `i` without waiting, on buffers of its own; completed by complete(i).
    const auto start_collective = [&](std::size_t i) {
      const operation& op = ops[i];
      const std::uint64_t n = detail::replay_elements(op);
      const std::size_t in = take(n), result_slot = take(n);
      watchdog.begin(detail::replay_describe(rank, op));
      pending[i] = {
          transport.start_collective(op.kind, op.group, op.group_size, pool[in].b, pool[result_slot].b, n),
          in, std::chrono::steady_clock::now(), true, result_slot};
      watchdog.end();
    };
    std::vector<char> started(overlap ? ops.size() : 0, 0);
    transport.barrier();
    iteration_start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const operation& op = ops[i];
      if (overlap && started[i]) continue;  // a hoisted gradient reduction, already on its way
      if (overlap && i == hoist_from)
        for (const std::size_t g : hoisted) {
          start_collective(g);
          started[g] = 1;
        }
      const auto op_start = std::chrono::steady_clock::now();
      for (std::uint8_t d = 0; d < op.after_count; ++d) {
        if (op.after[d] >= pending.size()) continue;
        // Waiting for one gradient reduction is waiting for them all (Megatron's finish_grad_sync).
        if (overlap && std::find(hoisted.begin(), hoisted.end(), op.after[d]) != hoisted.end())
          for (const std::size_t g : hoisted)
            complete(g);
        complete(op.after[d]);
      }
      // Started without waiting only when the next operation can run beside it: one that waits for it
      // at once runs it as the isolated replay does (the same call, the same buffers).
      const bool next_waits =
          i + 1 < ops.size() &&
          std::find(ops[i + 1].after.begin(), ops[i + 1].after.begin() + ops[i + 1].after_count, i) !=
              ops[i + 1].after.begin() + ops[i + 1].after_count;
      if (overlap && op.type == op_type::collective && op.group_size > 1 && !next_waits &&
          !(op.kind == collective::all_to_all && op.group.kind == group_kind::ep &&
            options.all_to_all_skew > 0)) {
        start_collective(i);
        continue;  // measured when it completes
      }
      double seconds = 0;
      bool timed = true;
      switch (op.type) {
        case op_type::compute:
          if (durations[i].count() == 0) {
            timed = false;
            break;
          }
          seconds = transport.compute(durations[i]);
          break;
        case op_type::collective: {
          const std::uint64_t n = detail::replay_elements(op), members = op.group_size;
          const std::uint64_t p = position_in(op.group), shard = members ? n / members : n;
          if (op.kind == collective::all_to_all && op.group.kind == group_kind::ep && members > 1 &&
              options.all_to_all_skew > 0) {
            if (overlap)  // run on its own, as the group's earlier collectives have completed
              for (std::size_t k = 0; k < i; ++k)
                if (pending[k].active && ops[k].type == op_type::collective) complete(k);
            // Uneven blocks (all_to_all_split): block q of what a member sends holds replay_pattern(its
            // position · members + q, element), as an even all-to-all's do.
            const all_to_all_split split{.n = members,
                                         .busiest = shard,
                                         .hot = (op.layer == no_layer ? 0 : op.layer) % members,
                                         .skew = options.all_to_all_skew};
            const bool reverse =
                (op.name.find("combine") != std::string_view::npos) != op.name.ends_with("_grad");
            split.counts(p, reverse, send_counts, receive_counts);
            if (check) {
              host.assign(largest, 0);
              std::uint64_t at = 0;
              for (std::uint64_t q = 0; q < members; at += send_counts[q], ++q)
                for (std::uint64_t e = 0; e < send_counts[q]; ++e)
                  host[at + e] = detail::replay_pattern(p * members + q, e, 1, limit);
              transport.write(data, host);
            }
            watchdog.begin(detail::replay_describe(rank, op));
            seconds = transport.run_all_to_all_v(op.group, members, data, out, send_counts, receive_counts);
            watchdog.end();
            if (check) {
              host.assign(largest, 0);
              transport.read(out, host);
              std::uint64_t at = 0;
              for (std::uint64_t q = 0; q < members; at += receive_counts[q], ++q)
                for (std::uint64_t e = 0; e < receive_counts[q]; ++e) {
                  ++result.checked;
                  result.wrong += host[at + e] != detail::replay_pattern(q * members + p, e, 1, limit);
                }
            }
            result.operations[i].uneven = true;
            break;
          }
          if (check) {  // every member's contribution is replay_pattern(position, element)
            host.assign(largest, 0);
            for (std::uint64_t e = 0; e < n; ++e)
              host[e] = op.kind == collective::all_to_all
                            ? detail::replay_pattern(p * members + e / shard, e % shard, 1, limit)
                            : detail::replay_pattern(p, e, members, limit);
            transport.write(data, host);
          }
          watchdog.begin(detail::replay_describe(rank, op));
          seconds = transport.run_collective(op.kind, op.group, members, data, out, n);
          watchdog.end();
          if (check) {
            host.assign(largest, 0);
            const bool in_place = op.kind == collective::all_reduce || op.kind == collective::all_gather;
            transport.read(in_place ? data : out, host);
            const std::uint64_t count = op.kind == collective::reduce_scatter ? shard : n;
            for (std::uint64_t e = 0; e < count; ++e) {
              replay_element want = 0;
              switch (op.kind) {
                case collective::all_reduce:
                  for (std::uint64_t q = 0; q < members; ++q)
                    want += detail::replay_pattern(q, e, members, limit);
                  break;
                case collective::reduce_scatter:
                  for (std::uint64_t q = 0; q < members; ++q)
                    want += detail::replay_pattern(q, p * shard + e, members, limit);
                  break;
                case collective::all_gather:
                  want = detail::replay_pattern(e / shard, e, members, limit);  // member q's shard, from q
                  break;
                case collective::all_to_all:  // block q came from member q, which sent its block p
                  want = detail::replay_pattern((e / shard) * members + p, e % shard, 1, limit);
                  break;
                default:
                  want = host[e];
              }
              ++result.checked;
              result.wrong += host[e] != want;
            }
          }
          break;
        }
        case op_type::send:
        case op_type::recv: {
          const std::uint64_t n = detail::replay_elements(op);
          const std::size_t s = take(n);
          if (check && op.type == op_type::send) {
            host.assign(pool[s].elements, 0);
            for (std::uint64_t e = 0; e < n; ++e)
              host[e] = detail::replay_pattern(op.tag, e, 1, limit);
            transport.write(pool[s].b, host);
          }
          pending[i] = {op.type == op_type::send ? transport.start_send(op.peer, op.tag, pool[s].b, n)
                                                 : transport.start_receive(op.peer, op.tag, pool[s].b, n),
                        s, std::chrono::steady_clock::now(), true};
          timed = false;  // measured when it completes
          break;
        }
      }
      if (measure && timed) record(i, op_start, seconds * 1e6);
    }
    for (std::size_t i = 0; i < ops.size(); ++i)
      complete(i);
    transport.synchronize();
    if (measure)
      result.iteration_us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - iteration_start)
              .count());
  };

  const auto of = [](std::uint64_t i, std::uint64_t n) {
    return std::to_string(i + 1) + "/" + std::to_string(n);
  };
  for (std::uint64_t w = 0; w < options.warmup; ++w) {
    progress("warm-up " + of(w, options.warmup));
    run_iteration(false, false);
  }
  if (options.check) {
    progress("check");
    run_iteration(false, true);
  }
  std::uint64_t sampled_iterations = 0;
  for (std::uint64_t it = 0; it < options.iterations; ++it) {
    progress("iteration " + of(it, options.iterations));
    sampled = it % stride == 0;
    run_iteration(true, false);
    if (sampled && ++sampled_iterations == cap) {  // keep every other sample, sample half as often
      for (std::vector<double>& v : samples) {
        for (std::size_t k = 0; 2 * k < v.size(); ++k)
          v[k] = v[2 * k];
        v.resize((v.size() + 1) / 2);
      }
      sampled_iterations = (cap + 1) / 2;
      stride *= 2;
    }
  }
  transport.barrier();

  // 5. Means, bandwidths, the slowest rank's iterations and the check over all ranks.
  const double count = static_cast<double>(std::max<std::uint64_t>(options.iterations, 1));
  for (std::size_t i = 0; i < result.operations.size(); ++i) {
    replayed_operation& m = result.operations[i];
    if (m.min_us > m.max_us) m.min_us = 0;
    m.mean_us /= count;
    m.p50_us = detail::nearest_rank(samples[i], 0.5);
    m.p99_us = detail::nearest_rank(samples[i], 0.99);
    if (!m.op.is_communication()) continue;
    const collective kind = communication_kind(m.op);
    const std::uint64_t n = communication_ranks(m.op);
    const double bytes = static_cast<double>(m.op.size.count());
    m.algbw = algorithm_bandwidth(bytes, m.mean_us * 1e-6);
    m.busbw = bus_bandwidth(kind, n, bytes, m.mean_us * 1e-6);
  }
  result.slowest_iteration_us = result.iteration_us;
  transport.max_over_ranks(result.slowest_iteration_us);
  // Every rank's operation means and mean iteration, on rank 0: the ranks of its pipeline stage run
  // streams like its own, operation for operation.
  std::vector<double> own_times;
  constexpr std::size_t head = 2;  // the mean iteration and the computation, before the operations
  own_times.reserve(result.operations.size() + head);
  double iteration_sum = 0, compute_us = 0;
  for (const double us : result.iteration_us)
    iteration_sum += us;
  for (const replayed_operation& m : result.operations)
    if (m.op.type == op_type::compute) compute_us += m.mean_us;
  own_times.push_back(
      result.iteration_us.empty() ? 0 : iteration_sum / static_cast<double>(result.iteration_us.size()));
  own_times.push_back(compute_us);
  for (const replayed_operation& m : result.operations)
    own_times.push_back(m.mean_us);
  const std::vector<std::vector<double>> everyone = transport.gather_to_first(own_times);
  if (rank == 0 && !everyone.empty()) {
    const std::uint64_t stage = grid.world_size() == result.world ? grid.coordinates(0).pp : 0;
    for (std::uint64_t r = 0; r < everyone.size(); ++r) {
      const bool full = everyone[r].size() >= head;
      result.rank_mean_iteration_us.push_back(full ? everyone[r][0] : 0);
      result.rank_compute_us.push_back(full ? everyone[r][1] : 0);
      if (result.rank_compute_us[r] > result.rank_compute_us[result.slowest_rank]) result.slowest_rank = r;
    }
    for (replayed_operation& m : result.operations) {
      m.slowest_mean_us = m.fastest_mean_us = m.mean_us;
      m.slowest_rank = 0;
    }
    for (std::uint64_t r = 1; r < everyone.size(); ++r) {
      const bool alike = grid.world_size() != result.world || grid.coordinates(r).pp == stage;
      if (!alike || everyone[r].size() != own_times.size()) continue;
      for (std::size_t i = 0; i < result.operations.size(); ++i) {
        replayed_operation& m = result.operations[i];
        const double us = everyone[r][i + head];
        if (us > m.slowest_mean_us) {
          m.slowest_mean_us = us;
          m.slowest_rank = r;
        }
        m.fastest_mean_us = std::min(m.fastest_mean_us, us);
      }
    }
  }
  std::vector<double> totals{static_cast<double>(result.checked), static_cast<double>(result.wrong)};
  const std::vector<double> checked = transport.all_gather(totals[0]),
                            wrong = transport.all_gather(totals[1]);
  result.checked = result.wrong = 0;
  for (std::size_t r = 0; r < checked.size(); ++r) {
    result.checked += static_cast<std::uint64_t>(checked[r]);
    result.wrong += static_cast<std::uint64_t>(wrong[r]);
  }
  return result;
}

AICB_END_NAMESPACE
