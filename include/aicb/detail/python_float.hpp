// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Python's float repr(), for the files where aicb prints a Python float (SimAI's pp_comm, the CSV's
/// FP8 message sizes): aicb compatibility means the same characters.

#include <aicb/config.hpp>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

namespace detail {

/// Python's repr() of a float: shortest round-trip digits, fixed notation for exponents in
/// [-4, 16), scientific (`1e+16`) otherwise, always with a decimal part in fixed notation.
[[nodiscard]] inline std::string python_float_repr(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  const std::string_view sci(buffer, static_cast<std::size_t>(result.ptr - buffer));
  const auto e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.' && c != '-') digits += c;
  const int exponent = std::stoi(std::string(sci.substr(e + 1)));
  const std::string sign = value < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    std::string mantissa = digits.substr(0, 1);
    if (digits.size() > 1) mantissa.append(".").append(digits, 1);  // (append: GCC 12 misreads "." + s)
    char exp_text[16];
    std::snprintf(exp_text, sizeof exp_text, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return sign + mantissa + exp_text;
  }
  std::string text;
  if (exponent < 0) {
    text = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  } else {
    const auto integer_digits = static_cast<std::size_t>(exponent) + 1;
    if (digits.size() <= integer_digits)
      text = digits + std::string(integer_digits - digits.size(), '0') + ".0";
    else
      text = digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
  }
  return sign + text;
}

}  // namespace detail

AICB_END_NAMESPACE
