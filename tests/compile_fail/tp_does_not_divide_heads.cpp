// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A constant job whose tensor-parallel size (5) does not divide its 48 heads does not compile, and
// the compiler's notes carry the rule.
// expect-error: tensor_parallel must divide num_attention_heads
// expect-error: non-constant condition for static assertion
#include <aicb/model/job.hpp>

constexpr aicb::model_spec model{
    .hidden_size = 6144, .num_layers = 40, .num_attention_heads = 48, .vocab_size = 50257};
constexpr aicb::job_spec job{model, {.world_size = 40, .tensor_parallel = 5}, {}};
static_assert(aicb::validate(job));
