// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// IWYU pragma: private, include <aicb/model/spec.hpp>
#pragma once

// One mechanism for every descriptor rule, at compile time and at run time.
//
// require(ok, field, value, rule) is constexpr. When `ok` is false it calls a function that is not
// constexpr and throws aicb::config_error. In a constant expression that call is a compile error,
// and the compiler's "in 'constexpr' expansion of require(false, "field", value, "rule")" note
// carries the rule's text; at run time the same call throws.

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE
namespace detail {

[[noreturn]] inline void rule_violated(std::string_view field, std::uint64_t value, std::string_view rule,
                                       std::string_view other_field, std::uint64_t other_value) {
  std::string text(rule);
  if (!other_field.empty())
    text += " (" + std::string(other_field) + " = " + std::to_string(other_value) + ")";
  AICB_THROW(config_error(std::string(field), std::to_string(value), std::move(text)));
}

/// The same for a rule on a floating-point field (called only when the rule is broken).
[[noreturn]] inline void rule_violated_by(std::string_view field, double value, std::string_view rule) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  AICB_THROW(config_error(std::string(field), text, std::string(rule)));
}

/// The same for a rule on a text field.
[[noreturn]] inline void rule_violated_text(std::string_view field, std::string_view value,
                                            std::string_view rule) {
  AICB_THROW(config_error(std::string(field), std::string(value), std::string(rule)));
}

/// Checks one rule. `other_field`/`other_value` name the field the rule relates `field` to, shown
/// in the run-time message ("tensor_parallel must divide num_attention_heads (num_attention_heads = 48)").
constexpr void require(bool ok, std::string_view field, std::uint64_t value, std::string_view rule,
                       std::string_view other_field = {}, std::uint64_t other_value = 0) {
  if (!ok) rule_violated(field, value, rule, other_field, other_value);
}

}  // namespace detail
AICB_END_NAMESPACE
