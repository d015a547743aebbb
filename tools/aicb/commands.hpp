// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The aicb program's subcommands, one source file each. Each registers its flags on the program and,
// through a CLI11 callback, the action that runs when the command line chooses it; main() runs that
// action once parsing has succeeded, turning its exceptions into the exit status.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>

namespace aicb_tool {

// What the chosen subcommand does, returning the exit status.
using action = std::function<int()>;

void add_models_command(CLI::App& app, action& chosen);     // models_command.cpp
void add_describe_command(CLI::App& app, action& chosen);   // describe_command.cpp
void add_plan_command(CLI::App& app, action& chosen);       // plan_command.cpp
void add_timeline_command(CLI::App& app, action& chosen);   // timeline_command.cpp
void add_generate_command(CLI::App& app, action& chosen);   // generate_command.cpp
void add_deepspeed_command(CLI::App& app, action& chosen);  // deepspeed_command.cpp
void add_inference_command(CLI::App& app, action& chosen);  // inference_command.cpp
void add_serve_command(CLI::App& app, action& chosen);      // serve_command.cpp
void add_micro_command(CLI::App& app, action& chosen);      // micro_command.cpp
void add_schedule_commands(CLI::App& app, action& chosen);  // schedule_command.cpp: schedule, then check
void add_check_command(CLI::App& app, action& chosen);      // check_command.cpp
void add_lint_command(CLI::App& app, action& chosen);       // lint_command.cpp
void add_aiob_commands(CLI::App& app, action& chosen);      // aiob_command.cpp: show, check, convert

// The command line this process was started with ("aicb generate --model …"), recorded in the
// provenance of the files it writes; set once by main().
inline std::string& invoked_command() {
  static std::string line;
  return line;
}

// Sets what `command` does when chosen: `run(options)`, the options kept alive with it.
template <class Options, class Run>
void on_chosen(CLI::App* command, action& chosen, std::shared_ptr<Options> options, Run run) {
  command->callback([&chosen, options, run] { chosen = [options, run] { return run(*options); }; });
}

// Registers a subcommand whose flags `add(app, options, command)` binds to an Options, and which runs
// `run(options)` when chosen.
template <class Options, class Add, class Run>
void add_command(CLI::App& app, action& chosen, Add add, Run run) {
  auto options = std::make_shared<Options>();
  CLI::App* command = nullptr;
  add(app, *options, command);
  on_chosen(command, chosen, options, run);
}

}  // namespace aicb_tool
