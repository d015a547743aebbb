// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// IWYU pragma: private, include <aicb/model/reflect.hpp>
#pragma once

// AICB_DETAIL_REFLECTED_FIELDS(self, fields) — declares a descriptor's fields once, as a
// Boost.Preprocessor sequence of (type, name, default, "help") tuples, and derives from that one
// list: the data members with their defaults, a visitor that hands each field's name and member to
// a function in declaration order, and a help lookup. Printing, key=value parsing, JSON and the CLI
// flags are all driven from this, so no field is ever listed by hand twice.
//
// The visitor is plain code the preprocessor writes out (one call per field), not a
// metaprogramming tuple: a descriptor of sixty fields costs its users no template instantiation
// beyond the function they pass.

#include <aicb/config.hpp>

#include <boost/preprocessor/seq/for_each.hpp>
#include <boost/preprocessor/stringize.hpp>
#include <boost/preprocessor/tuple/elem.hpp>

#include <string_view>
#include <type_traits>

#define AICB_DETAIL_FIELD_TYPE(field) BOOST_PP_TUPLE_ELEM(4, 0, field)
#define AICB_DETAIL_FIELD_NAME(field) BOOST_PP_TUPLE_ELEM(4, 1, field)
#define AICB_DETAIL_FIELD_DEFAULT(field) BOOST_PP_TUPLE_ELEM(4, 2, field)
#define AICB_DETAIL_FIELD_HELP(field) BOOST_PP_TUPLE_ELEM(4, 3, field)

#define AICB_DETAIL_REFLECTED_MEMBER(r, data, field) \
  AICB_DETAIL_FIELD_TYPE(field) AICB_DETAIL_FIELD_NAME(field) = AICB_DETAIL_FIELD_DEFAULT(field);

#define AICB_DETAIL_REFLECTED_VISIT(r, data, field)                            \
  visit(::std::string_view{BOOST_PP_STRINGIZE(AICB_DETAIL_FIELD_NAME(field))}, \
                           self.AICB_DETAIL_FIELD_NAME(field));

#define AICB_DETAIL_REFLECTED_HELP(r, data, field) \
  if (field_name == BOOST_PP_STRINGIZE(AICB_DETAIL_FIELD_NAME(field))) return AICB_DETAIL_FIELD_HELP(field);

#define AICB_DETAIL_REFLECTED_FIELDS(self_type, fields)                                        \
  BOOST_PP_SEQ_FOR_EACH(AICB_DETAIL_REFLECTED_MEMBER, ~, fields)                               \
  /** Calls visit(name, member) for each field of `self` (this type, const or not), in         \
      declaration order: what aicb::for_each_field runs. */                                    \
  template <class Self, class Visit>                                                           \
  static constexpr void visit_fields(Self& self, Visit& visit) {                               \
    static_assert(::std::is_same_v<::std::remove_const_t<Self>, self_type>);                   \
    BOOST_PP_SEQ_FOR_EACH(AICB_DETAIL_REFLECTED_VISIT, ~, fields)                              \
  }                                                                                            \
  /** The help text of field `field_name` (empty for an unknown name). */                      \
  [[nodiscard]] static constexpr std::string_view help(std::string_view field_name) noexcept { \
    BOOST_PP_SEQ_FOR_EACH(AICB_DETAIL_REFLECTED_HELP, ~, fields)                               \
    return {};                                                                                 \
  }
