// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The umbrella header: describe jobs, schedule every rank, time compute, generate and write
/// workloads.
///
/// ```cpp
/// #include <aicb/aicb.hpp>
/// ```
///
/// Four headers sit around it (docs/headers.md lists what each costs to compile):
/// - `<aicb/core.hpp>`, the light part it starts with: descriptors, presets and calculators;
/// - `<aicb/readers.hpp>`, opt-in: the readers of SimAI, AIOB, CSV and Hugging Face files, SimAI
///   lint, and job requests that name a config.json (Spirit X3 and nlohmann-json live there);
/// - `<aicb/compat.hpp>`, opt-in: aicb's generators reproduced byte for byte, and its flag set;
/// - `<aicb/all.hpp>`: all of these and `commands/` (generate, describe) — the root of the generated single
/// header
///   (`single_include/aicb/aicb.hpp`), which keeps this include path, so the same `#include` works
///   with either tree.
///
/// The CUDA headers (`cuda/`) are never included from here.

// Describe: descriptors, presets, the rank grid, calculators.
#include <aicb/calc/report_format.hpp>
#include <aicb/core.hpp>
#include <aicb/model/reflect.hpp>

// Vocabulary of workloads.
#include <aicb/concepts.hpp>
#include <aicb/workload/bandwidth.hpp>
#include <aicb/workload/collective.hpp>
#include <aicb/workload/csv_item.hpp>
#include <aicb/workload/group.hpp>
#include <aicb/workload/record.hpp>
#include <aicb/workload/record_stream.hpp>

// Schedule: every rank's operations, lazily.
#include <aicb/schedule/inference_step.hpp>
#include <aicb/schedule/job_check.hpp>
#include <aicb/schedule/layer.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/schedule/pipeline.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/schedule/schedule_json.hpp>
#include <aicb/schedule/schedule_text.hpp>
#include <aicb/schedule/views.hpp>

// Time: compute models, AIOB profiles, what the profiler measures.
#include <aicb/compute/aiob_model.hpp>
#include <aicb/compute/aiob_profile.hpp>
#include <aicb/compute/cluster.hpp>
#include <aicb/compute/gpu.hpp>
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/layout_planner.hpp>
#include <aicb/compute/measured_network.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/compute/profiling.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/compute/serving_estimate.hpp>
#include <aicb/compute/serving_stream.hpp>
#include <aicb/compute/timing_stats.hpp>

// Write: formats and files that are never half-written.
#include <aicb/io/aicb_csv.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/io/protobuf_wire.hpp>
#include <aicb/io/serving_timeline.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/io/timeline_html.hpp>
#include <aicb/io/trace_events.hpp>
#include <aicb/io/workload_file.hpp>
#include <aicb/json_writer.hpp>

// Generate: the corrected workloads, projected from the per-rank graph; collective sweeps.
#include <aicb/generate/collective_bench.hpp>
#include <aicb/generate/csv_projection.hpp>
#include <aicb/generate/inference_projection.hpp>
#include <aicb/generate/simai_projection.hpp>
