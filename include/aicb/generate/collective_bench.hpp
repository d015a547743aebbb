// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Collective micro-benchmarks: a sweep of message sizes, begin_size · 2^i up to end_size, for one
/// or more collectives, as SimAI text (docs/micro.md):
///
/// - collective_sweep_workload — SimAI text in the `HYBRID_TRANSFORMER_FWD_IN_BCKWD` form that
///   SimAI-Analytical runs: one record per collective, size and iteration, whose weight-gradient
///   column holds the collective on the data-parallel group (every GPU: TP = PP = 1). SimAI reports
///   each record's communication time. This is the default of `aicb micro`.
///
/// aicb's own two forms of the test — its physical-cluster CSV and its SimAI `MICRO` file, byte for
/// byte — are aicb emulators and live in <aicb/compat/aicb_micro.hpp>.

#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/workload/record.hpp>
#include <aicb/workload/record_stream.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The sizes of a sweep: begin, 2·begin, 4·begin, … while ≤ end. Throws on a zero begin size
/// (aicb loops forever there) and on a sweep that would overflow.
[[nodiscard]] inline std::vector<std::uint64_t> sweep_sizes(std::uint64_t begin, std::uint64_t end) {
  if (begin == 0)
    AICB_THROW(config_error("begin_size", "0", "begin_size must be at least 1 byte (doubling 0 never ends)"));
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t size = begin; size <= end; size *= 2) {
    sizes.push_back(size);
    if (size > end / 2) break;  // the next doubling passes end (or would overflow)
  }
  return sizes;
}

/// SimAI's token of a collective a sweep can run: ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL.
[[nodiscard]] inline collective sweep_collective(std::string_view name) {
  if (name == "all_reduce") return collective::all_reduce;
  if (name == "all_gather") return collective::all_gather;
  if (name == "reduce_scatter") return collective::reduce_scatter;
  if (name == "all_to_all") return collective::all_to_all;
  AICB_THROW(config_error("test_comm", std::string(name),
                          "SimAI simulates all_reduce, all_gather, reduce_scatter and all_to_all"));
}

/// Options of the SimAI sweep.
struct collective_sweep_options {
  std::uint64_t world_size = 1;  ///< GPUs in the data-parallel group (SimAI's -g)
  std::vector<collective> collectives{collective::all_reduce};
  std::uint64_t begin_size = 1'048'576;
  std::uint64_t end_size = 1'048'576;
  std::uint64_t iterations = 1;  ///< records per collective and size
};

/// The sweep as a SimAI workload that SimAI-Analytical runs. Records are made on demand.
class collective_sweep_workload {
 public:
  explicit collective_sweep_workload(collective_sweep_options o) : o_(std::move(o)) {
    if (o_.world_size < 2)
      AICB_THROW(config_error("world_size", std::to_string(o_.world_size),
                              "a collective needs at least 2 GPUs in its group"));
    if (o_.iterations == 0) AICB_THROW(config_error("iterations", "0", "iterations must be at least 1"));
    if (o_.collectives.empty())
      AICB_THROW(config_error("test_comm", "(none)", "name at least one collective"));
    for (collective c : o_.collectives)
      if (c != collective::all_reduce && c != collective::all_gather && c != collective::reduce_scatter &&
          c != collective::all_to_all)
        AICB_THROW(config_error("test_comm", std::string(to_string(c)),
                                "SimAI simulates all_reduce, all_gather, reduce_scatter and all_to_all"));
    sizes_ = sweep_sizes(o_.begin_size, o_.end_size);
    header_.tensor_parallel = 1;
    header_.expert_parallel = 1;
    header_.pipeline_parallel = 1;
    header_.vpp = 1;
    header_.ga = 1;
    header_.all_gpus = o_.world_size;
    header_.pp_comm = "0";
  }

  [[nodiscard]] const simai_header& header() const noexcept { return header_; }
  [[nodiscard]] std::uint64_t size() const {
    return checked_mul(o_.collectives.size() * sizes_.size(), o_.iterations, "records (sweep x iterations)");
  }
  [[nodiscard]] const std::vector<std::uint64_t>& sizes() const noexcept { return sizes_; }

  /// Record `index` (0-based): collectives outermost, then sizes, then iterations.
  [[nodiscard]] record at(std::uint64_t index) const {
    const std::uint64_t iteration = index % o_.iterations;
    const std::uint64_t size = sizes_[(index / o_.iterations) % sizes_.size()];
    const collective kind = o_.collectives[index / (o_.iterations * sizes_.size())];
    record r;
    r.name = std::string(to_string(kind)) + "_" + std::to_string(size) + "B";
    if (o_.iterations > 1) r.name += "_" + std::to_string(iteration);
    r.weight_grad.comm = {kind, comm_group::dp, bytes{size}};
    return r;
  }

  /// The records, lazily.
  [[nodiscard]] record_stream<class collective_sweep_source> records() const&;
  /// Not on a temporary: the stream refers to the workload, which would be gone before the first
  /// record (`for (auto& r : collective_sweep_workload(...).records())` does not compile; name the workload).
  record_stream<class collective_sweep_source> records() const&& = delete;

 private:
  collective_sweep_options o_;
  std::vector<std::uint64_t> sizes_;
  simai_header header_;
};

/// The source behind collective_sweep_workload::records().
class collective_sweep_source {
 public:
  explicit collective_sweep_source(const collective_sweep_workload& w) : w_(&w) {}
  const record* next() {
    if (index_ == w_->size()) return nullptr;
    current_ = w_->at(index_++);
    return &current_;
  }

 private:
  const collective_sweep_workload* w_;
  std::uint64_t index_ = 0;
  record current_;
};

inline record_stream<collective_sweep_source> collective_sweep_workload::records() const& {
  return record_stream<collective_sweep_source>(collective_sweep_source(*this));
}

AICB_END_NAMESPACE
