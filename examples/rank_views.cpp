// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// One rank's operations through range-v3 views: the collectives of one micro batch, by group — a
// projection written as a pipeline over the lazy stream. The schedule is a view: a temporary piped
// into adaptors is owned by the pipeline.
//! [rank_views]
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/schedule/views.hpp>

#include <cstdio>
#include <map>
#include <string>

int main() {
  const aicb::job_spec job{
      aicb::presets::llama2_7b,
      {.world_size = 16, .tensor_parallel = 4, .pipeline_parallel = 2, .sequence_parallel = true},
      {.micro_batch = 1, .global_batch = 8, .seq_length = 4096}};
  std::map<std::string, std::uint64_t> bytes;
  std::uint64_t n = 0;
  // Rank 8, the first rank of the last stage: its collectives of micro batch 0.
  for (const aicb::operation& op :
       aicb::rank_schedule(job, /*rank=*/8) | aicb::views::collectives | aicb::views::in_microbatch(0)) {
    bytes[std::string(aicb::to_string(op.group.kind))] += op.size.count();
    ++n;
  }
  std::printf("micro batch 0 of rank 8: %llu collectives\n", static_cast<unsigned long long>(n));
  for (const auto& [group, b] : bytes)
    std::printf("  %-4s %12llu bytes\n", group.c_str(), static_cast<unsigned long long>(b));
}
//! [rank_views]
