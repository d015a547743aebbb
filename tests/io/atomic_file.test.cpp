// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/io/atomic_file.hpp>

#include <catch2/catch.hpp>

#include "text_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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
    CHECK(e.path().filename().string().find("atomic_file_test.txt.aicb-tmp") == std::string::npos);
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

namespace {
bool temporaries_left(const std::string& stem) {
  for (const auto& e : std::filesystem::directory_iterator("."))
    if (e.path().filename().string().rfind("." + stem, 0) == 0) return true;
  return false;
}
}  // namespace

TEST_CASE("atomic_file: an output that is one of the inputs is refused before anything is written",
          "[io][atomic]") {
  const std::string input = "atomic_input.txt";
  aicb::write_file_atomically(input, "profile\n");
  CHECK_THROWS_WITH(aicb::atomic_file(input, {.inputs = {input}}), Catch::Contains("is also an input"));
  // Another path to the same file is the same file.
  CHECK_THROWS_WITH(aicb::atomic_file("./" + input, {.inputs = {input}}),
                    Catch::Contains("is also an input"));
  CHECK(aicb_test::read_text(input) == "profile\n");
  CHECK_FALSE(temporaries_left(input));
  std::filesystem::remove(input);
}

TEST_CASE("atomic_file: directories and other non-regular files are never replaced, devices are written into",
          "[io][atomic]") {
  std::filesystem::create_directory("atomic_dir");
  CHECK_THROWS_WITH(aicb::atomic_file("atomic_dir"), Catch::Contains("is a directory"));
  CHECK(std::filesystem::is_directory("atomic_dir"));
  std::filesystem::remove("atomic_dir");
  if (std::filesystem::is_character_file("/dev/null")) {
    aicb::atomic_file out("/dev/null");
    CHECK(out.direct());
    out.write("discarded");
    out.commit();
    CHECK(std::filesystem::is_character_file("/dev/null"));  // still the device
  }
}

TEST_CASE("atomic_file: a symbolic link stays, the file it points to is replaced", "[io][atomic]") {
  aicb::write_file_atomically("atomic_link_target.txt", "old\n");
  std::filesystem::remove("atomic_link.txt");
  std::filesystem::create_symlink("atomic_link_target.txt", "atomic_link.txt");
  aicb::write_file_atomically("atomic_link.txt", "new\n");
  CHECK(std::filesystem::is_symlink("atomic_link.txt"));
  CHECK(aicb_test::read_text("atomic_link_target.txt") == "new\n");
  std::filesystem::remove("atomic_link.txt");
  std::filesystem::remove("atomic_link_target.txt");
}

TEST_CASE("atomic_file: names up to 255 bytes work, longer ones are an error naming the limit",
          "[io][atomic]") {
  const std::string longest(255, 'n');
  aicb::write_file_atomically(longest, "x");  // the temporary's name is kept within the limit too
  CHECK(aicb_test::read_text(longest) == "x");
  std::filesystem::remove(longest);
  CHECK_THROWS_WITH(aicb::atomic_file(std::string(256, 'n')), Catch::Contains("longer than 255 bytes"));
}

TEST_CASE("atomic_file: files committed together land together, or none does", "[io][atomic]") {
  aicb::write_file_atomically("pair_a.txt", "old a\n");
  aicb::write_file_atomically("pair_b.txt", "old b\n");
  {
    aicb::atomic_file a("pair_a.txt"), b("pair_b.txt");
    a.write("new a\n");
    b.write("new b\n");
    aicb::commit_together({&a, &b});
  }
  CHECK(aicb_test::read_text("pair_a.txt") == "new a\n");
  CHECK(aicb_test::read_text("pair_b.txt") == "new b\n");
  {
    aicb::atomic_file a("pair_a.txt"), c("pair_c.txt");
    a.write("newer a\n");
    c.write("c\n");
    // The second cannot land (a directory took its name meanwhile): the first is rolled back.
    std::filesystem::create_directory("pair_c.txt");
    std::ofstream("pair_c.txt/keep") << "x";  // a non-empty directory: no rename replaces it
    CHECK_THROWS_AS(aicb::commit_together({&a, &c}), aicb::io_error);
  }
  CHECK(aicb_test::read_text("pair_a.txt") == "new a\n");  // the previous file, restored
  CHECK_FALSE(temporaries_left("pair_a.txt"));
  CHECK_FALSE(temporaries_left("pair_c.txt"));
  std::filesystem::remove_all("pair_c.txt");
  std::filesystem::remove("pair_a.txt");
  std::filesystem::remove("pair_b.txt");
}

TEST_CASE("atomic_file: an output that cannot fit in the free space is refused", "[io][atomic]") {
  CHECK_THROWS_WITH(aicb::require_free_space("space_test.txt", ~std::uint64_t{0}),
                    Catch::Contains("only") && Catch::Contains("is free"));
  CHECK_NOTHROW(aicb::require_free_space("space_test.txt", 1));
  CHECK_NOTHROW(aicb::require_free_space("/dev/null", ~std::uint64_t{0}));  // a device: not checked
}
