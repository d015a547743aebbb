// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Subcommands whose work needs libraries `aicb` itself does not load (the CUDA runtime for `aicb
// profile`, MPI and NCCL for `aicb run`) are separate programs beside it: `aicb NAME ARGS` replaces
// itself with `PROGRAM ARGS` from its own folder, keeping its process (so a launcher such as
// mpirun sees the same process it started).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace aicb_tool {

// Runs `program` (a file beside the running aicb) with argv[2…]. Returns (status 1), after printing
// `missing` or why it could not start, only when it does not run.
inline int forward_to_sibling(int argc, char** argv, const char* program, const char* missing) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path path = (error ? std::filesystem::path(argv[0]) : self).parent_path() / program;
  if (!std::filesystem::exists(path)) {
    std::fprintf(stderr, "%s\n", missing);
    return 1;
  }
  std::vector<char*> args{const_cast<char*>(program)};
  for (int i = 2; i < argc; ++i)
    args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(path.c_str(), args.data());
  std::fprintf(stderr, "aicb: cannot run %s: %s\n", path.c_str(), std::strerror(errno));
  return 1;
}

}  // namespace aicb_tool
