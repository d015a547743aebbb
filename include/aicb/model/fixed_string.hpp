// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::fixed_string — a short string stored inline, so descriptors that carry a name (a model's
/// name, for instance) stay literal, structural types: usable in constant expressions and as
/// template arguments.

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// Up to `Capacity - 1` characters, NUL-terminated, stored inline.
template <std::size_t Capacity>
struct fixed_string {
  char data[Capacity]{};  // public: structural types have only public members

  constexpr fixed_string() noexcept = default;

  /// From a literal; longer literals do not compile.
  template <std::size_t N>
  requires(N <= Capacity) constexpr fixed_string(
      const char (&text)[N]) noexcept {  // NOLINT: implicit on purpose, like a literal
    for (std::size_t i = 0; i < N; ++i)
      data[i] = text[i];
  }

  /// From run-time text; throws config_error when it does not fit.
  [[nodiscard]] static constexpr fixed_string from(std::string_view text) {
    if (text.size() >= Capacity)
      AICB_THROW(config_error("name", std::string(text),
                              "a name must be shorter than " + std::to_string(Capacity) + " characters"));
    fixed_string s;
    for (std::size_t i = 0; i < text.size(); ++i)
      s.data[i] = text[i];
    return s;
  }

  [[nodiscard]] constexpr std::string_view view() const noexcept {
    std::size_t n = 0;
    while (n < Capacity && data[n] != '\0')
      ++n;
    return {data, n};
  }
  [[nodiscard]] constexpr bool empty() const noexcept { return data[0] == '\0'; }

  [[nodiscard]] friend constexpr bool operator==(const fixed_string& a, const fixed_string& b) noexcept {
    return a.view() == b.view();
  }
};

AICB_END_NAMESPACE
