// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A constant MoE job through checked_job: 3-way expert parallelism cannot split 8 experts.
// expect-error: expert_parallel must divide num_experts
#include <aicb/model/job.hpp>
#include <aicb/model/presets.hpp>

constexpr auto job = aicb::checked_job<aicb::job_spec{
    aicb::presets::mixtral_8x7b, {.world_size = 24, .expert_parallel = 3}, {}}>;
