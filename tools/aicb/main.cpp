// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The aicb command-line program. Exit status: 0 success, 1 runtime failure, 2 usage or
// configuration error.
#include <aicb/aicb.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>

namespace {

// Prints the workload vocabulary every generator and writer shares.
int run_info() {
  std::printf("aicb %s — LLM training workloads for cluster and network simulators\n\n", AICB_VERSION_STRING);
  std::printf("collectives:");
  for (aicb::collective c : aicb::all_collectives)
    std::printf(" %s", std::string(aicb::to_string(c)).c_str());
  std::printf("\ngroups:     ");
  for (aicb::comm_group g : aicb::all_comm_groups)
    std::printf(" %s", std::string(aicb::to_string(g)).c_str());
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"aicb: describe LLM training jobs and generate the workloads simulators consume", "aicb"};
  app.set_version_flag("--version", std::string("aicb ") + AICB_VERSION_STRING);
  app.require_subcommand(0, 1);
  auto* info = app.add_subcommand("info", "Show the version and the workload vocabulary");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : 2;
  }
  try {
    if (*info || app.get_subcommands().empty()) return run_info();
  } catch (const aicb::config_error& e) {
    std::cerr << "aicb: configuration error: " << e.what() << '\n';
    return 2;
  } catch (const aicb::parse_error& e) {
    std::cerr << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "aicb: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
