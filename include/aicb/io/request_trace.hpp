// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::read_request_trace — the requests of a serving trace (aicb::serving_request), from CSV or
/// JSON Lines (format `aicb.requests/1`, docs/inference.md; docs/schemas/requests.schema.json
/// describes one JSON line):
///
///     # aicb.requests/1                          {"arrival_s": 0, "prompt_tokens": 812, "output_tokens": 64}
///     arrival_s,prompt_tokens,output_tokens      {"arrival_s": 0.25, "prompt_tokens": 1900, "output_tokens":
///     310} 0,812,64 0.25,1900,310
///
/// CSV: a header naming the columns `arrival_s`, `prompt_tokens`, `output_tokens` and optionally `id`
/// and the shared prefix's `prefix_id` and `prefix_tokens` (both or neither; a prefix id has one
/// length), in any order; lines starting with '#' and blank lines are skipped. JSON Lines: one object per
/// line with the same keys (an optional `"schema": "aicb.requests/1"`). The format is the first
/// non-blank, non-comment character's: '{' is JSON Lines. Ids default to the request's position;
/// arrivals need not be sorted. Every error names the file, the line and the field.
///
/// ```cpp
/// const std::vector<aicb::serving_request> requests = aicb::read_request_trace("trace.csv");
/// ```

#include <aicb/config.hpp>
#include <aicb/detail/input_file.hpp>
#include <aicb/error.hpp>
#include <aicb/io/detail/json_document.hpp>
#include <aicb/model/requests.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The schema name of a request trace.
inline constexpr std::string_view request_trace_schema = "aicb.requests/1";

/// The largest trace aicb reads (1 GiB: 10 million requests of ~100 bytes).
inline constexpr std::uint64_t max_request_trace_bytes = std::uint64_t{1} << 30;

namespace detail {

// A request's fields checked, or parse_error naming the line and the field.
inline void check_request(const serving_request& r, const std::string& source, std::size_t line) {
  const auto refuse = [&](const std::string& message) { AICB_THROW(parse_error(source, line, 1, message)); };
  if (!(r.arrival_s >= 0 && r.arrival_s <= max_arrival_s))
    refuse("arrival_s: " + std::to_string(r.arrival_s) + ": expected seconds in [0, 1e9]");
  if (r.prompt == 0 || r.prompt > (std::uint64_t{1} << 24))
    refuse("prompt_tokens: " + std::to_string(r.prompt) + ": expected 1 to 16,777,216 tokens");
  if (r.output == 0 || r.output > (std::uint64_t{1} << 24))
    refuse("output_tokens: " + std::to_string(r.output) + ": expected 1 to 16,777,216 tokens");
  if (r.prefix_tokens > r.prompt)
    refuse("prefix_tokens: " + std::to_string(r.prefix_tokens) + ": a shared prefix is part of the prompt (" +
           std::to_string(r.prompt) + " tokens)");
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace detail

/// The requests of a trace's text (see the file comment); `source` names it in errors.
[[nodiscard]] inline std::vector<serving_request> parse_request_trace(
    std::string_view text, const std::string& source = "<string>") {
  std::vector<serving_request> out;
  std::unordered_set<std::uint64_t> ids;
  std::unordered_map<std::uint64_t, std::uint64_t> prefix_lengths;  // prefix_id → its tokens
  bool json_lines = false, decided = false, have_header = false;
  // arrival_s, prompt_tokens, output_tokens, id, prefix_id, prefix_tokens
  int column_of[6] = {-1, -1, -1, -1, -1, -1};
  std::size_t columns = 0;
  std::size_t line_number = 0;
  const auto fail = [&](std::size_t column, const std::string& message) {
    AICB_THROW(parse_error(source, line_number, column, message));
  };
  const auto add = [&](serving_request r, bool has_id) {
    if (!has_id) r.id = out.size();
    detail::check_request(r, source, line_number);
    if (!ids.insert(r.id).second) fail(1, "id: " + std::to_string(r.id) + ": used by an earlier request");
    if (r.prefix_tokens > 0) {
      const auto [known, added] = prefix_lengths.emplace(r.prefix_id, r.prefix_tokens);
      if (!added && known->second != r.prefix_tokens)
        fail(1, "prefix_tokens: " + std::to_string(r.prefix_tokens) + ": prefix_id " +
                    std::to_string(r.prefix_id) + " has " + std::to_string(known->second) +
                    " tokens in an earlier request");
    }
    if (out.size() >= max_serving_requests) fail(1, "more than 10,000,000 requests");
    out.push_back(r);
  };
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view raw = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_number;
    const std::string_view line = detail::trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (!decided) {
      json_lines = line.front() == '{';
      decided = true;
    }
    if (json_lines) try {
        nlohmann::json object;
        try {
          object = detail::parse_json_document(line, source);
        } catch (const parse_error& e) {  // the column within the line, on the trace's line
          AICB_THROW(parse_error(source, line_number, e.column(), e.message()));
        }
        if (!object.is_object()) fail(1, "expected one JSON object a line");
        detail::refuse_unknown_keys(
            object, "",
            {"schema", "id", "arrival_s", "prompt_tokens", "output_tokens", "prefix_id", "prefix_tokens"});
        if (object.contains("schema") && object["schema"] != request_trace_schema)
          fail(1, "schema: " + object["schema"].dump() + ": expected \"aicb.requests/1\"");
        for (const char* key : {"arrival_s", "prompt_tokens", "output_tokens"})
          if (!object.contains(key)) fail(1, std::string(key) + ": missing");
        serving_request r;
        const nlohmann::json& arrival = object["arrival_s"];
        if (!arrival.is_number()) fail(1, "arrival_s: " + arrival.dump() + ": expected seconds");
        r.arrival_s = arrival.get<double>();
        const std::string where = source + ":" + std::to_string(line_number);
        r.prompt = detail::whole_number(object["prompt_tokens"], where + ": prompt_tokens");
        r.output = detail::whole_number(object["output_tokens"], where + ": output_tokens");
        const bool has_id = object.contains("id");
        if (has_id) r.id = detail::whole_number(object["id"], where + ": id");
        if (object.contains("prefix_id") != object.contains("prefix_tokens"))
          fail(1, std::string(object.contains("prefix_id") ? "prefix_tokens" : "prefix_id") +
                      ": missing (a shared prefix names both its id and its tokens)");
        if (object.contains("prefix_id")) {
          r.prefix_id = detail::whole_number(object["prefix_id"], where + ": prefix_id");
          r.prefix_tokens = detail::whole_number(object["prefix_tokens"], where + ": prefix_tokens");
        }
        add(r, has_id);
        continue;
      } catch (const config_error& e) {  // a field's error, placed on its line
        fail(1, e.what());
      }
    // CSV: the fields of the line, split on commas.
    std::vector<std::string_view> fields;
    for (std::string_view rest = line;;) {
      const std::size_t comma = rest.find(',');
      fields.push_back(detail::trim(rest.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    if (!have_header) {
      constexpr std::string_view names[6] = {"arrival_s", "prompt_tokens", "output_tokens",
                                             "id",        "prefix_id",     "prefix_tokens"};
      for (std::size_t i = 0; i < fields.size(); ++i) {
        int found = -1;
        for (int n = 0; n < 6; ++n)
          if (fields[i] == names[n]) found = n;
        if (found < 0)
          fail(1, "column " + std::to_string(i + 1) + " '" + std::string(fields[i]) +
                      "': expected a header of arrival_s, prompt_tokens, output_tokens and optionally id, "
                      "prefix_id and prefix_tokens");
        if (column_of[found] >= 0) fail(1, "column '" + std::string(fields[i]) + "' named twice");
        column_of[found] = static_cast<int>(i);
      }
      for (int n = 0; n < 3; ++n)
        if (column_of[n] < 0) fail(1, "the header has no column " + std::string(names[n]));
      if ((column_of[4] < 0) != (column_of[5] < 0))
        fail(1, "the header has no column " + std::string(names[column_of[4] < 0 ? 4 : 5]) +
                    " (a shared prefix names both its id and its tokens)");
      columns = fields.size();
      have_header = true;
      continue;
    }
    if (fields.size() != columns)
      fail(1,
           std::to_string(fields.size()) + " fields: expected " + std::to_string(columns) + " as the header");
    const auto whole = [&](int n, const char* name) {
      const std::string_view f = fields[static_cast<std::size_t>(column_of[n])];
      std::uint64_t v = 0;
      const auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
      if (ec != std::errc() || p != f.data() + f.size() || f.empty())
        fail(1, std::string(name) + ": '" + std::string(f) + "': expected a whole number");
      return v;
    };
    serving_request r;
    {
      const std::string_view f = fields[static_cast<std::size_t>(column_of[0])];
      const auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), r.arrival_s);
      if (ec != std::errc() || p != f.data() + f.size() || f.empty())
        fail(1, "arrival_s: '" + std::string(f) + "': expected seconds");
    }
    r.prompt = whole(1, "prompt_tokens");
    r.output = whole(2, "output_tokens");
    if (column_of[3] >= 0) r.id = whole(3, "id");
    if (column_of[4] >= 0) {
      r.prefix_id = whole(4, "prefix_id");
      r.prefix_tokens = whole(5, "prefix_tokens");
    }
    add(r, column_of[3] >= 0);
  }
  if (out.empty())
    AICB_THROW(parse_error(source, line_number == 0 ? 1 : line_number, 1,
                           "no requests (expected a CSV header and rows, or JSON lines)"));
  return out;
}

/// `requests` as a CSV trace (the header, then one line per request; arrivals to the nanosecond; the
/// prefix columns only when a request has a shared prefix), which parse_request_trace reads back.
[[nodiscard]] inline std::string format_request_trace(const std::vector<serving_request>& requests) {
  bool prefixes = false;
  for (const serving_request& r : requests)
    prefixes = prefixes || r.prefix_tokens > 0;
  std::string out =
      prefixes ? "# aicb.requests/1\nid,arrival_s,prompt_tokens,output_tokens,prefix_id,prefix_tokens\n"
               : "# aicb.requests/1\nid,arrival_s,prompt_tokens,output_tokens\n";
  char line[160];
  for (const serving_request& r : requests) {
    std::snprintf(line, sizeof line, "%llu,%.9f,%llu,%llu", static_cast<unsigned long long>(r.id),
                  r.arrival_s, static_cast<unsigned long long>(r.prompt),
                  static_cast<unsigned long long>(r.output));
    out += line;
    if (prefixes) {
      std::snprintf(line, sizeof line, ",%llu,%llu", static_cast<unsigned long long>(r.prefix_id),
                    static_cast<unsigned long long>(r.prefix_tokens));
      out += line;
    }
    out += '\n';
  }
  return out;
}

/// The requests of the trace file at `path` (see the file comment).
[[nodiscard]] inline std::vector<serving_request> read_request_trace(const std::string& path) {
  const detail::file_prefix file = detail::read_file_prefix(path, max_request_trace_bytes, "a request trace");
  if (!file.whole) AICB_THROW(io_error(path, "a request trace larger than 1 GiB"));
  return parse_request_trace(file.text, path);
}

AICB_END_NAMESPACE
