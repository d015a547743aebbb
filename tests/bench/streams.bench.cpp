// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The library's streams, each walked to the end, for instruction counts (scripts/bench-instructions.sh
// runs it under callgrind, whose counts do not depend on what else the machine is doing):
//   rank      one rank of Llama-3-70B on 4096 GPUs (TP 8, PP 8, VPP 2), its schedule streamed 20 times
//   simai     the corrected SimAI records of a 7B job with gradient accumulation 32768 (TP 8 on 8 GPUs)
//   compat    the same job's records as aicb writes them (--compat aicb)
//   check     the whole-job check of Llama-3-70B on 512 GPUs (TP 8, PP 8, VPP 2)
// Uses only interfaces every version of the library since the views has: what it prints is a
// checksum, equal between versions that produce the same operations.
#include <aicb/compat/aicb_simai.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/schedule/job_check.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

aicb::job_spec llama3_70b(std::uint64_t gpus, std::uint64_t global_batch) {
  return {aicb::presets::llama3_70b,
          {.world_size = gpus,
           .tensor_parallel = 8,
           .pipeline_parallel = 8,
           .virtual_pipeline = 2,
           .sequence_parallel = true,
           .distributed_optimizer = true},
          {.micro_batch = 1, .global_batch = global_batch, .seq_length = 8192}};
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  std::uint64_t sum = 0;
  if (what == "rank") {
    const aicb::job_spec job = llama3_70b(4096, 4096);
    for (int run = 0; run < 20; ++run)
      for (const aicb::operation& op : aicb::rank_schedule(job, 4095))
        sum += op.index & 1;
  } else if (what == "simai") {
    const aicb::job_spec job{aicb::presets::llama2_7b,
                             {.world_size = 8, .tensor_parallel = 8},
                             {.micro_batch = 1, .global_batch = 32768, .seq_length = 4096}};
    const aicb::roofline_model h100("H100");
    const aicb::simai_projection w(job, h100);
    auto records = w.records();
    for (const aicb::record& r : records)
      sum += r.name.size();
  } else if (what == "compat") {
    aicb::aicb_args a;
    a.world_size = 8;
    a.tensor_model_parallel_size = 8;
    a.global_batch = 32768;
    a.num_layers = 32;
    a.hidden_size = 4096;
    a.num_attention_heads = 32;
    a.ffn_hidden_size = 11008;
    a.swiglu = true;
    a.seq_length = 4096;
    const aicb::aicb_workload w(a);
    auto records = w.records();
    for (const aicb::record& r : records)
      sum += r.name.size();
  } else if (what == "check") {
    const aicb::job_check r = aicb::check_job(llama3_70b(512, 128));
    sum = r.ok ? r.ranks_streamed : 0;
  } else {
    std::fprintf(stderr, "usage: streams rank | simai | compat | check\n");
    return 2;
  }
  std::printf("%llu\n", static_cast<unsigned long long>(sum));
}
