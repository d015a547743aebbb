// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// What the tool reports about its own run.
#pragma once

#include <cstdint>
#include <cstdio>

namespace aicb_tool {

/// This process's peak resident memory in KiB (Linux: VmHWM, which starts afresh at exec), or 0.
inline std::uint64_t peak_memory_kib() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof line, status))
    if (std::sscanf(line, "VmHWM: %llu kB", &kib) == 1) break;
  std::fclose(status);
  return kib;
}

}  // namespace aicb_tool
