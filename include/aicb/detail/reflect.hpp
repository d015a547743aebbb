// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// IWYU pragma: private, include <aicb/model/reflect.hpp>
#pragma once

// AICB_DETAIL_REFLECTED_FIELDS(self, fields) — declares a descriptor's fields once, as a
// Boost.Preprocessor sequence of (type, name, default, "help") tuples, and derives from that one
// list the data members with their defaults and a help lookup. The same list makes the descriptor a
// Boost.Hana Struct (AICB_DETAIL_HANA_STRUCT, expanded in <aicb/model/reflect.hpp>), from which
// printing, key=value parsing, JSON, diffs and the CLI flags are all driven, so no field is ever
// listed by hand twice.
//
// The Hana adaptation lives apart from the descriptors on purpose: a translation unit that only
// describes jobs (or nvcc, which compiles the descriptors) pays nothing for Hana.

#include <aicb/config.hpp>

#include <boost/preprocessor/punctuation/comma_if.hpp>
#include <boost/preprocessor/seq/for_each.hpp>
#include <boost/preprocessor/seq/for_each_i.hpp>
#include <boost/preprocessor/seq/size.hpp>
#include <boost/preprocessor/stringize.hpp>
#include <boost/preprocessor/tuple/elem.hpp>

#include <array>
#include <string_view>

#define AICB_DETAIL_FIELD_TYPE(field) BOOST_PP_TUPLE_ELEM(4, 0, field)
#define AICB_DETAIL_FIELD_NAME(field) BOOST_PP_TUPLE_ELEM(4, 1, field)
#define AICB_DETAIL_FIELD_DEFAULT(field) BOOST_PP_TUPLE_ELEM(4, 2, field)
#define AICB_DETAIL_FIELD_HELP(field) BOOST_PP_TUPLE_ELEM(4, 3, field)

#define AICB_DETAIL_REFLECTED_MEMBER(r, data, field) \
  AICB_DETAIL_FIELD_TYPE(field) AICB_DETAIL_FIELD_NAME(field) = AICB_DETAIL_FIELD_DEFAULT(field);

#define AICB_DETAIL_REFLECTED_HELP(r, data, field) \
  if (field_name == BOOST_PP_STRINGIZE(AICB_DETAIL_FIELD_NAME(field))) return AICB_DETAIL_FIELD_HELP(field);

#define AICB_DETAIL_REFLECTED_NAME(r, data, i, field) \
  BOOST_PP_COMMA_IF(i) std::string_view(BOOST_PP_STRINGIZE(AICB_DETAIL_FIELD_NAME(field)))

// The names are string literals, not Hana strings: a table of pointers into Hana's per-string
// storage, kept in static data, fails to link under AddressSanitizer (GCC 12) when two translation
// units instantiate it ("defined in discarded section").
#define AICB_DETAIL_REFLECTED_FIELDS(fields)                                                   \
  BOOST_PP_SEQ_FOR_EACH(AICB_DETAIL_REFLECTED_MEMBER, ~, fields)                               \
  /** The names of the fields, in declaration order. */                                        \
  [[nodiscard]] static constexpr std::array<std::string_view, BOOST_PP_SEQ_SIZE(fields)>       \
  field_name_list() noexcept {                                                                 \
    return {BOOST_PP_SEQ_FOR_EACH_I(AICB_DETAIL_REFLECTED_NAME, ~, fields)};                   \
  }                                                                                            \
  /** The help text of field `field_name` (empty for an unknown name). */                      \
  [[nodiscard]] static constexpr std::string_view help(std::string_view field_name) noexcept { \
    BOOST_PP_SEQ_FOR_EACH(AICB_DETAIL_REFLECTED_HELP, ~, fields)                               \
    return {};                                                                                 \
  }

// AICB_DETAIL_HANA_STRUCT(type, fields) — makes `type` a Boost.Hana Struct from its field list: a
// specialisation of hana::accessors_impl whose accessors are (name, member) pairs in declaration
// order, the names compile-time hana::strings. Expand it at global scope, after including
// <boost/hana/pair.hpp>, <boost/hana/string.hpp> and <boost/hana/tuple.hpp>. `apply` is a template
// (of the type itself) so that its sixty pairs are instantiated only where a program reflects, not in
// every translation unit that includes the adaptation.
#define AICB_DETAIL_HANA_MEMBER(r, type, i, field)                                  \
  BOOST_PP_COMMA_IF(i)::boost::hana::make_pair(                                     \
      ::aicb::detail::hana_name<BOOST_PP_STRINGIZE(AICB_DETAIL_FIELD_NAME(field))>, \
                                ::aicb::detail::member_of<&Self::AICB_DETAIL_FIELD_NAME(field)>{})

#define AICB_DETAIL_HANA_STRUCT(type, fields)                                                           \
  template <>                                                                                           \
  struct boost::hana::accessors_impl<type> {                                                            \
    template <class Self = type>                                                                        \
    static constexpr auto apply() {                                                                     \
      return ::boost::hana::make_tuple(BOOST_PP_SEQ_FOR_EACH_I(AICB_DETAIL_HANA_MEMBER, type, fields)); \
    }                                                                                                   \
  };
