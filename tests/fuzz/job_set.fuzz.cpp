// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for job set documents (aicb.jobs/1): any input must either place its jobs or throw
// aicb::error (never another exception, a crash or undefined behaviour); a set that places must hold
// every GPU at most once, each job on exactly its world size of GPUs.
#include <aicb/compute/job_set.hpp>
#include <aicb/io/job_set_reader.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const aicb::job_set set = aicb::parse_job_set(text, "fuzz");
    if (set.gpus > (1u << 16)) return 0;  // a cluster this large costs memory, not coverage
    const aicb::placed_job_set placed = aicb::place_jobs(set);
    std::uint64_t held = 0;
    for (std::size_t k = 0; k < placed.jobs.size(); ++k) {
      const aicb::placed_job& j = placed.jobs[k];
      if (j.gpus.size() != j.job.parallel.world_size) __builtin_trap();
      for (std::uint64_t r = 0; r < j.gpus.size(); ++r) {
        const auto h = placed.held(j.gpus[r]);
        if (!h || h->job != k || h->rank != r) __builtin_trap();
      }
      held += j.gpus.size();
    }
    if (held + placed.idle_gpus() != placed.gpus) __builtin_trap();
  } catch (const aicb::error&) {
    // Rejected with a message: the expected outcome for malformed input.
  }
  return 0;
}
