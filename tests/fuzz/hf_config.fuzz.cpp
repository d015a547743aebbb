// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the Hugging Face config.json import. Any input must either import or throw
// aicb::error (never another exception, a crash or undefined behaviour); a model that imports must
// pass the descriptor rules and have exact parameter counts.
#include <aicb/calc/params.hpp>
#include <aicb/model/hf_config.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const aicb::hf_import imported = aicb::parse_hf_config(text, "fuzz", {.allow_unknown_keys = true});
    if (!aicb::validate(imported.model)) __builtin_trap();
    const aicb::param_counts c = aicb::count_params(imported.model, 4096);
    if (c.total() < c.embedding) __builtin_trap();
  } catch (const aicb::error&) {
    // Rejected with a message: the expected outcome for malformed input.
  }
  return 0;
}
