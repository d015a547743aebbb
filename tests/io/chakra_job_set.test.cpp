// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include "job_set_documents.hpp"
#include "text_file.hpp"

#include <aicb/compute/job_set.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/io/chakra_job_set.hpp>
#include <aicb/io/job_set_reader.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace fs = std::filesystem;

TEST_CASE("job set: one Chakra set for the cluster, groups never mixing jobs, idle NPUs idle",
          "[jobs][chakra]") {
  std::string doc = aicb_test::two_jobs;
  doc.replace(doc.find("\"gpus\": 16"), 10, "\"gpus\": 20");  // four idle GPUs after the two jobs
  const aicb::placed_job_set set = aicb::place_jobs(aicb::parse_job_set(doc));
  const std::string dir = "job-set-chakra";
  fs::remove_all(dir);
  const aicb::chakra_set_result r = aicb::write_chakra_job_set(dir, set, aicb::roofline_model("H100"));
  CHECK(r.files == 20);
  CHECK(r.sends == r.recvs);
  const nlohmann::json groups = nlohmann::json::parse(aicb_test::read_text(dir + "/comm_groups.json"));
  CHECK(groups.size() == r.groups);
  // Every group's members are the GPUs of one job.
  std::map<std::string, std::size_t> job_of_group;
  for (const auto& [number, members] : groups.items()) {
    std::set<std::size_t> jobs;
    for (const auto& m : members)
      jobs.insert(set.held(m.get<std::uint64_t>())->job);
    CHECK(jobs.size() == 1);
    job_of_group[number] = *jobs.begin();
  }
  for (std::uint64_t npu = 0; npu < 20; ++npu) {
    INFO("NPU " << npu);
    const aicb::chakra_trace t = aicb::read_chakra_trace(
        aicb_test::read_text(dir + "/workload." + std::to_string(npu) + ".et"), "npu " + std::to_string(npu));
    const auto held = set.held(npu);
    std::map<std::string, std::uint64_t> meta;
    for (const auto& a : t.metadata)
      meta[a.name] = a.number;
    CHECK(meta["rank"] == npu);
    CHECK(meta["world_size"] == 20);
    if (!held) {  // one computation of no time: ASTRA-sim refuses a trace without a node
      REQUIRE(t.nodes.size() == 1);
      CHECK(t.nodes[0].name == "idle");
      CHECK(t.nodes[0].type == aicb::chakra_node_type::compute);
      CHECK(t.nodes[0].duration_micros == 0);
      continue;
    }
    // This NPU's trace is its job's rank's, its groups its job's and its peers its job's GPUs.
    std::string alone;
    (void)aicb::write_chakra_rank([&](std::string_view s) { alone += s; }, set.jobs[held->job].job,
                                  held->rank, aicb::roofline_model("H100"));
    CHECK(t.nodes.size() == aicb::read_chakra_trace(alone, "alone").nodes.size());
    for (const aicb::chakra_node& n : t.nodes) {
      if (const auto* pg = n.attr("pg_name")) {
        REQUIRE(job_of_group.contains(pg->text));
        CHECK(job_of_group[pg->text] == held->job);
        const auto& members = groups[pg->text];
        CHECK(std::find(members.begin(), members.end(), npu) != members.end());
      }
      for (const char* peer : {"comm_dst", "comm_src"})
        if (const auto* p = n.attr(peer)) CHECK(set.held(p->number)->job == held->job);
    }
  }
  const nlohmann::json manifest = nlohmann::json::parse(aicb_test::read_text(dir + "/manifest.json"));
  CHECK(manifest["world_size"] == 20);
  CHECK(manifest["idle_gpus"] == 4);
  CHECK(manifest["jobs"][1]["gpus"] == "8-15");
  // Written again over itself: the previous set is recognised and replaced.
  CHECK_NOTHROW(aicb::write_chakra_job_set(dir, set, aicb::roofline_model("H100")));
  fs::remove_all(dir);
}
