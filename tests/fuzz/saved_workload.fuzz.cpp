// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for reading a saved Chakra set back for replay (aicb::parse_chakra_rank): the
// input is a manifest.json, a NUL byte, then rank 0's trace. Any input must either give operations
// a replay can run — groups of the rank, peers of the job, sizes that fit — or throw aicb::error;
// never crash, hang or exhaust memory.
#include <aicb/run/saved_workload.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = input.find('\0');
  const std::string_view manifest = input.substr(0, cut);
  const std::string_view trace = cut == std::string_view::npos ? std::string_view() : input.substr(cut + 1);
  try {
    const aicb::saved_rank saved = aicb::parse_chakra_rank(manifest, trace, 0, "manifest", "trace");
    if (saved.ops.size() != saved.durations.size()) __builtin_trap();
    for (const aicb::operation& op : saved.ops) {
      if (op.is_transfer() && (op.peer == 0 || op.peer >= saved.job.parallel.world_size)) __builtin_trap();
      if (op.after_count > op.after.size()) __builtin_trap();
    }
  } catch (const aicb::error&) {
    // Rejected with a message: the expected outcome for malformed input.
  }
  return 0;
}
