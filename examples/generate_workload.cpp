// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// What `aicb generate` does, from a program: the same request the command line makes from its flags
// (a model source, fields and aicb's own flags), written by the same library function — so the files
// are the command line's, byte for byte, sidecar included.
//! [generate_workload]
#include <aicb/commands/generate.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  const std::string folder = argc > 1 ? std::string(argv[1]) + "/" : std::string();
  // aicb generate -m llama3-8b --world_size 16 --tp 2 --sp --gbs 32 --seq 4096 -o llama.txt
  aicb::generate_request request;
  request.job.model = "llama3-8b";
  request.flags.set("world_size", "16");                  // aicb's own flag names …
  request.flags.set("tensor_model_parallel_size", "2");   // … (--tp is a spelling of this one)
  request.flags.set("enable_sequence_parallel", "true");  // a switch
  request.flags.set("global_batch", "32");
  request.job.fields = {{"seq_length", "4096"}};  // or any descriptor field by its name
  request.output = folder + "llama.txt";
  const aicb::generate_result simai = aicb::generate_workload(request);

  // The same job as aicb's CSV: every format is projected from the same job.
  request.format = aicb::workload_format::csv;
  request.output = folder + "llama.csv";
  const aicb::generate_result csv = aicb::generate_workload(request);

  std::printf("%s: %llu records, %llu micro batches, sidecar %s\n", simai.path.c_str() + folder.size(),
              static_cast<unsigned long long>(simai.written.records),
              static_cast<unsigned long long>(simai.header.ga), simai.sidecar ? "written" : "not written");
  std::printf("%s: %llu items for rank %llu (pipeline stage %llu)\n", csv.path.c_str() + folder.size(),
              static_cast<unsigned long long>(csv.items), static_cast<unsigned long long>(csv.rank),
              static_cast<unsigned long long>(csv.pipeline_stage));
  std::printf("job: %s, tensor parallel %llu, data parallel %llu\n",
              std::string(simai.job->model.name.view()).c_str(),
              static_cast<unsigned long long>(simai.job->parallel.tensor_parallel),
              static_cast<unsigned long long>(aicb::data_parallel(*simai.job)));
}
//! [generate_workload]
