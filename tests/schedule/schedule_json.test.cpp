// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_schedule.hpp>
#include <aicb/schedule/schedule_json.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

TEST_CASE("schedule json: the rank's header, its groups, then one line per operation", "[schedule][json]") {
  constexpr aicb::job_spec job{aicb::presets::llama2_7b,
                               {.world_size = 16, .tensor_parallel = 2, .pipeline_parallel = 2},
                               {.micro_batch = 1, .global_batch = 8, .seq_length = 2048}};
  aicb::rank_schedule schedule(job, 9);
  std::string text;
  std::uint64_t pieces = 0;
  const std::uint64_t written =
      aicb::write_schedule_json(schedule.grid(), 9, schedule, 5, [&](std::string_view piece) {
        text += piece;
        ++pieces;
      });
  CHECK(written == 5u);
  CHECK(pieces == 7u);  // the header, five operations, the end: streamed, not built whole
  CHECK(text.rfind("{\n  \"schema\": \"aicb.schedule/1\",\n  \"rank\": 9,", 0) == 0);
  CHECK(text.find("\"tp\": {\"id\"") == std::string::npos);  // groups are pretty-printed, operations flat
  CHECK(text.find("\"members\"") != std::string::npos);
  const std::size_t operations = text.find("\"operations\": [\n    {");
  REQUIRE(operations != std::string::npos);
  CHECK(text.find("\"index\": 0,", operations) != std::string::npos);
  CHECK(text.substr(text.size() - 7) == "\n  ]\n}\n");
  // One operation's line: no line breaks, and a collective carries its group and sizes.
  aicb::operation op;
  op.type = aicb::op_type::collective;
  op.kind = aicb::collective::all_gather;
  op.group_size = 4;
  op.size = aicb::bytes{4096};
  const std::string line = aicb::operation_json(op);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find("\"per_rank_size\": 1024") != std::string::npos);
  CHECK(line.find("\"after\": []") != std::string::npos);
}
