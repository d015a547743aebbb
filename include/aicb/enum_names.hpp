// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The one way an enum of the library has names: a specialisation of aicb::enum_names listing them,
/// indexed by the enum's underlying value, and optionally `aliases`, other spellings a parser accepts.
/// From it come aicb::to_string and aicb::from_string, and the descriptors' printing, parsing and
/// flags (<aicb/model/reflect.hpp>).
///
/// ```cpp
/// aicb::to_string(aicb::dtype::bf16);                 // "bf16"
/// aicb::from_string<aicb::dtype>("bfloat16");         // std::optional{dtype::bf16} (an alias)
/// aicb::from_string<aicb::collective>("all_gather");  // std::optional{collective::all_gather}
/// ```

#include <aicb/config.hpp>

#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>

AICB_BEGIN_NAMESPACE

/// Names of an enum's values, indexed by the underlying value (`static constexpr std::array<
/// std::string_view, N> value`), and optionally `aliases` (an array of (name, value) pairs) that
/// from_string accepts too. Specialised for each named enum.
template <class E>
struct enum_names;

/// An enum whose values have names (a specialisation of enum_names exists).
template <class E>
concept NamedEnum = std::is_enum_v<E> && requires {
  enum_names<E>::value;
};

/// The name of `e` ("?" for a value outside the enum).
template <NamedEnum E>
[[nodiscard]] constexpr std::string_view to_string(E e) noexcept {
  const auto i = static_cast<std::size_t>(e);
  return i < enum_names<E>::value.size() ? enum_names<E>::value[i] : std::string_view{"?"};
}

/// The value named `name` (its name, or one of its aliases), or nothing.
template <NamedEnum E>
[[nodiscard]] constexpr std::optional<E> from_string(std::string_view name) noexcept {
  for (std::size_t i = 0; i < enum_names<E>::value.size(); ++i)
    if (enum_names<E>::value[i] == name) return static_cast<E>(i);
  if constexpr (requires { enum_names<E>::aliases; })
    for (const auto& [alias, value] : enum_names<E>::aliases)
      if (alias == name) return value;
  return std::nullopt;
}

AICB_END_NAMESPACE
