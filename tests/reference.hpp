// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Access to the shared reference material (aicb's golden outputs, real config.json files), read in
// place. Tests that use it are named "reference: …".
//
// When the folder is missing, what happens depends on where the suite runs:
// - in CI (the CI environment variable is set, as every CI service sets it) or with
//   AICB_REFERENCE_REQUIRED=1, the test fails: the material must be there;
// - anywhere else (a user's clone without it) the test reports itself skipped — exit status 77,
//   which CTest shows as "Skipped" — and says why.
#pragma once

#include "skip.hpp"
#include "text_file.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace aicb_test {

/// The reference folder, or the test ends (failed in CI, skipped elsewhere).
inline std::filesystem::path reference_dir(const std::string& sub = "") {
  const char* env = std::getenv("AICB_REFERENCE_DIR");
  const std::filesystem::path dir = std::filesystem::path(env ? env : AICB_REFERENCE_DIR) / sub;
  if (std::filesystem::is_directory(dir)) return dir;
  if (!reference_required())
    skip_test("reference folder " + dir.string() +
              " is missing (these tests read the shared reference material in place; set AICB_REFERENCE_DIR "
              "to where it is)");
  FAIL("reference folder " << dir
                           << " is missing: these tests read the shared reference material in place (set "
                              "AICB_REFERENCE_DIR; outside CI, without it, they are skipped)");
  return {};
}

}  // namespace aicb_test
