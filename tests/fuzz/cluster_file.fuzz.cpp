// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for cluster files (aicb.cluster/1): any input must either be read or throw
// aicb::error (never another exception, a crash or undefined behaviour); a file that is read writes
// back to the same document, and prices every collective it can at a finite, non-negative time.
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/io/cluster_file.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const aicb::cluster_descriptor d = aicb::parse_cluster_file(text, "fuzz");
    const std::string written = aicb::to_json(d);
    if (aicb::to_json(aicb::parse_cluster_file(written, "fuzz")) != written) __builtin_trap();
    const aicb::cluster_spec c = d.spec();
    for (const aicb::collective kind : {aicb::collective::all_reduce, aicb::collective::all_gather,
                                        aicb::collective::reduce_scatter, aicb::collective::all_to_all})
      for (const double bytes : {1.0, 4096.0, 1e6, 1e9, 1e12})
        for (const aicb::group_placement p : {aicb::group_placement{.size = 2, .nodes = 1, .per_node = 2},
                                              aicb::group_placement{.size = 16, .nodes = 2, .per_node = 8},
                                              aicb::group_placement{.size = 4, .nodes = 4, .per_node = 1}}) {
          const double us = aicb::collective_us(kind, bytes, p, c);
          if (!(us >= 0) || !std::isfinite(us)) __builtin_trap();
        }
    if (!(aicb::transfer_us(1e6, 0, 1, c) >= 0)) __builtin_trap();
  } catch (const aicb::error&) {
    // Rejected with a message: the expected outcome for malformed input.
  }
  return 0;
}
