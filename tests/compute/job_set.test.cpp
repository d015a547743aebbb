// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include "job_set_documents.hpp"

#include <aicb/compute/job_set.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/io/job_set_reader.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

TEST_CASE("job set: jobs are built from their flags and placed by ranges or packing", "[jobs]") {
  const aicb::placed_job_set set = aicb::place_jobs(aicb::parse_job_set(aicb_test::two_jobs));
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
  const std::string overlap = aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "first", "gpus": "0-7", "job": {"model": "llama3-8b", "num_layers": 2, "tp": 8}},
    {"name": "second", "gpus": "4-11", "job": {"model": "llama3-8b", "num_layers": 2, "tp": 8}}]})");
  CHECK_THAT(overlap, Catch::Contains("jobs.second.gpus") && Catch::Contains("GPU 4 is held by job first"));

  const std::string exceed = aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "big", "gpus": "0-7", "job": {"model": "llama3-8b", "num_layers": 2, "tp": 8}},
    {"name": "bigger", "job": {"model": "llama3-8b", "num_layers": 2, "tp": 8, "world_size": 16}}]})");
  CHECK_THAT(exceed, Catch::Contains("jobs.bigger.world_size = 16") && Catch::Contains("does not fit") &&
                         Catch::Contains("big (GPUs 0-7)"));

  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 8, "jobs": [
    {"name": "far", "gpus": "4-11", "job": {"model": "llama3-8b", "tp": 8}}]})"),
             Catch::Contains("jobs.far.gpus = 4-11") && Catch::Contains("cluster of 8"));
  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "gpus": "0-7", "job": {"model": "llama3-8b", "tp": 8, "world_size": 4}}]})"),
             Catch::Contains("lists 8 GPUs; the job's world_size is 4"));
  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "job": {"model": "llama3-8b", "tp": 8}}]})"),
             Catch::Contains("jobs.x.world_size") && Catch::Contains("packed"));
  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "gpus": "0-7", "job": {"model": "llama3-8b", "tp": 3}}]})"),
             Catch::Contains("jobs.x.world_size = 8") && Catch::Contains("TPxPPxCP = 3"));
  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "x", "gpus": "0-7", "job": {"model": "llama3-8b", "tp": 8}},
    {"name": "x", "gpus": "8-15", "job": {"model": "llama3-8b", "tp": 8}}]})"),
             Catch::Contains("two jobs have this name"));
  CHECK_THAT(aicb_test::placing_message(R"({"schema": "aicb.jobs/1", "gpus": 16, "jobs": [
    {"name": "../x", "gpus": "0-7", "job": {"model": "llama3-8b", "tp": 8}}]})"),
             Catch::Contains("jobs[0].name"));
}

TEST_CASE("job set estimate: jobs sharing an oversubscribed leaf slow each other as the load says",
          "[jobs][estimate]") {
  // Leaves of one node each: a 12-GPU job fills node 0 and half of node 1, the other the rest of node 1 and
  // node 2. Each leaf's uplinks carry 8 NICs / oversubscription; a job's demand on a leaf is its GPUs there x
  // a NIC x its network duty. Job a: leaf 0 carries 8 of its GPUs (load 8 d_a), leaf 1 four of each job's (4
  // d_a + 4 d_b): its slowdown is max(1, over x 8 d_a / 8, over x (4 d_a + 4 d_b) / 8).
  const auto estimate = [&](const std::string& over) {
    const aicb::placed_job_set set =
        aicb::place_jobs(aicb::parse_job_set(aicb_test::leaf_sharing_jobs(over)));
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
  // a (TP 4 x DP 3) and b (TP 2 x DP 6) communicate in other proportions: the one of the lighter duty is
  // slowed on the shared leaf beyond what its own load on its own leaf does.
  REQUIRE(da != db);
  const std::size_t lighter = da < db ? 0 : 1;
  const double own = std::max(1.0, over * 8 * std::min(da, db) / 8), mixed = over * (4 * da + 4 * db) / 8;
  REQUIRE(mixed > own);
  CHECK(busy.jobs[lighter].network_slowdown_alone == Approx(own));
  CHECK(busy.jobs[lighter].network_slowdown == Approx(mixed));
  CHECK(busy.jobs[lighter].shared.iteration_s > busy.jobs[lighter].alone.iteration_s);
  CHECK(busy.jobs[1 - lighter].network_slowdown == Approx(std::max(1.0, over * 8 * std::max(da, db) / 8)));
  CHECK(busy.jobs[0].shared.iteration_s >= free.jobs[0].shared.iteration_s);
  // The estimate is the job's own, on a network that much slower.
  const aicb::placed_job_set set = aicb::place_jobs(aicb::parse_job_set(aicb_test::leaf_sharing_jobs("4")));
  CHECK(busy.jobs[0].shared.iteration_s ==
        Approx(aicb::estimate_iteration(set.jobs[0].job, aicb::roofline_model("H100"),
                                        aicb::cluster_of_job(set, set.jobs[0], shared))
                   .iteration_s));
}
