// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// How the tool reports writing a workload: one progress line once its size is estimated. The writing
// itself (sizing, the inputs check, the sidecar landing with the file) is aicb::write_simai_file.
#pragma once

#include "process_stats.hpp"

#include <aicb/commands/written.hpp>
#include <aicb/io/workload_file.hpp>
#include <aicb/units/bytes.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace aicb_tool {

// "writing PATH: N records, about SIZE": what the tool prints before a SimAI file's records.
inline void print_writing(const std::string& path, std::uint64_t records, std::uint64_t bytes) {
  std::printf("writing %s: %llu records, about %s\n", path.c_str(), static_cast<unsigned long long>(records),
              aicb::to_iec_string(aicb::bytes{bytes}).c_str());
}

// The library's file options as a writing subcommand's flags set them, with the progress line.
inline aicb::simai_file_options file_options(const std::string& path, std::uint64_t records, bool quiet,
                                             bool no_space_check) {
  aicb::simai_file_options o;
  o.check_space = !no_space_check;
  if (!quiet) o.on_start = [path, records](std::uint64_t bytes) { print_writing(path, records, bytes); };
  return o;
}

// What a writing command wrote, reported: its notes (unless quiet, or `notes_shown` before writing)
// and warnings on stderr, then `--json`'s document (aicb.COMMAND/1) or the summary with the time and
// the peak memory. Returns the exit status, 0.
inline int report_written(const aicb::written_workload& w, const char* command, bool quiet, bool json,
                          std::chrono::steady_clock::time_point start, bool notes_shown = false) {
  if (!quiet && !json && !notes_shown)
    for (const std::string& n : w.notes)
      std::fprintf(stderr, "note: %s\n", n.c_str());
  for (const std::string& warning : w.warnings)
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (json) {
    std::fputs(aicb::written_json(w, command, seconds).c_str(), stdout);
  } else if (!quiet) {
    std::fputs(aicb::format_written(w).c_str(), stdout);
    std::printf("took %.3f s\n", seconds);
    if (const std::uint64_t kib = peak_memory_kib())
      std::printf("peak memory: %.1f MiB\n", static_cast<double>(kib) / 1024);
  }
  return 0;
}

}  // namespace aicb_tool
