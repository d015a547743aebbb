// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the check that decides whether an existing directory is a Chakra set aicb
// wrote, which a new set may replace (aicb::detail::why_not_a_previous_chakra_set). The input, up
// to its first NUL byte, is the manifest.json of a directory that also holds comm_groups.json and
// workload.0.et. The check must never crash, and may accept only a manifest that lists exactly
// those files: one rank, rank 0, of the prefix "workload".
#include <aicb/io/chakra.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace fs = std::filesystem;
  static const fs::path dir = fs::temp_directory_path() / ("aicb-fuzz-set-" + std::to_string(::getpid()));
  static const bool made = [] {
    fs::create_directories(dir);
    for (const char* name : {"comm_groups.json", "workload.0.et"})
      if (std::FILE* f = std::fopen((dir / name).c_str(), "wb")) std::fclose(f);
    return true;
  }();
  (void)made;
  std::string_view manifest(reinterpret_cast<const char*>(data), size);
  manifest = manifest.substr(0, manifest.find('\0'));
  if (std::FILE* f = std::fopen((dir / "manifest.json").c_str(), "wb")) {
    std::fwrite(manifest.data(), 1, manifest.size(), f);
    std::fclose(f);
  }
  const std::string why = aicb::detail::why_not_a_previous_chakra_set(dir);
  if (why.empty()) {
    // Accepted: the manifest must name the prefix "workload" and rank 0 as the only trace.
    const auto workload = aicb::detail::manifest_member(manifest, "workload");
    const auto files = aicb::detail::manifest_member(manifest, "files");
    if (!workload || *workload != "\"workload\"" || !files || *files != "1") __builtin_trap();
  }
  return 0;
}
