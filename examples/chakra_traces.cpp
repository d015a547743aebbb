// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Chakra execution traces of every rank of a job, for ASTRA-sim; one of them read back.
//! [chakra_traces]
#include <aicb/compute/roofline.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/model/presets.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

int main() {
  aicb::job_spec job{
      aicb::presets::llama3_8b,
      {.world_size = 8, .tensor_parallel = 2, .pipeline_parallel = 2, .sequence_parallel = true},
      {.micro_batch = 1, .global_batch = 8, .seq_length = 4096}};
  const aicb::roofline_model gpu("H100");

  // traces/workload.<rank>.et, traces/comm_groups.json, traces/manifest.json — all or nothing.
  const aicb::chakra_set_result set = aicb::write_chakra_set("traces", job, gpu);
  std::printf("%llu traces, %llu nodes, %llu communicator groups\n",
              static_cast<unsigned long long>(set.files), static_cast<unsigned long long>(set.nodes),
              static_cast<unsigned long long>(set.groups));

  std::ifstream file("traces/workload.5.et", std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  const aicb::chakra_trace rank5 = aicb::read_chakra_trace(bytes.str(), "traces/workload.5.et");
  for (const aicb::chakra_node& node : rank5.nodes)
    if (node.type == aicb::chakra_node_type::collective) {  // its first collective
      std::printf("rank 5, node %llu: %s, comm_size %llu in group %s\n",
                  static_cast<unsigned long long>(node.id), node.name.c_str(),
                  static_cast<unsigned long long>(node.attr("comm_size")->number),
                  node.attr("pg_name")->text.c_str());
      break;
    }
}
//! [chakra_traces]
