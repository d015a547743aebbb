// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the AIOB profile reader. Any input must either parse or throw aicb::error —
// never crash, hang or exhaust memory — and whatever parses must survive a write/read round trip.
#include <aicb/compute/aiob_profile.hpp>
#include <aicb/io/aiob_reader.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const aicb::aiob_profile profile = aicb::parse_aiob(text, "fuzz");
    const aicb::aiob_profile again = aicb::parse_aiob(aicb::write_aiob(profile), "fuzz-rewritten");
    if (!(again == profile)) __builtin_trap();
    (void)aicb::aicb_cache_from_profile(profile, true);
  } catch (const aicb::error&) {
    // Rejected with a message: the expected outcome for malformed input.
  }
  return 0;
}
