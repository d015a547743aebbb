// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A layout fixed at compile time as a type (aicb::parallel_strategy) that cannot run the model — EP 3
// over Mixtral's 8 experts — is a compile error whose notes carry the rule.
// expect-error: expert_parallel must divide num_experts
// expect-error: non-constant condition for static assertion
#include <aicb/model/presets.hpp>
#include <aicb/model/strategy.hpp>

using layout = aicb::parallel_strategy<aicb::tp<2>, aicb::ep<3>, aicb::sp>;
static_assert(layout::job<aicb::presets::mixtral_8x7b, 48>.parallel.expert_parallel == 3);
