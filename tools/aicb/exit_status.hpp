// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Exit status of the aicb programs: 0 success, 1 runtime failure, 2 usage or configuration error —
// each failure with one line on stderr. Also what every command line gets before it is parsed:
// unsigned options that take only non-negative decimal integers, and "did you mean" for a
// mistyped flag.
#pragma once

#include <aicb/detail/edit_distance.hpp>
#include <aicb/error.hpp>

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aicb_tool {

/// Text from a file or the command line made safe to print: control characters and bytes that are
/// not printable ASCII become \xNN escapes, so a hostile input cannot drive the terminal.
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out.push_back(c);
    } else {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(hex[u >> 4]);
      out.push_back(hex[u & 15]);
    }
  }
  return out;
}

/// Every option whose value is an unsigned integer takes a non-negative decimal integer that fits in
/// 64 bits: "-8" is refused (CLI11 would wrap it to 2^64-8), as are "1e3", "0x10" and values above
/// 2^64-1 (which it would saturate). Leading zeros are decimal ("010" is 10, not octal 8).
inline void check_unsigned_options(CLI::App& app) {
  const CLI::Validator non_negative(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* first = text.data();
        const char* last = first + text.size();
        if (!text.empty() && text.front() == '+') ++first;
        const auto [end, error] = std::from_chars(first, last, value);
        if (first == last || end != last || (error != std::errc{} && error != std::errc::result_out_of_range))
          return "expected a non-negative integer, found '" + printable(text) + "'";
        if (error == std::errc::result_out_of_range) return printable(text) + " exceeds 2^64-1";
        text = std::to_string(value);  // canonical decimal: CLI11 itself would read "010" as octal
        return {};
      },
      "", "non-negative integer");
  for (CLI::Option* option : app.get_options())
    if (option->get_type_name() == "UINT") option->transform(non_negative);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    check_unsigned_options(*sub);
}

namespace detail {

// The subcommand a command line names (the deepest one its leading words select).
inline CLI::App* selected_subcommand(CLI::App& app, int argc, char** argv) {
  CLI::App* at = &app;
  for (int i = 1; i < argc; ++i) {
    CLI::App* next = nullptr;
    for (CLI::App* sub : at->get_subcommands([](CLI::App*) { return true; }))
      if (sub->get_name() == argv[i]) next = sub;
    if (!next) break;
    at = next;
  }
  return at;
}

// "did you mean" for each unexpected --flag of a command line, among the selected subcommand's flags.
inline std::string flag_suggestions(CLI::App& app, int argc, char** argv) {
  CLI::App* command = selected_subcommand(app, argc, argv);
  std::vector<std::string> names;
  for (const CLI::Option* option : command->get_options())
    for (const std::string& name : option->get_lnames())
      names.push_back("--" + name);
  std::vector<std::string_view> candidates(names.begin(), names.end());
  std::string text;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg(argv[i]);
    if (arg.rfind("--", 0) != 0) continue;
    arg = arg.substr(0, arg.find('='));
    bool known = false;
    for (std::string_view n : candidates)
      known = known || n == arg;
    if (known) continue;
    if (const auto near = aicb::detail::nearest(arg, candidates); !near.empty())
      text += "aicb: unknown flag " + printable(arg) + "; did you mean " + std::string(near) + "?\n";
  }
  return text;
}

}  // namespace detail

/// Parses the command line; for --help or a usage error, the status to exit with.
inline std::optional<int> parse_arguments(CLI::App& app, int argc, char** argv) {
  check_unsigned_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    if (status != 0) std::cerr << detail::flag_suggestions(app, argc, argv);
    return status == 0 ? 0 : 2;
  }
  return std::nullopt;
}

/// The exit status and the message (to follow "aicb: ", escaped: it may quote a file's bytes) for
/// the exception being handled; call it in a catch block.
inline std::pair<int, std::string> handled_failure() {
  try {
    throw;
  } catch (const aicb::config_error& e) {
    return {2, "configuration error: " + printable(e.what())};
  } catch (const aicb::parse_error& e) {
    return {2, printable(e.what())};
  } catch (const aicb::error& e) {
    return {1, "error: " + printable(e.what())};
  } catch (const std::bad_alloc&) {
    return {1, "error: out of memory"};
  } catch (const std::exception& e) {
    // Not an aicb error: a defect to report, said as such rather than passed off as a diagnosis.
    return {1, "internal error (please report it): " + printable(e.what())};
  }
}

/// Runs a command, turning its exceptions into the exit status and a message on stderr.
template <class Run>
int run_reporting_errors(Run&& run) {
  try {
    return run();
  } catch (...) {
    const auto [status, message] = handled_failure();
    std::cerr << "aicb: " << message << '\n';
    return status;
  }
}

}  // namespace aicb_tool
