// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// aicb-profile: the CUDA half of `aicb profile` (profile_command.hpp), a separate program so that only
// it loads the CUDA runtime and cuBLAS. Exit status: 0 success, 1 no GPU or a failed check, 2 usage.
#include "profile_command.hpp"

#include <aicb/error.hpp>

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{std::string("aicb profile: ") + aicb_tool::profile_description, "aicb profile"};
  aicb_tool::profile_options options;
  aicb_tool::add_profile_options(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : 2;
  }
  try {
    return aicb_tool::run_profile(options);
  } catch (const aicb::config_error& e) {
    std::cerr << "aicb: configuration error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "aicb: profile: error: " << e.what() << '\n';
    return 1;
  }
}
