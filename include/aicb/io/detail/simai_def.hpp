// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// IWYU pragma: private, include <aicb/io/simai_reader.hpp>
#pragma once

// The token grammars of SimAI workload files (Spirit X3). Not meant to be included directly: use
// aicb/io/simai_reader.hpp, which splits a file into whitespace-separated tokens, as SimAI does, and
// classifies each token with these rules.

#include <aicb/config.hpp>
#include <aicb/workload/collective.hpp>

#include <boost/fusion/include/std_pair.hpp>
#include <boost/spirit/home/x3.hpp>

#include <cstdint>
#include <string_view>

AICB_BEGIN_NAMESPACE
namespace detail::grammar::simai {

namespace x3 = boost::spirit::x3;

// A communication token: one of SimAI's four collective names, then an optional group suffix.
// The suffix is 0 (none), 1 (_EP) or 2 (_DP_EP). `_DP_EP` is tried before `_EP`.
struct comm_token {
  collective kind = collective::none;
  int suffix = 0;
};

struct kind_symbols : x3::symbols<collective> {
  kind_symbols() {
    add("ALLREDUCE", collective::all_reduce)("ALLGATHER", collective::all_gather)(
        "REDUCESCATTER", collective::reduce_scatter)("ALLTOALL", collective::all_to_all);
  }
};
inline const kind_symbols kinds;

struct suffix_symbols : x3::symbols<int> {
  suffix_symbols() { add("_DP_EP", 2)("_EP", 1); }
};
inline const suffix_symbols suffixes;

struct comm_class;
struct unsigned_class;
struct signed_class;
inline constexpr x3::rule<comm_class> comm =
    "communication type (ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, NONE)";
inline constexpr x3::rule<unsigned_class, std::uint64_t> unsigned_integer = "non-negative integer";
inline constexpr x3::rule<signed_class, std::int64_t> signed_integer = "integer";

inline const auto comm_def = x3::lit("NONE") | (kinds >> -suffixes);
inline const auto unsigned_integer_def = x3::ulong_long;
inline const auto signed_integer_def = x3::long_long;

BOOST_SPIRIT_DEFINE(comm, unsigned_integer, signed_integer)

/// Parses a whole token as a communication type; nothing if it is not exactly one.
inline bool parse_comm(std::string_view token, comm_token& out) {
  out = {};
  const char* first = token.data();
  const char* last = token.data() + token.size();
  if (token == "NONE") return true;
  std::pair<collective, boost::optional<int>> parsed;
  const bool ok = x3::parse(first, last, kinds >> -suffixes, parsed) && first == last;
  if (ok) out = {parsed.first, parsed.second.value_or(0)};
  return ok;
}

/// Parses a whole token as a non-negative integer (no sign, no decimal point, no exponent).
inline bool parse_unsigned(std::string_view token, std::uint64_t& out) {
  if (token.empty() || token.front() < '0' || token.front() > '9') return false;
  const char* first = token.data();
  const char* last = token.data() + token.size();
  return x3::parse(first, last, unsigned_integer, out) && first == last;
}

/// Parses a whole token as an integer (optional sign).
inline bool parse_signed(std::string_view token, std::int64_t& out) {
  const char* first = token.data();
  const char* last = token.data() + token.size();
  return x3::parse(first, last, signed_integer, out) && first == last;
}

}  // namespace detail::grammar::simai
AICB_END_NAMESPACE
