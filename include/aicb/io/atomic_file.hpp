// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Outputs are never half-written: aicb::atomic_file writes to a temporary file beside the target
/// and renames it over the target only when commit() is called; if it is destroyed before (an
/// exception, an error), the temporary is removed and the target is untouched.
///
/// ```cpp
/// aicb::atomic_file out("workload.txt");
/// out.write("HYBRID_TRANSFORMER_FWD_IN_BCKWD ...\n");
/// out.commit();   // now workload.txt exists, complete
/// ```

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <unistd.h>  // getpid
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// A file written in full or not at all. Not copyable; buffered (`buffer_size` bytes).
class atomic_file {
 public:
  explicit atomic_file(std::string path, std::size_t buffer_size = 1 << 20)
      : path_(std::move(path)), temp_(temporary_name(path_)) {
    const auto parent = std::filesystem::path(path_).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent))
      AICB_THROW(io_error(path_, "directory " + parent.string() + " does not exist"));
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) AICB_THROW(io_error(path_, std::string("cannot create file: ") + std::strerror(errno)));
    buffer_.resize(buffer_size);
    std::setvbuf(file_, buffer_.data(), _IOFBF, buffer_.size());
  }
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  ~atomic_file() {
    if (file_) {
      std::fclose(file_);
      std::remove(temp_.c_str());
    }
  }

  void write(std::string_view text) {
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
      AICB_THROW(io_error(path_, std::string("write failed: ") + std::strerror(errno)));
  }

  /// Flushes, closes and renames the temporary over the target.
  void commit() {
    const bool flushed = std::fflush(file_) == 0;
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!flushed || !closed) {
      std::remove(temp_.c_str());
      AICB_THROW(io_error(path_, std::string("write failed: ") + std::strerror(errno)));
    }
    if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
      const int error = errno;
      std::remove(temp_.c_str());
      AICB_THROW(io_error(
          path_, std::string("cannot rename the finished file into place: ") + std::strerror(error)));
    }
  }

  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  static std::string temporary_name(const std::string& path) {
    return path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  }

  std::string path_, temp_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
};

/// Writes `text` to `path` atomically.
inline void write_file_atomically(const std::string& path, std::string_view text) {
  atomic_file out(path);
  out.write(text);
  out.commit();
}

AICB_END_NAMESPACE
