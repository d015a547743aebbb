// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The opt-in header for what reads input: SimAI workloads (reader and lint), AIOB profiles, aicb
/// CSV files, Hugging Face `config.json` files, and job requests that may name one.
///
/// ```cpp
/// #include <aicb/aicb.hpp>
/// #include <aicb/readers.hpp>
///
/// aicb::simai_reader in("workload.txt");
/// for (const aicb::record& r : in.records()) ...   // parse_error (file:line:col) on a bad record
/// ```
///
/// These parse with Spirit X3 (the SimAI and AIOB grammars) and nlohmann-json (config.json), which
/// cost seconds to compile; `<aicb/aicb.hpp>` leaves them out so that programs which only generate
/// do not pay for them. `<aicb/all.hpp>` includes both.

#include <aicb/calc/job_request.hpp>
#include <aicb/io/aicb_csv_reader.hpp>
#include <aicb/io/aiob_reader.hpp>
#include <aicb/io/cluster_file.hpp>
#include <aicb/io/request_trace.hpp>
#include <aicb/io/simai_lint.hpp>
#include <aicb/io/simai_reader.hpp>
#include <aicb/model/hf_config.hpp>
