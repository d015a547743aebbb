// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the SimAI reader and linter. Any input must lint without crashing, hanging
// or exhausting memory; the strict reader must either read it or throw aicb::error.
#include <aicb/io/simai_lint.hpp>
#include <aicb/io/simai_reader.hpp>

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The reader streams from a file: give it one (in memory-backed /dev/shm when there is one),
  // removed after each input and at exit, so no run leaves files behind.
  static const std::string path = std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
                                  "/aicb_simai_fuzz_" + std::to_string(getpid());
  static const bool cleanup = [] { return std::atexit([] { std::remove(path.c_str()); }) == 0; }();
  (void)cleanup;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    const aicb::lint_result r = aicb::lint_simai(path, {.max_diagnostics = 50});
    if (r.diagnostics.size() > 50) __builtin_trap();
  } catch (const aicb::error&) {
  }
  try {
    aicb::simai_reader in(path);
    for (const aicb::record& r : in.records())
      (void)r;
  } catch (const aicb::error&) {
  }
  std::remove(path.c_str());
  return 0;
}
