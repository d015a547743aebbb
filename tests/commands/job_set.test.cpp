// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include "job_set_documents.hpp"
#include "text_file.hpp"

#include <aicb/commands/job_set.hpp>
#include <aicb/compute/job_set.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/io/job_set_reader.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace fs = std::filesystem;

namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("job set: SimAI files per job, each the file aicb generate writes for that job", "[jobs][simai]") {
  const std::string doc = "job-set-simai.json";
  write_text(doc, aicb_test::two_jobs);
  const std::string dir = "job-set-simai";
  fs::remove_all(dir);
  const aicb::job_set_generated out =
      aicb::generate_job_set({.file = doc, .format = aicb::workload_format::simai, .output = dir});
  REQUIRE(out.jobs.size() == 2);
  CHECK(out.files == 5);  // two workloads, two sidecars, the manifest
  const nlohmann::json manifest = nlohmann::json::parse(aicb_test::read_text(dir + "/manifest.json"));
  CHECK(manifest["schema"] == "aicb.jobs.simai/1");
  CHECK_THAT(manifest["jobs"][0]["simai_command"].get<std::string>(),
             Catch::Contains("-w " + dir + "/dense.txt") && Catch::Contains("-g 8 "));
  // The dense job's file, byte for byte what `aicb generate` writes for the same flags.
  aicb::generate_request g;
  g.job.model = "llama3-8b";
  g.job.fields = {{"num_layers", "4"},   {"tensor_parallel", "2"}, {"pipeline_parallel", "2"},
                  {"global_batch", "8"}, {"micro_batch", "1"},     {"world_size", "8"}};
  g.cluster = "dgx-h100";
  g.flags.set("gpu_type", "H100");
  g.output = "job-set-simai-alone.txt";
  (void)aicb::generate_workload(g);
  CHECK(aicb_test::read_text(dir + "/dense.txt") == aicb_test::read_text(g.output));
  // Regenerated over itself; a directory that is not such a set is refused and left alone.
  CHECK_NOTHROW(aicb::generate_job_set({.file = doc, .format = aicb::workload_format::simai, .output = dir}));
  fs::create_directories("job-set-not-ours");
  write_text("job-set-not-ours/notes.txt", "mine");
  CHECK_THROWS(aicb::generate_job_set(
      {.file = doc, .format = aicb::workload_format::simai, .output = "job-set-not-ours"}));
  CHECK(aicb_test::read_text("job-set-not-ours/notes.txt") == "mine");
  for (const std::string& p : {dir, std::string("job-set-not-ours")})
    fs::remove_all(p);
  for (const std::string& p : {doc, g.output, g.output + ".json"})
    fs::remove(p);
}

TEST_CASE("job set: every job checked, and drawn side by side on one timeline", "[jobs]") {
  const aicb::placed_job_set set = aicb::place_jobs(aicb::parse_job_set(aicb_test::two_jobs));
  for (const aicb::job_set_check& c : aicb::check_job_set(set)) {
    INFO(c.name);
    CHECK(c.check.ok);
  }
  std::string trace;
  const aicb::job_set_estimate e = aicb::write_job_set_trace_events([&](std::string_view s) { trace += s; },
                                                                    set, aicb::roofline_model("H100"));
  const nlohmann::json doc = nlohmann::json::parse(trace);
  std::set<std::string> processes;
  std::set<std::uint64_t> pids;
  for (const auto& ev : doc["traceEvents"]) {
    if (ev["name"] == "process_name") processes.insert(ev["args"]["name"].get<std::string>());
    if (ev["ph"] == "X") pids.insert(ev["pid"].get<std::uint64_t>());
  }
  // dense: PP 2 (two processes), moe: PP 1.
  CHECK(processes ==
        std::set<std::string>{"dense stage 0 (GPU 0)", "dense stage 1 (GPU 4)", "moe stage 0 (GPU 8)"});
  CHECK(pids == std::set<std::uint64_t>{0, 1, 2});
  CHECK(e.jobs.size() == 2);
}

TEST_CASE("job set estimate: as text and as JSON", "[jobs][estimate]") {
  const aicb::placed_job_set set = aicb::place_jobs(aicb::parse_job_set(aicb_test::leaf_sharing_jobs("4")));
  const aicb::job_set_estimate busy = aicb::estimate_job_set(set, aicb::roofline_model("H100"));
  const std::string text = aicb::format_job_set_estimate(busy, set);
  // A row per job: its name, then its GPUs.
  CHECK_THAT(text, Catch::Contains("oversubscribed 4:1") && Catch::Matches("[^]*\na +0-11 [^]*") &&
                       Catch::Matches("[^]*\nb +12-23 [^]*"));
  CHECK(nlohmann::json::parse(aicb::job_set_estimate_json(busy, set))["jobs"][1]["name"] == "b");
}
