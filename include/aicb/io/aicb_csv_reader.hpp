// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Reads aicb's physical-cluster workload CSV (<aicb/io/aicb_csv.hpp>, docs/csv.md). Strict: the
/// header must be aicb's, every line must have its 12 fields, and every field must be what aicb
/// writes there; the first fault is reported as "file:line:column: message" (aicb::parse_error).
///
/// ```cpp
/// aicb::csv_document doc = aicb::read_csv_file("megatron_workload.csv");
/// for (const aicb::csv_item& item : doc.items) ...
/// ```
///
/// parse_csv() hands the items to a callback instead, without keeping them: items' text fields
/// (stage, additional) point into the text, which must outlive them.

#include <aicb/config.hpp>
#include <aicb/detail/input_file.hpp>
#include <aicb/error.hpp>
#include <aicb/io/aicb_csv.hpp>

#include <charconv>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

namespace detail {

class csv_line_parser {
 public:
  csv_line_parser(std::string_view file, std::size_t line) : file_(file), line_(line) {}

  csv_item parse(std::string_view text) {
    std::array<std::string_view, 12> f;
    std::array<std::size_t, 12> at{};
    std::size_t start = 0, n = 0;
    for (std::size_t i = 0; i <= text.size(); ++i)
      if (i == text.size() || text[i] == ',') {
        if (n == f.size()) fail(i + 1, "more than 12 fields (a stage or size with a comma?)");
        at[n] = start;
        f[n++] = text.substr(start, i - start);
        start = i + 1;
      }
    if (n != f.size()) fail(text.size() + 1, "expected 12 fields, found " + std::to_string(n));

    csv_item item;
    constexpr std::string_view type_prefix = "CommType.";
    if (!f[0].starts_with(type_prefix)) fail(at[0], "comm_type must read CommType.<operation>");
    const auto op = from_string<csv_op>(f[0].substr(type_prefix.size()));
    if (!op) fail(at[0], "unknown comm_type '" + std::string(f[0]) + "'");
    item.op = *op;

    if (f[1] == "None") {
      item.group = csv_group::none;
    } else {
      constexpr std::string_view group_prefix = "CommGroup.";
      bool found = false;
      if (f[1].starts_with(group_prefix))
        for (std::size_t g = 1; g < enum_names<csv_group>::value.size(); ++g)
          if (f[1].substr(group_prefix.size()) == enum_names<csv_group>::value[g]) {
            item.group = static_cast<csv_group>(g);
            found = true;
          }
      if (!found) fail(at[1], "unknown comm_group '" + std::string(f[1]) + "' (CommGroup.<group> or None)");
    }
    if (f[2] != "None") item.group_size = unsigned_value(f[2], at[2], "comm_group_size");

    if (item.is_computation()) {
      parse_shapes(f[3], at[3], item);
    } else if (f[3].find_first_of(".eE") != std::string_view::npos) {
      double v = 0;
      const auto [end, ec] = std::from_chars(f[3].data(), f[3].data() + f[3].size(), v);
      if (ec != std::errc{} || end != f[3].data() + f[3].size() || !(v >= 0))
        fail(at[3], "msg_size must be a non-negative number of bytes, not '" + std::string(f[3]) + "'");
      item.msg_size_float = v;
    } else {
      item.msg_size = unsigned_value(f[3], at[3], "msg_size");
    }
    item.stage = f[4];
    item.dst = optional_int(f[5], at[5], "dst");
    item.src = optional_int(f[6], at[6], "src");
    item.additional = f[7];
    item.elapsed_time = optional_float(f[8], at[8], "_elapsed_time");
    item.algbw = optional_float(f[9], at[9], "algbw");
    item.busbw = optional_float(f[10], at[10], "busbw");
    item.count = unsigned_value(f[11], at[11], "count");

    if (item.op != csv_op::computation && item.op != csv_op::epoch_end && item.group == csv_group::none)
      fail(at[1], "a " + std::string(to_string(item.op)) + " needs a comm_group");
    return item;
  }

 private:
  [[noreturn]] void fail(std::size_t column0, const std::string& message) const {
    AICB_THROW(parse_error(std::string(file_), line_, column0 + 1, message));
  }
  std::uint64_t unsigned_value(std::string_view t, std::size_t at, const char* field) const {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc{} || end != t.data() + t.size())
      fail(at, std::string(field) + " must be a non-negative integer, not '" + std::string(t) + "'");
    return v;
  }
  std::optional<std::int64_t> optional_int(std::string_view t, std::size_t at, const char* field) const {
    if (t == "None") return std::nullopt;
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc{} || end != t.data() + t.size())
      fail(at, std::string(field) + " must be a rank or None, not '" + std::string(t) + "'");
    return v;
  }
  std::optional<double> optional_float(std::string_view t, std::size_t at, const char* field) const {
    if (t == "None") return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc{} || end != t.data() + t.size())
      fail(at, std::string(field) + " must be a number or None, not '" + std::string(t) + "'");
    return v;
  }
  // "((d0 d1 d2) (k n))": two operands of 2 or 3 dimensions.
  void parse_shapes(std::string_view t, std::size_t at, csv_item& item) const {
    std::size_t i = 0;
    const auto expect = [&](char c) {
      if (i >= t.size() || t[i] != c)
        fail(at + i, std::string("computation msg_size must read ((d d d) (d d)): expected '") + c + "'");
      ++i;
    };
    expect('(');
    for (std::size_t operand = 0; operand < 2; ++operand) {
      if (operand == 1) expect(' ');
      expect('(');
      csv_shape& s = item.shapes[operand];
      while (true) {
        const std::size_t begin = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9')
          ++i;
        if (begin == i) fail(at + i, "computation msg_size: expected a dimension");
        if (s.rank == s.dims.size())
          fail(at + begin, "computation msg_size: an operand has at most 3 dimensions");
        s.dims[s.rank++] = unsigned_value(t.substr(begin, i - begin), at + begin, "dimension");
        if (i < t.size() && t[i] == ' ') {
          ++i;
          continue;
        }
        break;
      }
      expect(')');
    }
    expect(')');
    if (i != t.size()) fail(at + i, "computation msg_size: unexpected text after the shapes");
  }

  std::string_view file_;
  std::size_t line_;
};

}  // namespace detail

/// Parses CSV text, calling `on_item(const csv_item&)` for each line after the header. Throws
/// aicb::parse_error at the first fault. Returns the number of items.
template <class OnItem>
std::uint64_t parse_csv(std::string_view text, std::string_view file, OnItem&& on_item) {
  std::size_t pos = 0, line = 0;
  std::uint64_t items = 0;
  while (pos < text.size()) {
    ++line;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view row = text.substr(pos, end - pos);
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    pos = end + 1;
    if (line == 1) {
      if (row != csv_header)
        AICB_THROW(parse_error(std::string(file), 1, 1,
                               "not an aicb workload CSV: the header must read " + std::string(csv_header)));
      continue;
    }
    if (row.empty()) {
      if (pos >= text.size()) break;  // a final blank line
      AICB_THROW(parse_error(std::string(file), line, 1, "empty line"));
    }
    on_item(detail::csv_line_parser(file, line).parse(row));
    ++items;
  }
  if (line == 0) AICB_THROW(parse_error(std::string(file), 1, 1, "empty file: expected aicb's CSV header"));
  return items;
}

/// A CSV read into memory: the text, and the items that point into it.
struct csv_document {
  std::string text;
  std::vector<csv_item> items;

  csv_document() = default;
  csv_document(const csv_document&) = delete;  // items point into text
  csv_document& operator=(const csv_document&) = delete;
  csv_document(csv_document&&) = default;  // a moved std::string keeps its heap buffer...
  csv_document& operator=(csv_document&&) = default;
};

/// Reads CSV text (copied into the document).
[[nodiscard]] inline csv_document read_csv(std::string text, std::string_view file = "<string>") {
  csv_document doc;
  doc.text = std::move(text);
  doc.text.reserve(64);  // ...but not a short string's inline buffer: make sure it is on the heap
  parse_csv(doc.text, file, [&](const csv_item& item) { doc.items.push_back(item); });
  return doc;
}

/// Reads a CSV file. Throws io_error if it cannot be read, parse_error if it is malformed.
[[nodiscard]] inline csv_document read_csv_file(const std::string& path) {
  detail::require_regular_file(path, "an aicb CSV workload");
  std::ifstream in(path, std::ios::binary);
  if (!in) AICB_THROW(io_error(path, "cannot open file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) AICB_THROW(io_error(path, "read failed"));
  return read_csv(std::move(buffer).str(), path);
}

AICB_END_NAMESPACE
