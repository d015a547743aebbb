// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/io/provenance.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

std::string write_temporary(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("provenance: inputs are named with the FNV-1a hash of their bytes", "[io][provenance]") {
  // FNV-1a 64 of nothing is its offset basis; of "a", the published test vector.
  const std::string empty = write_temporary("aicb-provenance-empty", "");
  const std::string a = write_temporary("aicb-provenance-a", "a");
  CHECK(aicb::content_hash(empty) == "fnv1a64:cbf29ce484222325");
  CHECK(aicb::content_hash(a) == "fnv1a64:af63dc4c8601ec8c");
  // A file larger than one read block hashes all of its bytes: one byte changed at the end shows.
  const std::string big(200000, 'x');
  const std::string one = aicb::content_hash(write_temporary("aicb-provenance-big", big));
  const std::string other = aicb::content_hash(write_temporary("aicb-provenance-big", big.substr(1) + "y"));
  CHECK(one != other);
  CHECK_THROWS_WITH(aicb::content_hash(empty + ".missing"), Catch::Contains("cannot be read"));

  aicb::provenance p{.command = "aicb generate --hf-config a"};
  p.add_input(a);
  p.add_input(a);  // once
  REQUIRE(p.inputs.size() == 1u);
  aicb::json_writer w;
  aicb::write_json(w, p);
  CHECK_THAT(w.str(), Catch::Contains("\"generator\": \"aicb " AICB_VERSION_STRING "\"") &&
                          Catch::Contains("\"command\": \"aicb generate --hf-config a\"") &&
                          Catch::Contains("\"fnv1a64:af63dc4c8601ec8c\""));
  aicb::json_writer bare;
  aicb::write_json(bare, aicb::provenance{});
  CHECK(bare.str().find("command") == std::string::npos);  // not known: not claimed
  std::filesystem::remove(empty);
  std::filesystem::remove(a);
}
