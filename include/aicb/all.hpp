// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Everything: the umbrella `<aicb/aicb.hpp>`, the readers of `<aicb/readers.hpp>`, aicb compatibility
/// (`<aicb/compat.hpp>`), the replay executor behind `aicb run` (`<aicb/run/replay.hpp>`), and the tool's
/// subcommands as functions (`<aicb/commands/generate.hpp>`, `<aicb/commands/describe.hpp>`).
///
/// ```cpp
/// #include <aicb/all.hpp>
/// ```
///
/// The generated single header (`single_include/aicb/aicb.hpp`) is built from this file, so the one
/// vendored file holds the whole library under the umbrella's include path.

#include <aicb/aicb.hpp>
#include <aicb/commands/deepspeed.hpp>
#include <aicb/commands/describe.hpp>
#include <aicb/commands/describe_serving.hpp>
#include <aicb/commands/generate.hpp>
#include <aicb/commands/inference.hpp>
#include <aicb/commands/job_set.hpp>
#include <aicb/commands/micro.hpp>
#include <aicb/commands/run.hpp>
#include <aicb/commands/serve.hpp>
#include <aicb/commands/written.hpp>
#include <aicb/compat.hpp>
#include <aicb/compat/aicb_inference_config.hpp>
#include <aicb/readers.hpp>
#include <aicb/run/replay.hpp>
#include <aicb/run/saved_workload.hpp>
