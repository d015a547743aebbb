// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A parallel layout fixed at compile time as a type, and two jobs compared field by field.
#include <aicb/model/presets.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/model/strategy.hpp>

#include <cstdio>

//! [fixed_layout]
// Mixtral 8x7B on 256 GPUs: TP 8 with sequence parallelism, PP 4, EP 8; data parallelism takes the rest.
// A layout that could not run the model (EP 3 over 8 experts, TP 8 twice) would not compile.
using layout = aicb::parallel_strategy<aicb::tp<8>, aicb::pp<4>, aicb::ep<8>, aicb::sp>;
constexpr aicb::job_spec job = layout::job<aicb::presets::mixtral_8x7b, 256>;
static_assert(aicb::data_parallel(job) == 8);
//! [fixed_layout]

int main() {
  //! [differences]
  // The same job on a layout with twice the pipeline stages and a longer sequence.
  aicb::job_spec longer = job;
  longer.parallel.pipeline_parallel = 8;
  longer.batch.seq_length = 8192;
  for (const aicb::field_difference& d : aicb::differences(job, longer))
    std::printf("%s: %s -> %s\n", d.field.c_str(), d.before.c_str(), d.after.c_str());
  //! [differences]
}
