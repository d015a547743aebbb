// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The opt-in header for aicb compatibility: aicb's argument set and flags, and its generators
/// reproduced byte for byte — its SimAI text (aicb::aicb_workload), its Megatron / DeepSeek CSV
/// (aicb::megatron_csv_workload), its DeepSpeed ZeRO CSV (aicb::generate_deepspeed_csv) and its inference
/// SimAI text (aicb::aicb_inference_workload). The corrected
/// generators in `<aicb/aicb.hpp>` do not need it; docs/compatibility.md lists where the two differ.
///
/// ```cpp
/// #include <aicb/compat.hpp>
///
/// aicb::aicb_args args;            // aicb's defaults
/// args.world_size = 16;
/// args.tensor_model_parallel_size = 2;
/// const aicb::aicb_workload w(args);   // the file aicb writes, record for record
/// ```

#include <aicb/compat/aicb_args.hpp>
#include <aicb/compat/aicb_flags.hpp>
#include <aicb/compat/aicb_inference.hpp>
#include <aicb/compat/aicb_micro.hpp>
#include <aicb/compat/aicb_simai.hpp>
#include <aicb/compat/deepspeed_csv.hpp>
#include <aicb/compat/megatron_csv.hpp>
