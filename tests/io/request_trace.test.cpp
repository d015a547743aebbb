// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/io/request_trace.hpp>
#include <aicb/model/requests.hpp>

#include <catch2/catch.hpp>

#include <string>

namespace {
const std::string data = std::string(AICB_SOURCE_DIR) + "/tests/data/requests/";
}

TEST_CASE("request trace: CSV with its columns in any order, comments skipped, ids by position",
          "[io][requests]") {
  const auto r = aicb::read_request_trace(data + "trace.csv");
  REQUIRE(r.size() == 3u);
  CHECK(r[1].id == 1u);
  CHECK(r[1].arrival_s == 0.25);
  CHECK(r[1].prompt == 1900u);
  CHECK(r[1].output == 310u);
  CHECK(r[2].output == 1u);
}

TEST_CASE("request trace: JSON Lines with ids, blank lines skipped", "[io][requests]") {
  const auto r = aicb::read_request_trace(data + "trace.jsonl");
  REQUIRE(r.size() == 2u);
  CHECK(r[0].id == 7u);
  CHECK(r[0].arrival_s == 1.5);
  CHECK(r[1].id == 3u);
  CHECK(r[1].prompt == 4096u);
}

TEST_CASE("request trace: errors name the file, the line and the field", "[io][requests]") {
  CHECK_THROWS_WITH(aicb::read_request_trace(data + "bad_number.csv"),
                    Catch::Contains("bad_number.csv:2:") && Catch::Contains("output_tokens: 'x'"));
  CHECK_THROWS_WITH(aicb::read_request_trace(data + "bad_key.jsonl"),
                    Catch::Contains("bad_key.jsonl:1:") && Catch::Contains("output_token") &&
                        Catch::Contains("did you mean output_tokens"));
  CHECK_THROWS_WITH(aicb::parse_request_trace("arrival_s,prompt_tokens\n0,5\n", "t.csv"),
                    Catch::Contains("t.csv:1:") && Catch::Contains("no column output_tokens"));
  CHECK_THROWS_WITH(aicb::parse_request_trace("arrival_s,prompt_tokens,output_tokens\n-1,5,5\n", "t.csv"),
                    Catch::Contains("t.csv:2:") && Catch::Contains("arrival_s"));
  CHECK_THROWS_WITH(aicb::parse_request_trace("arrival_s,prompt_tokens,output_tokens\n0,0,5\n", "t.csv"),
                    Catch::Contains("prompt_tokens: 0"));
  CHECK_THROWS_WITH(
      aicb::parse_request_trace("id,arrival_s,prompt_tokens,output_tokens\n1,0,5,5\n1,0,5,5\n", "t"),
      Catch::Contains("t:3:") && Catch::Contains("used by an earlier request"));
  CHECK_THROWS_WITH(aicb::parse_request_trace("arrival_s,prompt_tokens,output_tokens\n0,5\n", "t"),
                    Catch::Contains("2 fields: expected 3"));
  CHECK_THROWS_WITH(aicb::parse_request_trace("{\"arrival_s\": 0, \"prompt_tokens\": 5,\n", "t.jsonl"),
                    Catch::Contains("t.jsonl:1:") && Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(aicb::parse_request_trace("# only a comment\n", "t"), Catch::Contains("no requests"));
  CHECK_THROWS_WITH(aicb::read_request_trace(data), Catch::Contains("directory"));
}

TEST_CASE("request trace: a synthetic traffic written as a trace reads back the same", "[io][requests]") {
  const auto drawn = aicb::synthetic_requests({.requests = 500, .rate = 30, .cv = 2, .prompt = {1, 9000}});
  const auto back = aicb::parse_request_trace(aicb::format_request_trace(drawn));
  REQUIRE(back.size() == drawn.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    CHECK(back[i].id == drawn[i].id);
    CHECK(back[i].arrival_s == Approx(drawn[i].arrival_s).margin(1e-9));
    CHECK(back[i].prompt == drawn[i].prompt);
    CHECK(back[i].output == drawn[i].output);
  }
}

TEST_CASE("request trace: shared prefixes, both columns or neither, one length per prefix",
          "[io][requests]") {
  const auto csv = aicb::parse_request_trace(
      "prefix_tokens,arrival_s,prompt_tokens,output_tokens,prefix_id\n2000,0,2500,10,3\n0,1,300,5,0\n",
      "t.csv");
  REQUIRE(csv.size() == 2u);
  CHECK(csv[0].prefix_id == 3u);
  CHECK(csv[0].prefix_tokens == 2000u);
  CHECK(csv[1].prefix_tokens == 0u);
  const auto jsonl = aicb::parse_request_trace(
      "{\"arrival_s\": 0, \"prompt_tokens\": 900, \"output_tokens\": 4, \"prefix_id\": 1, \"prefix_tokens\": "
      "512}\n",
      "t.jsonl");
  CHECK(jsonl[0].prefix_id == 1u);
  CHECK(jsonl[0].prefix_tokens == 512u);
  CHECK_THROWS_WITH(
      aicb::parse_request_trace("arrival_s,prompt_tokens,output_tokens,prefix_id\n0,5,5,1\n", "t"),
      Catch::Contains("t:1:") && Catch::Contains("no column prefix_tokens"));
  CHECK_THROWS_WITH(
      aicb::parse_request_trace(
          "{\"arrival_s\": 0, \"prompt_tokens\": 9, \"output_tokens\": 4, \"prefix_tokens\": 5}\n", "t"),
      Catch::Contains("prefix_id: missing"));
  CHECK_THROWS_WITH(aicb::parse_request_trace(
                        "arrival_s,prompt_tokens,output_tokens,prefix_id,prefix_tokens\n0,50,5,1,60\n", "t"),
                    Catch::Contains("t:2:") && Catch::Contains("prefix_tokens: 60") &&
                        Catch::Contains("part of the prompt"));
  CHECK_THROWS_WITH(
      aicb::parse_request_trace(
          "arrival_s,prompt_tokens,output_tokens,prefix_id,prefix_tokens\n0,50,5,1,20\n1,50,5,1,30\n", "t"),
      Catch::Contains("t:3:") && Catch::Contains("prefix_id 1 has 20 tokens"));
  // Written and read back with the prefixes; a trace without any keeps the four columns.
  const auto drawn = aicb::synthetic_requests(
      {.requests = 200, .rate = 10, .prompt = {600, 900}, .prefix_groups = 4, .prefix_tokens = 512});
  const std::string text = aicb::format_request_trace(drawn);
  CHECK(text.find("prefix_id,prefix_tokens") != std::string::npos);
  const auto back = aicb::parse_request_trace(text);
  REQUIRE(back.size() == drawn.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    CHECK(back[i].prefix_id == drawn[i].prefix_id);
    CHECK(back[i].prefix_tokens == 512u);
  }
  CHECK(aicb::format_request_trace(csv).find("prefix") != std::string::npos);
  const auto plain = aicb::synthetic_requests({.requests = 3});
  CHECK(aicb::format_request_trace(plain).find("prefix") == std::string::npos);
}
