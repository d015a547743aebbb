// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::rank_schedule — what one rank of a Megatron-Core training job does in an iteration, in the
/// order it does it (its computations, collectives with their groups, sends and receives with their
/// peers, each with what it waits for), as a lazy range-v3 view; aicb::pipeline_steps — one stage's
/// pipeline schedule, step by step, the same way. What the schedule models is in
/// <aicb/schedule/rank_pass.hpp>, the engine behind the view, and docs/schedules.md.
///
/// ```cpp
/// for (const aicb::operation& op : aicb::rank_schedule(job, 42)) ...   // lazily, any job size
/// auto first = aicb::rank_schedule(job, 42) | aicb::views::collectives | ranges::views::take(100);
/// ```
///
/// The views compose with range-v3's adaptors and with aicb::views (<aicb/schedule/views.hpp>), and
/// are safe on temporaries: a view owns what its passes read, shared by its copies, and an iterator
/// keeps its pass alive. Each begin() starts a new pass from the first operation; iterators of one
/// pass share it (an input range: an operation is valid until its iterator moves on). Memory holds
/// the rank's layer templates and one pipeline step's operations: it does not grow with micro
/// batches, iterations or world size.

#include <aicb/config.hpp>
#include <aicb/model/job.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/schedule/pipeline.hpp>
#include <aicb/schedule/rank_pass.hpp>

#include <range/v3/view/facade.hpp>

#include <cstdint>
#include <memory>
#include <type_traits>

AICB_BEGIN_NAMESPACE

/// One rank's operations, in schedule order, as a range-v3 view. See the file comment.
class rank_schedule : public ranges::view_facade<rank_schedule, ranges::finite> {
 public:
  /// An empty view (views are default-constructible); iterate only a constructed one.
  rank_schedule() = default;
  /// Validates the job (aicb::config_error naming the broken rule) and builds the rank's templates.
  rank_schedule(const job_spec& job, std::uint64_t rank, rank_schedule_options options = {})
      : plan_(std::make_shared<const detail::rank_plan>(job, rank, options)) {}
  /// A job already validated (and its model resolved) is not checked again.
  rank_schedule(const validated_job& job, std::uint64_t rank, rank_schedule_options options = {})
      : plan_(std::make_shared<const detail::rank_plan>(job, rank, options)) {}

  /// The rank, its coordinates, its grid and its job (with the model's defaults resolved).
  [[nodiscard]] std::uint64_t rank() const noexcept { return plan_->rank; }
  [[nodiscard]] const rank_coordinates& coordinates() const noexcept { return plan_->coords; }
  [[nodiscard]] const process_grid& grid() const noexcept { return plan_->grid; }
  [[nodiscard]] const job_spec& job() const noexcept { return plan_->job; }
  /// The weights of the rank's model chunks (elements), as the gradient buffers hold them.
  [[nodiscard]] std::uint64_t dense_weights() const noexcept { return plan_->dense_weights(); }
  [[nodiscard]] std::uint64_t expert_weights() const noexcept { return plan_->expert_weights(); }

 private:
  friend ranges::range_access;

  // A pass and the plan it reads, kept alive together by the iterators that walk it.
  struct pass_state {
    explicit pass_state(std::shared_ptr<const detail::rank_plan> p) : plan(std::move(p)), pass(*plan) {}
    std::shared_ptr<const detail::rank_plan> plan;
    rank_pass pass;
  };

  struct cursor {
    using single_pass = std::true_type;
    std::shared_ptr<pass_state> state;
    [[nodiscard]] const operation& read() const noexcept { return state->pass.read(); }
    void next() { state->pass.next(); }
    [[nodiscard]] bool equal(ranges::default_sentinel_t) const noexcept { return state->pass.done(); }
  };
  [[nodiscard]] cursor begin_cursor() const { return {std::make_shared<pass_state>(plan_)}; }

  std::shared_ptr<const detail::rank_plan> plan_;
};

/// One stage's pipeline schedule (aicb::pipeline_schedule), step by step, as a range-v3 view: each
/// begin() walks the steps from the first, and iterators walk on independently.
class pipeline_steps : public ranges::view_facade<pipeline_steps, ranges::finite> {
 public:
  pipeline_steps() = default;
  /// Checks Megatron-Core's constraints on the options (aicb::config_error naming the rule).
  explicit pipeline_steps(const pipeline_options& options)
      : schedule_(std::make_shared<const pipeline_schedule>(options)) {}
  explicit pipeline_steps(const pipeline_schedule& schedule)
      : schedule_(std::make_shared<const pipeline_schedule>(schedule)) {}

  [[nodiscard]] const pipeline_schedule& schedule() const noexcept { return *schedule_; }

 private:
  friend ranges::range_access;

  struct cursor {
    std::shared_ptr<const pipeline_schedule> schedule;  // keeps the walk's schedule alive
    pipeline_schedule::cursor at;
    [[nodiscard]] const pipeline_step& read() const noexcept { return at.read(); }
    void next() { at.next(); }
    [[nodiscard]] bool equal(ranges::default_sentinel_t) const noexcept { return at.done(); }
  };
  [[nodiscard]] cursor begin_cursor() const { return {schedule_, schedule_->begin_cursor()}; }

  std::shared_ptr<const pipeline_schedule> schedule_;
};

AICB_END_NAMESPACE
