// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// A test that cannot run here says so: it ends as skipped (exit status 77, which CTest shows as
// "Skipped", with SKIP_RETURN_CODE 77 on the test) and prints why. Never a silent pass.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace aicb_test {

/// True when a test that could not run must fail rather than skip (CI, or asked for).
inline bool reference_required() {
  for (const char* name : {"CI", "AICB_REFERENCE_REQUIRED"}) {
    const char* value = std::getenv(name);
    if (value && *value && std::string_view(value) != "0" && std::string_view(value) != "false") return true;
  }
  return false;
}

/// Ends the current test as skipped (exit status 77), saying why. Catch2 v2 has no skip of its own;
/// CTest runs each test case as its own process, so exiting skips exactly this test.
[[noreturn]] inline void skip_test(const std::string& why) {
  std::printf("skipped: %s\n", why.c_str());
  std::fflush(stdout);
  std::exit(77);
}

}  // namespace aicb_test
