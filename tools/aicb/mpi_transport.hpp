// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The CPU backend of `aicb run`: host buffers, MPI's collectives and point-to-point calls over one
// sub-communicator per group (MPI_Comm_split: color = the group's index in Megatron's enumeration,
// key = the global rank, so group ranks follow the ascending member lists). Counts are MPI ints:
// a buffer beyond 2^31 − 1 elements is refused by the executor's buffer limit first.
#pragma once

#include <aicb/run/replay.hpp>

#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace aicb_tool {

class mpi_transport final : public aicb::replay_transport {
 public:
  mpi_transport() {
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<std::uint64_t>(rank);
    world_ = static_cast<std::uint64_t>(size);
    // Errors come back as codes, so that a failure names the operation instead of MPI's handler
    // printing a generic message.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int* upper = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &upper, &found);
    if (found && upper && *upper > 0) tag_limit_ = static_cast<std::uint64_t>(*upper) + 1;
  }
  ~mpi_transport() override {
    for (auto& [kind, comm] : comms_)
      if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
  mpi_transport(const mpi_transport&) = delete;
  mpi_transport& operator=(const mpi_transport&) = delete;

  [[nodiscard]] std::uint64_t rank() const override { return rank_; }
  [[nodiscard]] std::uint64_t world() const override { return world_; }
  [[nodiscard]] std::string host_name() const override {
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    return std::string(name, static_cast<std::size_t>(std::max(length, 0)));
  }
  [[nodiscard]] std::string library() const override {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(text, &length);
    std::string version(text, static_cast<std::size_t>(std::max(length, 0)));
    const std::size_t end = version.find_first_of(",\n");  // "Open MPI v4.1.4, package: …"
    return version.substr(0, end);
  }

  void create_groups(const aicb::process_grid& grid, const std::vector<aicb::group_kind>& kinds) override {
    for (const aicb::group_kind kind : kinds) {
      if (const auto old = comms_.find(kind); old != comms_.end() && old->second != MPI_COMM_NULL)
        MPI_Comm_free(&old->second);  // a second replay in one launch (a calibration, then its job)
      const aicb::rank_group g = grid.group(kind, rank_);
      const int color = g.contains(rank_) ? static_cast<int>(g.id().index) : MPI_UNDEFINED;
      MPI_Comm comm = MPI_COMM_NULL;
      check(MPI_Comm_split(MPI_COMM_WORLD, color, static_cast<int>(rank_), &comm), "MPI_Comm_split");
      if (comm != MPI_COMM_NULL) MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
      comms_[kind] = comm;
    }
  }

  [[nodiscard]] buffer allocate(std::uint64_t elements) override {
    buffers_.emplace_back(elements, aicb::replay_element{0});
    return buffers_.size() - 1;
  }
  void write(buffer b, std::span<const aicb::replay_element> host) override {
    std::copy_n(host.begin(), std::min(host.size(), buffers_[b].size()), buffers_[b].begin());
  }
  void read(buffer b, std::span<aicb::replay_element> host) override {
    std::copy_n(buffers_[b].begin(), std::min(host.size(), buffers_[b].size()), host.begin());
  }

  double run_collective(aicb::collective kind, aicb::group_id group, std::uint64_t n, buffer data, buffer out,
                        std::uint64_t elements) override {
    MPI_Comm comm = comms_.at(group.kind);
    aicb::replay_element* d = buffers_[data].data();
    aicb::replay_element* o = buffers_[out].data();
    const int count = static_cast<int>(elements), shard = static_cast<int>(n ? elements / n : elements);
    const auto start = std::chrono::steady_clock::now();
    int rc = MPI_SUCCESS;
    switch (kind) {
      case aicb::collective::all_reduce:
        rc = MPI_Allreduce(MPI_IN_PLACE, d, count, MPI_UINT16_T, MPI_SUM, comm);
        break;
      case aicb::collective::all_gather:
        rc = MPI_Allgather(MPI_IN_PLACE, 0, MPI_UINT16_T, d, shard, MPI_UINT16_T, comm);
        break;
      case aicb::collective::reduce_scatter:
        rc = MPI_Reduce_scatter_block(d, o, shard, MPI_UINT16_T, MPI_SUM, comm);
        break;
      case aicb::collective::all_to_all:
        rc = MPI_Alltoall(d, shard, MPI_UINT16_T, o, shard, MPI_UINT16_T, comm);
        break;
      case aicb::collective::broadcast:
        rc = MPI_Bcast(d, count, MPI_UINT16_T, 0, comm);
        break;
      case aicb::collective::reduce:
        rc = MPI_Reduce(MPI_IN_PLACE, d, count, MPI_UINT16_T, MPI_SUM, 0, comm);
        break;
      case aicb::collective::barrier:
        rc = MPI_Barrier(comm);
        break;
      default:
        throw aicb::config_error("collective", std::string(aicb::to_string(kind)),
                                 "not a collective the replay runs");
    }
    check(rc, std::string(aicb::to_string(kind)).c_str());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  double run_all_to_all_v(aicb::group_id group, std::uint64_t n, buffer data, buffer out,
                          std::span<const std::uint64_t> send_counts,
                          std::span<const std::uint64_t> receive_counts) override {
    MPI_Comm comm = comms_.at(group.kind);
    std::vector<int> sent(n), sent_at(n), received(n), received_at(n);
    for (std::uint64_t q = 0, s = 0, r = 0; q < n; s += send_counts[q], r += receive_counts[q], ++q) {
      sent[q] = static_cast<int>(send_counts[q]);
      sent_at[q] = static_cast<int>(s);
      received[q] = static_cast<int>(receive_counts[q]);
      received_at[q] = static_cast<int>(r);
    }
    const auto start = std::chrono::steady_clock::now();
    check(MPI_Alltoallv(buffers_[data].data(), sent.data(), sent_at.data(), MPI_UINT16_T,
                        buffers_[out].data(), received.data(), received_at.data(), MPI_UINT16_T, comm),
          "all_to_all (uneven)");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  [[nodiscard]] request start_collective(aicb::collective kind, aicb::group_id group, std::uint64_t n,
                                         buffer data, buffer out, std::uint64_t elements) override {
    MPI_Comm comm = comms_.at(group.kind);
    aicb::replay_element* d = buffers_[data].data();
    aicb::replay_element* o = buffers_[out].data();
    const int count = static_cast<int>(elements), shard = static_cast<int>(n ? elements / n : elements);
    requests_.push_back(MPI_REQUEST_NULL);
    MPI_Request* r = &requests_.back();
    int rc = MPI_SUCCESS;
    switch (kind) {
      case aicb::collective::all_reduce:
        rc = MPI_Iallreduce(MPI_IN_PLACE, d, count, MPI_UINT16_T, MPI_SUM, comm, r);
        break;
      case aicb::collective::all_gather:
        rc = MPI_Iallgather(MPI_IN_PLACE, 0, MPI_UINT16_T, d, shard, MPI_UINT16_T, comm, r);
        break;
      case aicb::collective::reduce_scatter:
        rc = MPI_Ireduce_scatter_block(d, o, shard, MPI_UINT16_T, MPI_SUM, comm, r);
        break;
      case aicb::collective::all_to_all:
        rc = MPI_Ialltoall(d, shard, MPI_UINT16_T, o, shard, MPI_UINT16_T, comm, r);
        break;
      case aicb::collective::broadcast:
        rc = MPI_Ibcast(d, count, MPI_UINT16_T, 0, comm, r);
        break;
      default:
        requests_.pop_back();
        (void)run_collective(kind, group, n, data, out, elements);
        return completed;
    }
    check(rc, (std::string(aicb::to_string(kind)) + " (started)").c_str());
    return requests_.size() - 1;
  }

  [[nodiscard]] request start_send(std::uint64_t peer, std::uint64_t tag, buffer b,
                                   std::uint64_t elements) override {
    requests_.push_back(MPI_REQUEST_NULL);
    check(MPI_Isend(buffers_[b].data(), static_cast<int>(elements), MPI_UINT16_T, static_cast<int>(peer),
                    mpi_tag(tag), MPI_COMM_WORLD, &requests_.back()),
          "MPI_Isend");
    return requests_.size() - 1;
  }
  [[nodiscard]] request start_receive(std::uint64_t peer, std::uint64_t tag, buffer b,
                                      std::uint64_t elements) override {
    requests_.push_back(MPI_REQUEST_NULL);
    check(MPI_Irecv(buffers_[b].data(), static_cast<int>(elements), MPI_UINT16_T, static_cast<int>(peer),
                    mpi_tag(tag), MPI_COMM_WORLD, &requests_.back()),
          "MPI_Irecv");
    return requests_.size() - 1;
  }
  void finish(request r) override {
    check(MPI_Wait(&requests_[r], MPI_STATUS_IGNORE), "MPI_Wait");
    // Requests are numbered per iteration; the list empties once every one started has been finished
    // (not merely completed: compute() completes some while the executor still holds their numbers).
    if (++finished_ == requests_.size()) {
      requests_.clear();
      finished_ = 0;
    }
  }

  // A busy wait: the CPU is "the GPU". Requests in flight (started collectives, transfers) are tested
  // as it waits: MPI progresses non-blocking operations only inside its calls, so communication runs
  // beside this computation as NCCL's would beside a kernel.
  double compute(std::chrono::nanoseconds duration) override {
    const auto start = std::chrono::steady_clock::now();
    int flag = 0;
    while (std::chrono::steady_clock::now() - start < duration)
      if (!requests_.empty())
        MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  [[nodiscard]] std::vector<double> all_gather(double value) override {
    std::vector<double> all(world_);
    check(MPI_Allgather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD), "MPI_Allgather");
    return all;
  }
  void max_over_ranks(std::span<double> values) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  [[nodiscard]] std::vector<std::vector<double>> gather_to_first(std::span<const double> values) override {
    int count = static_cast<int>(values.size());
    std::vector<int> counts(rank_ == 0 ? world_ : 0), offsets(counts.size());
    check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    int total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = total;
      total += counts[r];
    }
    std::vector<double> all(static_cast<std::size_t>(total));
    check(MPI_Gatherv(values.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
                      0, MPI_COMM_WORLD),
          "MPI_Gatherv");
    std::vector<std::vector<double>> by_rank(counts.size());
    for (std::size_t r = 0; r < counts.size(); ++r)
      by_rank[r].assign(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
    return by_rank;
  }
  [[noreturn]] void abort(const std::string& message) override {
    std::fprintf(stderr, "aicb: run: %s; ending the job\n", message.c_str());
    std::fflush(stderr);
    // From the watchdog thread MPI may not be called (MPI_THREAD_FUNNELED): a non-zero exit without
    // MPI_Finalize makes the launcher end every other rank.
    if (std::this_thread::get_id() != main_thread_) std::_Exit(3);
    MPI_Abort(MPI_COMM_WORLD, 3);
    std::_Exit(3);
  }

 private:
  // MPI tags are ints below MPI_TAG_UB (at least 2^15; OpenMPI's 2^31 − 1): aicb's tags, unique per
  // pair of ranks, reduced modulo that bound.
  int mpi_tag(std::uint64_t tag) const { return static_cast<int>(tag % tag_limit_); }
  void check(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    abort(std::string("rank ") + std::to_string(rank_) + ": " + what +
          " failed: " + std::string(text, length));
  }

  std::uint64_t rank_ = 0, world_ = 1, tag_limit_ = 32768;
  std::map<aicb::group_kind, MPI_Comm> comms_;
  std::vector<std::vector<aicb::replay_element>> buffers_;
  std::size_t finished_ = 0;  // requests finish() has completed since the list was last emptied
  std::vector<MPI_Request> requests_;
  std::thread::id main_thread_ = std::this_thread::get_id();
};

}  // namespace aicb_tool
