// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A simulator author's loop: describe a job as a person would (a preset and a few fields), project
// it onto SimAI's records, iterate them — here to write the file `aicb generate` writes for the same
// job, byte for byte, and to sum what the representative rank communicates.
//! [write_simai]
#include <aicb/calc/job_request.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/io/simai_writer.hpp>

#include <cstdio>
#include <map>
#include <string>

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "llama3_8b_tp2.txt";
  // aicb generate -m llama3-8b --world-size 16 --tp 2 --sp --gbs 32 --seq 4096
  const aicb::job_request request{.model = "llama3-8b",
                                  .fields = {{"world_size", "16"},
                                             {"tensor_parallel", "2"},
                                             {"sequence_parallel", "true"},
                                             {"global_batch", "32"},
                                             {"seq_length", "4096"}}};
  const aicb::job_spec job = aicb::build_job(request).job;
  const aicb::roofline_model h100("H100");  // compute priced by FLOPs and bytes
  const aicb::simai_projection workload(job, h100);

  aicb::simai_writer out(path, workload.header(), workload.size());
  std::map<aicb::comm_group, std::uint64_t> bytes;    // per SimAI group, whole buffers
  for (const aicb::record& r : workload.records()) {  // lazily: prologue, then each micro batch
    out.write(r);
    for (const aicb::phase* p : {&r.forward, &r.input_grad, &r.weight_grad})
      if (p->comm.active()) bytes[p->comm.group] += p->comm.size.count();
  }
  out.finish();  // the file appears complete, or not at all

  std::printf("rank %llu: %llu records, %llu micro batches\n",
              static_cast<unsigned long long>(workload.rank()),
              static_cast<unsigned long long>(workload.size()),
              static_cast<unsigned long long>(workload.header().ga));
  for (const auto& [group, n] : bytes)
    std::printf("  %-3s %12llu bytes\n", std::string(aicb::to_string(group)).c_str(),
                static_cast<unsigned long long>(n));
}
//! [write_simai]
