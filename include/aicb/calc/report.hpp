// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The description of a job — resolved descriptors, derived layout, parameters, FLOPs, memory and
/// communication — computed once (describe_job). <aicb/calc/report_format.hpp> renders it as a
/// readable table (format_description) or JSON (to_json): what `aicb describe` prints.

#include <aicb/calc/flops.hpp>
#include <aicb/calc/memory.hpp>
#include <aicb/calc/params.hpp>
#include <aicb/calc/traffic.hpp>
#include <aicb/config.hpp>
#include <aicb/model/job.hpp>
#include <aicb/units/bytes.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

AICB_BEGIN_NAMESPACE

/// What one GPU of a pipeline stage holds, needs and sends.
struct stage_report {
  std::uint64_t stage = 0;
  std::uint64_t layers = 0;
  shard_params params;
  memory_estimate memory;
  traffic comm;
};

/// Everything aicb computes about a job.
struct job_report {
  job_spec job;  ///< as given, with the model's defaults resolved
  std::uint64_t data_parallel = 0, expert_tensor_parallel = 0, expert_data_parallel = 0;
  std::uint64_t global_batch = 0, microbatches = 0, padded_vocab = 0, tokens_per_iteration = 0;
  param_counts params;
  flop_counts flops;
  std::vector<stage_report> stages;
};

/// Computes the report of `job`, after validating it (config_error on a broken rule).
[[nodiscard]] inline job_report describe_job(const job_spec& input) {
  validate_training(input);
  job_report r;
  r.job = input;
  r.job.model = resolve(input.model);
  const job_spec& job = r.job;
  r.data_parallel = data_parallel(job);
  r.expert_tensor_parallel = expert_tensor_parallel(job);
  r.expert_data_parallel = expert_data_parallel(job);
  r.global_batch = global_batch(job);
  r.microbatches = microbatches(job);
  r.padded_vocab = padded_vocab(job);
  r.tokens_per_iteration = r.global_batch * job.batch.seq_length;
  r.params = count_params(job.model, job.batch.seq_length);
  r.flops = training_flops(job);
  for (std::uint64_t s = 0; s < job.parallel.pipeline_parallel; ++s)
    r.stages.push_back(
        {s, stage_layers(job, s), params_on_gpu(job, s), memory_per_gpu(job, s), comm_volume(job, s)});
  return r;
}

AICB_END_NAMESPACE
