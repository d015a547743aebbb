// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Outputs are never half-written and never damage what is there: aicb::atomic_file writes to a
/// temporary file beside the target and renames it over the target only when commit() is called;
/// destroyed before (an exception, an error), it removes the temporary and leaves the target as it
/// was.
///
/// ```cpp
/// aicb::atomic_file out("workload.txt", {.inputs = {"profile.txt"}});
/// out.write("HYBRID_TRANSFORMER_FWD_IN_BCKWD ...\n");
/// out.commit();   // now workload.txt exists, complete
/// ```
///
/// What it refuses or handles, so that no caller has to:
/// - an output that is one of the command's inputs (`-o profile.txt --comp_filepath profile.txt`):
///   io_error, before anything is written;
/// - a target that is a directory or another non-regular file: io_error — except character devices
///   and FIFOs (`/dev/null`, `/dev/stdout`, a named pipe), which are written straight into, never
///   replaced;
/// - a symbolic link: the file it points to is replaced, the link stays;
/// - a name longer than a file name can be (NAME_MAX, 255 bytes): io_error naming the limit; a name
///   near it works (the temporary's name is kept within the limit);
/// - several files that belong together (a workload and its sidecar): aicb::commit_together
///   renames them all or — restoring any file it had replaced — none;
/// - an interrupt: after aicb::remove_temporaries_on_signals() (the aicb tool calls it; a library
///   user opts in), SIGINT, SIGTERM and SIGHUP remove every temporary still open, then end the
///   program as the signal would have.
///
/// aicb::require_free_space checks an estimated size against the free space of the target's file
/// system before a large output is started.

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#  include <fcntl.h>   // AT_FDCWD (renameat2)
#  include <signal.h>  // kill (whether a writer still runs)
#  include <unistd.h>  // getpid, unlink (async-signal-safe)
#  define AICB_DETAIL_POSIX_FILES 1
#endif

AICB_BEGIN_NAMESPACE

/// What an output must not be.
struct output_options {
  /// Files the command reads: the output may not be any of them (compared by identity, so another
  /// path to the same file is caught too).
  std::vector<std::string> inputs{};
  /// Remove the temporaries that killed writers of the same name left beside it (see
  /// detail::remove_stale_temporaries). Off for the files inside a set's own temporary directory,
  /// where nothing stale can be and a scan per file would cost the square of the set.
  bool remove_stale_temporaries = true;
};

namespace detail {

/// The longest file name (one path component) aicb writes: NAME_MAX on Linux and macOS.
inline constexpr std::size_t max_file_name = 255;

// Temporaries still open, for the signal handler. Fixed slots of pointers to the temporaries'
// names: reading them in a handler is async-signal-safe (no allocation, no lock).
inline constexpr std::size_t temporary_slots = 64;
inline std::atomic<const char*> temporaries[temporary_slots];
inline volatile std::sig_atomic_t committing = 0;       // a commit is renaming: defer signals
inline volatile std::sig_atomic_t deferred_signal = 0;  // a signal that arrived meanwhile

inline void register_temporary(const char* name) noexcept {
  for (auto& slot : temporaries) {
    const char* empty = nullptr;
    if (slot.compare_exchange_strong(empty, name)) return;
  }
  // More than 64 at once: this one is not removed on a signal (it still is on an error).
}
inline void unregister_temporary(const char* name) noexcept {
  for (auto& slot : temporaries) {
    const char* expected = name;
    if (slot.compare_exchange_strong(expected, nullptr)) return;
  }
}

inline void remove_temporaries_now() noexcept {
  for (auto& slot : temporaries)
    if (const char* name = slot.load())
#if defined(AICB_DETAIL_POSIX_FILES)
      ::unlink(name);
#else
      std::remove(name);
#endif
}

extern "C" inline void on_terminating_signal(int signal) {
  if (committing) {
    deferred_signal = signal;
    return;
  }
  remove_temporaries_now();
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

inline void raise_deferred_signal() {
  if (const int signal = deferred_signal) {
    deferred_signal = 0;
    on_terminating_signal(signal);
  }
}

inline std::string errno_text(int error) { return std::strerror(error); }

// A temporary name beside `target`, hidden, unique to this process and object, within NAME_MAX.
inline std::string temporary_name(const std::filesystem::path& target, std::string_view kind) {
  static std::atomic<unsigned> counter{0};
#if defined(AICB_DETAIL_POSIX_FILES)
  const long process = static_cast<long>(::getpid());
#else
  const long process = 0;
#endif
  const std::string suffix =
      ".aicb-" + std::string(kind) + "-" + std::to_string(process) + "-" + std::to_string(counter++);
  std::string stem = target.filename().string();
  const std::size_t room = max_file_name - 1 - suffix.size();
  if (stem.size() > room) stem.resize(room);
  return (target.parent_path() / ("." + stem + suffix)).string();
}

// Whether process `pid` still runs on this machine (a PID that exists but belongs to another user
// counts as running: its temporaries are not ours to judge).
inline bool process_runs(long pid) noexcept {
#if defined(AICB_DETAIL_POSIX_FILES)
  if (pid <= 0) return true;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
#else
  (void)pid;
  return true;
#endif
}

// The temporaries that writers of `target` left behind when they were killed: names that
// temporary_name(target, kind) gives, exactly (".STEM.aicb-KIND-PID-N" with STEM the target's name
// shortened the same way), of a process that no longer runs, of the kind that names them (a file
// for "tmp" and "old", a directory for "dir" and "old"). Removed before a new write of the same
// name, so interrupted runs do not fill the disk; anything else is left alone.
inline void remove_stale_temporaries(const std::filesystem::path& target) noexcept {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string name = target.filename().string();
  if (name.empty()) return;
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  fs::directory_iterator it(parent, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    const std::size_t mark = entry.rfind(".aicb-");
    if (entry.size() < 2 || entry[0] != '.' || mark == std::string::npos || mark < 1) continue;
    // KIND-PID-N after the mark.
    const std::string suffix = entry.substr(mark);
    const std::size_t kind_end = suffix.find('-', 6);
    if (kind_end == std::string::npos) continue;
    const std::string kind = suffix.substr(6, kind_end - 6);
    if (kind != "tmp" && kind != "dir" && kind != "old") continue;
    const std::size_t pid_end = suffix.find('-', kind_end + 1);
    if (pid_end == std::string::npos) continue;
    const std::string pid_text = suffix.substr(kind_end + 1, pid_end - kind_end - 1);
    const std::string counter_text = suffix.substr(pid_end + 1);
    const auto digits = [](const std::string& t) {
      return !t.empty() && t.size() <= 18 && t.find_first_not_of("0123456789") == std::string::npos;
    };
    if (!digits(pid_text) || !digits(counter_text)) continue;
    std::string stem = name;
    const std::size_t room = max_file_name - 1 - suffix.size();
    if (stem.size() > room) stem.resize(room);
    if (entry != "." + stem + suffix) continue;
    if (process_runs(std::stol(pid_text))) continue;
    std::error_code type_error;
    const fs::file_status status = fs::symlink_status(it->path(), type_error);
    if (type_error) continue;
    const bool file = fs::is_regular_file(status), directory = fs::is_directory(status);
    if ((kind == "tmp" && file) || (kind == "dir" && directory) || (kind == "old" && (file || directory))) {
      std::error_code remove_error;
      fs::remove_all(it->path(), remove_error);
    }
  }
}

}  // namespace detail

/// Makes SIGINT, SIGTERM and SIGHUP remove every aicb temporary still open before the program ends
/// as the signal would have ended it, and SIGXFSZ (a file-size limit reached) an ordinary write
/// error. Call once, early (the aicb tool does); idempotent.
inline void remove_temporaries_on_signals() {
  static const bool installed = [] {
    for (const int signal : {
           SIGINT, SIGTERM
#if defined(SIGHUP)
               ,
               SIGHUP
#endif
         })
      std::signal(signal, detail::on_terminating_signal);
#if defined(SIGXFSZ)
    // A write beyond the file-size limit (ulimit -f) fails with EFBIG, reported as an error that
    // removes the temporaries, instead of killing the program with them in place.
    std::signal(SIGXFSZ, SIG_IGN);
#endif
    return true;
  }();
  (void)installed;
}

/// A file written in full or not at all. Not copyable; buffered (`buffer_size` bytes).
class atomic_file {
 public:
  explicit atomic_file(std::string path, const output_options& options = {},
                       std::size_t buffer_size = 1 << 20)
      : path_(std::move(path)) {
    namespace fs = std::filesystem;
    if (path_.empty()) AICB_THROW(io_error(path_, "an output needs a file name"));
    fs::path target(path_);
    std::error_code ec;
    // A symbolic link stays: the file it points to is what gets written.
    if (fs::is_symlink(fs::symlink_status(target, ec))) {
      const fs::path resolved = fs::weakly_canonical(target, ec);
      if (!ec) target = resolved;
    }
    if (target.filename().string().size() > detail::max_file_name)
      AICB_THROW(io_error(path_, "the file name is longer than " + std::to_string(detail::max_file_name) +
                                     " bytes, the most a file system allows"));
    const fs::file_status status = fs::status(target, ec);
    const bool exists = !ec && fs::exists(status);
    if (exists && fs::is_directory(status)) AICB_THROW(io_error(path_, "is a directory, not a file name"));
    direct_ = exists && (fs::is_character_file(status) || fs::is_fifo(status));
    if (exists && !direct_ && !fs::is_regular_file(status))
      AICB_THROW(io_error(path_,
                          "exists and is not a regular file (nor a device or FIFO to write into); "
                          "aicb does not replace it"));
    for (const std::string& input : options.inputs) {
      std::error_code same;
      if (!input.empty() && exists && fs::equivalent(target, input, same) && !same)
        AICB_THROW(
            io_error(path_, "is also an input of this command (" + input +
                                "); writing it would destroy what is being read: choose another output"));
    }
    const fs::path parent = target.parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
      AICB_THROW(io_error(path_, "directory " + parent.string() + " does not exist"));
    target_ = target.string();
    if (!direct_ && options.remove_stale_temporaries) detail::remove_stale_temporaries(target);
    temp_ = direct_ ? target_ : detail::temporary_name(target, "tmp");
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_)
      AICB_THROW(
          io_error(path_, (direct_ ? "cannot open for writing: " : "cannot create a file beside it: ") +
                              detail::errno_text(errno)));
    if (!direct_) detail::register_temporary(temp_.c_str());
    buffer_.resize(buffer_size);
    std::setvbuf(file_, buffer_.data(), _IOFBF, buffer_.size());
  }
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  ~atomic_file() { discard(); }

  void write(std::string_view text) {
    if (!file_) AICB_THROW(io_error(path_, "write after the file was committed"));
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
      AICB_THROW(io_error(path_, "write failed: " + detail::errno_text(errno)));
  }

  /// Flushes, closes and renames the temporary over the target.
  void commit() {
    close();
    const auto guard = commit_section();
    rename_into_place();
  }

  /// The path as given.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// The file written: the path, or the file a symbolic link there points to.
  [[nodiscard]] const std::string& target() const noexcept { return target_; }
  /// True when the target is a device or FIFO written straight into (no temporary, no rename).
  [[nodiscard]] bool direct() const noexcept { return direct_; }

 private:
  friend void commit_together(std::initializer_list<atomic_file*> files);

  // Signals that arrive while files are renamed wait until the renames are done.
  struct commit_guard {
    commit_guard() { detail::committing = 1; }
    ~commit_guard() {
      detail::committing = 0;
      detail::raise_deferred_signal();
    }
    commit_guard(const commit_guard&) = delete;
    commit_guard& operator=(const commit_guard&) = delete;
  };
  static commit_guard commit_section() { return {}; }

  // Flushes and closes the temporary (errors: the temporary is removed).
  void close() {
    if (!file_) AICB_THROW(io_error(path_, "committed twice"));
    const bool flushed = std::fflush(file_) == 0;
    const int error = errno;
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!flushed || !closed) {
      remove_temporary();
      AICB_THROW(io_error(path_, "write failed: " + detail::errno_text(flushed ? errno : error)));
    }
  }
  void rename_into_place() {
    if (direct_) return;
    if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
      const int error = errno;
      remove_temporary();
      AICB_THROW(io_error(path_, "cannot rename the finished file into place: " + detail::errno_text(error)));
    }
    detail::unregister_temporary(temp_.c_str());
  }
  void remove_temporary() noexcept {
    if (direct_) return;
    detail::unregister_temporary(temp_.c_str());
    std::remove(temp_.c_str());
  }
  // Closes and removes the temporary unless it was renamed into place (then the name is free and
  // removing it does nothing).
  void discard() noexcept {
    if (file_) std::fclose(file_);
    file_ = nullptr;
    remove_temporary();
  }

  std::string path_, target_, temp_;
  std::FILE* file_ = nullptr;
  bool direct_ = false;
  std::string buffer_;
};

/// Commits several files so that they land together: all are renamed into place, or — when one
/// cannot be — none stays: the files already renamed are taken back out and any file they replaced
/// is restored. (Devices and FIFOs, written straight into, are not part of the rollback.)
inline void commit_together(std::initializer_list<atomic_file*> files) {
  namespace fs = std::filesystem;
  for (atomic_file* f : files)
    f->close();
  const auto guard = atomic_file::commit_section();
  struct landed {
    atomic_file* file;
    std::string backup;  // where the replaced file waits; empty when there was none
  };
  std::vector<landed> done;
  const auto roll_back = [&] {
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      std::remove(it->file->target_.c_str());
      if (!it->backup.empty()) std::rename(it->backup.c_str(), it->file->target_.c_str());
    }
  };
  for (atomic_file* f : files) {
    if (f->direct_) continue;
    std::string backup;
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(f->target_, ec);
    if (!ec && fs::exists(status)) {
      // Something took the name since the file was opened: only a regular file is ever replaced.
      const bool regular = fs::is_regular_file(status);
      backup = detail::temporary_name(f->target_, "old");
      if (!regular || std::rename(f->target_.c_str(), backup.c_str()) != 0) {
        const int error = regular ? errno : EEXIST;
        roll_back();
        for (atomic_file* g : files)
          g->remove_temporary();
        AICB_THROW(io_error(f->path_, regular
                                          ? "cannot set the previous file aside: " + detail::errno_text(error)
                                          : std::string("is no longer a regular file; no file of the set "
                                                        "was written")));
      }
    }
    if (std::rename(f->temp_.c_str(), f->target_.c_str()) != 0) {
      const int error = errno;
      if (!backup.empty()) std::rename(backup.c_str(), f->target_.c_str());
      roll_back();
      for (atomic_file* g : files)
        g->remove_temporary();
      AICB_THROW(io_error(f->path_,
                          "cannot rename the finished file into place (no file of the set was "
                          "written): " +
                              detail::errno_text(error)));
    }
    detail::unregister_temporary(f->temp_.c_str());
    done.push_back({f, std::move(backup)});
  }
  for (const landed& l : done)
    if (!l.backup.empty()) std::remove(l.backup.c_str());
}

/// A directory of files written as a set: built under a temporary name beside the target and
/// renamed into place by commit(), so the set lands whole or not at all; destroyed before (an
/// exception, an error), the temporary directory and everything in it are removed and the target
/// is left as it was.
///
/// ```cpp
/// aicb::atomic_directory out("traces", "manifest.json");
/// aicb::write_file_atomically(out.file("workload.0.et"), bytes);
/// aicb::write_file_atomically(out.file("manifest.json"), about);
/// out.commit();   // now traces/ exists, complete
/// ```
///
/// A target that exists must be an empty directory, or one that `is_previous_set` recognises as a
/// set aicb wrote whole (for a Chakra set: its own manifest, of this schema, listing exactly the
/// files present); it is then replaced in one step (Linux exchanges the two directories
/// atomically; elsewhere the old one is set aside first). Anything else is refused, naming what is
/// there: aicb never deletes what it did not write — not a set a user added notes to, not a
/// directory that merely holds a file named like a manifest. A symbolic link is refused too (the
/// set it points to is neither followed nor replaced by a real directory).
///
/// An interrupted run leaves its temporary directory (".NAME.aicb-dir-PID-N", hidden) behind,
/// never a partial set under the name; the next write of the same name removes those whose
/// writing process no longer runs (detail::remove_stale_temporaries).
class atomic_directory {
 public:
  /// Says why an existing, non-empty directory is not a previous set that may be replaced, or
  /// returns an empty string when it is one.
  using previous_set_check = std::function<std::string(const std::filesystem::path&)>;

  explicit atomic_directory(std::string path, previous_set_check is_previous_set = {})
      : path_(std::move(path)) {
    namespace fs = std::filesystem;
    if (path_.empty()) AICB_THROW(io_error(path_, "an output directory needs a name"));
    fs::path target(path_);
    if (!target.has_filename()) target = target.parent_path();  // "traces/" names "traces"
    if (target.filename().string().size() > detail::max_file_name)
      AICB_THROW(io_error(path_, "the directory name is longer than " +
                                     std::to_string(detail::max_file_name) +
                                     " bytes, the most a file system allows"));
    std::error_code ec;
    const fs::file_status link = fs::symlink_status(target, ec);
    if (!ec && fs::is_symlink(link))
      AICB_THROW(io_error(path_,
                          "is a symbolic link; aicb neither writes a set through a link nor "
                          "replaces one: name the directory itself"));
    const fs::file_status status = fs::status(target, ec);
    if (!ec && fs::exists(status)) {
      if (!fs::is_directory(status)) AICB_THROW(io_error(path_, "exists and is not a directory"));
      if (!fs::is_empty(target, ec)) {
        const std::string why = is_previous_set ? is_previous_set(target) : "it is not empty";
        if (!why.empty())
          AICB_THROW(io_error(path_, "exists and holds files aicb did not write (" + why +
                                         "); nothing was changed: choose a new directory or empty it"));
      }
    }
    const fs::path parent = target.parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
      AICB_THROW(io_error(path_, "directory " + parent.string() + " does not exist"));
    target_ = target.string();
    detail::remove_stale_temporaries(target);
    temp_ = detail::temporary_name(target, "dir");
    if (!fs::create_directory(temp_, ec) || ec)
      AICB_THROW(io_error(path_, "cannot create a directory beside it: " +
                                     (ec ? ec.message() : std::string("the temporary name is taken"))));
  }
  atomic_directory(const atomic_directory&) = delete;
  atomic_directory& operator=(const atomic_directory&) = delete;
  ~atomic_directory() {
    if (!committed_) {
      std::error_code ec;
      std::filesystem::remove_all(temp_, ec);
    }
  }

  /// The path of file `name` of the set, inside the temporary directory until commit().
  [[nodiscard]] std::string file(std::string_view name) const {
    return (std::filesystem::path(temp_) / std::string(name)).string();
  }
  /// The directory as given.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

  /// Renames the finished set into place (replacing a previous set, see the class comment).
  void commit() {
    namespace fs = std::filesystem;
    if (committed_) AICB_THROW(io_error(path_, "committed twice"));
    std::error_code ec;
    const bool exists = fs::exists(fs::symlink_status(target_, ec));
    int error = 0;
    std::string old;
    if (!exists) {
      if (std::rename(temp_.c_str(), target_.c_str()) != 0) error = errno;
    } else {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
      if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
        old = temp_;  // the exchange left the previous set under the temporary name
      } else
#endif
      {
        old = detail::temporary_name(target_, "old");
        if (std::rename(target_.c_str(), old.c_str()) != 0) {
          error = errno;
          old.clear();
        } else if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
          error = errno;
          std::rename(old.c_str(), target_.c_str());
          old.clear();
        }
      }
    }
    if (error != 0)
      AICB_THROW(io_error(path_, "cannot rename the finished directory into place (nothing was written): " +
                                     detail::errno_text(error)));
    committed_ = true;
    if (!old.empty()) fs::remove_all(old, ec);
  }

 private:
  std::string path_, target_, temp_;
  bool committed_ = false;
};

/// Writes `text` to `path` atomically.
inline void write_file_atomically(const std::string& path, std::string_view text,
                                  const output_options& options = {}) {
  atomic_file out(path, options);
  out.write(text);
  out.commit();
}

/// Refuses, with an io_error that gives both sizes, an output of about `bytes` bytes that cannot fit
/// in the free space of the file system `path` would be written to. Devices, FIFOs and file
/// systems that do not report their space are not checked.
inline void require_free_space(const std::string& path, std::uint64_t bytes) {
  namespace fs = std::filesystem;
  std::error_code status_error, space_error, size_error;
  const fs::file_status status = fs::status(path, status_error);
  if (!status_error && (fs::is_character_file(status) || fs::is_fifo(status))) return;
  fs::path directory = fs::path(path).parent_path();
  if (directory.empty()) directory = ".";
  const fs::space_info space = fs::space(directory, space_error);
  if (space_error || space.available == static_cast<std::uintmax_t>(-1)) return;
  // An existing file of that name is replaced: its space comes back.
  const std::uintmax_t existing =
      !status_error && fs::is_regular_file(status) ? fs::file_size(path, size_error) : 0;
  const std::uintmax_t room = space.available + (size_error ? 0 : existing);
  if (bytes > room) {
    const auto gib = [](std::uintmax_t b) {
      char text[32];
      std::snprintf(text, sizeof text, "%.3g GiB", static_cast<double>(b) / (1ULL << 30));
      return std::string(text);
    };
    AICB_THROW(io_error(path, "the output would take about " + gib(bytes) + " but only " + gib(room) +
                                  " is free on its file system"));
  }
}

AICB_END_NAMESPACE
