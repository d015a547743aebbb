// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The choices every generating command shares, as named enums (aicb::to_string, aicb::from_string,
/// and aicb::parse_value's errors listing them): which model writes the file, in which format, timed
/// by which compute model. The front ends (`aicb generate`, `deepspeed`, `micro`, `inference`) read
/// their flags into these and nothing else.

#include <aicb/config.hpp>
#include <aicb/enum_names.hpp>

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

AICB_BEGIN_NAMESPACE

/// Which output a generator produces: the corrected model's (the default), or aicb's, byte for byte
/// and bugs included. `none` (the command line's spelling of "no compatibility") reads as corrected.
enum class compat_mode : std::uint8_t { corrected, aicb };

/// The file format a workload is written in.
enum class workload_format : std::uint8_t {
  simai,   ///< SimAI's workload text (one representative rank)
  csv,     ///< aicb's physical-cluster CSV (one rank)
  chakra,  ///< Chakra execution traces, one per rank, and the communicator groups
  micro,   ///< aicb's SimAI MICRO file (collective tests only; SimAI-Analytical cannot run it)
};

/// The one rule for a writing command's default format: SimAI text, except under `--compat aicb`
/// where it is the format aicb itself writes for that command (`aicb_format`: DeepSpeed's CSV).
[[nodiscard]] constexpr workload_format default_format(compat_mode mode,
                                                       workload_format aicb_format = workload_format::simai) {
  return mode == compat_mode::aicb ? aicb_format : workload_format::simai;
}

/// Where compute times come from: an AIOB profile, the roofline model of a GPU, a constant; or
/// `automatic` — the profile when one is given, the roofline otherwise.
enum class compute_source : std::uint8_t { automatic, aiob, roofline, constant };

template <>
struct enum_names<compat_mode> {
  static constexpr std::array<std::string_view, 2> value{"corrected", "aicb"};
  static constexpr std::array<std::pair<std::string_view, compat_mode>, 1> aliases{
      {{"none", compat_mode::corrected}}};
};
template <>
struct enum_names<workload_format> {
  static constexpr std::array<std::string_view, 4> value{"simai", "csv", "chakra", "micro"};
};
template <>
struct enum_names<compute_source> {
  static constexpr std::array<std::string_view, 4> value{"auto", "aiob", "roofline", "constant"};
};

AICB_END_NAMESPACE
