// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A replay transport of one rank, in process, for the tests of the executor and of `aicb run`'s
// library calls: a group of one is the identity, every call is recorded, and it can corrupt data or
// report another rank's fingerprint to exercise the checks.
#pragma once

#include <aicb/run/replay.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace aicb_test {

// One rank: a group of one is the identity (reduce-scatter and all-to-all copy to `out`).
class loopback final : public aicb::replay_transport {
 public:
  std::vector<std::vector<aicb::replay_element>> buffers;
  std::vector<std::string> calls;
  std::vector<double> others;  // fingerprint halves reported for a second rank (empty: one rank)
  bool corrupt = false;
  bool log_compute = false;   // record computations among the calls
  std::uint64_t started = 0;  // collectives started without waiting (start_collective)
  double compute_seconds = 0;

  [[nodiscard]] std::uint64_t rank() const override { return 0; }
  [[nodiscard]] std::uint64_t world() const override { return 1; }
  void create_groups(const aicb::process_grid&, const std::vector<aicb::group_kind>& kinds) override {
    for (const auto k : kinds)
      calls.push_back("group " + std::string(aicb::to_string(k)));
  }
  [[nodiscard]] buffer allocate(std::uint64_t elements) override {
    buffers.emplace_back(elements);
    return buffers.size() - 1;
  }
  void write(buffer b, std::span<const aicb::replay_element> host) override {
    std::copy_n(host.begin(), std::min(host.size(), buffers[b].size()), buffers[b].begin());
  }
  void read(buffer b, std::span<aicb::replay_element> host) override {
    std::copy_n(buffers[b].begin(), std::min(host.size(), buffers[b].size()), host.begin());
  }
  double run_collective(aicb::collective kind, aicb::group_id, std::uint64_t, buffer data, buffer out,
                        std::uint64_t elements) override {
    calls.emplace_back(aicb::to_string(kind));
    if (kind == aicb::collective::reduce_scatter || kind == aicb::collective::all_to_all)
      std::copy_n(buffers[data].begin(), elements, buffers[out].begin());
    if (corrupt && elements > 0) buffers[data][0] ^= 1, buffers[out][0] ^= 1;
    return 1e-6;
  }
  [[nodiscard]] request start_send(std::uint64_t, std::uint64_t, buffer, std::uint64_t) override { return 0; }
  [[nodiscard]] request start_receive(std::uint64_t, std::uint64_t, buffer, std::uint64_t) override {
    return 0;
  }
  [[nodiscard]] request start_collective(aicb::collective kind, aicb::group_id group, std::uint64_t n,
                                         buffer data, buffer out, std::uint64_t elements) override {
    (void)run_collective(kind, group, n, data, out, elements);
    calls.back() = "start " + calls.back();
    return 1000 + started++;
  }
  void finish(request r) override {
    if (r >= 1000) calls.push_back("finish " + std::to_string(r - 1000));
  }
  double compute(std::chrono::nanoseconds d) override {
    if (log_compute) calls.emplace_back("compute");
    compute_seconds += static_cast<double>(d.count()) * 1e-9;
    return static_cast<double>(d.count()) * 1e-9;
  }
  void barrier() override {}
  [[nodiscard]] std::vector<double> all_gather(double value) override {
    std::vector<double> all{value};
    if (!others.empty()) all.push_back(others[all_gathers++ % others.size()]);
    return all;
  }
  void max_over_ranks(std::span<double>) override {}
  [[nodiscard]] std::vector<std::vector<double>> gather_to_first(std::span<const double> values) override {
    return {std::vector<double>(values.begin(), values.end())};
  }
  [[noreturn]] void abort(const std::string& message) override {
    FAIL(message);
    std::abort();
  }

 private:
  std::size_t all_gathers = 0;
};

}  // namespace aicb_test
