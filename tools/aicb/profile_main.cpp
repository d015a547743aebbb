// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// aicb-profile: the CUDA half of `aicb profile` (profile_command.hpp), a separate program so that only
// it loads the CUDA runtime and cuBLAS. Exit status: 0 success, 1 no GPU or a failed check, 2 usage.
#include "exit_status.hpp"
#include "profile_command.hpp"

#include <aicb/io/atomic_file.hpp>

#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
  aicb::remove_temporaries_on_signals();
  CLI::App app{std::string("aicb profile: ") + aicb_tool::profile_description, "aicb profile"};
  aicb_tool::profile_options options;
  aicb_tool::add_profile_options(app, options);
  if (const auto status = aicb_tool::parse_arguments(app, argc, argv)) return *status;
  return aicb_tool::run_reporting_errors([&] { return aicb_tool::run_profile(options); });
}
