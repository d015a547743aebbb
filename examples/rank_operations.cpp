// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// What one rank of a job does in an iteration: its operations streamed in order, and the bytes it
// moves over each of its process groups — the loop a simulator runs over any rank.
//! [rank_operations]
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <cstdio>
#include <map>
#include <string>

int main() {
  // Llama-2-7B on 64 GPUs: TP 4 with sequence parallelism, PP 4 interleaved over 2 chunks per stage.
  const aicb::job_spec job{aicb::presets::llama2_7b,
                           {.world_size = 64,
                            .tensor_parallel = 4,
                            .pipeline_parallel = 4,
                            .virtual_pipeline = 2,
                            .sequence_parallel = true,
                            .distributed_optimizer = true},
                           {.micro_batch = 1, .global_batch = 32, .seq_length = 4096}};

  std::map<std::string, std::uint64_t> bytes_by_group;  // collectives: per group, the whole buffers
  std::uint64_t operations = 0, computations = 0, sent = 0, received = 0;
  for (const aicb::operation& op : aicb::rank_schedule(job, /*rank=*/21)) {  // lazily, one at a time
    ++operations;
    switch (op.type) {
      case aicb::op_type::compute:
        ++computations;
        break;
      case aicb::op_type::collective:
        bytes_by_group[aicb::to_string(op.group)] += op.size.count();
        break;
      case aicb::op_type::send:
        sent += op.size.count();
        break;
      case aicb::op_type::recv:
        received += op.size.count();
        break;
    }
  }
  std::printf("rank 21: %llu operations, %llu computations\n", static_cast<unsigned long long>(operations),
              static_cast<unsigned long long>(computations));
  for (const auto& [group, n] : bytes_by_group)
    std::printf("  %-10s %14llu bytes in collectives\n", group.c_str(), static_cast<unsigned long long>(n));
  std::printf("  pipeline   %14llu bytes sent, %llu received\n", static_cast<unsigned long long>(sent),
              static_cast<unsigned long long>(received));
}
//! [rank_operations]
