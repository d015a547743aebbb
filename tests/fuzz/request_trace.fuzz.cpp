// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for request traces (aicb.requests/1, CSV or JSON Lines): any input must either be
// read or throw aicb::error (never another exception, a crash or undefined behaviour); a trace that
// is read writes back as CSV to the same requests.
#include <aicb/io/request_trace.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::vector<aicb::serving_request> requests = aicb::parse_request_trace(text, "fuzz");
    const std::vector<aicb::serving_request> back =
        aicb::parse_request_trace(aicb::format_request_trace(requests), "fuzz");
    if (back.size() != requests.size()) __builtin_trap();
    for (std::size_t i = 0; i < back.size(); ++i)
      if (back[i].id != requests[i].id || back[i].prompt != requests[i].prompt ||
          back[i].output != requests[i].output || back[i].prefix_tokens != requests[i].prefix_tokens ||
          (requests[i].prefix_tokens > 0 && back[i].prefix_id != requests[i].prefix_id) ||
          std::abs(back[i].arrival_s - requests[i].arrival_s) > 1e-9 * (1 + requests[i].arrival_s))
        __builtin_trap();
  } catch (const aicb::error&) {
    // Rejected with a message: the expected outcome for malformed input.
  }
  return 0;
}
