// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// IWYU pragma: private, include <aicb/aicb.hpp>
#pragma once

// Opening inputs safely: every reader of aicb checks first that a path names a regular file, so a
// directory is called a directory (not an "empty profile"), and a FIFO or device gets a clear
// error instead of a read that blocks forever; and readers that need a whole file in memory read
// at most a bounded prefix.

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

AICB_BEGIN_NAMESPACE
namespace detail {

/// Throws io_error unless `path` names an existing regular file (symbolic links followed). `what` says
/// what the file should have been, for the message.
inline void require_regular_file(const std::string& path, std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    AICB_THROW(io_error(path, "cannot open file: " + (ec ? ec.message() : std::string("no such file"))));
  if (fs::is_regular_file(status)) return;
  const char* kind = fs::is_directory(status)        ? "a directory"
                     : fs::is_fifo(status)           ? "a FIFO (a named pipe)"
                     : fs::is_character_file(status) ? "a character device"
                     : fs::is_block_file(status)     ? "a block device"
                     : fs::is_socket(status)         ? "a socket"
                                                     : "not a regular file";
  AICB_THROW(io_error(path, std::string("is ") + kind + ", not " + std::string(what) +
                                " (aicb reads regular files: copy the data into one)"));
}

/// The first bytes of a file, and whether that was all of it.
struct file_prefix {
  std::string text;
  bool whole = true;  ///< false when the file is longer than the limit
  std::uint64_t file_size = 0;
};

/// Reads at most `limit` bytes of a regular file (io_error when it is not one, or cannot be read).
[[nodiscard]] inline file_prefix read_file_prefix(const std::string& path, std::uint64_t limit,
                                                  std::string_view what = "a file") {
  require_regular_file(path, what);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) AICB_THROW(io_error(path, std::string("cannot open file: ") + std::strerror(errno)));
  std::error_code ec;
  file_prefix result;
  result.file_size = std::filesystem::file_size(path, ec);
  const std::uint64_t want = ec ? limit : std::min<std::uint64_t>(result.file_size, limit);
  result.text.resize(static_cast<std::size_t>(want));
  std::size_t got = 0;
  while (got < result.text.size()) {
    const std::size_t n = std::fread(result.text.data() + got, 1, result.text.size() - got, file.get());
    if (n == 0) break;
    got += n;
  }
  if (std::ferror(file.get())) AICB_THROW(io_error(path, "read failed"));
  result.text.resize(got);
  // More than the limit? One byte more says so (also for files whose size was not reported).
  result.whole = std::fgetc(file.get()) == EOF;
  return result;
}

}  // namespace detail
AICB_END_NAMESPACE
