// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Reads AIOB profiles (version 1, as aicb writes them, and version 2 with provenance).
///
/// Accepts everything aicb's own reader accepts — the `train_iter:` line, `name:` sections in any
/// order with `time_gpu_max/min/avg` in microseconds, integer or decimal — plus `#` lines, blank
/// lines and CRLF. Anything else is an aicb::parse_error naming the file, line and column and what
/// was expected there: a value that is negative, not a number or NaN; a statistic outside a section;
/// a duplicate section or statistic; a section without `time_gpu_avg`; an empty profile.
///
/// ```cpp
/// aicb::aiob_profile p = aicb::read_aiob_file("Example.txt");
/// ```

#include <aicb/compute/aiob_profile.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/input_file.hpp>
#include <aicb/error.hpp>
#include <aicb/io/detail/aiob_def.hpp>

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>

AICB_BEGIN_NAMESPACE

namespace detail {

/// 1-based line and column of `where` in `text`, after skipping spaces and tabs (an error is
/// reported at the offending token, not at the blank before it).
inline std::pair<std::size_t, std::size_t> text_position(std::string_view text, const char* where) {
  const char* end = text.data() + text.size();
  while (where < end && (*where == ' ' || *where == '\t'))
    ++where;
  std::size_t line = 1, column = 1;
  for (const char* p = text.data(); p < where; ++p) {
    if (*p == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

/// What is at `where`, for a message: "end of file", "end of line", or the character (escaped if not
/// printable).
inline std::string describe_found(std::string_view text, const char* where) {
  const char* end = text.data() + text.size();
  while (where < end && (*where == ' ' || *where == '\t'))
    ++where;
  if (where == end) return "end of file";
  if (*where == '\n' || *where == '\r') return "end of line";
  const auto c = static_cast<unsigned char>(*where);
  if (c < 0x20 || c >= 0x7f) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", c);
    return std::string("byte ") + hex;
  }
  return std::string("'") + static_cast<char>(c) + "'";
}

class aiob_builder {
 public:
  aiob_builder(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  /// Where the content of the line being parsed starts (reported by the grammar before each line).
  void mark(const char* where) { mark_ = where; }

  void comment(const std::string& text) {
    if (profile_.sections.empty() && !profile_.train_iter) {
      profile_.header.push_back(text);
    } else if (!profile_.sections.empty()) {
      profile_.sections.back().lines.push_back({true, text, {}});
    } else {
      fail(mark_, "a '#' line after train_iter must belong to a section (write the header comments first)");
    }
  }
  void train_iter(std::uint64_t n) {
    if (profile_.train_iter || !profile_.sections.empty())
      fail(mark_, "train_iter must appear once, before the first section");
    profile_.train_iter = n;
  }
  void section(const std::string& name) {
    const std::size_t line = line_of(mark_);
    const auto [it, inserted] = first_line_.emplace(name, line);
    if (!inserted)
      fail(mark_, "duplicate section '" + name + "' (first at line " + std::to_string(it->second) + ")");
    profile_.sections.push_back({name, {}, line});
  }
  void stat(const std::string& key, const std::string& value) {
    if (profile_.sections.empty()) fail(mark_, "statistic '" + key + "' outside a section");
    aiob_section& s = profile_.sections.back();
    for (const aiob_line& l : s.lines)
      if (!l.comment && l.key == key) fail(mark_, "duplicate " + key + " in section '" + s.name + "'");
    double us = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), us);
    if (error != std::errc{} || end != value.data() + value.size() || !(us <= max_profile_us))
      fail(mark_, key + " " + value.substr(0, 40) + (value.size() > 40 ? "..." : "") +
                      " exceeds 10^12 microseconds (11.6 days for one operation): not a measurement");
    s.lines.push_back({false, key, value});
  }

  aiob_profile finish() {
    if (profile_.sections.empty()) fail(text_.data() + text_.size(), "empty profile: no sections");
    for (const aiob_section& s : profile_.sections)
      if (!s.stat("time_gpu_avg"))
        AICB_THROW(parse_error(file_, s.source_line, 1,
                               "section '" + s.name + "' has no time_gpu_avg (aicb would silently skip it)"));
    return std::move(profile_);
  }

  [[noreturn]] void fail(const char* where, const std::string& message) const {
    const auto [line, column] = text_position(text_, where);
    AICB_THROW(parse_error(file_, line, column, message));
  }

 private:
  // Lines are reported in order, so the line count advances incrementally (linear in the file).
  std::size_t line_of(const char* where) {
    for (; cursor_ < where; ++cursor_)
      if (*cursor_ == '\n') ++line_;
    return line_;
  }

  std::string_view text_;
  std::string file_;
  aiob_profile profile_;
  std::unordered_map<std::string, std::size_t> first_line_;
  const char* cursor_ = text_.data();
  const char* mark_ = text_.data();
  std::size_t line_ = 1;
};

}  // namespace detail

/// Parses profile text. `file` names it in errors.
[[nodiscard]] inline aiob_profile parse_aiob(std::string_view text, const std::string& file = "<string>") {
  namespace x3 = boost::spirit::x3;
  namespace g = detail::grammar::aiob;
  detail::aiob_builder builder(text, file);
  const char* first = text.data();
  const char* last = text.data() + text.size();
  try {
    x3::parse(first, last, x3::with<g::builder_tag>(std::ref(builder))[g::file]);
  } catch (const x3::expectation_failure<const char*>& e) {
    builder.fail(e.where(), "expected " + e.which() + ", found " + detail::describe_found(text, e.where()));
  }
  return builder.finish();
}

/// The largest profile file read_aiob_file reads: 64 MiB. Profiles are a few KiB (one section per
/// timed operation); the bound keeps a wrong file from costing its size in memory.
inline constexpr std::uint64_t max_aiob_file = 64ULL << 20;

/// Reads and parses a profile file; io_error when it cannot be read, is not a regular file or is
/// larger than max_aiob_file. A larger file is still checked as far as the limit, so an error near
/// its start is reported as such, at its line and column.
[[nodiscard]] inline aiob_profile read_aiob_file(const std::string& path) {
  detail::file_prefix in = detail::read_file_prefix(path, max_aiob_file, "an AIOB profile");
  if (in.whole) return parse_aiob(in.text, path);
  // Too large. Parse up to the last section header in the limit (complete sections only, so any
  // error found is a real one), then refuse the size.
  std::size_t last_header = std::string::npos;
  for (std::size_t line = 0, next = 0; (next = in.text.find('\n', line)) != std::string::npos;
       line = next + 1) {
    std::string_view text(in.text.data() + line, next - line);
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
      text.remove_suffix(1);
    const bool word = !text.empty() && (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_');
    if (word && text.back() == ':' && text.rfind("train_iter", 0) != 0) last_header = line;
  }
  // Without a later section header, the first line alone (garbage from the first byte is found).
  const bool at_header = last_header != std::string::npos && last_header > 0;
  const std::size_t first_line = in.text.find('\n');
  const std::size_t cut = at_header ? last_header : first_line == std::string::npos ? 0 : first_line + 1;
  if (cut > 0) {
    in.text.resize(cut);
    try {
      (void)parse_aiob(in.text, path);
    } catch (const parse_error& e) {
      const bool incomplete = e.message().find("empty profile") != std::string::npos ||
                              (!at_header && e.message().find("has no time_gpu_avg") != std::string::npos);
      if (!incomplete) throw;
    }
  }
  AICB_THROW(io_error(path, "is " + std::to_string(in.file_size >> 20) +
                                " MiB; an AIOB profile is a few KiB, and aicb reads profiles up to 64 MiB"));
}

AICB_END_NAMESPACE
