// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The aicb command-line program: thin — each subcommand (one source file each, see commands.hpp)
// parses its flags and calls the library.
// Exit status: 0 success, 1 runtime failure, 2 usage or configuration error.
#include "commands.hpp"
#include "exit_status.hpp"
#include "profile_command.hpp"

#include <aicb/io/atomic_file.hpp>
#include <aicb/version.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  aicb::remove_temporaries_on_signals();  // an interrupt leaves no half-written temporary behind
  std::string& command = aicb_tool::invoked_command();
  command = "aicb";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const bool quote = word.empty() || word.find_first_of(" \t'\"") != std::string::npos;
    command += " " + (quote ? "'" + word + "'" : word);
  }
  CLI::App app{"aicb: describe LLM training jobs and generate the workloads simulators consume", "aicb"};
  app.set_version_flag("--version", std::string("aicb ") + AICB_VERSION_STRING);
  app.require_subcommand(1);

  aicb_tool::action chosen;
  aicb_tool::add_models_command(app, chosen);
  aicb_tool::add_describe_command(app, chosen);
  aicb_tool::add_plan_command(app, chosen);
  aicb_tool::add_timeline_command(app, chosen);
  aicb_tool::add_generate_command(app, chosen);
  aicb_tool::add_deepspeed_command(app, chosen);
  aicb_tool::add_inference_command(app, chosen);
  aicb_tool::add_serve_command(app, chosen);
  aicb_tool::add_micro_command(app, chosen);
  // `aicb profile` is the separate program aicb-profile (CUDA builds): listed here, run by forwarding.
  app.add_subcommand("profile", std::string(aicb_tool::profile_description) + " (see aicb profile --help)")
      ->allow_extras();
  if (argc >= 2 && std::string(argv[1]) == "profile") return aicb_tool::forward_to_profiler(argc, argv);
  // `aicb run` is the separate program aicb-run (built where MPI is installed), likewise.
  app.add_subcommand(
         "run",
         "Replay a job (or a collective sweep) on a cluster with MPI and measure it: mpirun -np N "
         "aicb run ... (see aicb run --help)")
      ->allow_extras();
  if (argc >= 2 && std::string(argv[1]) == "run")
    return aicb_tool::forward_to_sibling(
        argc, argv, "aicb-run",
        "aicb: run: no aicb-run beside this aicb (aicb run is that program; it is built where MPI, "
        "such as Debian's libopenmpi-dev, or NCCL is installed, and installed beside aicb)");
  aicb_tool::add_schedule_commands(app, chosen);
  aicb_tool::add_lint_command(app, chosen);
  aicb_tool::add_aiob_commands(app, chosen);

  // `aicb plan --serving …` plans serving deployments with `aicb serve`'s flags (the traffic, the
  // engine, the objective), not the training job's that `aicb plan` takes: it is parsed as
  // `aicb serve --plan …`.
  std::vector<std::string> words(argv, argv + argc);
  if (argc >= 2 && words[1] == "plan" &&
      std::find(words.begin() + 2, words.end(), "--serving") != words.end()) {
    words[1] = "serve";
    *std::find(words.begin() + 2, words.end(), "--serving") = "--plan";
  }
  std::vector<char*> rewritten;
  for (std::string& w : words)
    rewritten.push_back(w.data());
  if (const auto status = aicb_tool::parse_arguments(app, argc, rewritten.data())) return *status;
  return aicb_tool::run_reporting_errors([&] { return chosen ? chosen() : 0; });
}
