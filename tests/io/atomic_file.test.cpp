// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/io/atomic_file.hpp>

#include <catch2/catch.hpp>

#include "text_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

TEST_CASE("atomic_file: the target appears complete on commit, and is untouched without it", "[io][atomic]") {
  const std::string path = "atomic_file_test.txt";
  aicb::write_file_atomically(path, "old contents\n");
  {
    aicb::atomic_file out(path);
    out.write("new ");
    CHECK(aicb_test::read_text(path) == "old contents\n");  // not yet
  }  // destroyed without commit: as if an error had happened
  CHECK(aicb_test::read_text(path) == "old contents\n");
  for (const auto& e : std::filesystem::directory_iterator("."))
    CHECK(e.path().filename().string().find("atomic_file_test.txt.tmp") == std::string::npos);
  aicb::atomic_file out(path);
  out.write("new ");
  out.write("contents\n");
  out.commit();
  CHECK(aicb_test::read_text(path) == "new contents\n");
  std::filesystem::remove(path);
}

TEST_CASE("atomic_file: a file in a missing directory is an io_error naming it", "[io][atomic]") {
  CHECK_THROWS_WITH(aicb::atomic_file("/nonexistent/dir/out.txt"), Catch::Contains("/nonexistent/dir"));
}
