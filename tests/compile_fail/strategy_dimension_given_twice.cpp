// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A parallel_strategy that names one dimension twice (TP 2 and TP 4) does not compile, and its
// static_assert says which rule it broke.
// expect-error: each dimension of a parallel_strategy is given once
#include <aicb/model/presets.hpp>
#include <aicb/model/strategy.hpp>

using layout = aicb::parallel_strategy<aicb::tp<2>, aicb::pp<2>, aicb::tp<4>>;
static_assert(layout::job<aicb::presets::llama2_7b, 16>.parallel.tensor_parallel == 2);
