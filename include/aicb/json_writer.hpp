// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::json_writer — a small streaming JSON writer for aicb's own outputs (`describe --json`,
/// sidecar provenance files, summaries). It writes; it does not parse (reading JSON — Hugging Face
/// config files — uses nlohmann-json behind aicb/model/hf_config.hpp only), which keeps the
/// headers that merely emit JSON cheap to compile.
///
/// ```cpp
/// aicb::json_writer w;
/// w.begin_object().key("model").value("llama2-7b").key("layers").value(32).end_object();
/// std::string text = w.str();   // {"model": "llama2-7b", "layers": 32}  (pretty-printed)
/// ```

#include <aicb/config.hpp>

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Writes pretty-printed JSON (2-space indent) into a string. Keys keep the order they are written in.
class json_writer {
 public:
  json_writer& begin_object() { return open('{'); }
  json_writer& end_object() { return close('}'); }
  json_writer& begin_array() { return open('['); }
  json_writer& end_array() { return close(']'); }

  /// The key of the next member of the current object.
  json_writer& key(std::string_view k) {
    separate();
    quote(k);
    out_ += ": ";
    after_key_ = true;
    return *this;
  }

  json_writer& value(std::string_view s) {
    separate();
    quote(s);
    return *this;
  }
  json_writer& value(const char* s) { return value(std::string_view(s)); }
  json_writer& value(const std::string& s) { return value(std::string_view(s)); }
  json_writer& value(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
  }
  /// The JSON null.
  json_writer& null() {
    separate();
    out_ += "null";
    return *this;
  }
  template <std::integral I>
  requires(!std::same_as<I, bool>) json_writer& value(I n) {
    separate();
    out_ += std::to_string(n);
    return *this;
  }
  /// Doubles in shortest round-trip form; non-finite values (not JSON) as null.
  json_writer& value(double d) {
    separate();
    if (!std::isfinite(d)) {
      out_ += "null";
      return *this;
    }
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, d);
    out_.append(text, static_cast<std::size_t>(result.ptr - text));
    return *this;
  }

  /// `key(k).value(v)` in one call.
  template <class V>
  json_writer& member(std::string_view k, const V& v) {
    return key(k).value(v);
  }

  /// The text written so far (complete once every object and array is closed).
  [[nodiscard]] const std::string& str() const noexcept { return out_; }

 private:
  json_writer& open(char bracket) {
    separate();
    out_ += bracket;
    counts_.push_back(0);
    return *this;
  }
  json_writer& close(char bracket) {
    const bool empty = counts_.back() == 0;
    counts_.pop_back();
    if (!empty) newline();
    out_ += bracket;
    return *this;
  }
  // Before a value or key: a comma after a previous sibling, then a new line (not after a key).
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (counts_.empty()) return;
    if (counts_.back()++ > 0) out_ += ',';
    newline();
  }
  void newline() {
    out_ += '\n';
    out_.append(2 * counts_.size(), ' ');
  }
  void quote(std::string_view s) {
    out_ += '"';
    for (const char c : s) {
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\t':
          out_ += "\\t";
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            static constexpr char hex[] = "0123456789abcdef";
            out_ += "\\u00";
            out_ += hex[(c >> 4) & 0xf];
            out_ += hex[c & 0xf];
          } else {
            out_ += c;
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<std::size_t> counts_;  // members written so far at each open level
  bool after_key_ = false;
};

AICB_END_NAMESPACE
