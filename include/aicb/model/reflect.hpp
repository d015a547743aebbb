// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Generic access to the descriptors' fields by name: iterate, print and set them from text.
/// Everything here is driven by the single field list of each descriptor (its `visit_fields`), so a
/// field added to a descriptor is printable, parsable and a CLI flag without further code.
///
/// ```cpp
/// aicb::model_spec m;
/// aicb::set_field(m, "hidden_size", "5120");      // throws config_error on a bad value
/// aicb::set_field(m, "activation", "swiglu");
/// for (const auto& [key, value] : aicb::to_key_values(m)) std::cout << key << '=' << value << '\n';
/// ```

#include <aicb/config.hpp>
#include <aicb/detail/edit_distance.hpp>
#include <aicb/dtype.hpp>
#include <aicb/error.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/fixed_string.hpp>
#include <aicb/model/options.hpp>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// A descriptor whose fields are reflected (model_spec, parallel_spec, batch_spec).
template <class T>
concept ReflectedDescriptor = requires(T& object, void (*visit)(std::string_view, const int&)) {
  T::visit_fields(object, visit);
};

/// Calls `f(name, value)` for each field of `obj`, in declaration order; `value` is a reference to
/// the member (const when `obj` is const).
template <class T, class F>
requires ReflectedDescriptor<std::remove_const_t<T>>
constexpr void for_each_field(T& obj, F&& f) { std::remove_const_t<T>::visit_fields(obj, f); }

/// The field names of `T`, in declaration order.
template <ReflectedDescriptor T>
[[nodiscard]] std::vector<std::string_view> field_names() {
  std::vector<std::string_view> names;
  const T sample{};
  for_each_field(sample, [&](std::string_view name, const auto&) { names.push_back(name); });
  return names;
}

/// A field value as text: integers in decimal, booleans as true/false, enums by name, doubles in
/// shortest round-trip form, names verbatim.
template <class V>
[[nodiscard]] std::string format_value(const V& value) {
  if constexpr (std::is_same_v<V, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_same_v<V, dtype>) {
    return std::string(to_string(value));
  } else if constexpr (NamedEnum<V>) {
    return std::string(to_string(value));
  } else if constexpr (std::is_integral_v<V>) {
    return std::to_string(value);
  } else if constexpr (std::is_floating_point_v<V>) {
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, value);
    return std::string(text, result.ptr);
  } else {
    return std::string(value.view());  // fixed_string
  }
}

namespace detail {

template <class E>
[[nodiscard]] std::string enum_choices() {
  std::string text;
  for (std::string_view name : enum_names<E>::value)
    text += (text.empty() ? "" : " | ") + std::string(name);
  return text;
}

}  // namespace detail

/// Parses `text` into `value` (the inverse of format_value). Throws config_error naming `field`,
/// the text and what was expected.
template <class V>
void parse_value(std::string_view field, std::string_view text, V& value) {
  const auto fail = [&](const std::string& expected) {
    AICB_THROW(config_error(std::string(field), std::string(text), "expected " + expected));
  };
  if constexpr (std::is_same_v<V, bool>) {
    if (text == "true" || text == "1" || text == "yes" || text == "on")
      value = true;
    else if (text == "false" || text == "0" || text == "no" || text == "off")
      value = false;
    else
      fail("true or false");
  } else if constexpr (std::is_same_v<V, dtype>) {
    const auto parsed = dtype_from_string(text);
    if (!parsed) fail("bf16 | fp16 | fp32 | fp8");
    value = *parsed;
  } else if constexpr (NamedEnum<V>) {
    const auto parsed = from_string<V>(text);
    if (!parsed) fail(detail::enum_choices<V>());
    value = *parsed;
  } else if constexpr (std::is_integral_v<V>) {
    V parsed{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (error != std::errc{} || end != text.data() + text.size() || text.empty())
      fail("a non-negative integer");
    value = parsed;
  } else if constexpr (std::is_floating_point_v<V>) {
    V parsed{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (error != std::errc{} || end != text.data() + text.size() || text.empty() || !(parsed == parsed))
      fail("a number");
    value = parsed;
  } else {
    if (text.size() >= sizeof(value.data))  // fixed_string: the field's own capacity
      fail("at most " + std::to_string(sizeof(value.data) - 1) + " characters");
    value = V::from(text);
  }
}

/// Sets field `key` of `obj` from `text`. Returns false when `T` has no such field; throws
/// config_error when the text is not a valid value for it.
template <ReflectedDescriptor T>
bool set_field(T& obj, std::string_view key, std::string_view text) {
  bool found = false;
  for_each_field(obj, [&](std::string_view name, auto& value) {
    if (name == key) {
      parse_value(name, text, value);
      found = true;
    }
  });
  return found;
}

/// Every field of `obj` as (name, text) pairs, in declaration order.
template <ReflectedDescriptor T>
[[nodiscard]] std::vector<std::pair<std::string, std::string>> to_key_values(const T& obj) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for_each_field(obj, [&](std::string_view name, const auto& value) {
    pairs.emplace_back(std::string(name), format_value(value));
  });
  return pairs;
}

/// Writes the descriptor as a JSON object: numbers and booleans as such, enums and names as strings.
template <ReflectedDescriptor T>
void write_json(json_writer& w, const T& descriptor) {
  w.begin_object();
  for_each_field(descriptor, [&](std::string_view name, const auto& value) {
    using V = std::remove_cvref_t<decltype(value)>;
    if constexpr (std::is_arithmetic_v<V>)
      w.member(name, value);
    else
      w.member(name, format_value(value));
  });
  w.end_object();
}

/// Writes a job — an object with descriptor members `model`, `parallel` and `batch` (aicb::job_spec)
/// — as {"model": …, "parallel": …, "batch": …}, each field by name: what the JSON outputs that name
/// their job hold, and what aicb::load_chakra_rank reads back with set_field.
template <class Job>
void write_job_json(json_writer& w, const Job& job) {
  w.begin_object();
  w.key("model");
  write_json(w, job.model);
  w.key("parallel");
  write_json(w, job.parallel);
  w.key("batch");
  write_json(w, job.batch);
  w.end_object();
}

AICB_END_NAMESPACE
