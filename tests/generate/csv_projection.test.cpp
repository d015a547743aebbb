// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/generate/csv_projection.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace {

using aicb::csv_group, aicb::csv_op, aicb::group_kind, aicb::op_type;

std::vector<aicb::csv_item> items(const aicb::csv_projection& p) {
  std::vector<aicb::csv_item> out;
  p.generate([&](const aicb::csv_item& i) { out.push_back(i); });
  return out;
}

const aicb::job_spec pipelined{aicb::presets::llama2_7b,
                               {.world_size = 16,
                                .tensor_parallel = 2,
                                .pipeline_parallel = 2,
                                .sequence_parallel = true,
                                .distributed_optimizer = true},
                               {.global_batch = 16, .seq_length = 4096}};

}  // namespace

TEST_CASE("csv projection: a warm-up epoch, then each iteration's operations in the graph's order",
          "[generate][csv]") {
  const aicb::csv_projection p(pipelined, {.iterations = 2, .computation = true});
  CHECK(p.rank() == 8);  // the first rank of the last stage
  CHECK(p.pipeline_stage() == 1);
  CHECK(p.warnings().empty());
  const std::vector<aicb::csv_item> all = items(p);
  // The warm-up: one 8-byte all-reduce per group the rank uses, then epoch_end.
  std::size_t at = 0;
  std::map<csv_group, std::uint64_t> warmed;
  while (all[at].op != csv_op::epoch_end) {
    CHECK(all[at].op == csv_op::all_reduce);
    CHECK(all[at].msg_size == 8);
    CHECK(all[at].stage == "init.warm_up");
    warmed[all[at].group] = *all[at].group_size;
    ++at;
  }
  CHECK(warmed == std::map<csv_group, std::uint64_t>{
                      {csv_group::tp_group, 2}, {csv_group::pp_group, 2}, {csv_group::dp_group, 4}});
  ++at;
  // Each iteration: the rank's operations that have a CSV form, one item each, in order.
  std::vector<aicb::operation> expected;
  for (const aicb::operation& op : aicb::rank_schedule(pipelined, 8))
    if (op.type != op_type::compute || op.compute.kind == aicb::op_kind::gemm) expected.push_back(op);
  for (int iteration = 0; iteration < 2; ++iteration) {
    for (const aicb::operation& op : expected) {
      REQUIRE(at < all.size());
      const aicb::csv_item& item = all[at++];
      INFO(op.name);
      CHECK(item.stage == std::string(aicb::to_string(op.phase)) + "." + std::string(op.name));
      if (op.type == op_type::collective) {
        CHECK(item.msg_size == op.size.count());
        CHECK(item.group_size == op.group_size);
        CHECK(item.group == (op.group.kind == group_kind::tp ? csv_group::tp_group : csv_group::dp_group));
      } else if (op.type == op_type::compute) {
        CHECK(item.op == csv_op::computation);
        CHECK(item.shapes[0].dims[0] * item.shapes[0].dims[1] * item.shapes[0].dims[2] *
                  item.shapes[1].dims[1] * 2 ==
              static_cast<std::uint64_t>(op.compute.flops()));
      } else {
        CHECK(item.group == csv_group::pp_group);
        CHECK(item.msg_size == op.size.count());
      }
    }
    REQUIRE(at < all.size());
    CHECK(all[at++].op == csv_op::epoch_end);
  }
  CHECK(at == all.size());
}

TEST_CASE("csv projection: pipeline transfers name their direction as aicb's replay does",
          "[generate][csv]") {
  // Last stage: activations come from the previous stage, gradients go back to it; first stage: the
  // reverse. 1F1B with 4 micro batches (16 sequences over DP 4).
  const auto directions = [](std::uint64_t rank) {
    std::map<std::string, int> n;
    for (const aicb::csv_item& i : items(aicb::csv_projection(pipelined, {.rank = rank})))
      if (i.op == csv_op::isend || i.op == csv_op::irecv) ++n[std::string(i.additional)];
    return n;
  };
  CHECK(directions(8) == std::map<std::string, int>{{"recv_prev", 4}, {"send_prev", 4}});
  CHECK(directions(0) == std::map<std::string, int>{{"recv_next", 4}, {"send_next", 4}});
}

TEST_CASE("csv projection: a GEMM's operands, and the experts' batched GEMM", "[generate][csv]") {
  const aicb::job_spec moe{
      aicb::presets::mixtral_8x7b,
      {.world_size = 16, .tensor_parallel = 2, .expert_parallel = 4, .sequence_parallel = true},
      {.global_batch = 8, .seq_length = 4096}};
  const aicb::csv_projection p(moe, {.computation = true});
  std::map<std::string, aicb::csv_item> first;
  for (const aicb::csv_item& i : items(p))
    if (i.op == csv_op::computation) first.emplace(std::string(i.stage), i);
  // QKV: 4096 tokens gathered over TP, h 4096 → (32 + 2·8) heads × 128 / TP 2.
  const aicb::csv_item& qkv = first.at("forward.attention_qkv");
  CHECK(qkv.shapes[0] == aicb::csv_shape{{4096, 1, 4096}, 3});
  CHECK(qkv.shapes[1] == aicb::csv_shape{{4096, 3072, 0}, 2});
  // Experts: 8 over EP 4 = 2 local experts, each a batch of the tokens routed to it.
  const aicb::csv_item& fc1 = first.at("forward.moe_fc1");
  CHECK(fc1.shapes[0].dims[0] == 2);
  CHECK(fc1.shapes[0].dims[2] == 4096);
  CHECK(fc1.shapes[1] == aicb::csv_shape{{4096, 2 * 14336 / 2, 0}, 2});
  // The allgather dispatcher's gathers over ETP x EP are aicb's ep_tp_group.
  bool ep_tp = false;
  for (const aicb::csv_item& i : items(p))
    ep_tp = ep_tp || (i.group == csv_group::ep_tp_group && i.group_size == 8);
  CHECK(ep_tp);
}

TEST_CASE("csv projection: what aicb's CSV cannot express is refused or reported", "[generate][csv]") {
  aicb::job_spec cp = pipelined;
  cp.parallel.context_parallel = 2;
  CHECK_THROWS_WITH(aicb::csv_projection(cp), Catch::Contains("context-parallel ring"));
  aicb::job_spec etp{aicb::presets::mixtral_8x7b,
                     {.world_size = 16,
                      .tensor_parallel = 2,
                      .expert_parallel = 4,
                      .expert_tensor_parallel = 1,
                      .sequence_parallel = true},
                     {.global_batch = 8, .seq_length = 4096}};
  CHECK_THROWS_WITH(aicb::csv_projection(etp), Catch::Contains("expert tensor parallelism"));
  aicb::model_spec v3 = aicb::presets::deepseek_v3;
  v3.num_layers = 4;
  v3.num_mtp_layers = 0;
  const aicb::job_spec deepseek{
      v3,
      {.world_size = 16, .tensor_parallel = 2, .expert_parallel = 8, .sequence_parallel = true},
      {.global_batch = 8, .seq_length = 4096}};
  const aicb::csv_projection p(deepseek);
  REQUIRE(p.warnings().size() == 1);
  CHECK_THAT(p.warnings()[0], Catch::StartsWith("router_bias_reduce"));
  for (const aicb::csv_item& i : items(p))
    CHECK(i.stage != "finalize.router_bias_reduce");
  CHECK_THROWS_WITH(aicb::csv_projection(pipelined, {.rank = 16}), Catch::Contains("below world_size"));
}
