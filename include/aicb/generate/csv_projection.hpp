// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The corrected physical-cluster CSV (docs/csv.md): one rank's operation graph
/// (aicb/schedule/rank_schedule.hpp) projected onto aicb's CSV items — the same operations, in the
/// same order, that `aicb schedule` lists and the SimAI projection writes, in the form aicb's
/// `workload_applyer` replays.
///
/// - A warm-up epoch first: one 8-byte all-reduce over each group the rank uses (its communicators
///   are created there, outside the measured iterations; aicb's analyser treats epoch 0 as set-up),
///   then `epoch_end`.
/// - Per iteration, every operation in schedule order: collectives with their group's CSV token
///   (`tp_group`, `dp_group`, `ep_group`, `ep_dp_group`, `ep_tp_group`, `embedding_group`), its size
///   and the graph's message size (all-reduce buffer, all-gather output, reduce-scatter input,
///   all-to-all send buffer — the convention aicb's replay uses); pipeline transfers as `isend` /
///   `irecv` over `pp_group` with `send_next`, `recv_prev`, `send_prev`, `recv_next`; with
///   `computation`, each GEMM as a `computation` item with its operands ((m 1 k) (k n)), or
///   ((experts m k) (k n)) for the experts' batched GEMMs; then `epoch_end`.
/// - Stages are `<phase>.<operation>` (`forward.attention_qkv`, `finalize.grad_reduce`).
///
/// What aicb's CSV cannot express is refused: context parallelism (its ring transfers are not
/// pipeline neighbours), expert tensor parallelism different from TP (aicb's groups assume equal).
/// The router's expert-bias reduction (over TP × DP × CP) has no CSV group: it is left out and named
/// in warnings(). Non-GEMM computations (attention, norms, element-wise) have no CSV form (aicb's
/// replay can only multiply matrices): see `aicb schedule` for them.

#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/io/workload_file.hpp>
#include <aicb/model/job.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/workload/csv_item.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Options of csv_projection.
struct csv_projection_options {
  std::uint64_t iterations = 1;
  /// The rank projected; by default the first rank of the last pipeline stage (as the SimAI form).
  std::optional<std::uint64_t> rank = std::nullopt;
  /// GEMMs as `computation` items (aicb's `--computation_enable`).
  bool computation = false;
};

/// One rank's graph as aicb CSV items. See the file comment.
class csv_projection {
 public:
  explicit csv_projection(const job_spec& job, csv_projection_options options = {})
      : csv_projection(validated_job(job), options) {}
  /// A job already validated is not checked again.
  explicit csv_projection(const validated_job& job, csv_projection_options options = {})
      : job_(job), options_(options), grid_(job_.job()) {
    const parallel_spec& p = job_->parallel;
    if (options_.iterations == 0)
      AICB_THROW(config_error("iterations", "0", "iterations must be at least 1"));
    if (p.context_parallel > 1)
      AICB_THROW(config_error("context_parallel", std::to_string(p.context_parallel),
                              "aicb's CSV cannot express the context-parallel ring: its transfers go to "
                              "pipeline neighbours only (see `aicb schedule` for the ring)"));
    if (job_->model.is_moe() && expert_tensor_parallel(job_.job()) != p.tensor_parallel)
      AICB_THROW(
          config_error("expert_tensor_parallel", std::to_string(expert_tensor_parallel(job_.job())),
                       "aicb's CSV groups assume expert tensor parallelism equal to tensor_parallel (" +
                           std::to_string(p.tensor_parallel) + ")"));
    rank_ = options_.rank.value_or(first_rank_of_stage(job_.job(), p.pipeline_parallel - 1));
    if (rank_ >= p.world_size)
      AICB_THROW(config_error("rank", std::to_string(rank_), "a rank must be below world_size"));
    // The groups the rank uses (in first use), the stages' text, what is left out: one pass over an
    // iteration of the fewest micro batches the schedule allows (every iteration, and every micro
    // batch, runs the same operations: a job of 10^7 micro batches is not walked to learn them).
    for (const operation& op : rank_schedule(with_fewest_microbatches(job_), rank_)) {
      intern(op);
      if (op.type == op_type::send || op.type == op_type::recv) {
        note_group(csv_group::pp_group, p.pipeline_parallel);
      } else if (op.type == op_type::collective) {
        const std::optional<csv_group> g = group_of(op);
        if (g)
          note_group(*g, op.group_size);
        else
          left_out(op);
      }
    }
  }

  // Items view stage text the projection owns: moves keep it, copies would not.
  csv_projection(const csv_projection&) = delete;
  csv_projection& operator=(const csv_projection&) = delete;
  csv_projection(csv_projection&&) = default;
  csv_projection& operator=(csv_projection&&) = default;
  ~csv_projection() = default;

  /// The rank projected.
  [[nodiscard]] std::uint64_t rank() const noexcept { return rank_; }
  [[nodiscard]] std::uint64_t pipeline_stage() const { return grid_.coordinates(rank_).pp; }
  [[nodiscard]] const job_spec& job() const noexcept { return job_.job(); }
  /// What the projection left out, one line each.
  [[nodiscard]] const std::vector<std::string>& warnings() const noexcept { return warnings_; }

  /// The item of one of the rank's operations, or nothing where aicb's CSV has none (a computation
  /// other than a GEMM, a collective over a group aicb does not name). Its stage views text this
  /// projection owns.
  [[nodiscard]] std::optional<csv_item> item(const operation& op) const { return item_of(op); }

  /// Calls `sink(const csv_item&)` for every item, in order (lazily: one iteration's stream at a time).
  /// An item's `stage` views text this projection owns: a sink that keeps items past the projection's
  /// life copies the stage into a string.
  template <class Sink>
  void generate(Sink&& sink) const {
    for (const auto& [group, size] : groups_) {
      csv_item warm;
      warm.op = csv_op::all_reduce;
      warm.group = group;
      warm.group_size = size;
      warm.msg_size = 8;
      warm.stage = "init.warm_up";
      sink(warm);
    }
    sink(csv_item{});  // epoch_end: the set-up epoch
    for (std::uint64_t i = 0; i < options_.iterations; ++i) {
      for (const operation& op : rank_schedule(job_, rank_)) {
        if (std::optional<csv_item> item = item_of(op)) sink(*item);
      }
      sink(csv_item{});
    }
  }

 private:
  // The CSV group of a collective, or nothing where aicb's CSV has none.
  [[nodiscard]] std::optional<csv_group> group_of(const operation& op) const {
    switch (op.group.kind) {
      case group_kind::tp:
      case group_kind::etp:  // equal to TP here (checked above)
        return csv_group::tp_group;
      case group_kind::dp:
      case group_kind::dp_cp:  // CP is 1 here
        return csv_group::dp_group;
      case group_kind::ep:
        return csv_group::ep_group;
      case group_kind::edp:
        return csv_group::ep_dp_group;
      case group_kind::etp_ep:
        return csv_group::ep_tp_group;
      case group_kind::embedding:
        return csv_group::embedding_group;
      case group_kind::pp:
        return csv_group::pp_group;
      default:
        return std::nullopt;
    }
  }

  [[nodiscard]] static csv_op op_of(collective kind) {
    switch (kind) {
      case collective::all_reduce:
        return csv_op::all_reduce;
      case collective::all_gather:
        return csv_op::all_gather;
      case collective::reduce_scatter:
        return csv_op::reduce_scatter;
      case collective::all_to_all:
        return csv_op::all_to_all;
      default:
        AICB_THROW(
            config_error("collective", std::string(to_string(kind)), "no CSV form for this collective"));
    }
  }

  [[nodiscard]] std::optional<csv_item> item_of(const operation& op) const {
    csv_item item;
    switch (op.type) {
      case op_type::compute: {
        if (!options_.computation || op.compute.kind != op_kind::gemm) return std::nullopt;
        const compute_op& c = op.compute;
        item.op = csv_op::computation;
        item.shapes = {csv_shape{{c.batch > 1 ? c.batch : c.m, c.batch > 1 ? c.m : 1, c.k}, 3},
                       csv_shape{{c.k, c.n, 0}, 2}};
        break;
      }
      case op_type::collective: {
        const std::optional<csv_group> g = group_of(op);
        if (!g) return std::nullopt;
        item.op = op_of(op.kind);
        item.group = *g;
        item.group_size = op.group_size;
        item.msg_size = op.size.count();
        break;
      }
      case op_type::send:
      case op_type::recv: {
        const bool send = op.type == op_type::send;
        const bool activation = op.phase == op_phase::forward;
        item.op = send ? csv_op::isend : csv_op::irecv;
        item.group = csv_group::pp_group;
        item.group_size = job_->parallel.pipeline_parallel;
        item.msg_size = op.size.count();
        // Activations go to the next stage, gradients to the previous one.
        item.additional =
            send ? (activation ? "send_next" : "send_prev") : (activation ? "recv_prev" : "recv_next");
        break;
      }
    }
    item.stage = stage_of(op);
    return item;
  }

  // "<phase>.<name>": kept once (items hold their stage as a view), found again by stage_of().
  static std::string stage_text(const operation& op) {
    return std::string(to_string(op.phase)) + "." + std::string(op.name);
  }
  void intern(const operation& op) {
    std::string text = stage_text(op);
    if (stages_.find(text) != stages_.end()) return;
    const std::string& kept = stage_text_.emplace_back(std::move(text));
    stages_.emplace(kept, kept);
  }
  [[nodiscard]] std::string_view stage_of(const operation& op) const {
    const auto found = stages_.find(stage_text(op));
    if (found == stages_.end())
      AICB_THROW(error("csv_projection: an operation the first pass did not see: " + stage_text(op)));
    return found->second;
  }

  void note_group(csv_group g, std::uint64_t size) {
    for (const auto& [group, n] : groups_)
      if (group == g) return;
    groups_.emplace_back(g, size);
  }

  void left_out(const operation& op) {
    const std::string line = std::string(op.name) + " (" + std::string(to_string(op.kind)) + " over " +
                             std::string(to_string(op.group.kind)) +
                             "): aicb's CSV has no group for it; left out";
    for (const std::string& w : warnings_)
      if (w == line) return;
    warnings_.push_back(line);
  }

  validated_job job_;
  csv_projection_options options_;
  process_grid grid_;
  std::uint64_t rank_ = 0;
  std::vector<std::pair<csv_group, std::uint64_t>> groups_;  // first use order
  std::vector<std::string> warnings_;
  std::deque<std::string> stage_text_;  // stable addresses
  std::map<std::string, std::string_view, std::less<>> stages_;
};

/// Refuses (aicb::require_free_space) a CSV of `job` projected with `options` that `path`'s file system
/// cannot hold. An iteration's bytes grow linearly with its micro batches: measured at the fewest the
/// schedule allows and at twice that, then extrapolated — an iteration of 10^7 micro batches is not
/// generated to be measured.
inline void require_csv_projection_space(const job_spec& job, csv_projection_options options,
                                         const std::string& path) {
  const std::uint64_t iterations = options.iterations;
  options.iterations = 1;
  const job_spec few = with_fewest_microbatches(job);
  const std::uint64_t m0 = microbatches(few), m = microbatches(job);
  if (m <= 2 * m0) {
    const csv_projection one_iteration(job, options);
    require_csv_space(
        path, [&](auto&& sink) { one_iteration.generate(sink); }, iterations);
    return;
  }
  job_spec twice = few;
  twice.batch.global_batch *= 2;
  const csv_projection at_few(few, options), at_twice(twice, options);
  const std::uint64_t b0 = csv_bytes([&](auto&& sink) { at_few.generate(sink); });
  const std::uint64_t b1 = csv_bytes([&](auto&& sink) { at_twice.generate(sink); });
  const std::uint64_t per_microbatch = (b1 > b0 ? b1 - b0 : 0) / m0;
  const std::uint64_t fixed = b0 - std::min(b0, per_microbatch * m0);
  const std::uint64_t iteration =
      checked_add(fixed, checked_mul(per_microbatch, m, "CSV bytes of an iteration"), "CSV bytes");
  require_free_space(path, checked_mul(iteration, iterations, "CSV bytes (x iterations)"));
}

AICB_END_NAMESPACE
