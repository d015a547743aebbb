// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The exceptions aicb throws. Every error says what was wrong and where:
///
/// - aicb::error          — base of everything aicb throws (catch this to catch all of them).
/// - aicb::parse_error    — a file (or string) did not match a grammar; carries file, line, column.
/// - aicb::config_error   — a model / parallel / batch description broke a rule; names the field,
///                          its value and the rule.
/// - aicb::io_error       — a file could not be opened, read, written or renamed.
///
/// The command-line tool maps parse and configuration errors to exit status 2 and the rest to 1.

#include <aicb/config.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

AICB_BEGIN_NAMESPACE

/// Base class of every exception aicb throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Input text that does not follow its grammar.
///
/// `what()` reads `"<file>:<line>:<column>: <message>"`, the shape compilers use, so editors can
/// jump to the spot. Line and column are 1-based; column counts bytes.
class parse_error : public error {
 public:
  /// @param file    name of the input as the user gave it ("<string>" for in-memory text)
  /// @param line    1-based line of the offending token
  /// @param column  1-based byte column of the offending token
  /// @param message what was wrong, e.g. "expected time_gpu_avg value in microseconds"
  parse_error(std::string file, std::size_t line, std::size_t column, std::string message)
      : error(located(file, line, column, message)),
        file_(std::move(file)),
        line_(line),
        column_(column),
        message_(std::move(message)) {}

  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] std::size_t line() const noexcept { return line_; }
  [[nodiscard]] std::size_t column() const noexcept { return column_; }
  /// The message without the position prefix.
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

 private:
  // Built with append: g++ 12 warns falsely (-Wrestrict, PR 105329) on chained operator+ here.
  static std::string located(const std::string& file, std::size_t line, std::size_t column,
                             const std::string& message) {
    std::string text;
    text.reserve(file.size() + message.size() + 24);
    text.append(file).append(1, ':').append(std::to_string(line)).append(1, ':');
    text.append(std::to_string(column)).append(": ").append(message);
    return text;
  }

  std::string file_;
  std::size_t line_;
  std::size_t column_;
  std::string message_;
};

/// A description of a model, parallel layout or batch that cannot work.
///
/// `what()` reads `"<field> = <value>: <rule>"`, for example
/// `"tensor_parallel = 5: tensor_parallel must divide num_attention_heads (48)"`.
class config_error : public error {
 public:
  /// @param field  the descriptor field at fault, spelled as in the descriptor and on the CLI
  /// @param value  its value, as text
  /// @param rule   the rule it breaks, phrased as what must hold
  /// The message shows at most the first 80 characters of the value (a 5000-digit number is not
  /// read, it is scrolled past) and says how long it was; value() keeps it whole.
  config_error(std::string field, std::string value, std::string rule)
      : error(std::string(field).append(" = ").append(shown(value)).append(": ").append(rule)),
        field_(std::move(field)),
        value_(std::move(value)),
        rule_(std::move(rule)) {}

  [[nodiscard]] const std::string& field() const noexcept { return field_; }
  [[nodiscard]] const std::string& value() const noexcept { return value_; }
  [[nodiscard]] const std::string& rule() const noexcept { return rule_; }

 private:
  static std::string shown(const std::string& value) {
    constexpr std::size_t most = 80;
    if (value.size() <= most) return value;
    return value.substr(0, most) + "... (" + std::to_string(value.size()) + " characters)";
  }
  std::string field_;
  std::string value_;
  std::string rule_;
};

/// A file that could not be opened, read, written or renamed; `what()` names the path and the cause.
class io_error : public error {
 public:
  io_error(const std::string& path, const std::string& cause)
      : error(std::string(path).append(": ").append(cause)), path_(path) {}

  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

AICB_END_NAMESPACE
