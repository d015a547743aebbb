// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// IWYU pragma: private, include <aicb/model/reflect.hpp>
#pragma once

// AICB_DETAIL_REFLECTED_FIELDS(self, fields) — declares a descriptor's fields once, as a
// Boost.Preprocessor sequence of (type, name, default, "help") tuples, and derives from that one
// list: the data members with their defaults, the Hana accessors (so the struct is a Hana Struct
// whose keys are the field names), and a help lookup. Printing, key=value parsing and the CLI
// flags are all driven from this, so no field is ever listed by hand twice.

#include <aicb/config.hpp>

#include <boost/hana/pair.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/preprocessor/punctuation/comma_if.hpp>
#include <boost/preprocessor/seq/for_each.hpp>
#include <boost/preprocessor/seq/for_each_i.hpp>
#include <boost/preprocessor/stringize.hpp>
#include <boost/preprocessor/tuple/elem.hpp>

#include <string_view>

AICB_BEGIN_NAMESPACE
namespace detail {

// A Hana Struct accessor: reads member `Ptr` of whatever object it is given, keeping its value
// category (what Hana's own BOOST_HANA_DEFINE_STRUCT generates, written here so that aicb depends
// only on Hana's documented Struct concept, not on its internals).
template <class MemberPointer, MemberPointer Ptr>
struct member_accessor {
  template <class T>
  constexpr decltype(auto) operator()(T&& object) const noexcept {
    return static_cast<T&&>(object).*Ptr;
  }
};

}  // namespace detail
AICB_END_NAMESPACE

#define AICB_DETAIL_FIELD_TYPE(field) BOOST_PP_TUPLE_ELEM(4, 0, field)
#define AICB_DETAIL_FIELD_NAME(field) BOOST_PP_TUPLE_ELEM(4, 1, field)
#define AICB_DETAIL_FIELD_DEFAULT(field) BOOST_PP_TUPLE_ELEM(4, 2, field)
#define AICB_DETAIL_FIELD_HELP(field) BOOST_PP_TUPLE_ELEM(4, 3, field)

#define AICB_DETAIL_REFLECTED_MEMBER(r, data, field) \
  AICB_DETAIL_FIELD_TYPE(field) AICB_DETAIL_FIELD_NAME(field) = AICB_DETAIL_FIELD_DEFAULT(field);

#define AICB_DETAIL_REFLECTED_ACCESSOR(r, self, i, field)                                               \
  BOOST_PP_COMMA_IF(i)::boost::hana::make_pair(                                                         \
      BOOST_HANA_STRING(BOOST_PP_STRINGIZE(AICB_DETAIL_FIELD_NAME(field))),                             \
                        ::aicb::detail::member_accessor<decltype(&self::AICB_DETAIL_FIELD_NAME(field)), \
                                                        &self::AICB_DETAIL_FIELD_NAME(field)>{})

#define AICB_DETAIL_REFLECTED_HELP(r, data, field) \
  if (field_name == BOOST_PP_STRINGIZE(AICB_DETAIL_FIELD_NAME(field))) return AICB_DETAIL_FIELD_HELP(field);

#define AICB_DETAIL_REFLECTED_FIELDS(self, fields)                                             \
  BOOST_PP_SEQ_FOR_EACH(AICB_DETAIL_REFLECTED_MEMBER, ~, fields)                               \
  /* Hana finds this nested type and treats the descriptor as a Struct keyed by field name. */ \
  struct hana_accessors_impl {                                                                 \
    static constexpr auto apply() {                                                            \
      return ::boost::hana::make_tuple(                                                        \
          BOOST_PP_SEQ_FOR_EACH_I(AICB_DETAIL_REFLECTED_ACCESSOR, self, fields));              \
    }                                                                                          \
  };                                                                                           \
  /** The help text of field `field_name` (empty for an unknown name). */                      \
  [[nodiscard]] static constexpr std::string_view help(std::string_view field_name) noexcept { \
    BOOST_PP_SEQ_FOR_EACH(AICB_DETAIL_REFLECTED_HELP, ~, fields)                               \
    return {};                                                                                 \
  }
