// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/json_writer.hpp>

#include <catch2/catch.hpp>

#include <limits>
#include <nlohmann/json.hpp>

TEST_CASE("json_writer: nested objects and arrays, pretty-printed, valid JSON", "[io][json]") {
  aicb::json_writer w;
  w.begin_object()
      .member("name", "a \"quoted\"\\ name\n")
      .member("n", 42)
      .member("big", 18446744073709551615ULL);
  w.member("neg", -7)
      .member("pi", 3.25)
      .member("yes", true)
      .member("nan", std::numeric_limits<double>::quiet_NaN());
  w.key("list")
      .begin_array()
      .value(1)
      .value("two")
      .begin_object()
      .end_object()
      .begin_array()
      .end_array()
      .end_array();
  w.key("empty").begin_object().end_object();
  w.end_object();
  const auto j = nlohmann::json::parse(w.str());
  CHECK(j["name"] == "a \"quoted\"\\ name\n");
  CHECK(j["n"] == 42);
  CHECK(j["big"].get<std::uint64_t>() == 18446744073709551615ULL);
  CHECK(j["neg"] == -7);
  CHECK(j["pi"] == 3.25);
  CHECK(j["yes"] == true);
  CHECK(j["nan"].is_null());
  CHECK(j["list"].size() == 4);
  CHECK(j["empty"].empty());
  CHECK(w.str().substr(0, 12) == "{\n  \"name\": ");
}

TEST_CASE("json_writer: control characters are escaped", "[io][json]") {
  aicb::json_writer w;
  w.value(std::string_view("\x01\t", 2));
  CHECK(w.str() == "\"\\u0001\\t\"");
}
