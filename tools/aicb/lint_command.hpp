// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb lint FILE...`: every way SimAI would misread a workload, as file:line:col: severity: message;
// exit 2 on any error. `--fix` rewrites what can be fixed mechanically, atomically.
#pragma once

#include "process_stats.hpp"

#include <aicb/io/simai_lint.hpp>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace aicb_tool {

struct lint_options {
  std::vector<std::string> files;
  bool fix = false, quiet = false;
  std::optional<std::uint64_t> world_size;
  std::string output;
  std::size_t max_diagnostics = 200;
};

inline void add_lint_command(CLI::App& app, lint_options& o, CLI::App*& command) {
  command = app.add_subcommand("lint", "Check SimAI workload files for everything SimAI silently misreads");
  command->add_option("files", o.files, "workload files")->required();
  command->add_flag("--fix", o.fix, "rewrite a legacy header's missing keys and a wrong record count");
  command->add_option("--world-size,--world_size", o.world_size, "all_gpus for --fix");
  command->add_option("-o,--output", o.output, "with --fix and one file: write the fixed file here");
  command->add_option("--max-diagnostics", o.max_diagnostics, "diagnostics printed per file")
      ->capture_default_str();
  command->add_flag("-q,--quiet", o.quiet, "print only diagnostics");
}

inline int run_lint(const lint_options& o) {
  bool any_error = false;
  for (const std::string& file : o.files) {
    if (o.fix) {
      const aicb::simai_fix fix =
          aicb::fix_simai(file, o.world_size, o.files.size() == 1 ? o.output : std::string());
      const std::string target = o.output.empty() || o.files.size() != 1 ? file : o.output;
      for (const std::string& change : fix.changes)
        std::printf("%s: fixed: %s\n", target.c_str(), change.c_str());
      if (fix.changes.empty() && !o.quiet) std::printf("%s: nothing to fix mechanically\n", file.c_str());
    }
    const std::string checked = o.fix && !o.output.empty() && o.files.size() == 1 ? o.output : file;
    const auto start = std::chrono::steady_clock::now();
    const aicb::lint_result r = aicb::lint_simai(checked, {.max_diagnostics = o.max_diagnostics});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const aicb::lint_diagnostic& d : r.diagnostics)
      std::printf("%s:%llu:%llu: %s: %s\n", checked.c_str(), static_cast<unsigned long long>(d.line),
                  static_cast<unsigned long long>(d.column),
                  d.severity == aicb::lint_severity::error ? "error" : "warning", d.message.c_str());
    const std::uint64_t shown = r.diagnostics.size(), total = r.errors + r.warnings;
    if (total > shown)
      std::printf("%s: %llu more diagnostics not shown\n", checked.c_str(),
                  static_cast<unsigned long long>(total - shown));
    if (!o.quiet) {
      std::error_code ec;
      const double mb = static_cast<double>(std::filesystem::file_size(checked, ec)) / 1e6;
      std::printf(
          "%s: %llu records, %llu errors, %llu warnings (%.1f MB in %.2f s, %.0f MB/s; peak memory %.1f "
          "MiB)\n",
          checked.c_str(), static_cast<unsigned long long>(r.records),
          static_cast<unsigned long long>(r.errors), static_cast<unsigned long long>(r.warnings), mb, seconds,
          seconds > 0 ? mb / seconds : 0.0, static_cast<double>(peak_memory_kib()) / 1024);
    }
    any_error = any_error || r.errors > 0;
  }
  return any_error ? 2 : 0;
}

}  // namespace aicb_tool
