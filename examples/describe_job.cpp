// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A model defined once, at compile time, checked against a parallel layout, then described.
//! [describe_job]
#include <aicb/calc/params.hpp>
#include <aicb/calc/report.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/presets.hpp>

#include <cstdio>

// A 15B LLaMA-style model by its dimensions. Any rule it broke would be a compile error here.
constexpr aicb::model_spec my_15b =
    aicb::checked_model<aicb::model_spec{.name = "my-15b",
                                         .hidden_size = 5120,
                                         .num_layers = 50,
                                         .num_attention_heads = 40,
                                         .num_kv_heads = 8,
                                         .ffn_hidden_size = 13824,
                                         .vocab_size = 128256,
                                         .activation = aicb::activation_kind::swiglu,
                                         .norm = aicb::norm_kind::rmsnorm,
                                         .position = aicb::position_kind::rope}>;

// The job: 64 GPUs, TP 8 with sequence parallelism, PP 2; 512 sequences of 4096 tokens.
constexpr aicb::job_spec job = aicb::checked_job<aicb::job_spec{
    my_15b,
    {.world_size = 64, .tensor_parallel = 8, .pipeline_parallel = 2, .sequence_parallel = true},
    {.micro_batch = 1, .global_batch = 512, .seq_length = 4096}}>;

static_assert(aicb::data_parallel(job) == 4 && aicb::microbatches(job) == 128);

int main() {
  const aicb::job_report report = aicb::describe_job(job);
  std::printf("%s: %llu parameters, %llu per GPU on stage 0\n", job.model.name.view().data(),
              static_cast<unsigned long long>(report.params.total()),
              static_cast<unsigned long long>(report.stages[0].params.total()));
  std::printf("memory per GPU, stage 0: %s\n", aicb::to_iec_string(report.stages[0].memory.total()).c_str());
}
//! [describe_job]
