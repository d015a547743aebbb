// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Reads SimAI workload files, the way SimAI 1.7 does: line 1 is the header (a parallelism policy and
/// `key: value` tokens), line 2 the record count, then records of 12 whitespace-separated tokens (13
/// for `HYBRID_CUSTOMIZED`) read token by token — any whitespace, CRLF, records over several lines.
/// The file streams through a fixed buffer: a multi-gigabyte workload is never loaded whole.
///
/// ```cpp
/// aicb::simai_reader in("workload.txt");
/// aicb::simai_header h = in.header();
/// for (const aicb::record& r : in.records()) ...   // parse_error (file:line:col) on a bad record
/// ```
///
/// Token classification uses Spirit X3 (aicb/io/detail/simai_def.hpp). aicb/io/simai_lint.hpp
/// checks a file against everything SimAI silently misreads.

#include <aicb/config.hpp>
#include <aicb/detail/input_file.hpp>
#include <aicb/error.hpp>
#include <aicb/io/detail/simai_def.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/workload/record.hpp>
#include <aicb/workload/record_stream.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// A whitespace-separated token with its 1-based position.
struct simai_token {
  std::string_view text;
  std::uint64_t line = 0, column = 0;
};

/// Splits a file into lines (for the two header lines) and tokens (for the records), as SimAI reads
/// it, through a fixed buffer. Tokens are valid until the next call.
class simai_tokenizer {
 public:
  /// @param buffer_size the most memory the tokenizer uses (a line or token may not be longer); a
  ///                    smaller file gets a buffer of its own size.
  explicit simai_tokenizer(const std::string& path, std::size_t buffer_size = 4 << 20)
      : path_(path),
        file_((detail::require_regular_file(path, "a SimAI workload"), std::fopen(path.c_str(), "rb")),
              &std::fclose) {
    if (!file_) AICB_THROW(io_error(path, std::string("cannot open file: ") + std::strerror(errno)));
    std::error_code ec;
    const auto file_size = std::filesystem::file_size(path, ec);
    buffer_.resize(ec ? buffer_size
                      : std::clamp<std::size_t>(static_cast<std::size_t>(file_size) + 1, 4096, buffer_size));
  }

  [[nodiscard]] const std::string& path() const noexcept { return path_; }

  /// The next line without its terminator (`\n`, and a `\r` before it), or nothing at the end.
  std::optional<simai_token> line() {
    std::size_t length = 0;
    while (true) {
      if (begin_ + length == end_ && !refill(length)) {
        if (length == 0) return std::nullopt;
        break;
      }
      if (buffer_[begin_ + length] == '\n') break;
      ++length;
    }
    simai_token t{std::string_view(buffer_.data() + begin_, length), line_, column_};
    begin_ += length;
    if (begin_ < end_) ++begin_;  // the newline
    ++line_;
    column_ = 1;
    if (!t.text.empty() && t.text.back() == '\r') t.text.remove_suffix(1);
    return t;
  }

  /// The next token, or nothing at the end of the file.
  std::optional<simai_token> token() {
    // Skip whitespace (the hot loop of reading a large workload: pointers and a table).
    while (true) {
      const char* p = buffer_.data() + begin_;
      const char* const e = buffer_.data() + end_;
      while (p < e && space(*p)) {
        if (*p == '\n') {
          ++line_;
          column_ = 1;
        } else {
          ++column_;
        }
        ++p;
      }
      begin_ = static_cast<std::size_t>(p - buffer_.data());
      if (p < e) break;
      if (!refill(0)) return std::nullopt;
    }
    std::size_t length = 0;
    while (true) {
      const char* p = buffer_.data() + begin_ + length;
      const char* const e = buffer_.data() + end_;
      while (p < e && !space(*p))
        ++p;
      length = static_cast<std::size_t>(p - (buffer_.data() + begin_));
      if (p < e || !refill(length)) break;
    }
    simai_token t{std::string_view(buffer_.data() + begin_, length), line_, column_};
    begin_ += length;
    column_ += length;
    return t;
  }

  /// Whether anything but whitespace remains on the current line (without consuming it).
  [[nodiscard]] std::uint64_t current_line() const noexcept { return line_; }

 private:
  // Whitespace as SimAI's stream extraction sees it, through a table: one load per character.
  static bool space(char c) {
    static constexpr auto table = [] {
      std::array<bool, 256> t{};
      for (unsigned char w : {' ', '\t', '\n', '\r', '\v', '\f'})
        t[w] = true;
      return t;
    }();
    return table[static_cast<unsigned char>(c)];
  }

  // Makes room and reads more, keeping the `keep` bytes from begin_. False at the end of the file.
  bool refill(std::size_t keep) {
    if (keep == buffer_.size())
      AICB_THROW(parse_error(path_, line_, column_,
                             "a token or line longer than " + std::to_string(buffer_.size() >> 20) + " MiB"));
    std::memmove(buffer_.data(), buffer_.data() + begin_, keep);
    begin_ = 0;
    end_ = keep;
    const std::size_t got = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_.get());
    if (got == 0 && std::ferror(file_.get())) AICB_THROW(io_error(path_, "read failed"));
    end_ += got;
    return got > 0;
  }

  std::string path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  std::uint64_t line_ = 1, column_ = 1;
};

/// The header line as SimAI reads it: the policy, then every `key: value` (or `key value`) pair.
struct simai_header_line_fields {
  simai_token policy;
  struct entry {
    simai_token key;
    std::optional<simai_token> value;  // nothing when the key is the line's last token
  };
  std::vector<entry> entries;  // in file order; tokens that are not keys are ignored by SimAI
  std::vector<simai_token> others;
  std::vector<std::string> storage;  // owns the text the tokens point to
};

/// Splits the header line into the policy and key/value tokens. The text is copied, so the result
/// outlives the tokenizer's buffer.
[[nodiscard]] inline simai_header_line_fields split_header(const simai_token& line) {
  simai_header_line_fields h;
  h.storage.emplace_back(line.text);
  const std::string_view text = h.storage.back();
  std::vector<simai_token> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\v' || text[i] == '\f'))
      ++i;
    const std::size_t start = i;
    while (i < text.size() &&
           !(text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\v' || text[i] == '\f'))
      ++i;
    if (i > start) tokens.push_back({text.substr(start, i - start), line.line, line.column + start});
  }
  if (tokens.empty()) return h;
  h.policy = tokens[0];
  for (std::size_t k = 1; k < tokens.size(); ++k) {
    bool key = false;
    for (std::string_view known : simai_header_keys)
      key = key || tokens[k].text == known;
    if (!key) {
      h.others.push_back(tokens[k]);
      continue;
    }
    h.entries.push_back(
        {tokens[k], k + 1 < tokens.size() ? std::optional<simai_token>(tokens[k + 1]) : std::nullopt});
    // checkpoints lists layers after its count; SimAI reads them from the following tokens.
    ++k;
  }
  return h;
}

/// Reads a SimAI workload file into the library's header and records.
class simai_reader {
 public:
  explicit simai_reader(const std::string& path) : in_(path) {
    const auto header_line = in_.line();
    if (!header_line) AICB_THROW(parse_error(path, 1, 1, "empty file: expected the header line"));
    fields_ = split_header(*header_line);
    header_ = to_header(fields_, path);
    const auto count_line = in_.line();
    if (!count_line) AICB_THROW(parse_error(path, 2, 1, "expected the record count on line 2"));
    std::string_view count = count_line->text;
    std::size_t skip = 0;
    while (skip < count.size() && (count[skip] == ' ' || count[skip] == '\t'))
      ++skip;
    std::size_t digits = skip;
    while (digits < count.size() && count[digits] >= '0' && count[digits] <= '9')
      ++digits;
    if (digits == skip || !detail::grammar::simai::parse_unsigned(count.substr(skip, digits - skip), count_))
      AICB_THROW(parse_error(path, 2, skip + 1, "expected the record count (a non-negative integer)"));
    fields_per_record_ = fields_.policy.text == "HYBRID_CUSTOMIZED" ? 13 : 12;
  }

  [[nodiscard]] const simai_header& header() const noexcept { return header_; }
  [[nodiscard]] const simai_header_line_fields& header_fields() const noexcept { return fields_; }
  /// The record count line 2 declares.
  [[nodiscard]] std::uint64_t declared_count() const noexcept { return count_; }

  /// The next record (as SimAI would read it, strictly: a malformed token is a parse_error), or
  /// nothing at the end of the file.
  std::optional<record> next() {
    record r;
    if (!next(r)) return std::nullopt;
    return r;
  }
  bool next(record& r) {
    const auto name = in_.token();
    if (!name) return false;
    r.name.assign(name->text);
    (void)integer(expect("placeholder"), true);
    read_phase(r.forward, simai_column_forward);
    read_phase(r.input_grad, simai_column_input);
    read_phase(r.weight_grad, simai_column_weight);
    r.update = time(expect("update time"));
    if (fields_per_record_ == 13) (void)expect("parallelism of the record");
    ++read_;
    return true;
  }

  /// Records read so far.
  [[nodiscard]] std::uint64_t records_read() const noexcept { return read_; }

  /// The records, lazily (a single pass).
  [[nodiscard]] record_stream<class simai_reader_source> records() &;
  /// Not on a temporary reader: the stream refers to it (name the reader).
  record_stream<class simai_reader_source> records() && = delete;

 private:
  static constexpr int simai_column_forward = 0, simai_column_input = 1, simai_column_weight = 2;

  static simai_header to_header(const simai_header_line_fields& f, const std::string& path) {
    simai_header h;
    h.policy = std::string(f.policy.text);
    h.vpp = h.ga = h.all_gpus = h.tensor_parallel = h.expert_parallel = h.pipeline_parallel = 0;
    for (const auto& e : f.entries) {
      if (!e.value)
        AICB_THROW(parse_error(
            path, e.key.line, e.key.column,
            "header key " + std::string(e.key.text) + " has no value (SimAI reads past the line)"));
      const std::string_view key = e.key.text, value = e.value->text;
      if (key == "pp_comm:" || key == "pp_comm") {
        h.pp_comm = std::string(value);
        continue;
      }
      std::uint64_t v = 0;
      if (!detail::grammar::simai::parse_unsigned(value, v))
        AICB_THROW(parse_error(path, e.value->line, e.value->column,
                               "expected a non-negative integer for " + std::string(key)));
      if (key == "model_parallel_NPU_group:")
        h.tensor_parallel = v;
      else if (key == "ep:")
        h.expert_parallel = v;
      else if (key == "pp:")
        h.pipeline_parallel = v;
      else if (key == "vpp:")
        h.vpp = v;
      else if (key == "ga:")
        h.ga = v;
      else if (key == "all_gpus:")
        h.all_gpus = v;
      else if (key == "checkpoints:")
        h.checkpoints = v;
      else if (key == "checkpoint_initiates:")
        h.checkpoint_initiates = v;
    }
    return h;
  }

  simai_token expect(const char* what) {
    auto t = in_.token();
    if (!t)
      AICB_THROW(parse_error(in_.path(), in_.current_line(), 1,
                             std::string("expected ") + what + ", found the end of the file (record " +
                                 std::to_string(read_ + 1) + " is incomplete)"));
    return *t;
  }
  std::uint64_t integer(const simai_token& t, bool allow_negative) {
    std::int64_t s = 0;
    std::uint64_t u = 0;
    if (allow_negative && detail::grammar::simai::parse_signed(t.text, s))
      return static_cast<std::uint64_t>(s);
    if (detail::grammar::simai::parse_unsigned(t.text, u)) return u;
    AICB_THROW(
        parse_error(in_.path(), t.line, t.column,
                    "expected a non-negative integer, found '" + std::string(t.text.substr(0, 40)) + "'"));
  }
  // A time in ns: a non-negative integer that nanoseconds (signed 64-bit) holds.
  nanoseconds time(const simai_token& t) {
    const std::uint64_t v = integer(t, false);
    if (v > static_cast<std::uint64_t>(INT64_MAX))
      AICB_THROW(parse_error(in_.path(), t.line, t.column,
                             "the time " + std::string(t.text.substr(0, 40)) +
                                 " ns is above 2^63-1 ns, the most a time holds (SimAI cannot simulate it)"));
    return nanoseconds{static_cast<std::int64_t>(v)};
  }
  void read_phase(phase& p, int column) {
    p.compute = time(expect("compute time (ns)"));
    const simai_token token = expect("communication type");
    detail::grammar::simai::comm_token comm;
    if (!detail::grammar::simai::parse_comm(token.text, comm))
      AICB_THROW(
          parse_error(in_.path(), token.line, token.column,
                      "expected a communication type (ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL with an "
                      "optional _EP or _DP_EP, or NONE), found '" +
                          std::string(token.text.substr(0, 40)) + "'"));
    p.comm.kind = comm.kind;
    // A NONE column has no group: it keeps collective_op's default, so records compare equal.
    p.comm.group = comm.kind == collective::none   ? collective_op{}.group
                   : comm.suffix == 1              ? comm_group::ep
                   : comm.suffix == 2              ? comm_group::dp_ep
                   : column == simai_column_weight ? comm_group::dp
                                                   : comm_group::tp;
    p.comm.size = bytes{integer(expect("communication size (bytes)"), false)};
  }

  simai_tokenizer in_;
  simai_header_line_fields fields_;
  simai_header header_;
  std::uint64_t count_ = 0, read_ = 0;
  int fields_per_record_ = 12;
};

/// Adapts simai_reader to record_stream.
class simai_reader_source {
 public:
  explicit simai_reader_source(simai_reader& reader) : reader_(&reader) {}
  const record* next() { return reader_->next(current_) ? &current_ : nullptr; }
  [[nodiscard]] std::uint64_t size() const { return reader_->declared_count(); }

 private:
  simai_reader* reader_;
  record current_;
};

inline record_stream<simai_reader_source> simai_reader::records() & {
  return record_stream<simai_reader_source>(simai_reader_source(*this));
}

AICB_END_NAMESPACE
