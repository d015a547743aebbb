// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb lint FILE...`: every way SimAI would misread a workload, as file:line:col: severity: message;
// exit 2 on any error. A file that cannot be read is reported and the next one checked (exit 1 when
// that is the worst). `--fix` rewrites what can be fixed mechanically, atomically: into `-o FILE`
// (one input), or into the inputs themselves with `--in-place`.
#include "commands.hpp"
#include "exit_status.hpp"
#include "process_stats.hpp"

#include <aicb/error.hpp>
#include <aicb/io/simai_lint.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace aicb_tool {
namespace {

struct lint_options {
  std::vector<std::string> files;
  bool fix = false, in_place = false, quiet = false, json = false;
  std::optional<std::uint64_t> world_size;
  std::string output;
  std::size_t max_diagnostics = 200;
};

void add_lint_options(CLI::App& app, lint_options& o, CLI::App*& command) {
  command = app.add_subcommand("lint", "Check SimAI workload files for everything SimAI silently misreads");
  command->add_option("files", o.files, "workload files")->required();
  command->add_flag("--fix", o.fix,
                    "rewrite a legacy header's missing keys and a wrong record count (into -o FILE, or with "
                    "--in-place into the inputs)");
  command->add_flag("--in-place", o.in_place, "with --fix: rewrite the input files themselves");
  command->add_option("--world-size,--world_size", o.world_size, "all_gpus for --fix");
  command->add_option("-o,--output", o.output, "with --fix and one file: write the fixed file here");
  command->add_option("--max-diagnostics", o.max_diagnostics, "diagnostics printed per file")
      ->capture_default_str();
  command->add_flag("-q,--quiet", o.quiet, "print only diagnostics");
  command->add_flag("--json", o.json,
                    "print one JSON document for all files (aicb.lint/1, docs/schemas/lint.schema.json)");
}

// Lints one file and prints its diagnostics; the exit status it calls for (0, or 2 on errors).
int lint_one(const std::string& checked, const lint_options& o) {
  const auto start = std::chrono::steady_clock::now();
  const aicb::lint_result r = aicb::lint_simai(checked, {.max_diagnostics = o.max_diagnostics});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string name = printable(checked);
  for (const aicb::lint_diagnostic& d : r.diagnostics)
    std::printf("%s:%llu:%llu: %s: %s\n", name.c_str(), static_cast<unsigned long long>(d.line),
                static_cast<unsigned long long>(d.column),
                d.severity == aicb::lint_severity::error ? "error" : "warning", printable(d.message).c_str());
  const std::uint64_t shown = r.diagnostics.size(), total = r.errors + r.warnings;
  if (total > shown)
    std::printf("%s: %llu more diagnostics not shown\n", name.c_str(),
                static_cast<unsigned long long>(total - shown));
  if (!o.quiet) {
    std::error_code ec;
    const double mb = static_cast<double>(std::filesystem::file_size(checked, ec)) / 1e6;
    std::printf(
        "%s: %llu records, %llu errors, %llu warnings (%.1f MB in %.2f s, %.0f MB/s; peak memory %.1f MiB)\n",
        name.c_str(), static_cast<unsigned long long>(r.records), static_cast<unsigned long long>(r.errors),
        static_cast<unsigned long long>(r.warnings), mb, seconds, seconds > 0 ? mb / seconds : 0.0,
        static_cast<double>(peak_memory_kib()) / 1024);
  }
  return r.errors > 0 ? 2 : 0;
}

int run_lint(const lint_options& o) {
  if (o.fix && o.output.empty() && !o.in_place)
    throw aicb::config_error(
        "fix", "--fix", "--fix writes a new file: give -o FILE, or --in-place to rewrite the input itself");
  if (!o.output.empty() && (!o.fix || o.in_place || o.files.size() != 1))
    throw aicb::config_error("output", o.output,
                             "-o goes with --fix and exactly one input (use --in-place to fix several)");
  if (o.in_place && !o.fix) throw aicb::config_error("in-place", "--in-place", "--in-place goes with --fix");
  if (o.json && o.fix)
    throw aicb::config_error("json", "--json", "--json reports; it does not go with --fix");
  int status = 0;
  std::vector<aicb::linted_file> report;
  for (const std::string& file : o.files) {
    try {
      std::string checked = file;
      // A Chakra trace (binary protobuf) is not a SimAI workload: say what it is, not that its
      // first byte is no policy name.
      if (file.ends_with(".et") || std::filesystem::exists(std::filesystem::path(file) / "manifest.json"))
        throw aicb::config_error("file", file,
                                 "is a Chakra trace or set, not SimAI text: ASTRA-sim reads it, and aicb run "
                                 "--chakra DIR replays and checks a set; lint checks SimAI workload files");
      if (o.fix) {
        const aicb::simai_fix fix =
            aicb::fix_simai(file, o.world_size, o.in_place ? std::string() : o.output);
        if (!o.in_place) checked = o.output;
        for (const std::string& change : fix.changes)
          std::printf("%s: fixed: %s\n", printable(checked).c_str(), printable(change).c_str());
        if (fix.changes.empty() && !o.quiet)
          std::printf("%s: nothing to fix mechanically%s\n", printable(file).c_str(),
                      o.in_place ? "" : " (no file written)");
        if (fix.changes.empty()) checked = file;
      }
      if (o.json) {
        report.push_back({file, aicb::lint_simai(checked, {.max_diagnostics = o.max_diagnostics}), {}});
        if (report.back().result->errors > 0) status = 2;
        continue;
      }
      status = std::max(status, lint_one(checked, o));
    } catch (const aicb::config_error& e) {
      if (o.json)
        report.push_back({file, std::nullopt, e.what()});
      else
        std::fprintf(stderr, "aicb: configuration error: %s\n", printable(e.what()).c_str());
      status = 2;
    } catch (const aicb::error& e) {
      // Unreadable (missing, a directory, a FIFO …): say so and go on with the next file.
      if (o.json)
        report.push_back({file, std::nullopt, e.what()});
      else
        std::fprintf(stderr, "aicb: error: %s\n", printable(e.what()).c_str());
      status = std::max(status, 1);
    }
  }
  if (o.json) std::fputs(aicb::lint_json(report).c_str(), stdout);
  return status;
}

}  // namespace

void add_lint_command(CLI::App& app, action& chosen) {
  add_command<lint_options>(app, chosen, add_lint_options, run_lint);
}

}  // namespace aicb_tool
