// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// IWYU pragma: private, include <aicb/io/aiob_reader.hpp>
#pragma once

// The AIOB profile grammar (Spirit X3). Not meant to be included directly: use aicb/io/aiob_reader.hpp.
//
// Line-oriented, no skipper: a file is a sequence of lines, each one of
//   blank | '#' comment | train_iter:N | section header `name:` | indented statistic or comment,
// and every point where a line has shown what it is becomes an expectation, so an error names what
// was expected there ("time in microseconds …"). Semantic actions hand each line to a builder (found
// in the context under aiob_builder_tag), which checks what a grammar cannot: statistics outside a
// section, duplicates, missing averages.

#include <aicb/config.hpp>

#include <boost/spirit/home/x3.hpp>

#include <string>

AICB_BEGIN_NAMESPACE
namespace detail::grammar::aiob {

namespace x3 = boost::spirit::x3;

struct builder_tag;

// Rule IDs.
struct line_end_class;
struct number_class;
struct iterations_class;
struct stat_key_class;
struct name_class;
struct comment_text_class;
struct body_class;
struct line_class;
struct end_class;
struct file_class;

// Rules, each named for what a reader must see there.
inline constexpr x3::rule<line_end_class> line_end = "end of line";
inline constexpr x3::rule<number_class, std::string> number =
    "time in microseconds (digits with an optional decimal part, as aicb writes them)";
inline constexpr x3::rule<iterations_class, unsigned long long> iterations =
    "the number of profiled iterations (a non-negative integer below 2^64)";
inline constexpr x3::rule<stat_key_class, std::string> stat_key =
    "time_gpu_max, time_gpu_min or time_gpu_avg";
inline constexpr x3::rule<name_class, std::string> name = "section name (letters, digits, underscores)";
inline constexpr x3::rule<comment_text_class, std::string> comment_text = "comment text";
inline constexpr x3::rule<body_class> indented_body =
    "an indented statistic (time_gpu_max/min/avg) or '# comment'";
inline constexpr x3::rule<line_class> line = "a line";
inline constexpr x3::rule<end_class> end_of_file =
    "a section header ('name:'), an indented statistic, a '# comment', train_iter:N or the end of the file";
inline constexpr x3::rule<file_class> file = "an AIOB profile";

// Character classes spelled out as sets and ranges: X3's classifiers (digit, blank, …) call
// the C library with a plain char, which for bytes >= 0x80 is negative — a Boost assertion or
// undefined behaviour (found by fuzzing). Sets and ranges compare the byte directly.
inline const auto digit = x3::char_('0', '9');
inline const auto blank = x3::char_(" \t");
inline const auto word_start = x3::char_("a-zA-Z_");
inline const auto word_char = x3::char_("a-zA-Z0-9_");

// Semantic actions: forward what was parsed to the builder. An action only sees where its match
// ends, so `mark` (on an empty match) first records where each line's content starts.
inline const auto mark = [](auto& ctx) { x3::get<builder_tag>(ctx).get().mark(x3::_where(ctx).begin()); };
inline const auto on_comment = [](auto& ctx) { x3::get<builder_tag>(ctx).get().comment(x3::_attr(ctx)); };
inline const auto on_train_iter = [](auto& ctx) {
  x3::get<builder_tag>(ctx).get().train_iter(x3::_attr(ctx));
};
inline const auto on_section = [](auto& ctx) { x3::get<builder_tag>(ctx).get().section(x3::_attr(ctx)); };
inline const auto on_stat = [](auto& ctx) {
  using boost::fusion::at_c;
  x3::get<builder_tag>(ctx).get().stat(at_c<0>(x3::_attr(ctx)), at_c<1>(x3::_attr(ctx)));
};

inline const auto blank_line = (+blank >> x3::eoi) | (*blank >> x3::eol);
inline const auto stat_line = (stat_key > ':' > x3::omit[*blank] > number > line_end)[on_stat];
inline const auto comment_line = ('#' > comment_text > line_end)[on_comment];
inline const auto train_iter_line =
    ((x3::lit("train_iter") >> ':') > x3::omit[*blank] > iterations > line_end)[on_train_iter];
inline const auto header_line = ((name >> ':') > line_end)[on_section];

inline const auto line_end_def = *blank >> (x3::eol | x3::eoi);
inline const auto number_def = x3::raw[+digit >> -('.' >> +digit)];
inline const auto iterations_def = x3::ulong_long;
inline const auto stat_key_def =
    x3::string("time_gpu_max") | x3::string("time_gpu_min") | x3::string("time_gpu_avg");
inline const auto name_def = x3::raw[word_start >> *word_char];
inline const auto comment_text_def = x3::raw[*(x3::char_ - x3::eol)];
inline const auto indented_body_def = stat_line | comment_line;
inline const auto line_def = blank_line | (x3::eps[mark] >> (comment_line | train_iter_line | header_line)) |
                             ((+blank >> x3::eps[mark]) > indented_body);
inline const auto end_of_file_def = x3::eoi;
inline const auto file_def = *line > end_of_file;

BOOST_SPIRIT_DEFINE(line_end, number, iterations, stat_key, name, comment_text, indented_body, line,
                    end_of_file, file)

}  // namespace detail::grammar::aiob
AICB_END_NAMESPACE
