// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The command line's one vocabulary: a meaning has one spelling across subcommands. The spellings
// (tests/tools/flag_vocabulary.py checks every subcommand's --help against them):
//   --iterations N   consecutive training iterations of a job (generate, schedule)
//   --repeat N       timed repetitions of a measurement or of a sweep's records (run, profile, micro),
//                    after --warmup N untimed ones
//   --ranks LIST     the ranks to show or write (schedule: the one rank it shows; timeline; generate)
//   -o, --output     the file (or directory) written
//   --json           print the result as a JSON document (every subcommand that prints a result)
//   --timeline FILE  also write a timeline beside the command's output (.html a page, else trace-event
//                    JSON); `aicb timeline` writes one by itself
//   --format         SimAI text by default; under --compat aicb, the format aicb writes for the command
// aicb's own flags (the "aicb options" groups: --iter_num, --epoch_num, …) keep aicb's spellings. An
// old spelling stays accepted, hidden from --help, and warns once where it is used.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

namespace aicb_tool {

/// Accepts `old` as a hidden, former spelling of the option now spelled `now` (which sets `target`):
/// the value goes to the same place, with a warning naming the new spelling.
template <class T>
void add_old_spelling(CLI::App& command, const std::string& old, const std::string& now, T& target) {
  command
      .add_option_function<T>(
          old,
          [old, now, &target](const T& value) {
            std::fprintf(stderr, "warning: %s is an old spelling of %s (it still works, for now)\n",
                         old.c_str(), now.c_str());
            target = value;
          },
          "old spelling of " + now)
      ->group("");
}

}  // namespace aicb_tool
