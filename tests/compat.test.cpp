// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The opt-in compatibility header alone gives aicb's generators, from aicb's flags.
#include <aicb/compat.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

TEST_CASE("compat.hpp: aicb's flags to aicb's files, with this header alone", "[umbrella]") {
  aicb::aicb_flag_values flags;
  flags.set("world_size", "16");
  flags.set("tensor_model_parallel_size", "2");
  flags.set("global_batch", "32");
  std::vector<std::string> notes;
  const aicb::aicb_args args = aicb::aicb_args_from_flags(flags, "", notes);
  const aicb::aicb_workload simai(args);
  CHECK(simai.header().tensor_parallel == 2u);
  CHECK(simai.file_name().find("world_size16") != std::string::npos);
  std::uint64_t items = 0;
  aicb::megatron_csv_workload(args).generate([&](const aicb::csv_item&) { ++items; });
  CHECK(items > 0u);
}
