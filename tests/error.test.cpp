// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/error.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <type_traits>

TEST_CASE("error: every aicb exception is an aicb::error and a std::runtime_error", "[error]") {
  STATIC_REQUIRE(std::is_base_of_v<std::runtime_error, aicb::error>);
  STATIC_REQUIRE(std::is_base_of_v<aicb::error, aicb::parse_error>);
  STATIC_REQUIRE(std::is_base_of_v<aicb::error, aicb::config_error>);
  STATIC_REQUIRE(std::is_base_of_v<aicb::error, aicb::io_error>);
}

TEST_CASE("error: parse_error carries file, line and column and prints them like a compiler", "[error]") {
  const aicb::parse_error e("Example.txt", 3, 17, "expected time_gpu_avg value in microseconds");
  CHECK(e.file() == "Example.txt");
  CHECK(e.line() == 3);
  CHECK(e.column() == 17);
  CHECK(e.message() == "expected time_gpu_avg value in microseconds");
  CHECK(std::string(e.what()) == "Example.txt:3:17: expected time_gpu_avg value in microseconds");
}

TEST_CASE("error: config_error names the field, its value and the rule", "[error]") {
  const aicb::config_error e("tensor_parallel", "5", "tensor_parallel must divide num_attention_heads (48)");
  CHECK(e.field() == "tensor_parallel");
  CHECK(e.value() == "5");
  CHECK(e.rule() == "tensor_parallel must divide num_attention_heads (48)");
  CHECK(std::string(e.what()) == "tensor_parallel = 5: tensor_parallel must divide num_attention_heads (48)");
}

TEST_CASE("error: io_error names the path", "[error]") {
  const aicb::io_error e("/no/such/dir/out.txt", "cannot create file");
  CHECK(e.path() == "/no/such/dir/out.txt");
  CHECK(std::string(e.what()) == "/no/such/dir/out.txt: cannot create file");
}

TEST_CASE("error: catching aicb::error catches the derived errors", "[error]") {
  CHECK_THROWS_AS(throw aicb::config_error("a", "b", "c"), aicb::error);
  CHECK_THROWS_WITH(throw aicb::parse_error("f", 1, 2, "m"), "f:1:2: m");
}

TEST_CASE("error: a long value is shown by its start and its length, kept whole", "[error]") {
  const std::string digits(5000, '9');
  const aicb::config_error e("world_size", digits, "must be at most 2^31 - 1");
  CHECK(e.value() == digits);
  CHECK(std::string(e.what()) ==
        "world_size = " + std::string(80, '9') + "... (5000 characters): must be at most 2^31 - 1");
  const std::string eighty(80, 'x');
  CHECK(std::string(aicb::config_error("name", eighty, "r").what()) == "name = " + eighty + ": r");
}
