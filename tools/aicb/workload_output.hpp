// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// How the tool reports writing a workload: one progress line once its size is estimated. The writing
// itself (sizing, the inputs check, the sidecar landing with the file) is aicb::write_simai_file.
#pragma once

#include <aicb/io/workload_file.hpp>
#include <aicb/units/bytes.hpp>

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

}  // namespace aicb_tool
