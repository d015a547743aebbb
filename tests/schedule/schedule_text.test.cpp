// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// One rank's schedule as text: the coordinates, the groups (a large one cut), a row per operation
// with what it does, and the limit said when it cuts.
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/schedule/schedule_text.hpp>
#include <aicb/schedule/views.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>

TEST_CASE("schedule text: the rank, its groups, then a row per operation", "[schedule][text]") {
  constexpr aicb::job_spec job{aicb::presets::llama2_7b,
                               {.world_size = 128, .tensor_parallel = 2, .pipeline_parallel = 2},
                               {.micro_batch = 1, .global_batch = 32, .seq_length = 2048}};
  aicb::rank_schedule schedule(job, 9);
  std::string text;
  const std::uint64_t written =
      aicb::write_schedule_text(schedule.grid(), 9, schedule | aicb::views::collectives, 3,
                                [&](std::string_view piece) { text += piece; });
  CHECK(written == 3u);
  CHECK(text.rfind("rank 9 of 128: tp 1, cp 0, dp 4, pp 0", 0) == 0);
  CHECK(text.find("... (--limit 3)\n") != std::string::npos);
  // The data-parallel group has 32 members: the first 8, then the last and the count.
  CHECK(text.find("[1 3 5 7 9 11 13 15 ... 63] (32 ranks)") != std::string::npos);
  std::istringstream lines(text);
  std::string line;
  std::uint64_t rows = 0;
  while (std::getline(lines, line))
    rows += line.find(" collective ") != std::string::npos;
  CHECK(rows == 3u);
}

TEST_CASE("schedule text: what an operation does, by its type", "[schedule][text]") {
  aicb::operation collective;
  collective.type = aicb::op_type::collective;
  collective.kind = aicb::collective::all_reduce;
  collective.group = {aicb::group_kind::tp, 3};
  collective.group_size = 8;
  collective.size = aicb::bytes{4096};
  CHECK(aicb::operation_details(collective) == "all_reduce tp[3]/8 4096 B");
  aicb::operation send;
  send.type = aicb::op_type::send;
  send.peer = 12;
  send.tag = 7;
  send.size = aicb::bytes{100};
  CHECK(aicb::operation_details(send) == "to 12 tag 7 100 B");
  send.type = aicb::op_type::recv;
  CHECK(aicb::operation_details(send) == "from 12 tag 7 100 B");
}
