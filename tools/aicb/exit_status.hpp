// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Exit status of the aicb programs: 0 success, 1 runtime failure, 2 usage or configuration error —
// each failure with one line on stderr.
#pragma once

#include <aicb/error.hpp>

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <optional>

namespace aicb_tool {

/// Parses the command line; for --help or a usage error, the status to exit with.
inline std::optional<int> parse_arguments(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : 2;
  }
  return std::nullopt;
}

/// Runs a command, turning its exceptions into the exit status and a message.
template <class Run>
int run_reporting_errors(Run&& run) {
  try {
    return run();
  } catch (const aicb::config_error& e) {
    std::cerr << "aicb: configuration error: " << e.what() << '\n';
    return 2;
  } catch (const aicb::parse_error& e) {
    std::cerr << "aicb: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "aicb: error: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace aicb_tool
