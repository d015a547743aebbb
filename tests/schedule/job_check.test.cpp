// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/presets.hpp>
#include <aicb/schedule/job_check.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

namespace {

using aicb::op_type;

aicb::job_spec small(std::uint64_t pp = 2, std::uint64_t vpp = 1) {
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 8,
                      .tensor_parallel = 2,
                      .pipeline_parallel = pp,
                      .virtual_pipeline = vpp,
                      .sequence_parallel = true},
                     {.global_batch = 8, .seq_length = 1024}};
  job.model.num_layers = 8;
  return job;
}

// Every rank's stream, materialised so that a test can break it.
std::vector<std::vector<aicb::operation>> streams(const aicb::job_spec& job) {
  std::vector<std::vector<aicb::operation>> all(job.parallel.world_size);
  for (std::uint64_t r = 0; r < all.size(); ++r)
    for (const aicb::operation& op : aicb::rank_schedule(job, r))
      all[r].push_back(op);
  return all;
}

aicb::job_check run(const aicb::job_spec& job, std::vector<std::vector<aicb::operation>>& all) {
  std::vector<std::uint64_t> ranks(all.size());
  for (std::uint64_t r = 0; r < ranks.size(); ++r)
    ranks[r] = r;
  return aicb::run_jointly(aicb::process_grid(job), ranks,
                           [&](std::uint64_t r) -> const std::vector<aicb::operation>& { return all[r]; });
}

}  // namespace

TEST_CASE("job check: every layout of the tests runs jointly to the end", "[schedule][check]") {
  const auto deepseek = aicb::presets::deepseek_v3;  // with its MTP module on the last stage
  const aicb::job_spec jobs[] = {small(1),
                                 small(2),
                                 small(4, 2),
                                 {aicb::presets::llama2_7b,
                                  {.world_size = 32,
                                   .tensor_parallel = 2,
                                   .pipeline_parallel = 4,
                                   .virtual_pipeline = 2,
                                   .context_parallel = 2,
                                   .sequence_parallel = true},
                                  {.global_batch = 16, .seq_length = 4096}},
                                 {aicb::presets::mixtral_8x7b,
                                  {.world_size = 32,
                                   .tensor_parallel = 2,
                                   .pipeline_parallel = 2,
                                   .expert_parallel = 4,
                                   .sequence_parallel = true,
                                   .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall},
                                  {.global_batch = 16, .seq_length = 4096}},
                                 {aicb::presets::mixtral_8x7b,
                                  {.world_size = 32,
                                   .tensor_parallel = 2,
                                   .pipeline_parallel = 2,
                                   .expert_parallel = 4,
                                   .sequence_parallel = true},
                                  {.global_batch = 16, .seq_length = 4096}},
                                 {deepseek,
                                  {.world_size = 128,
                                   .tensor_parallel = 2,
                                   .pipeline_parallel = 8,
                                   .expert_parallel = 8,
                                   .sequence_parallel = true,
                                   .first_stage_layers = 5,
                                   .last_stage_layers = 8,
                                   .distributed_optimizer = true},
                                  {.global_batch = 64, .seq_length = 4096}},
                                 // Zero-bubble H1, dense and DeepSeek-style MoE (weight gradients deferred).
                                 {aicb::presets::llama2_7b,
                                  {.world_size = 16,
                                   .tensor_parallel = 2,
                                   .pipeline_parallel = 4,
                                   .sequence_parallel = true,
                                   .pipeline_schedule = aicb::pipeline_schedule_kind::zb_h1},
                                  {.global_batch = 16, .seq_length = 4096}},
                                 {deepseek,
                                  {.world_size = 128,
                                   .tensor_parallel = 2,
                                   .pipeline_parallel = 8,
                                   .expert_parallel = 8,
                                   .sequence_parallel = true,
                                   .first_stage_layers = 5,
                                   .last_stage_layers = 8,
                                   .pipeline_schedule = aicb::pipeline_schedule_kind::zb_h1,
                                   .distributed_optimizer = true,
                                   .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall},
                                  {.global_batch = 64, .seq_length = 4096}},
                                 // DualPipe, dense and DeepSeek-style MoE (two directions, mirrored stages).
                                 {aicb::presets::llama2_7b,
                                  {.world_size = 16,
                                   .tensor_parallel = 2,
                                   .pipeline_parallel = 4,
                                   .sequence_parallel = true,
                                   .pipeline_schedule = aicb::pipeline_schedule_kind::dualpipe},
                                  {.global_batch = 16, .seq_length = 4096}},
                                 {deepseek,
                                  {.world_size = 128,
                                   .tensor_parallel = 2,
                                   .pipeline_parallel = 8,
                                   .expert_parallel = 8,
                                   .sequence_parallel = true,
                                   .first_stage_layers = 5,
                                   .last_stage_layers = 8,
                                   .pipeline_schedule = aicb::pipeline_schedule_kind::dualpipe,
                                   .distributed_optimizer = true,
                                   .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall},
                                  {.global_batch = 128, .seq_length = 4096}},
                                 // DeepSpeed's ZeRO-3 with TP: per-module gathers and reduce-scatters.
                                 {aicb::presets::llama2_7b,
                                  {.world_size = 16, .tensor_parallel = 2, .zero_stage = 3},
                                  {.global_batch = 16, .seq_length = 1024}}};
  for (const aicb::job_spec& job : jobs) {
    INFO(job.model.name.view() << " on " << job.parallel.world_size);
    const aicb::job_check r = aicb::check_job(job);
    CHECK(r.problem == "");
    CHECK(r.ok);
    CHECK(r.ranks_run == job.parallel.world_size);
    CHECK((r.transfers > 0) == (job.parallel.pipeline_parallel > 1 || job.parallel.context_parallel > 1));
    CHECK_THAT(r.proved, Catch::StartsWith("all "));
  }
}

TEST_CASE("job check: a large job is checked in two passes, and says so", "[schedule][check]") {
  const aicb::job_spec job = small(4, 2);
  const aicb::job_check r = aicb::check_job(job, {}, {.joint_world_limit = 2});
  CHECK(r.ok);
  CHECK(r.ranks_streamed == 8);
  CHECK(r.ranks_run == 4);  // one pipeline group
  CHECK_THAT(r.proved, Catch::Contains("pipeline group 0 (4 ranks) ran jointly"));
  // With context parallelism the ring's ranks exchange keys and values: the pipeline groups of one
  // ring run jointly.
  aicb::job_spec ring = job;
  ring.parallel.context_parallel = 2;
  ring.parallel.world_size = 16;
  const aicb::job_check c = aicb::check_job(ring, {}, {.joint_world_limit = 2});
  CHECK(c.problem == "");
  CHECK(c.ok);
  CHECK(c.ranks_run == 8);
  CHECK_THAT(c.proved, Catch::Contains("context-parallel ring 0 (8 ranks) ran jointly"));
}

TEST_CASE("job check: broken graphs fail, naming the rank, the operation and its counterpart",
          "[schedule][check]") {
  const aicb::job_spec job = small(2);
  auto all = streams(job);
  REQUIRE(run(job, all).ok);
  // Rank 4 (stage 1) receives its first activation from rank 0.
  auto first_recv = [](std::vector<aicb::operation>& ops) {
    for (auto it = ops.begin(); it != ops.end(); ++it)
      if (it->type == op_type::recv) return it;
    return ops.end();
  };
  SECTION("a dropped receive") {
    all[4].erase(first_recv(all[4]));
    const aicb::job_check r = run(job, all);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.problem,
               Catch::Contains("rank 0") && Catch::Contains("send_activation") && Catch::Contains("rank 4"));
  }
  SECTION("a size that does not match") {
    first_recv(all[4])->size = aicb::bytes{12345};
    const aicb::job_check r = run(job, all);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.problem, Catch::Contains("expects 12345 bytes") && Catch::Contains("rank 0"));
  }
  SECTION("a collective of another size") {
    for (aicb::operation& op : all[1])
      if (op.type == op_type::collective) {
        op.size = aicb::bytes{op.size.count() + 2};
        break;
      }
    const aicb::job_check r = run(job, all);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.problem, Catch::Contains("does not match its group's call number 0 on tp["));
  }
  SECTION("a cyclic wait") {
    // Stage 0 first waits for a gradient that stage 1 sends only after the activation stage 0 has
    // not sent yet.
    aicb::operation wait = *first_recv(all[4]);
    wait.index = 1'000'000;
    wait.peer = 4;
    wait.tag = 3;  // the first gradient of micro batch 0 (stage 1 -> stage 0)
    wait.after_count = 0;
    aicb::operation next = all[0].front();
    all[0].insert(all[0].begin(), wait);
    all[0][1].after = {wait.index};
    all[0][1].after_count = 1;
    (void)next;
    const aicb::job_check r = run(job, all);
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.problem, Catch::StartsWith("deadlock: "));
  }
}

TEST_CASE("job check: the document says what was proved, or the problem", "[schedule][check]") {
  aicb::job_check ok;
  ok.proved = "every transfer matched";
  ok.transfers = 12;
  const std::string good = aicb::job_check_json(ok, 16, 0.25);
  CHECK(good.find("\"schema\": \"aicb.check/1\"") != std::string::npos);
  CHECK(good.find("\"world_size\": 16") != std::string::npos);
  CHECK(good.find("\"proved\": \"every transfer matched\"") != std::string::npos);
  CHECK(good.find("\"problem\"") == std::string::npos);
  CHECK(good.find("\"transfers\": 12") != std::string::npos);
  aicb::job_check bad;
  bad.ok = false;
  bad.problem = "rank 3 waits for rank 5";
  const std::string failed = aicb::job_check_json(bad, 16, 0);
  CHECK(failed.find("\"ok\": false") != std::string::npos);
  CHECK(failed.find("\"problem\": \"rank 3 waits for rank 5\"") != std::string::npos);
  CHECK(failed.find("\"proved\"") == std::string::npos);
}

TEST_CASE(
    "job check: the combined 1F1B, without a pipeline and interleaved, with delayed weight "
    "gradients, checks jointly",
    "[schedule][check]") {
  aicb::job_spec job{aicb::presets::mixtral_8x7b,
                     {.world_size = 8,
                      .expert_parallel = 4,
                      .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall,
                      .overlap_moe_expert_parallel_comm = true,
                      .delay_wgrad_compute = true},
                     {.micro_batch = 1, .global_batch = 16, .seq_length = 1024}};
  job.model.num_layers = 4;
  for (const std::uint64_t pp : {1, 2}) {
    job.parallel.pipeline_parallel = pp;
    job.parallel.virtual_pipeline = pp;  // interleaved when pipelined: Megatron's rule
    job.parallel.world_size = 8 * pp;
    INFO("PP " << pp);
    const aicb::job_check r = aicb::check_job(job);
    CHECK(r.problem == "");
    CHECK(r.ok);
    CHECK(r.ranks_run == job.parallel.world_size);
    CHECK((r.transfers > 0) == (pp > 1));
  }
}
