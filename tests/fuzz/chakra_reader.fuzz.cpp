// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for aicb's Chakra trace reader (and the protobuf wire reader under it). Any input
// must either read or throw aicb::error — never crash, hang, read past its buffer or exhaust memory —
// and what reads cannot hold more than the input's bytes could encode.
#include <aicb/io/chakra.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const aicb::chakra_trace t = aicb::read_chakra_trace(bytes, "fuzz");
    std::size_t items = t.metadata.size();
    for (const aicb::chakra_node& n : t.nodes)
      items += 1 + n.data_deps.size() + n.ctrl_deps.size() + n.attrs.size();
    if (items > size + 1) __builtin_trap();  // every item takes at least one byte
  } catch (const aicb::error&) {
    // Rejected with a message: the expected outcome for malformed input.
  }
  return 0;
}
