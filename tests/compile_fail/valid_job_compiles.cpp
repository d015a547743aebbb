// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The control: the same kind of constant job, valid, compiles — so the failures above are the rules'.
// expect: compiles
#include <aicb/model/job.hpp>
#include <aicb/model/presets.hpp>

constexpr auto job = aicb::checked_job<aicb::job_spec{
    aicb::presets::mixtral_8x7b,
    {.world_size = 16, .tensor_parallel = 2, .expert_parallel = 8, .sequence_parallel = true},
    {}}>;
static_assert(aicb::validate(job));
