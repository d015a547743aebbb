// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The control of the strategy cases: a layout that fits its model, as a type, compiles.
// expect: compiles
#include <aicb/model/presets.hpp>
#include <aicb/model/strategy.hpp>

using layout = aicb::parallel_strategy<aicb::tp<2>, aicb::ep<8>, aicb::sp>;
static_assert(layout::job<aicb::presets::mixtral_8x7b, 16>.parallel.expert_parallel == 8);
