// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::simai_projection — the corrected SimAI workload of a job, projected from one rank's
/// operation graph (aicb/schedule/rank_schedule.hpp): the representative rank SimAI expects, by
/// default the first rank of the last pipeline stage.
///
/// SimAI replays one rank: forward over the records in order, then for each record from the last
/// to the first its input-gradient compute and collective, then its weight-gradient compute and
/// collective (the weight-gradient column holds only data-parallel groups). The projection keeps the
/// graph's order under that walk:
/// - each forward computation is a record; the collectives after it go in its forward column (a
///   second one gets a record of its own, with no computation);
/// - each input-gradient and weight-gradient computation goes to the record of the same operation;
///   a backward collective goes to the input-gradient column of the record SimAI reaches just
///   after the computation it follows — a record with no computation is inserted where none is
///   free, so the order is the graph's;
/// - micro batch 0's records are repeated for every micro batch (SimAI models pipelining with its
///   `pp`, `vpp`, `ga` and `pp_comm`); the iteration's gradient reductions, optimizer step and weight
///   gathers come first in the file, in reverse, so SimAI's backward walk runs them last, in order.
///
/// DeepSpeed's ZeRO-3 gathers a module's weights over DP before its forward; SimAI has DP only in
/// the weight-gradient column, so each such gather is a record of its own, in forward order, whose
/// weight-gradient column SimAI runs when its backward walk reaches the module: the bytes are exact,
/// the overlap optimistic.
///
/// The allgather dispatcher's collectives over ETP x EP are written as the same data moved in two
/// steps over SimAI's TP and EP groups (all-gather over TP, then EP; reduce-scatter over EP, then TP):
/// every rank sends and receives the same bytes. What SimAI cannot express is refused with a message
/// (context parallelism, expert tensor parallelism other than TP), or left out with a warning when it
/// is a per-iteration reduction SimAI has no group for (the tied-embedding all-reduce between the first
/// and last stage, the router's expert-bias reduction).

#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/model/job.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/workload/record.hpp>
#include <aicb/workload/record_stream.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Options of the projection.
struct simai_projection_options {
  std::uint64_t iterations = 1;  ///< consecutive training iterations in the workload
  std::optional<std::uint64_t> pipeline_stage =
      std::nullopt;  ///< the stage to emit; default: the last (logits, loss)
};

/// The corrected SimAI workload of one rank, projected from its operation graph. The compute model
/// must outlive it.
class simai_projection {
 public:
  simai_projection(const job_spec& job, const compute_model& compute, simai_projection_options options = {})
      : simai_projection(validated_job(job), compute, options) {}
  /// A job already validated is not checked again.
  simai_projection(const validated_job& job, const compute_model& compute,
                   simai_projection_options options = {})
      : job_(job), options_(options) {
    const parallel_spec& p = job_->parallel;
    if (options_.iterations == 0)
      AICB_THROW(config_error("iterations", "0", "iterations must be at least 1"));
    stage_ = options_.pipeline_stage.value_or(p.pipeline_parallel - 1);
    if (stage_ >= p.pipeline_parallel)
      AICB_THROW(config_error("pipeline_stage", std::to_string(stage_),
                              "a stage index must be below pipeline_parallel"));
    if (p.context_parallel > 1)
      AICB_THROW(
          config_error("context_parallel", std::to_string(p.context_parallel),
                       "SimAI cannot express a cp collective: its workloads have no context-parallel group "
                       "(see `aicb schedule` for the ring's transfers)"));
    if (job_->model.is_moe() && expert_tensor_parallel(job_.job()) != p.tensor_parallel)
      AICB_THROW(config_error("expert_tensor_parallel", std::to_string(expert_tensor_parallel(job_.job())),
                              "a SimAI workload cannot express expert tensor parallelism different from "
                              "tensor_parallel (" +
                                  std::to_string(p.tensor_parallel) +
                                  "): SimAI sizes every non-EP collective by TP; see `aicb schedule` for the "
                                  "per-rank operations"));
    rank_ = first_rank_of_stage(job_.job(), stage_);
    build(compute);
    header_.tensor_parallel = p.tensor_parallel;
    header_.expert_parallel = p.expert_parallel;
    header_.pipeline_parallel = p.pipeline_parallel;
    header_.vpp = p.virtual_pipeline;
    header_.ga = microbatches(job_.job());
    header_.all_gpus = p.world_size;
    header_.pp_comm = p.pipeline_parallel == 1 ? "0" : std::to_string(pp_bytes_);
  }

  [[nodiscard]] const simai_header& header() const noexcept { return header_; }
  [[nodiscard]] const job_spec& job() const noexcept { return job_.job(); }
  [[nodiscard]] std::uint64_t pipeline_stage() const noexcept { return stage_; }
  /// The rank projected.
  [[nodiscard]] std::uint64_t rank() const noexcept { return rank_; }
  /// What the projection left out, one line each.
  [[nodiscard]] const std::vector<std::string>& warnings() const noexcept { return warnings_; }
  /// Records of one micro batch, and of the iteration's prologue.
  [[nodiscard]] const std::vector<record>& microbatch_records() const noexcept { return microbatch_; }
  [[nodiscard]] const std::vector<record>& prologue_records() const noexcept { return prologue_; }

  /// Records in the workload.
  [[nodiscard]] std::uint64_t size() const {
    const std::uint64_t per_iteration =
        checked_add(prologue_.size(), checked_mul(header_.ga, microbatch_.size(), "records per iteration"),
                    "records per iteration");
    return checked_mul(options_.iterations, per_iteration, "records (iterations x records per iteration)");
  }

  /// The records as runs (aicb::record_run): per iteration the prologue once, then the micro batch's
  /// records ga times — the same records, in the same order, as records().
  template <class F>
  void for_each_run(F&& f) const {
    for (std::uint64_t i = 0; i < options_.iterations; ++i) {
      if (!prologue_.empty()) f(record_run{prologue_, 1});
      if (!microbatch_.empty()) f(record_run{microbatch_, header_.ga});
    }
  }

  /// The records, lazily (not on a temporary: the stream refers to the projection).
  [[nodiscard]] record_stream<class simai_projection_source> records() const&;
  record_stream<class simai_projection_source> records() const&& = delete;

 private:
  friend class simai_projection_source;

  // Where a collective of the graph goes in SimAI's terms: its group there, or nothing.
  // Groups SimAI gives only to the weight-gradient column: data parallelism, dense or expert
  // (aicb::is_data_parallel).
  [[nodiscard]] std::optional<comm_group> simai_group(const operation& op, bool weight_column) const {
    switch (op.group.kind) {
      case group_kind::tp:
        return comm_group::tp;
      case group_kind::etp:  // = TP (refused otherwise)
        return comm_group::tp;
      case group_kind::ep:
        return comm_group::ep;
      case group_kind::etp_ep:
        if (expert_tensor_parallel(job_.job()) == 1) return comm_group::ep;
        return std::nullopt;
      case group_kind::dp:
      case group_kind::dp_cp:
        return weight_column ? std::optional<comm_group>(comm_group::dp) : std::nullopt;
      case group_kind::edp:
        return comm_group::dp_ep;
      default:
        return std::nullopt;
    }
  }
  [[noreturn]] void inexpressible(const operation& op) const {
    std::string rule = "SimAI cannot express the " + std::string(to_string(op.group.kind)) + " group of " +
                       std::string(op.name);
    if (op.group.kind == group_kind::etp_ep)
      rule +=
          " (the allgather dispatcher gathers over ETP x EP, which SimAI has no group for with ETP > 1); "
          "write the alltoall dispatcher (--moe-dispatcher alltoall), or see `aicb schedule`";
    AICB_THROW(config_error("group", to_string(op.group), std::move(rule)));
  }

  // Kernels without a record of their own in aicb's files — the residual's bias-dropout-add and the
  // rotary embedding: their time joins a neighbouring record.
  [[nodiscard]] static bool folded(const operation& op) noexcept {
    return op.type == op_type::compute &&
           (op.compute.role == op_role::residual || op.compute.role == op_role::rotary);
  }

  // One SimAI record under construction, with the graph operation its forward came from.
  struct slot_record {
    record r;
    std::string key;  // "<layer>:<name>" of the forward computation, empty for inserted records
  };

  void build(const compute_model& compute) {
    std::vector<slot_record> records;
    std::map<std::string, std::size_t> by_key;  // a forward computation's record
    const auto key_of = [](const operation& op) {
      return std::to_string(op.layer == no_layer ? ~std::uint64_t{0} : op.layer) + ":" + std::string(op.name);
    };
    const auto comm_of = [&](const operation& op, bool weight_column) {
      const std::optional<comm_group> g = simai_group(op, weight_column);
      if (!g) inexpressible(op);
      return collective_op{op.kind, *g, op.size};
    };
    // A collective as SimAI's collectives: one, or — over the ETP x EP group of the allgather
    // dispatcher — the same data moved in two steps over SimAI's TP and EP groups (an all-gather over
    // TP then EP, a reduce-scatter over EP then TP: the same bytes reach every rank).
    const auto pieces = [&](const operation& op, bool weight_column) {
      std::vector<collective_op> out;
      if (op.group.kind == group_kind::etp_ep && expert_tensor_parallel(job_.job()) > 1 &&
          (op.kind == collective::all_gather || op.kind == collective::reduce_scatter)) {
        const std::uint64_t ep = job_->parallel.expert_parallel;
        const collective_op tp_step{op.kind, comm_group::tp, op.size / ep};
        const collective_op ep_step{op.kind, comm_group::ep, op.size};
        if (op.kind == collective::all_gather)
          out = {tp_step, ep_step};
        else
          out = {ep_step, tp_step};
        return out;
      }
      out.push_back(comm_of(op, weight_column));
      return out;
    };
    // The rank's stream, projected in one pass: micro batch 0's forward (records in order), its
    // backward work (kept for the walk below), the finalize, and the pipeline message. Every micro
    // batch runs the same operations, and the finalize does not depend on their number: the stream of
    // the fewest micro batches the schedule allows (one, or PP when interleaved) is enough.
    // SimAI runs its own 1F1B, each record's weight gradient right after its input gradient: the
    // records come from Megatron's schedule whatever the job's (every schedule does the same work
    // per micro batch; a zero-bubble one only moves weight gradients).
    const validated_job few = with_fewest_microbatches(job_.on_megatron_schedule());
    std::vector<operation> backward, finalize;
    bool pp_seen = false;
    for (const operation& op : rank_schedule(few, rank_)) {
      if (op.phase == op_phase::finalize) {
        finalize.push_back(op);
        continue;
      }
      if (!op.in_microbatch(0)) continue;
      if (op.is_transfer()) {
        if (!pp_seen && op.phase == op_phase::forward) {
          pp_bytes_ = op.size.count();  // SimAI's pp_comm: one activation sent on
          pp_seen = true;
        }
        continue;
      }
      if (op.is_backward_work()) {
        backward.push_back(op);
        continue;
      }
      if (folded(op) && !records.empty()) {
        // The residual's bias-dropout-add and the rotary embedding have no record of their own
        // (SimAI's files keep aicb's records): their time joins the record before them.
        records.back().r.forward.compute = records.back().r.forward.compute + compute.duration(op.compute);
        continue;
      }
      if (op.type == op_type::compute) {
        slot_record s;
        s.r.name = std::string(op.name);
        s.r.forward.compute = compute.duration(op.compute);
        s.key = key_of(op);
        records.push_back(std::move(s));
      } else if (is_data_parallel(op.group.kind, false)) {
        // A data-parallel collective in forward (ZeRO-3's weight gathers): SimAI gives DP only to the
        // weight-gradient column, which it runs in its backward walk, without blocking — a record of
        // its own, here, so the walk reaches it when it reaches this module.
        slot_record s;
        s.r.name = std::string(op.name);
        s.r.weight_grad.comm = collective_op{op.kind, comm_group::dp, op.size};
        records.push_back(std::move(s));
      } else {
        for (const collective_op& c : pieces(op, false)) {
          if (!records.empty() && !records.back().r.forward.comm.active()) {
            records.back().r.forward.comm = c;
            continue;
          }
          slot_record s;
          s.r.name = std::string(op.name);
          s.r.forward.comm = c;
          records.push_back(std::move(s));
        }
      }
    }
    // The backward walk, built in SimAI's order (the records from the last to the first): `walk`
    // holds the records SimAI reaches, in that order; forward records [0, unreached) are still ahead.
    // The cursor is on walk's last record at a position — 1 after its input-gradient compute, 2
    // after its collective, 3 after the weight-gradient compute, 4 after its collective — or, before
    // anything is reached, at the start (position 0). A record inserted for the graph's order goes
    // where the cursor is: appended to the walk. Nothing moves, so the cost is linear.
    for (std::size_t i = 0; i < records.size(); ++i)
      if (!records[i].key.empty()) by_key[records[i].key] = i;
    std::vector<slot_record> walk;
    walk.reserve(records.size());
    std::size_t unreached = records.size();
    constexpr std::size_t none = ~std::size_t{0};
    std::size_t at_forward = none;  // the forward record the cursor is on, if it is one
    int position = 0;
    const auto reach = [&](std::size_t j) {  // the walk passes the forward records down to j
      while (unreached > j)
        walk.push_back(std::move(records[--unreached]));
      at_forward = j;
    };
    const auto append = [&](std::string name) {
      slot_record s;
      s.r.name = std::move(name);
      walk.push_back(std::move(s));
      at_forward = none;
    };
    nanoseconds carried{0};  // a folded kernel's backward time, joining the next computation's record
    for (const operation& op : backward) {
      if (folded(op)) {
        carried = carried + compute.duration(op.compute);
        continue;
      }
      if (op.type == op_type::compute) {
        const nanoseconds t = compute.duration(op.compute) + carried;
        carried = nanoseconds{0};
        const bool weight = op.compute.pass == pass_kind::weight_grad;
        const auto found = op.phase == op_phase::backward ? by_key.find(key_of(op)) : by_key.end();
        if (found != by_key.end()) {
          const std::size_t j = found->second;
          const int needed = weight ? 2 : 0;  // the cursor may be at most here, on record j
          const bool ahead = j < unreached;
          const bool here = at_forward == j && position <= needed;
          const phase& target = ahead ? (weight ? records[j].r.weight_grad : records[j].r.input_grad)
                                      : (weight ? walk.back().r.weight_grad : walk.back().r.input_grad);
          if ((ahead || here) && target.compute.count() == 0) {
            if (ahead) reach(j);
            (weight ? walk.back().r.weight_grad : walk.back().r.input_grad).compute = t;
            position = weight ? 3 : 1;
            continue;
          }
        }
        // A computation of its own (recomputation, the loss's gradient …): a record of its own, reached
        // next in SimAI's walk.
        append(std::string(op.name));
        walk.back().r.input_grad.compute = t;
        position = 1;
        continue;
      }
      // A collective: the input-gradient column of the record reached next (or the weight-gradient
      // column for data-parallel groups, whose place that is).
      const bool weight_group = is_data_parallel(op.group.kind);
      for (const collective_op& c : pieces(op, weight_group)) {
        if (position == 1 && !weight_group && !walk.back().r.input_grad.comm.active()) {
          walk.back().r.input_grad.comm = c;
          position = 2;
          continue;
        }
        if (position == 3 && weight_group && !walk.back().r.weight_grad.comm.active()) {
          walk.back().r.weight_grad.comm = c;
          position = 4;
          continue;
        }
        append(std::string(op.name));
        if (weight_group) {
          walk.back().r.weight_grad.comm = c;
          position = 4;
        } else {
          walk.back().r.input_grad.comm = c;
          position = 2;
        }
      }
    }
    if (carried.count() > 0) {
      append("residual");
      walk.back().r.input_grad.compute = carried;
    }
    reach(0);  // the forward records before the last one the graph's backward reaches
    microbatch_.reserve(walk.size());
    for (auto it = walk.rbegin(); it != walk.rend(); ++it)
      microbatch_.push_back(std::move(it->r));

    // The prologue: the iteration's finalize in reverse, one operation a record.
    for (auto it = finalize.rbegin(); it != finalize.rend(); ++it) {
      const operation& op = *it;
      record r;
      r.name = std::string(op.name);
      if (op.type == op_type::compute) {
        r.weight_grad.compute = compute.duration(op.compute);
      } else {
        const bool weight_group = is_data_parallel(op.group.kind);
        const std::optional<comm_group> g = simai_group(op, weight_group);
        if (!g) {
          warnings_.push_back(std::string(op.name) + " (" + std::string(to_string(op.kind)) + " of " +
                              std::to_string(op.size.count()) + " bytes over " + to_string(op.group) +
                              ") is left out: SimAI has no such group");
          continue;
        }
        (weight_group ? r.weight_grad : r.input_grad).comm = {op.kind, *g, op.size};
      }
      prologue_.push_back(std::move(r));
    }
  }

  validated_job job_;
  simai_projection_options options_;
  std::uint64_t stage_ = 0, rank_ = 0, pp_bytes_ = 0;
  std::vector<record> microbatch_, prologue_;
  std::vector<std::string> warnings_;
  simai_header header_;
};

/// The state machine behind simai_projection::records(): prologue, then the micro batch's records
/// once per micro batch, per iteration.
class simai_projection_source {
 public:
  explicit simai_projection_source(const simai_projection& p) : p_(&p) {}
  [[nodiscard]] std::uint64_t size() const { return p_->size(); }

  const record* next() {
    while (iteration_ < p_->options_.iterations) {
      if (microbatch_ == 0 && index_ < p_->prologue_.size()) return &p_->prologue_[index_++];
      const std::size_t in_prologue = microbatch_ == 0 ? p_->prologue_.size() : 0;
      const std::size_t i = index_ - in_prologue;
      if (i < p_->microbatch_.size()) {
        ++index_;
        return &p_->microbatch_[i];
      }
      index_ = 0;
      if (++microbatch_ < p_->header_.ga) continue;
      microbatch_ = 0;
      ++iteration_;
      // The prologue again for the next iteration: index_ 0 with microbatch_ 0.
    }
    return nullptr;
  }

 private:
  const simai_projection* p_;
  std::uint64_t iteration_ = 0, microbatch_ = 0;
  std::size_t index_ = 0;
};

inline record_stream<simai_projection_source> simai_projection::records() const& {
  return record_stream<simai_projection_source>(simai_projection_source(*this));
}

AICB_END_NAMESPACE
