// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The workload vocabulary: byte counts, durations and one record with its three phases.
//! [vocabulary]
#include <aicb/aicb.hpp>

#include <cstdio>
#include <string>

int main() {
  using namespace aicb::literals;

  // A tensor-parallel row-linear layer with sequence parallelism: its forward output is
  // reduce-scattered over the TP group, its input gradient all-gathered back.
  const aicb::record row{
      .name = "attention_row",
      .forward = {.compute = 910'000ns,
                  .comm = {aicb::collective::reduce_scatter, aicb::comm_group::tp, 16_MiB}},
      .input_grad = {.compute = 910'000ns,
                     .comm = {aicb::collective::all_gather, aicb::comm_group::tp, 16_MiB}},
      .weight_grad = {.compute = 910'000ns},
      .update = 100ns};

  for (const auto& [label, phase] :
       {std::pair{"forward", &row.forward}, std::pair{"input_grad", &row.input_grad},
        std::pair{"weight_grad", &row.weight_grad}}) {
    std::printf("%-11s %8lld ns  %-14s %-3s %s\n", label, static_cast<long long>(phase->compute.count()),
                std::string(aicb::to_string(phase->comm.kind)).c_str(),
                phase->comm.active() ? std::string(aicb::to_string(phase->comm.group)).c_str() : "-",
                aicb::to_iec_string(phase->comm.size).c_str());
  }
}
//! [vocabulary]
