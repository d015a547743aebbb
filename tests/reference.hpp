// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Access to the shared reference material (aicb's golden outputs, real config.json files), read in
// place. Tests that use it are named "reference: …". When the folder is missing they fail — unless
// AICB_REFERENCE_OPTIONAL is set (a user's clone without it), where they report themselves skipped
// (exit status 77, which CTest shows as "Skipped") with the reason.
#pragma once

#include "text_file.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace aicb_test {

/// The reference folder, or the test ends (failed, or skipped when the folder is optional).
inline std::filesystem::path reference_dir(const std::string& sub = "") {
  const char* env = std::getenv("AICB_REFERENCE_DIR");
  const std::filesystem::path dir = std::filesystem::path(env ? env : AICB_REFERENCE_DIR) / sub;
  if (std::filesystem::is_directory(dir)) return dir;
  if (std::getenv("AICB_REFERENCE_OPTIONAL")) {
    std::printf("skipped: reference folder %s is missing (AICB_REFERENCE_OPTIONAL is set)\n", dir.c_str());
    std::exit(77);
  }
  FAIL("reference folder " << dir
                           << " is missing: these tests read the shared reference material in place "
                              "(set AICB_REFERENCE_DIR, or AICB_REFERENCE_OPTIONAL=1 to skip them)");
  return {};
}

}  // namespace aicb_test
