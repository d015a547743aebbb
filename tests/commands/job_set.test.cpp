// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/commands/job_set.hpp>
#include <aicb/compute/job_set.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/io/job_set_reader.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Two different jobs on 16 GPUs: a dense TP 2 x PP 2 x DP 2 job on GPUs 0-7, a MoE job packed after it.
const std::string two_jobs = R"({
  "schema": "aicb.jobs/1",
  "gpus": 16,
  "cluster": "dgx-h100",
  "jobs": [
    {"name": "dense", "gpus": "0-7",
     "job": {"model": "llama3-8b", "num-layers": 4, "tp": 2, "pp": 2, "global_batch": 8, "mbs": 1}},
    {"name": "moe",
     "job": {"model": "mixtral-8x7b", "num_layers": 2, "world_size": 8, "ep": 4, "tp": 2, "sp": true,
             "global_batch": 8, "micro_batch": 1}}
  ]
})";

std::string message_of(const std::string& document) {
  try {
    (void)aicb::place_jobs(aicb::parse_job_set(document));
  } catch (const aicb::error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("job set: jobs are built from their flags and placed by ranges or packing", "[jobs]") {
  const aicb::placed_job_set set = aicb::place_jobs(aicb::parse_job_set(two_jobs));
  REQUIRE(set.jobs.size() == 2);
  CHECK(set.jobs[0].job.parallel.world_size == 8);  // from its GPU ranges
  CHECK(set.jobs[0].job.parallel.tensor_parallel == 2);
  CHECK(set.jobs[0].job.model.num_layers == 4);
  CHECK(set.jobs[1].job.parallel.expert_parallel == 4);
  CHECK(set.jobs[1].gpus.front() == 8);  // packed into the first free node
  CHECK(set.jobs[1].gpus.back() == 15);
  CHECK(set.idle_gpus() == 0);
  CHECK(set.held(9)->job == 1);
  CHECK(set.held(9)->rank == 1);

  // Whole-node packing leaves the rest of a small job's node idle; contiguous packing does not.
  std::string small = R"({"schema": "aicb.jobs/1", "gpus": 16, "packing": "PACK", "jobs": [
    {"name": "a", "job": {"model": "llama3-8b", "num_layers": 2, "world_size": 4, "tp": 4}},
    {"name": "b", "job": {"model": "llama3-8b", "num_layers": 2, "world_size": 4, "tp": 4}}]})";
  const auto placed = [&](const std::string& packing) {
    std::string doc = small;
    doc.replace(doc.find("PACK"), 4, packing);
    return aicb::place_jobs(aicb::parse_job_set(doc));
  };
  CHECK(placed("nodes").jobs[1].gpus.front() == 8);
  CHECK(placed("nodes").idle_gpus() == 8);
  CHECK(placed("contiguous").jobs[1].gpus.front() == 4);
  CHECK(placed("contiguous").idle_gpus() == 8);
}

TEST_CASE("job set: overlapping or oversized jobs are refused naming both jobs", "[jobs]") {
  const std::string overlap = message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "first", "gpus": "0-7", "job": {"model": "llama3-8b", "num_layers": 2, "tp": 8}},
    {"name": "second", "gpus": "4-11", "job": {"model": "llama3-8b", "num_layers": 2, "tp": 8}}]})");
  CHECK_THAT(overlap, Catch::Contains("jobs.second.gpus") && Catch::Contains("GPU 4 is held by job first"));

  const std::string exceed = message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "big", "gpus": "0-7", "job": {"model": "llama3-8b", "num_layers": 2, "tp": 8}},
    {"name": "bigger", "job": {"model": "llama3-8b", "num_layers": 2, "tp": 8, "world_size": 16}}]})");
  CHECK_THAT(exceed, Catch::Contains("jobs.bigger.world_size = 16") && Catch::Contains("does not fit") &&
                         Catch::Contains("big (GPUs 0-7)"));

  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 8, "jobs": [
    {"name": "far", "gpus": "4-11", "job": {"model": "llama3-8b", "tp": 8}}]})"),
             Catch::Contains("jobs.far.gpus = 4-11") && Catch::Contains("cluster of 8"));
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "gpus": "0-7", "job": {"model": "llama3-8b", "tp": 8, "world_size": 4}}]})"),
             Catch::Contains("lists 8 GPUs; the job's world_size is 4"));
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "job": {"model": "llama3-8b", "tp": 8}}]})"),
             Catch::Contains("jobs.x.world_size") && Catch::Contains("packed"));
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "gpus": "0-7", "job": {"model": "llama3-8b", "tp": 3}}]})"),
             Catch::Contains("jobs.x.world_size = 8") && Catch::Contains("TPxPPxCP = 3"));
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "gpus": "0-7", "job": {"model": "llama3-8b", "tp": 8}},
    {"name": "x", "gpus": "8-15", "job": {"model": "llama3-8b", "tp": 8}}]})"),
             Catch::Contains("two jobs have this name"));
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "../x", "gpus": "0-7", "job": {"model": "llama3-8b", "tp": 8}}]})"),
             Catch::Contains("jobs[0].name"));
}

TEST_CASE("job set reader: errors name the key, the value and the rule", "[jobs]") {
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/2", "gpus": 16, "jobs": []})"),
             Catch::Contains("schema = \"aicb.jobs/2\""));
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "gpu": 16, "jobs": []})"),
             Catch::Contains("gpu = 16") && Catch::Contains("a string"));
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "packing": "dense", "jobs": [{}]})"),
             Catch::Contains("packing = dense"));
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "job": []})"),
             Catch::Contains("did you mean jobs?"));
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "gpus": "0-7", "job": {"model": "llama3-8b", "tensor-paralel": 8}}]})"),
             Catch::Contains("jobs.x.tensor_paralel") && Catch::Contains("did you mean tensor_parallel?"));
  CHECK_THAT(message_of(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "gpus": "0-7", "job": {"model": ["llama3-8b"]}}]})"),
             Catch::Contains("jobs[0].job.model"));
  CHECK_THAT(message_of("{\"schema\": \"aicb.jobs/1\",\n  \"gpus\": 16,,}"), Catch::Contains("jobs.json:2:"));
}

TEST_CASE("job set: one Chakra set for the cluster, groups never mixing jobs, idle NPUs idle",
          "[jobs][chakra]") {
  std::string doc = two_jobs;
  doc.replace(doc.find("\"gpus\": 16"), 10, "\"gpus\": 20");  // four idle GPUs after the two jobs
  const aicb::placed_job_set set = aicb::place_jobs(aicb::parse_job_set(doc));
  const std::string dir = "job-set-chakra";
  fs::remove_all(dir);
  const aicb::chakra_set_result r = aicb::write_chakra_job_set(dir, set, aicb::roofline_model("H100"));
  CHECK(r.files == 20);
  CHECK(r.sends == r.recvs);
  const nlohmann::json groups = nlohmann::json::parse(read_all(dir + "/comm_groups.json"));
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
        read_all(dir + "/workload." + std::to_string(npu) + ".et"), "npu " + std::to_string(npu));
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
  const nlohmann::json manifest = nlohmann::json::parse(read_all(dir + "/manifest.json"));
  CHECK(manifest["world_size"] == 20);
  CHECK(manifest["idle_gpus"] == 4);
  CHECK(manifest["jobs"][1]["gpus"] == "8-15");
  // Written again over itself: the previous set is recognised and replaced.
  CHECK_NOTHROW(aicb::write_chakra_job_set(dir, set, aicb::roofline_model("H100")));
  fs::remove_all(dir);
}

TEST_CASE("job set: SimAI files per job, each the file aicb generate writes for that job", "[jobs][simai]") {
  const std::string doc = "job-set-simai.json";
  write_text(doc, two_jobs);
  const std::string dir = "job-set-simai";
  fs::remove_all(dir);
  const aicb::job_set_generated out =
      aicb::generate_job_set({.file = doc, .format = aicb::workload_format::simai, .output = dir});
  REQUIRE(out.jobs.size() == 2);
  CHECK(out.files == 5);  // two workloads, two sidecars, the manifest
  const nlohmann::json manifest = nlohmann::json::parse(read_all(dir + "/manifest.json"));
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
  CHECK(read_all(dir + "/dense.txt") == read_all(g.output));
  // Regenerated over itself; a directory that is not such a set is refused and left alone.
  CHECK_NOTHROW(aicb::generate_job_set({.file = doc, .format = aicb::workload_format::simai, .output = dir}));
  fs::create_directories("job-set-not-ours");
  write_text("job-set-not-ours/notes.txt", "mine");
  CHECK_THROWS(aicb::generate_job_set(
      {.file = doc, .format = aicb::workload_format::simai, .output = "job-set-not-ours"}));
  CHECK(read_all("job-set-not-ours/notes.txt") == "mine");
  for (const std::string p : {dir, std::string("job-set-not-ours")})
    fs::remove_all(p);
  for (const std::string p : {doc, g.output, g.output + ".json"})
    fs::remove(p);
}

TEST_CASE("job set estimate: jobs sharing an oversubscribed leaf slow each other as the load says",
          "[jobs][estimate]") {
  // Leaves of one node each: a 12-GPU job fills node 0 and half of node 1, the other the rest of node 1 and
  // node 2. Each leaf's uplinks carry 8 NICs / oversubscription; a job's demand on a leaf is its GPUs there x
  // a NIC x its network duty. Job a: leaf 0 carries 8 of its GPUs (load 8 d_a), leaf 1 four of each job's (4
  // d_a + 4 d_b): its slowdown is max(1, over x 8 d_a / 8, over x (4 d_a + 4 d_b) / 8).
  std::string doc = R"({"schema": "aicb.jobs/1", "gpus": 24, "packing": "contiguous",
    "nodes_per_leaf": 1, "oversubscription": OVER, "jobs": [
    {"name": "a", "job": {"model": "llama3-8b", "num_layers": 2, "world_size": 12, "tp": 4, "global_batch": 6}},
    {"name": "b", "job": {"model": "llama3-8b", "num_layers": 2, "world_size": 12, "tp": 4, "global_batch": 6}}]})";
  const auto estimate = [&](const std::string& over) {
    std::string text = doc;
    text.replace(text.find("OVER"), 4, over);
    const aicb::placed_job_set set = aicb::place_jobs(aicb::parse_job_set(text));
    return aicb::estimate_job_set(set, aicb::roofline_model("H100"));
  };
  const aicb::job_set_estimate free = estimate("1");
  for (const auto& j : free.jobs) {
    CHECK(j.network_slowdown == 1);
    CHECK(j.shared.iteration_s == j.alone.iteration_s);
  }
  const double over = 4;
  const aicb::job_set_estimate busy = estimate("4");
  const double da = busy.jobs[0].network_duty, db = busy.jobs[1].network_duty;
  REQUIRE(da > 0);
  CHECK(da == Approx(free.jobs[0].network_duty));
  const double alone = std::max(1.0, over * 8 * da / 8);
  const double shared = std::max(alone, over * (4 * da + 4 * db) / 8);
  CHECK(busy.jobs[0].network_slowdown_alone == Approx(alone));
  CHECK(busy.jobs[0].network_slowdown == Approx(shared));
  CHECK(busy.jobs[1].network_slowdown ==
        Approx(std::max({1.0, over * 8 * db / 8, over * (4 * da + 4 * db) / 8})));
  if (shared > alone) CHECK(busy.jobs[0].shared.iteration_s > busy.jobs[0].alone.iteration_s);
  CHECK(busy.jobs[0].shared.iteration_s >= free.jobs[0].shared.iteration_s);
  // The estimate is the job's own, on a network that much slower.
  const aicb::placed_job_set set = aicb::place_jobs(aicb::parse_job_set([&] {
    std::string text = doc;
    return text.replace(text.find("OVER"), 4, "4");
  }()));
  CHECK(busy.jobs[0].shared.iteration_s ==
        Approx(aicb::estimate_iteration(set.jobs[0].job, aicb::roofline_model("H100"),
                                        aicb::cluster_of_job(set, set.jobs[0], shared))
                   .iteration_s));
  const std::string text = aicb::format_job_set_estimate(busy, set);
  CHECK_THAT(text, Catch::Contains("oversubscribed 4:1") && Catch::Contains("a ") && Catch::Contains("b "));
  CHECK(nlohmann::json::parse(aicb::job_set_estimate_json(busy, set))["jobs"][1]["name"] == "b");
}

TEST_CASE("job set: every job checked, and drawn side by side on one timeline", "[jobs]") {
  const aicb::placed_job_set set = aicb::place_jobs(aicb::parse_job_set(two_jobs));
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
