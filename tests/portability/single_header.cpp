// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The single header as a vendoring project takes it, compiled by another compiler (clang) than the
// suite's: a job, its description and one rank's schedule.
#include <aicb/aicb.hpp>

int main() {
  const aicb::job_spec job{
      aicb::presets::llama2_7b, {.world_size = 8, .tensor_parallel = 2}, {.global_batch = 8}};
  std::uint64_t operations = 0;
  for ([[maybe_unused]] const aicb::operation& op : aicb::rank_schedule(job, 0))
    ++operations;
  return operations > 0 && aicb::describe_job(job).params.total() > 0 ? 0 : 1;
}
