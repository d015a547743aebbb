// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for aicb's physical-cluster CSV reader. Any input must either parse or throw
// aicb::error — never crash, hang or exhaust memory — and whatever parses must write out as text
// that reads back to the same items.
#include <aicb/io/aicb_csv.hpp>
#include <aicb/io/aicb_csv_reader.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {
std::string write(const std::vector<aicb::csv_item>& items) {
  std::string out = std::string(aicb::csv_header) + "\n";
  for (const aicb::csv_item& item : items)
    aicb::append_csv_line(out, item);
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const aicb::csv_document doc = aicb::read_csv(text, "fuzz");
    const std::string once = write(doc.items);
    const aicb::csv_document again = aicb::read_csv(once, "fuzz-rewritten");
    if (write(again.items) != once) __builtin_trap();
  } catch (const aicb::error&) {
    // Rejected with a message: the expected outcome for malformed input.
  }
  return 0;
}
