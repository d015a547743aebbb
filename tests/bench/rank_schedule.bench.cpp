// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Benchmark (not a test): streams one rank's schedule and checks the whole job, for Llama-3-70B on
// 4096 GPUs (TP 8, PP 8, VPP 2, DP 64, 64 micro batches). Run by scripts/bench-schedule.sh.
#include <aicb/model/presets.hpp>
#include <aicb/schedule/job_check.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

int main() {
  const aicb::job_spec job{aicb::presets::llama3_70b,
                           {.world_size = 4096,
                            .tensor_parallel = 8,
                            .pipeline_parallel = 8,
                            .virtual_pipeline = 2,
                            .sequence_parallel = true,
                            .distributed_optimizer = true},
                           {.micro_batch = 1, .global_batch = 4096, .seq_length = 8192}};
  using clock = std::chrono::steady_clock;
  std::vector<double> ms;
  std::uint64_t operations = 0;
  for (int run = 0; run < 20; ++run) {
    const auto start = clock::now();
    std::uint64_t n = 0;
    for (const aicb::operation& op : aicb::rank_schedule(job, 4095))
      n += op.index == n ? 1 : 0;
    ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - start).count());
    operations = n;
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "one rank (4095, the last stage): %llu operations, median %.2f ms (min %.2f, max %.2f) of 20 runs\n",
      static_cast<unsigned long long>(operations), ms[ms.size() / 2], ms.front(), ms.back());
  const auto start = clock::now();
  const aicb::job_check r = aicb::check_job(job);
  const double seconds = std::chrono::duration<double>(clock::now() - start).count();
  std::printf("whole-job check: %s in %.1f s (%llu ranks streamed, %llu run jointly)\n",
              r.ok ? "ok" : "FAILED", seconds, static_cast<unsigned long long>(r.ranks_streamed),
              static_cast<unsigned long long>(r.ranks_run));
  return r.ok ? 0 : 1;
}
