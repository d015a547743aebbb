// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// IWYU pragma: private, include <aicb/readers.hpp>
#pragma once

// What every reader of a JSON document (job sets, cluster files) shares: the parse with the line and
// column of a syntax error, unknown keys refused with the nearest known one, and typed values whose
// errors name their place in the document.

#include <aicb/config.hpp>
#include <aicb/detail/edit_distance.hpp>
#include <aicb/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE
namespace detail {

// `text` as JSON; parse_error naming `source`, the line and the column when it is not.
inline nlohmann::json parse_json_document(std::string_view text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    const std::size_t offset = std::min<std::size_t>(
        text.size(), e.id == 101 ? static_cast<const nlohmann::json::parse_error&>(e).byte - 1 : 0);
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i)
      text[i] == '\n' ? (++line, column = 1) : ++column;
    AICB_THROW(parse_error(source, line, column, std::string("not valid JSON: ") + e.what()));
  }
}

// Refuses a key of `object` (at `where`) not among `known`, suggesting the nearest.
inline void refuse_unknown_keys(const nlohmann::json& object, const std::string& where,
                                std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string_view near = nearest(key, std::vector<std::string_view>(known));
    AICB_THROW(config_error(
        where.empty() ? key : where + "." + key, value.dump(),
        "no such key" + (near.empty() ? std::string() : "; did you mean " + std::string(near) + "?")));
  }
}

inline std::uint64_t whole_number(const nlohmann::json& value, const std::string& where) {
  if (!value.is_number_unsigned()) AICB_THROW(config_error(where, value.dump(), "expected a whole number"));
  return value.get<std::uint64_t>();
}

inline std::string text_of(const nlohmann::json& value, const std::string& where) {
  if (!value.is_string()) AICB_THROW(config_error(where, value.dump(), "expected a string"));
  return value.get<std::string>();
}

// A finite number (integers too); config_error naming `where` otherwise.
inline double number_of(const nlohmann::json& value, const std::string& where) {
  if (!value.is_number()) AICB_THROW(config_error(where, value.dump(), "expected a number"));
  return value.get<double>();
}

}  // namespace detail
AICB_END_NAMESPACE
