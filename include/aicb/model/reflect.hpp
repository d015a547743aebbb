// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The descriptors (model_spec, parallel_spec, batch_spec) as Boost.Hana Structs, and what is built
/// on that: iterate their fields, print them, set them from text, write them as JSON, compare two.
/// Everything here is driven by the single field list of each descriptor (AICB_MODEL_SPEC_FIELDS and
/// its siblings), so a field added to a descriptor is printable, parsable, diffed and a CLI flag
/// without further code.
///
/// ```cpp
/// aicb::model_spec m;
/// aicb::set_field(m, "hidden_size", "5120");      // throws config_error on a bad value
/// aicb::set_field(m, "activation", "swiglu");
/// for (const auto& [key, value] : aicb::to_key_values(m)) std::cout << key << '=' << value << '\n';
/// static_assert(boost::hana::contains(boost::hana::keys(aicb::model_spec{}),
/// BOOST_HANA_STRING("hidden_size")));
/// ```
///
/// Hana's own algorithms work on the descriptors too (hana::keys, hana::members, hana::accessors,
/// hana::to<hana::map_tag>); this header is the one place Hana enters the library, so a translation
/// unit that does not reflect does not pay for it.

#include <aicb/config.hpp>
#include <aicb/detail/edit_distance.hpp>
#include <aicb/detail/reflect.hpp>
#include <aicb/dtype.hpp>
#include <aicb/error.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/batch.hpp>
#include <aicb/model/fixed_string.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/options.hpp>
#include <aicb/model/parallel.hpp>
#include <aicb/model/spec.hpp>

#include <boost/hana/accessors.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/pair.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE
namespace detail {

/// A Hana accessor: the member `Member` of the object it is given (const or not).
template <auto Member>
struct member_of {
  template <class T>
  constexpr auto& operator()(T& object) const noexcept {
    return object.*Member;
  }
};

/// A string literal as a template argument (C++20: a literal class type).
template <std::size_t N>
struct name_literal {
  char text[N];
  constexpr name_literal(const char (&s)[N]) noexcept {  // NOLINT: implicit, from the literal
    for (std::size_t i = 0; i < N; ++i)
      text[i] = s[i];
  }
};

template <name_literal Name, std::size_t... I>
constexpr auto hana_name_of(std::index_sequence<I...>) noexcept {
  return boost::hana::string<Name.text[I]...>{};
}

/// The compile-time hana::string of a field's name: what BOOST_HANA_STRING makes, without the local
/// lambda and class it costs per use.
template <name_literal Name>
inline constexpr auto hana_name = hana_name_of<Name>(std::make_index_sequence<sizeof(Name.text) - 1>{});

}  // namespace detail
AICB_END_NAMESPACE

AICB_DETAIL_HANA_STRUCT(::aicb::model_spec, AICB_MODEL_SPEC_FIELDS)
AICB_DETAIL_HANA_STRUCT(::aicb::parallel_spec, AICB_PARALLEL_SPEC_FIELDS)
AICB_DETAIL_HANA_STRUCT(::aicb::batch_spec, AICB_BATCH_SPEC_FIELDS)
// A job is its three descriptors (the type and default of a field play no part in its accessors).
#define AICB_DETAIL_JOB_SPEC_FIELDS ((, model, , ))((, parallel, , ))((, batch, , ))
AICB_DETAIL_HANA_STRUCT(::aicb::job_spec, AICB_DETAIL_JOB_SPEC_FIELDS)
#undef AICB_DETAIL_JOB_SPEC_FIELDS

AICB_BEGIN_NAMESPACE

/// A descriptor whose fields are reflected: a Boost.Hana Struct (model_spec, parallel_spec, batch_spec,
/// and job_spec, whose fields are those three).
template <class T>
concept ReflectedDescriptor = boost::hana::Struct<T>::value;

/// Calls `f(name, value)` for each field of `obj`, in declaration order; `value` is a reference to
/// the member (const when `obj` is const).
template <class T, class F>
requires ReflectedDescriptor<std::remove_const_t<T>>
constexpr void for_each_field(T& obj, F&& f) {
  // One fold over all the accessors rather than hana::for_each's call per field: the same calls,
  // without a lambda instantiated for each of a descriptor's sixty fields.
  boost::hana::unpack(boost::hana::accessors<std::remove_const_t<T>>(), [&](auto... field) {
    (f(std::string_view(boost::hana::first(field).c_str()), boost::hana::second(field)(obj)), ...);
  });
}

/// The field names of `T`, in declaration order, known at compile time (an array of string_view,
/// by value: the descriptors' own list; a Struct without one, from its Hana accessors).
template <ReflectedDescriptor T>
[[nodiscard]] constexpr auto field_names() noexcept {
  if constexpr (requires { T::field_name_list(); }) {
    return T::field_name_list();
  } else {
    return boost::hana::unpack(boost::hana::accessors<T>(), [](auto... field) {
      return std::array<std::string_view, sizeof...(field)>{
          std::string_view(boost::hana::first(field).c_str())...};
    });
  }
}

/// A field value as text: integers in decimal, booleans as true/false, enums by name, doubles in
/// shortest round-trip form, names verbatim.
template <class V>
[[nodiscard]] std::string format_value(const V& value) {
  if constexpr (std::is_same_v<V, bool>) {
    return value ? "true" : "false";
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

/// Writes the descriptor as a JSON object: numbers and booleans as such, enums and names as strings,
/// a nested descriptor (a job's model, parallel layout and batch) as a nested object: a job is
/// {"model": …, "parallel": …, "batch": …}, each field by name — what the JSON outputs that name their
/// job hold, and what aicb::load_chakra_rank reads back with set_field.
template <ReflectedDescriptor T>
void write_json(json_writer& w, const T& descriptor) {
  w.begin_object();
  for_each_field(descriptor, [&](std::string_view name, const auto& value) {
    using V = std::remove_cvref_t<decltype(value)>;
    if constexpr (ReflectedDescriptor<V>) {
      w.key(name);
      write_json(w, value);
    } else if constexpr (std::is_arithmetic_v<V>) {
      w.member(name, value);
    } else {
      w.member(name, format_value(value));
    }
  });
  w.end_object();
}

/// A field whose value differs between two descriptors: its path ("hidden_size", or
/// "model.hidden_size" within a job) and both values as text.
struct field_difference {
  std::string field;
  std::string before;
  std::string after;
};

/// The fields in which `after` differs from `before`, in declaration order; a nested descriptor's
/// fields are named by their path (`model.num_layers`). Empty when the two are equal.
template <ReflectedDescriptor T>
[[nodiscard]] std::vector<field_difference> differences(const T& before, const T& after,
                                                        std::string_view prefix = {}) {
  std::vector<field_difference> found;
  boost::hana::for_each(boost::hana::accessors<T>(), [&](auto field) {
    const auto& old_value = boost::hana::second(field)(before);
    const auto& new_value = boost::hana::second(field)(after);
    std::string path(prefix);
    path += boost::hana::first(field).c_str();
    using V = std::remove_cvref_t<decltype(old_value)>;
    if constexpr (ReflectedDescriptor<V>) {
      for (field_difference& d : differences(old_value, new_value, path + "."))
        found.push_back(std::move(d));
    } else if (!(old_value == new_value)) {
      found.push_back({std::move(path), format_value(old_value), format_value(new_value)});
    }
  });
  return found;
}

AICB_END_NAMESPACE
