// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The umbrella header: everything aicb offers, in one include.
///
/// ```cpp
/// #include <aicb/aicb.hpp>
/// ```
///
/// It is also the root of the generated single header (`single_include/aicb/aicb.hpp`), which
/// keeps this include path, so the same `#include` works with either tree.
///
/// Compile-time-sensitive code should include the fine-grained headers instead: `docs/headers.md`
/// lists what each provides and what it costs to compile. The CUDA headers (`cuda/`) are never
/// included from here.

#include <aicb/checked.hpp>
#include <aicb/concepts.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/fwd.hpp>
#include <aicb/units/bytes.hpp>
#include <aicb/units/duration.hpp>
#include <aicb/units/rate.hpp>
#include <aicb/version.hpp>
#include <aicb/workload/collective.hpp>
#include <aicb/workload/csv_item.hpp>
#include <aicb/workload/group.hpp>
#include <aicb/workload/record.hpp>

// Describe: models, layouts, presets, Hugging Face import, calculators.
#include <aicb/calc/flops.hpp>
#include <aicb/calc/memory.hpp>
#include <aicb/calc/params.hpp>
#include <aicb/calc/report.hpp>

// Time: compute models and AIOB profiles.
#include <aicb/calc/traffic.hpp>
#include <aicb/compute/aiob_model.hpp>
#include <aicb/compute/aiob_profile.hpp>
#include <aicb/compute/gpu.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/compute/profiling.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/compute/timing_stats.hpp>
#include <aicb/dtype.hpp>
#include <aicb/io/aicb_csv.hpp>
#include <aicb/io/aicb_csv_reader.hpp>
#include <aicb/io/aiob_reader.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/model/compute_op.hpp>

// Generate and emit: workloads for simulators.
#include <aicb/compat/aicb_args.hpp>
#include <aicb/compat/aicb_simai.hpp>
#include <aicb/compat/megatron_csv.hpp>
#include <aicb/generate/collective_bench.hpp>
#include <aicb/generate/csv_projection.hpp>
#include <aicb/generate/deepspeed.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/io/json_writer.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/io/simai_lint.hpp>
#include <aicb/io/simai_reader.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/model/batch.hpp>
#include <aicb/model/fixed_string.hpp>
#include <aicb/model/hf_config.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/job_request.hpp>
#include <aicb/model/options.hpp>
#include <aicb/model/parallel.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/model/reflect.hpp>
#include <aicb/model/sizing.hpp>
#include <aicb/model/spec.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/job_check.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/schedule/pipeline.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/workload/record_stream.hpp>
