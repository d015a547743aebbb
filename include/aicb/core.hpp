// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The light header: describe a job and compute what it costs, nothing else.
///
/// ```cpp
/// #include <aicb/core.hpp>
///
/// constexpr aicb::job_spec job{aicb::presets::llama2_7b,
///                              {.world_size = 64, .tensor_parallel = 2, .pipeline_parallel = 2},
///                              {.micro_batch = 1, .global_batch = 256, .seq_length = 4096}};
/// static_assert(aicb::validate(job));
/// const aicb::job_report report = aicb::describe_job(job);
/// std::printf("%llu parameters\n", static_cast<unsigned long long>(report.params.total()));
/// ```
///
/// Descriptors (model, parallelism, batch, job, layouts fixed at compile time) with their rules, the
/// presets and shapes by size, the rank grid and its groups, and the calculators. No schedules,
/// generators, formats or readers, no printing of reports (<aicb/calc/report_format.hpp>) and no
/// reflection (<aicb/model/reflect.hpp>), and none of range-v3, Spirit, nlohmann-json or Boost.Hana:
/// this is the header to include where a program only needs to reason about jobs (docs/headers.md
/// lists what it costs).

#include <aicb/calc/flops.hpp>
#include <aicb/calc/memory.hpp>
#include <aicb/calc/params.hpp>
#include <aicb/calc/report.hpp>
#include <aicb/calc/sizing.hpp>
#include <aicb/calc/traffic.hpp>
#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/error.hpp>
#include <aicb/fwd.hpp>
#include <aicb/model/batch.hpp>
#include <aicb/model/compute_op.hpp>
#include <aicb/model/fixed_string.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/options.hpp>
#include <aicb/model/parallel.hpp>
#include <aicb/model/pipeline_layout.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/model/recompute.hpp>
#include <aicb/model/requests.hpp>
#include <aicb/model/serving.hpp>
#include <aicb/model/spec.hpp>
#include <aicb/model/strategy.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/units/bytes.hpp>
#include <aicb/units/duration.hpp>
#include <aicb/units/rate.hpp>
#include <aicb/version.hpp>
