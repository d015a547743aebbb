// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {

aicb::job_spec gpt22b(bool selective) {
  // Korthikanti et al. 2022, Table 5: GPT 22B on 8 A100s, TP 8, batch 4, fp16, unfused attention.
  aicb::job_spec job;
  job.model.hidden_size = 6144;
  job.model.num_layers = 48;
  job.model.num_attention_heads = 64;
  job.model.ffn_hidden_size = 24576;
  job.model.vocab_size = 51200;
  job.model.linear_bias = true;
  job.parallel.world_size = 8;
  job.parallel.tensor_parallel = 8;
  job.parallel.attention = aicb::attention_kind::unfused;
  job.parallel.recompute = selective ? aicb::recompute_kind::selective : aicb::recompute_kind::full;
  job.parallel.sequence_parallel = selective;
  job.batch = {.micro_batch = 4, .global_batch = 4, .seq_length = 2048, .dtype = aicb::dtype::fp16};
  return job;
}

// Qwen3-30B-A3B cut to 2 layers, its experts over EP `ep` GPUs (the whole job) as grouped GEMMs on
// `dispatcher`: 16 sequences of 4096 tokens, one a micro batch.
aicb::job_spec qwen3_moe(std::uint64_t ep, aicb::moe_dispatcher_kind dispatcher, aicb::dtype type) {
  aicb::job_spec job{.model = aicb::find_preset("qwen3-30b-a3b")->model};
  job.model.num_layers = 2;
  job.parallel.world_size = ep;
  job.parallel.expert_parallel = ep;
  job.parallel.moe_dispatcher = dispatcher;
  job.parallel.moe_grouped_gemm = true;
  job.batch = {.micro_batch = 1, .global_batch = 16, .seq_length = 4096, .dtype = type};
  return job;
}

// A pipeline of `pp` balanced stages, two Llama-2 7B layers each (a 256-token vocabulary: the embedding
// and the loss weigh nothing), 2·pp micro batches of `seq` tokens.
aicb::job_spec balanced_pipeline(std::uint64_t pp, std::uint64_t seq) {
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = pp, .pipeline_parallel = pp},
                     {.micro_batch = 1, .global_batch = 2 * pp, .seq_length = seq}};
  job.model.num_layers = 2 * pp;
  job.model.vocab_size = 256;
  return job;
}

// One micro batch's forward, input-gradient and weight-gradient computation on a middle stage (rank 1),
// priced by `gpu`, in microseconds.
aicb::step_times middle_stage_times(const aicb::job_spec& job, const aicb::compute_model& gpu) {
  aicb::step_times t{.forward = 0, .input_grad = 0, .weight_grad = 0};
  for (const aicb::operation& op : aicb::rank_schedule(job, 1)) {
    if (op.type != aicb::op_type::compute || !op.in_microbatch(0)) continue;
    const double us = static_cast<double>(gpu.duration(op.compute).count()) / 1000;
    (op.phase == aicb::op_phase::forward               ? t.forward
     : op.compute.pass == aicb::pass_kind::weight_grad ? t.weight_grad
                                                       : t.input_grad) += us;
  }
  return t;
}

}  // namespace

TEST_CASE("estimate: a DGX B200 prices NVLink collectives by its measured fits", "[compute][estimate]") {
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-b200");
  REQUIRE(c.nvlink_fits != nullptr);
  const double gb = 900 * 1.073741824;  // the fits' bus bandwidths are shares of 900 GiB/s
  const double size = 64.0 * 1024 * 1024;
  // TP 4's all-gather of 64 MiB: 23.1 us per collective, 3 ring hops of 9.18 us, 3/4 of it at 0.6735 of
  // 900 GiB/s: 128 us, where the datasheet form (2 log2 4 us, 720 GB/s) would say 74 us.
  const aicb::group_placement tp4{.size = 4, .nodes = 1, .per_node = 4};
  const double gather = 23.1049 + 3 * 9.1828 + 0.75 * size / (0.6735 * gb * 1e3);
  CHECK(aicb::collective_us(aicb::collective::all_gather, size, tp4, c) == Approx(gather));
  CHECK(gather == Approx(128.0).margin(0.5));
  // An all-reduce over 8 walks the ring twice: 14 hops of 5.52 us.
  const aicb::group_placement node{.size = 8, .nodes = 1, .per_node = 8};
  CHECK(aicb::collective_us(aicb::collective::all_reduce, size, node, c) ==
        Approx(22.2316 + 14 * 5.5183 + 2 * 7.0 / 8 * size / (0.7424 * gb * 1e3)));
  // Below the 1 MiB the fits were measured from, the datasheet form: a decode step's 56 KiB all-reduce
  // over 8 takes 2 log2 8 steps of 2 us and its bytes at 720 GB/s, not the line's 100 us intercept.
  const double small = 56.0 * 1024;
  CHECK(aicb::collective_us(aicb::collective::all_reduce, small, node, c) ==
        Approx(2 * 3 * 2.0 + 2 * 7.0 / 8 * small / 720e3));
  CHECK(aicb::collective_us(aicb::collective::all_reduce, 1024.0 * 1024, node, c) ==
        Approx(22.2316 + 14 * 5.5183 + 2 * 7.0 / 8 * 1024 * 1024 / (0.7424 * gb * 1e3)));
  // Across nodes the fits do not apply: the network's figures do (one NIC per member, 5 us steps).
  const aicb::group_placement spread{.size = 4, .nodes = 4, .per_node = 1};
  CHECK(aicb::collective_us(aicb::collective::all_gather, size, spread, c) ==
        Approx(2 * 5 + 0.75 * size / 48.5e3));
  // The other presets keep the datasheet form.
  CHECK(aicb::cluster_preset("dgx-h100").nvlink_fits == nullptr);
}

TEST_CASE("estimate: collectives cost latency steps and bytes over the group's bus bandwidth",
          "[compute][estimate]") {
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-a100");
  // TP 8 inside a node: 2·log2(8) steps of 3 us, 2·7/8 of 32 MiB at 240 GB/s.
  const aicb::group_placement node{.size = 8, .nodes = 1, .per_node = 8};
  const double size = 32.0 * 1024 * 1024;
  CHECK(aicb::collective_us(aicb::collective::all_reduce, size, node, c) ==
        Approx(2 * 3 * 3 + 2 * 7.0 / 8 * size / 240e3));
  CHECK(aicb::collective_us(aicb::collective::all_gather, size, node, c) ==
        Approx(3 * 3 + 7.0 / 8 * size / 240e3));
  // DP 16 across 16 nodes, one member per node: one NIC, 23.5 GB/s, 6 us steps.
  const aicb::group_placement spread{.size = 16, .nodes = 16, .per_node = 1};
  CHECK(aicb::collective_us(aicb::collective::all_reduce, size, spread, c) ==
        Approx(2 * 4 * 6 + 2 * 15.0 / 16 * size / 23.5e3));
  // DP 16 over 2 nodes, 8 per node: the node's 8 NICs (188 GB/s) bound the ring.
  const aicb::group_placement packed{.size = 16, .nodes = 2, .per_node = 8};
  CHECK(aicb::collective_us(aicb::collective::reduce_scatter, size, packed, c) ==
        Approx(4 * 6 + 15.0 / 16 * size / 188e3));
  CHECK(aicb::collective_us(aicb::collective::all_reduce, size, {.size = 1}, c) == 0);
  // Placement: ranks 0, 8, 16, … (a DP group under TP 8) sit one per node.
  aicb::job_spec job = gpt22b(false);
  job.parallel.world_size = 32;
  job.batch.global_batch = 16;
  const aicb::process_grid grid(job);
  const aicb::group_placement dp = aicb::place(grid.group(aicb::group_kind::dp, 0), c);
  CHECK(dp.size == 4);
  CHECK(dp.nodes == 4);
  CHECK(dp.per_node == 1);
  const aicb::group_placement tp = aicb::place(grid.group(aicb::group_kind::tp, 0), c);
  CHECK(tp.nodes == 1);
  // A data-parallel group of a huge world (TP 2: ranks 0, 2, 4, …, four on each 8-GPU node) is placed
  // without walking its members: the same answer as the walk gives a smaller group of the same shape.
  for (const std::uint64_t world : {std::uint64_t{1} << 20, std::uint64_t{1} << 30}) {
    aicb::job_spec wide = gpt22b(false);
    wide.parallel.world_size = world;
    wide.parallel.tensor_parallel = 2;
    wide.parallel.pipeline_parallel = 1;
    wide.batch.global_batch = world / 2 * wide.batch.micro_batch;
    const aicb::group_placement p = aicb::place(aicb::process_grid(wide).group(aicb::group_kind::dp, 1), c);
    INFO("world " << world);
    CHECK(p.size == world / 2);
    CHECK(p.per_node == 4);
    CHECK(p.nodes == world / 8);
  }
  CHECK(aicb::transfer_us(1e6, 0, 8, c) == Approx(6 + 1e6 / 23.5e3));
  CHECK(aicb::transfer_us(1e6, 0, 1, c) == Approx(3 + 1e6 / 240e3));
}

TEST_CASE("estimate: DeepEP's exchange across nodes sends a token once per destination node",
          "[compute][estimate]") {
  // 8 experts top-2 over 4 GPUs on 2 nodes (2 experts a GPU, 4 a node). Per token, by hand:
  // distinct GPUs 4 · (1 − C(6,2)/C(8,2)) = 4 · 13/28, half of them remote: 26/28; distinct nodes
  // 2 · (1 − C(4,2)/C(8,2)) = 2 · 22/28, half remote: 22/28. The network carries 22/26 of the direct
  // exchange's bytes; each arrival goes to (52/28)/(44/28) = 13/11 GPUs of its node, half of them
  // another GPU than the one it arrived at.
  const aicb::group_placement two_nodes{.size = 4, .nodes = 2, .per_node = 2};
  const aicb::node_forwarding f = aicb::forwarding_by_node(8, 2, two_nodes);
  CHECK(f.off_node_share == Approx(22.0 / 26));
  CHECK(f.forwarded_per_network_byte == Approx(13.0 / 11 / 2));
  // The sending kernel passes the token's copy for its own node too: 44/28 copies a token, 22/28 of
  // them leaving the node.
  CHECK(f.copies_per_network_copy == Approx(2));
  // One node, or a group not filling its nodes evenly, forwards nothing.
  CHECK(aicb::forwarding_by_node(8, 2, {.size = 4, .nodes = 1, .per_node = 4}).off_node_share == 1);
  CHECK(aicb::forwarding_by_node(8, 2, {.size = 3, .nodes = 2, .per_node = 2}).off_node_share == 1);
  // Priced on a DGX H100: the network part is the share, its own node's copies moving at the NIC's
  // pace beside it; NVLink carries the forwarded bytes.
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  const double size = 64.0 * 1024 * 1024;
  const double direct = aicb::collective_us(aicb::collective::all_to_all, size, two_nodes, c);
  const double forwarded = aicb::collective_us(aicb::collective::all_to_all, size, two_nodes, c, f);
  const double latency = 2 * c.nic_latency_us, nic = c.nic_gb_per_s_per_gpu() * 1e3;
  CHECK(direct == Approx(latency + 0.5 * size / nic));
  CHECK(forwarded == Approx(latency + 0.5 * size * 22.0 / 26 * 2 / nic));
  // DeepSeek-V3's 256 experts, top 8, over EP 32 on 4 nodes: half the direct exchange's network
  // bytes (2.71 remote nodes a token against 5.45 remote GPUs).
  const aicb::node_forwarding ds = aicb::forwarding_by_node(256, 8, {.size = 32, .nodes = 4, .per_node = 8});
  CHECK(ds.off_node_share == Approx(0.4974).epsilon(1e-3));
  // Its router's groups (a token's experts within 4 of 8 groups of 32, two groups a node) fewer still:
  // 2.928 · 3/4 remote nodes against 6.597 · 24/32 remote GPUs (aicb::expected_destinations).
  const aicb::node_forwarding grouped =
      aicb::forwarding_by_node(256, 8, {.size = 32, .nodes = 4, .per_node = 8}, 8, 4);
  CHECK(grouped.off_node_share == Approx(2.928 * 3 / 4 / (6.597 * 24 / 32)).epsilon(1e-3));
  // Evenly spread, a token's copies per remote copy are nodes / (nodes - 1) whatever the routing.
  CHECK(ds.copies_per_network_copy == Approx(4.0 / 3));
  CHECK(grouped.copies_per_network_copy == Approx(4.0 / 3));
  // A job on the flex dispatcher whose EP group spans two nodes: each exchange costs what the
  // forwarding gives, less than the same bytes sent GPU by GPU.
  const aicb::job_spec job = qwen3_moe(16, aicb::moe_dispatcher_kind::flex, aicb::dtype::bf16);
  const aicb::group_placement ep16{.size = 16, .nodes = 2, .per_node = 8};
  const aicb::node_forwarding q = aicb::forwarding_by_node(128, 8, ep16);
  CHECK(q.off_node_share < 0.6);
  double played = 0, priced = 0, unforwarded = 0;
  std::uint64_t exchanges = 0;
  (void)aicb::estimate_iteration(
      job, aicb::roofline_model("H100"), c, {}, [&](const aicb::timed_interval& t) {
        if (t.op->type != aicb::op_type::collective || t.op->group.kind != aicb::group_kind::ep) return;
        const double bytes = static_cast<double>(t.op->size.count());
        played += t.end_us - t.start_us;
        priced += aicb::collective_us(t.op->kind, bytes, ep16, c, q);
        unforwarded += aicb::collective_us(t.op->kind, bytes, ep16, c);
        ++exchanges;
      });
  CHECK(exchanges == 2 * 4 * 1);  // 2 layers × dispatch, combine and their gradients, 1 micro batch
  CHECK(played == Approx(priced));
  CHECK(played < 0.7 * unforwarded);
}

TEST_CASE("estimate: DeepEP's internode exchange at the logical bandwidth its benchmark measured",
          "[compute][estimate]") {
  // DeepEP's normal kernels on H800s with 50 GB/s NICs (its docs/legacy.md): 4096 tokens of hidden
  // 7168, top 8 of 256 experts grouped by node, a token's experts within min(4, nodes) nodes. Its
  // "logical" bandwidth counts a token once per node it reaches, its own included: 43, 58 and 51 GB/s
  // at EP 16, 32 and 64. Priced on the h800 preset, the same bytes move within 20% of each; counting
  // only the copies that leave the node puts EP 16 outside that band.
  const aicb::cluster_spec& c = aicb::cluster_preset("h800");
  const std::array<std::pair<std::uint64_t, double>, 3> measured{{{2, 43}, {4, 58}, {8, 51}}};
  for (const auto& [nodes, logical_gb_per_s] : measured) {
    const std::uint64_t n = nodes * 8, group_topk = std::min<std::uint64_t>(4, nodes);
    const aicb::group_placement p{.size = n, .nodes = nodes, .per_node = 8};
    const aicb::node_forwarding f = aicb::forwarding_by_node(256, 8, p, nodes, group_topk);
    const double token = 7168 * 2.0;
    const double size = 4096 * aicb::expected_destinations(256, 8, n, nodes, group_topk) * token;
    const double logical = 4096 * aicb::expected_destinations(256, 8, nodes, nodes, group_topk) * token;
    const double us = aicb::collective_us(aicb::collective::all_to_all, size, p, c, f);
    INFO("EP " << n);
    CHECK(logical / us / 1e3 == Approx(logical_gb_per_s).epsilon(0.2));
  }
}

TEST_CASE("estimate: the FP8 recipe prices the experts' quantisation, MXFP8 only where the GPU has it",
          "[compute][estimate]") {
  // Qwen3-30B-A3B at EP 8 on one DGX H100 node (16 experts a GPU). Tensorwise scaling reads each cast
  // operand once more and quantises each expert apart in three kernels: slower than delayed scaling's
  // one fused cast-transpose for all sixteen, and its host issues more.
  aicb::job_spec job = qwen3_moe(8, aicb::moe_dispatcher_kind::alltoall, aicb::dtype::fp8);
  const aicb::cluster_spec& h100 = aicb::cluster_preset("dgx-h100");
  const auto launches_and_time = [&](aicb::fp8_recipe_kind recipe) {
    aicb::job_spec j = job;
    j.batch.fp8_recipe = recipe;
    std::uint64_t launches = 0;
    for (const aicb::operation& op : aicb::rank_schedule(j, 0))
      if (op.type == aicb::op_type::compute) launches += aicb::kernel_launches(op.compute);
    return std::pair{launches, aicb::estimate_iteration(j, aicb::roofline_model("H100"), h100).iteration_s};
  };
  const auto [delayed_launches, delayed_s] = launches_and_time(aicb::fp8_recipe_kind::delayed);
  const auto [tensorwise_launches, tensorwise_s] = launches_and_time(aicb::fp8_recipe_kind::tensorwise);
  CHECK(tensorwise_s > delayed_s);
  // In each of 2 layers and 2 micro batches the experts' four quantised operands (fc1's and fc2's
  // inputs forward, their output gradients backward) go from one kernel each to 16 × 3.
  CHECK(tensorwise_launches - delayed_launches >= 2 * 2 * 4 * (16 * 3 - 1));
  // MXFP8 needs Blackwell's tensor cores: refused on an H100, naming the field; priced on a B200.
  job.batch.fp8_recipe = aicb::fp8_recipe_kind::mxfp8;
  try {
    (void)aicb::estimate_iteration(job, aicb::roofline_model("H100"), h100);
    FAIL("MXFP8 estimated on an H100");
  } catch (const aicb::config_error& e) {
    CHECK(e.field() == "fp8_recipe");
    CHECK_THAT(e.what(), Catch::Contains("H100"));
  }
  CHECK(aicb::estimate_iteration(job, aicb::roofline_model("B200"), aicb::cluster_preset("dgx-b200"))
            .iteration_s > 0);
}

TEST_CASE("estimate: one GPU's iteration is the sum of its operations' durations", "[compute][estimate]") {
  aicb::job_spec job{
      aicb::presets::llama2_7b, {.world_size = 1}, {.micro_batch = 1, .global_batch = 2, .seq_length = 1024}};
  job.model.num_layers = 4;
  const aicb::roofline_model gpu("H100");
  double sum_us = 0;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    REQUIRE(op.type == aicb::op_type::compute);
    sum_us += static_cast<double>(gpu.duration(op.compute).count()) / 1000;
  }
  // A host that is never the bottleneck: the GPU runs the operations back to back.
  const aicb::iteration_estimate e =
      aicb::estimate_iteration(job, gpu, aicb::cluster_preset("dgx-h100"), {.host_us_per_launch = 0});
  REQUIRE(e.stages.size() == 1);
  CHECK(e.stages[0].host_us == 0);
  CHECK(e.iteration_s == Approx(sum_us * 1e-6));
  CHECK(e.stages[0].compute_us == Approx(sum_us));
  CHECK(e.stages[0].communication_us == 0);
  CHECK(e.stages[0].wait_us == 0);
  const aicb::flop_counts flops = aicb::training_flops(job);
  CHECK(e.mfu == Approx(flops.model() / (989e12 * e.iteration_s)));
  CHECK(e.tokens_per_s == Approx(2 * 1024 / e.iteration_s));
  CHECK(e.cluster == "dgx-h100");
  CHECK_THAT(e.compute, Catch::Contains("roofline"));
}

TEST_CASE("estimate: pipeline stages wait for each other, more micro batches shrink the bubble",
          "[compute][estimate]") {
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  const auto run = [&](std::uint64_t microbatches) {
    aicb::job_spec job{aicb::presets::llama2_7b,
                       {.world_size = 4, .pipeline_parallel = 4},
                       {.micro_batch = 1, .global_batch = microbatches, .seq_length = 2048}};
    return aicb::estimate_iteration(job, gpu, c);
  };
  const aicb::iteration_estimate few = run(4), many = run(32);
  REQUIRE(few.stages.size() == 4);
  double busiest = 0;
  for (const auto& s : few.stages) {
    busiest = std::max(busiest, s.compute_us);
    CHECK(s.end_us <= few.iteration_s * 1e6 + 1e-6);
  }
  CHECK(few.iteration_s * 1e6 >= busiest);
  CHECK(few.stages[3].wait_us > 0);  // the last stage waits for the first activations
  const auto bubble = [](const aicb::iteration_estimate& e) {
    double wait = 0, total = 0;
    for (const auto& s : e.stages) {
      wait += s.wait_us;
      total += s.end_us;
    }
    return wait / total;
  };
  CHECK(bubble(many) < bubble(few));
  // 1F1B's bubble: roughly (p − 1) / (m + p − 1) of the time on a balanced pipeline.
  CHECK(bubble(few) > 0.5 * 3.0 / 7);
  CHECK(bubble(few) < 1.5 * 3.0 / 7);
}

TEST_CASE("estimate: overlap options hide communication, never compute", "[compute][estimate]") {
  const aicb::roofline_model gpu("A100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-a100");
  aicb::job_spec job = gpt22b(true);
  job.parallel.world_size = 64;  // DP 8 across nodes
  job.batch.global_batch = 64;
  const aicb::iteration_estimate plain = aicb::estimate_iteration(job, gpu, c);
  const aicb::iteration_estimate tp = aicb::estimate_iteration(job, gpu, c, {.tp_comm_overlap = true});
  job.parallel.overlap_grad_reduce = true;
  const aicb::iteration_estimate dp = aicb::estimate_iteration(job, gpu, c);
  CHECK(tp.iteration_s < plain.iteration_s);
  CHECK(dp.iteration_s < plain.iteration_s);
  for (const auto* e : {&plain, &tp, &dp}) {
    CHECK(e->stages[0].compute_us == Approx(plain.stages[0].compute_us));
    CHECK(e->iteration_s * 1e6 >= e->stages[0].compute_us);
  }
}

TEST_CASE("estimate: an overlapped weight gather hides under the first forward, what exceeds it waits",
          "[compute][estimate]") {
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  // Llama-2 7B over 16 GPUs of two nodes (distributed optimizer): each rank gathers about 13 GB of
  // weights over its NIC after the step, far longer than the next forward of 2 x 256 tokens...
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 16, .distributed_optimizer = true},
                     {.micro_batch = 2, .global_batch = 64, .seq_length = 256}};
  const auto play = [&](const aicb::job_spec& j, bool overlap, double* first_forward_end) {
    return aicb::estimate_iteration(j, gpu, c, {.overlap_param_gather = overlap, .host_us_per_launch = 0},
                                    [&](const aicb::timed_interval& i) {
                                      if (first_forward_end && i.stream == "compute" &&
                                          i.op->phase == aicb::op_phase::forward && i.op->microbatch == 0)
                                        *first_forward_end = std::max(*first_forward_end, i.end_us);
                                    });
  };
  double forward_end = 0;
  const aicb::iteration_estimate exposed = play(job, false, nullptr);
  const aicb::iteration_estimate overlapped = play(job, true, &forward_end);
  const double gather_us = (exposed.iteration_s - overlapped.iteration_s) * 1e6;
  REQUIRE(forward_end > 0);
  // ...so overlapping saves at most that forward (less the contention it pays), never the whole gather.
  CHECK(gather_us > 0);
  CHECK(gather_us <= forward_end + 1e-6);
  CHECK(gather_us >= (1 - 0.189) * forward_end - 1e-6);
  // With 32 times the tokens the forward outlasts the gather: it hides whole, and only its contention
  // remains.
  job.batch.seq_length = 8192;
  const aicb::iteration_estimate long_exposed = play(job, false, nullptr);
  const aicb::iteration_estimate long_overlapped = play(job, true, nullptr);
  const double saved = (long_exposed.iteration_s - long_overlapped.iteration_s) * 1e6;
  CHECK(saved > gather_us);
  CHECK(long_overlapped.stages[0].communication_us <
        long_exposed.stages[0].communication_us - (1 - 1e-9) * saved / (1 - 0.189));
}

TEST_CASE("estimate: GPT-22B on 8 A100s lands near its published iteration times and MFU",
          "[compute][estimate]") {
  // Korthikanti et al. 2022, Table 5: 1.42 s with full recomputation, 1.10 s with sequence
  // parallelism and selective recomputation (MFU 41.5%, HFU 43.7%). Not fitted: the efficiencies
  // come from kernel measurements (docs/compute-model.md).
  const aicb::roofline_model gpu("A100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-a100");
  const aicb::iteration_estimate full = aicb::estimate_iteration(gpt22b(false), gpu, c);
  const aicb::iteration_estimate selective = aicb::estimate_iteration(gpt22b(true), gpu, c);
  CHECK(std::abs(full.iteration_s / 1.42 - 1) < 0.10);
  CHECK(std::abs(selective.iteration_s / 1.10 - 1) < 0.10);
  CHECK(std::abs(selective.mfu - 0.415) < 0.05);
  CHECK(std::abs(selective.hfu - 0.437) < 0.05);
  // Fused attention would have been faster: the attention choice matters.
  aicb::job_spec flash = gpt22b(true);
  flash.parallel.attention = aicb::attention_kind::flash;
  CHECK(aicb::estimate_iteration(flash, gpu, c).iteration_s < selective.iteration_s);
}

TEST_CASE("estimate: the host issues every launch, tiny kernels run at the host's pace",
          "[compute][estimate]") {
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  // Large kernels: the host runs ahead, and only its first launch and the wait before the optimizer
  // step (which reads the gradient norm) leave the GPU idle — a launch each, and a little more where
  // the kernels right after them are shorter than a launch.
  aicb::job_spec big{
      aicb::presets::llama2_7b, {.world_size = 1}, {.micro_batch = 1, .global_batch = 2, .seq_length = 1024}};
  big.model.num_layers = 4;
  const aicb::iteration_estimate free = aicb::estimate_iteration(big, gpu, c, {.host_us_per_launch = 0});
  const aicb::iteration_estimate hosted = aicb::estimate_iteration(big, gpu, c);
  std::uint64_t optimizer_ops = 0;
  for (const aicb::operation& op : aicb::rank_schedule(big, 0))
    optimizer_ops += op.type == aicb::op_type::compute && op.compute.kind == aicb::op_kind::optimizer;
  REQUIRE(optimizer_ops > 0);
  const double waits = static_cast<double>(1 + optimizer_ops);
  CHECK(hosted.stages[0].host_us >= 12 * waits - 1e-9);
  CHECK(hosted.stages[0].host_us < 2 * 12 * waits);
  CHECK(free.stages[0].host_us == 0);
  CHECK(hosted.iteration_s * 1e6 == Approx(free.iteration_s * 1e6 + hosted.stages[0].host_us));
  // Tiny kernels (16 tokens of a 1024-wide model: each a few microseconds): every launch takes
  // longer to issue than to run, so the iteration is the host's: at least one launch per operation,
  // at most that plus the GPU's time.
  aicb::job_spec tiny{aicb::model_spec{.hidden_size = 1024,
                                       .num_layers = 2,
                                       .num_attention_heads = 8,
                                       .ffn_hidden_size = 4096,
                                       .vocab_size = 1024},
                      {.world_size = 1},
                      {.micro_batch = 1, .global_batch = 1, .seq_length = 16}};
  double launches = 0;
  for (const aicb::operation& op : aicb::rank_schedule(tiny, 0))
    launches += static_cast<double>(aicb::kernel_launches(op.compute));
  const aicb::iteration_estimate slow = aicb::estimate_iteration(tiny, gpu, c);
  const aicb::iteration_estimate fast = aicb::estimate_iteration(tiny, gpu, c, {.host_us_per_launch = 0});
  CHECK(slow.iteration_s * 1e6 >= 12 * launches);
  CHECK(slow.iteration_s * 1e6 <= 12 * launches + fast.iteration_s * 1e6);
  CHECK(slow.stages[0].compute_us == Approx(fast.stages[0].compute_us));
  CHECK(slow.iteration_s > 1.3 * fast.iteration_s);
  CHECK(slow.iteration_s * 1e6 == Approx(fast.iteration_s * 1e6 + slow.stages[0].host_us));
  // Kernels counted as the host launches them: one per problem of a GEMM loop, the FP8 scaling's.
  aicb::compute_op loop{.kind = aicb::op_kind::gemm, .batch = 8, .m = 64, .n = 64, .k = 64};
  loop.one_kernel = false;
  CHECK(aicb::kernel_launches(loop) == 8);
  loop.one_kernel = true;
  CHECK(aicb::kernel_launches(loop) == 1);
  // Experts as Transformer Engine's grouped GEMM: one cuBLAS GEMM per expert, as the loop.
  aicb::compute_op experts = loop;
  experts.role = aicb::op_role::moe_fc1;
  CHECK(aicb::kernel_launches(experts) == 8);
  // A loop of eager kernels per problem (the experts' output bias: a product and a sum per expert).
  aicb::compute_op eager{.role = aicb::op_role::moe_fc2, .kind = aicb::op_kind::elementwise, .batch = 8};
  eager.one_kernel = false;
  eager.kernels_per_problem = 2;
  CHECK(aicb::kernel_launches(eager) == 16);
  loop.quantize_kernels = 2;
  CHECK(aicb::kernel_launches(loop) == 1);  // BF16: no scaling
  loop.type = aicb::dtype::fp8;
  CHECK(aicb::kernel_launches(loop) == 3);
}

TEST_CASE("estimate: batch_p2p_sync makes the host wait at every pipeline transfer", "[compute][estimate]") {
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 2, .pipeline_parallel = 2},
                     {.micro_batch = 1, .global_batch = 8, .seq_length = 1024}};
  job.model.num_layers = 4;
  const aicb::iteration_estimate synced = aicb::estimate_iteration(job, gpu, c);
  const aicb::iteration_estimate unsynced = aicb::estimate_iteration(job, gpu, c, {.batch_p2p_sync = false});
  // Each synchronisation leaves the GPU idle for at least the next launch.
  CHECK(synced.stages[0].host_us > unsynced.stages[0].host_us + 8 * 12.0 - 1e-6);
  CHECK(synced.iteration_s > unsynced.iteration_s);
  // An interleaved schedule overlaps its transfers (no batched call, no synchronisation).
  job.parallel.virtual_pipeline = 2;
  const aicb::iteration_estimate a = aicb::estimate_iteration(job, gpu, c);
  const aicb::iteration_estimate b = aicb::estimate_iteration(job, gpu, c, {.batch_p2p_sync = false});
  CHECK(a.stages[0].host_us == Approx(b.stages[0].host_us));
}

TEST_CASE("estimate: an overlapped receive is waited for where its data is used, for the wire too",
          "[compute][estimate]") {
  const aicb::roofline_model gpu("H100");
  aicb::cluster_spec c = aicb::cluster_preset("dgx-h100");
  c.gpus_per_node = 1;  // each stage on its own node: every transfer crosses the network
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 2, .pipeline_parallel = 2, .virtual_pipeline = 2},
                     {.micro_batch = 1, .global_batch = 4, .seq_length = 1024}};
  job.model.num_layers = 4;
  job.model.vocab_size = 256;
  struct seen {
    std::string stream;
    aicb::operation op;
    double start, end;
  };
  std::vector<seen> stage0, stage1;
  const aicb::iteration_estimate e =
      aicb::estimate_iteration(job, gpu, c, {.host_us_per_launch = 0}, [&](const aicb::timed_interval& i) {
        (i.stage == 0 ? stage0 : stage1).push_back({std::string(i.stream), *i.op, i.start_us, i.end_us});
      });
  REQUIRE(e.stages.size() == 2);
  // The first activation reaches stage 1 a whole transfer after stage 0 sent it: stage 1's first
  // computation starts when the wire delivers, not when the send left.
  const auto first_send = std::find_if(stage0.begin(), stage0.end(), [](const seen& s) {
    return s.stream == "transfers" && s.op.type == aicb::op_type::send;
  });
  const auto first_compute =
      std::find_if(stage1.begin(), stage1.end(), [](const seen& s) { return s.stream == "compute"; });
  REQUIRE(first_send != stage0.end());
  REQUIRE(first_compute != stage1.end());
  const double wire = aicb::transfer_us(static_cast<double>(first_send->op.size.count()), 0, 1, c);
  CHECK(wire > 1);
  CHECK(first_send->end - first_send->start == Approx(wire));
  CHECK(first_compute->start == Approx(first_send->start + wire));
  // Every wait ends where the received micro batch's chunk starts, in the pass the data feeds (not
  // where the receive was posted, after the previous step).
  int waits = 0;
  for (const auto* stage : {&stage0, &stage1})
    for (std::size_t i = 0; i + 1 < stage->size(); ++i) {
      const seen& wait = (*stage)[i];
      if (wait.stream != "waiting") continue;
      ++waits;
      const seen& next = (*stage)[i + 1];
      CHECK(next.op.microbatch == wait.op.microbatch);
      CHECK(next.op.chunk == wait.op.chunk);
      CHECK((wait.op.phase == aicb::op_phase::forward) == (next.op.phase == aicb::op_phase::forward));
      CHECK(next.start >= wait.end - 1e-9);
    }
  CHECK(waits > 0);
}

TEST_CASE("estimate: a context-parallel ring hides under its attention's steps, the final gradients do not",
          "[compute][estimate]") {
  // Hand-derived: a forward of 3 steps of 20 us each (60 us) under exchanges of 10 and 30 us: the first
  // hides whole, the second by 20; the backward's third exchange (the final gradients) follows the last
  // step and waits whole.
  const auto forward = aicb::detail::ring_overlap({10, 30}, false, 60);
  CHECK(forward.first == Approx(10));
  CHECK(forward.second == Approx(30));
  const auto backward = aicb::detail::ring_overlap({10, 30, 5}, true, 60);
  CHECK(backward.first == Approx(15));
  CHECK(backward.second == Approx(30));

  // A job: CP 2 on one node, two layers. Its exposed communication lies between the backward's final
  // exchanges (which nothing hides) and all the ring's exchanges (which the attention mostly hides).
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 2, .context_parallel = 2},
                     {.micro_batch = 1, .global_batch = 2, .seq_length = 16384}};
  job.model.num_layers = 2;
  double ring = 0, final_gradients = 0;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.type != aicb::op_type::recv || op.layer == aicb::no_layer) continue;
    const double us = aicb::transfer_us(static_cast<double>(op.size.count()), op.peer, 0, c);
    ring += us;
    if (op.name == "attention_kv_grad_ring" && op.size.count() > 0 && us > 0) final_gradients = us;
  }
  REQUIRE(ring > 0);
  double finalize = 0;  // the gradient reduction after the last backward, exposed: not the ring's
  const aicb::iteration_estimate e =
      aicb::estimate_iteration(job, gpu, c, {.host_us_per_launch = 0}, [&](const aicb::timed_interval& i) {
        if (i.op->phase == aicb::op_phase::finalize && i.op->type == aicb::op_type::collective)
          finalize += i.end_us - i.start_us;
      });
  const double exposed = e.stages[0].communication_us - finalize;
  CHECK(exposed < 0.8 * ring);
  CHECK(exposed >= 2 * 2 * final_gradients * (1 - 1e-9));  // layers x micro batches
  CHECK(e.stages[0].contention_us > 0);
}

TEST_CASE("estimate: MoE layers wait on the host for their token counts, EP all-to-alls can overlap",
          "[compute][estimate]") {
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  aicb::job_spec job{aicb::presets::mixtral_8x7b,
                     {.world_size = 8,
                      .expert_parallel = 8,
                      .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall,
                      .moe_grouped_gemm = true},
                     {.micro_batch = 1, .global_batch = 16, .seq_length = 2048}};
  job.model.num_layers = 2;
  const aicb::iteration_estimate plain = aicb::estimate_iteration(job, gpu, c);
  // One wait per MoE layer forward (2 layers x 2 micro batches) and the optimizer's, each at least
  // a launch; the first launch of the iteration too.
  CHECK(plain.stages[0].host_us >= (2 * 2 + 1 + 1) * 12.0 - 1e-6);
  aicb::job_spec combined = job;  // Megatron's combined 1F1B: F(1) merged with B(0)
  combined.parallel.overlap_moe_expert_parallel_comm = true;
  const aicb::iteration_estimate hidden = aicb::estimate_iteration(combined, gpu, c);
  CHECK(hidden.stages[0].communication_us < plain.stages[0].communication_us);
  CHECK(hidden.stages[0].contention_us > 0);
  CHECK(hidden.iteration_s < plain.iteration_s);
  CHECK(hidden.stages[0].compute_us == Approx(plain.stages[0].compute_us));
  // The flex dispatcher (DeepEP): the host waits once per MoE layer forward too — for the counts its
  // dispatch returns — and with 8 experts over 8 GPUs each token still goes to k = 2 GPUs, so the same
  // expert GEMMs run.
  aicb::job_spec flex = job;
  flex.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::flex;
  const aicb::iteration_estimate deepep = aicb::estimate_iteration(flex, gpu, c);
  CHECK(deepep.stages[0].host_us >= (2 * 2 + 1 + 1) * 12.0 - 1e-6);
  CHECK(deepep.stages[0].compute_us > 0);
  flex.parallel.overlap_moe_expert_parallel_comm = true;  // Megatron overlaps the flex exchange as well
  CHECK(aicb::estimate_iteration(flex, gpu, c).iteration_s < deepep.iteration_s);
  // Experts padded to a capacity (1: the balanced share, the same GEMMs): the host knows every
  // count and never waits for them, only for the optimizer's.
  aicb::job_spec padded = job;
  padded.model.moe_capacity_factor = 1.0;
  padded.model.moe_pad_to_capacity = true;
  const aicb::iteration_estimate known = aicb::estimate_iteration(padded, gpu, c);
  CHECK(known.stages[0].compute_us == Approx(plain.stages[0].compute_us));
  CHECK(known.stages[0].host_us >= (1 + 1) * 12.0 - 1e-6);
  CHECK(known.stages[0].host_us <= plain.stages[0].host_us - 2 * 2 * 12.0 + 1e-6);
  // Imbalanced routing: the busiest GPU computes and exchanges more, and the step waits for it.
  job.model.moe_load_skew = 0.5;
  const aicb::iteration_estimate skewed = aicb::estimate_iteration(job, gpu, c);
  CHECK(skewed.iteration_s > plain.iteration_s);
  CHECK(skewed.stages[0].compute_us > plain.stages[0].compute_us);
}

TEST_CASE("estimate: zero-bubble H1 saves 2(p - 1) weight-gradient times over 1F1B, as its paper gives",
          "[compute][estimate]") {
  // Balanced stages (a 256-token vocabulary: the embedding and the loss weigh nothing), a host that is
  // never the bottleneck. Qi et al. 2024: 1F1B's bubble is (p − 1)(F + B + W), ZB-H1's (p − 1)(F + B − W)
  // when W ≤ F: the iteration shrinks by 2(p − 1)·W. F, B and W are one micro batch's forward, input
  // gradient and weight gradient on a middle stage, priced by the same compute model.
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  for (const std::uint64_t pp : {4, 8}) {
    INFO("PP " << pp);
    aicb::job_spec job = balanced_pipeline(pp, 2048);
    const aicb::step_times t = middle_stage_times(job, gpu);
    const double forward_us = t.forward, weight_us = t.weight_grad;
    REQUIRE(weight_us > 0);
    REQUIRE(weight_us <= forward_us);
    const aicb::estimate_options o{.host_us_per_launch = 0, .batch_p2p_sync = false};
    const aicb::iteration_estimate one_f_one_b = aicb::estimate_iteration(job, gpu, c, o);
    job.parallel.pipeline_schedule = aicb::pipeline_schedule_kind::zb_h1;
    const aicb::iteration_estimate zero_bubble = aicb::estimate_iteration(job, gpu, c, o);
    const double saved_us = (one_f_one_b.iteration_s - zero_bubble.iteration_s) * 1e6;
    CHECK(saved_us == Approx(2.0 * static_cast<double>(pp - 1) * weight_us).epsilon(0.01));
  }
}

TEST_CASE("estimate: DualPipe saves what its schedule saves on ideal stages, less its mirrors' exchange",
          "[compute][estimate]") {
  // Balanced stages of long sequences (compute outweighs the exchange of the two weight copies'
  // gradients and the second copy's optimizer step), a host never the bottleneck. The saving over
  // 1F1B is the one the two schedules give on ideal stages of the same F, B and W (which is DualPipe's
  // formula, (p/2 - 1)(F&B + B - 3W) against (p - 1)(F + B), when B's input gradient takes F).
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  for (const std::uint64_t pp : {4, 8}) {
    INFO("PP " << pp);
    aicb::job_spec job = balanced_pipeline(pp, 16384);
    const aicb::step_times t = middle_stage_times(job, gpu);
    const double ideal =
        aicb::time_pipeline({.stages = pp, .microbatches = 2 * pp}, t).iteration -
        aicb::time_pipeline(
            {.stages = pp, .microbatches = 2 * pp, .schedule = aicb::pipeline_schedule_kind::dualpipe}, t)
            .iteration;
    const aicb::estimate_options o{.host_us_per_launch = 0, .batch_p2p_sync = false};
    const aicb::iteration_estimate one_f_one_b = aicb::estimate_iteration(job, gpu, c, o);
    job.parallel.pipeline_schedule = aicb::pipeline_schedule_kind::dualpipe;
    const aicb::iteration_estimate dualpipe = aicb::estimate_iteration(job, gpu, c, o);
    const double saved_us = (one_f_one_b.iteration_s - dualpipe.iteration_s) * 1e6;
    CHECK(saved_us > 0.9 * ideal);
    CHECK(saved_us < ideal);  // the exchange and the second optimizer step cost something
  }
}

TEST_CASE("estimate: a slow rank costs what the critical path says", "[compute][estimate]") {
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  const aicb::estimate_options fast{.host_us_per_launch = 0, .batch_p2p_sync = false};
  // Two stages, one micro batch: the first stage's forward, backward and optimizer step are all on the
  // critical path (it finishes last: the last stage's optimizer step runs during its backward). Stage 0
  // (rank 0) at half speed adds each of them once more: its whole compute time.
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 2, .pipeline_parallel = 2},
                     {.micro_batch = 1, .global_batch = 1, .seq_length = 2048}};
  job.model.num_layers = 4;
  double stage0_us = 0;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0))
    if (op.type == aicb::op_type::compute)
      stage0_us += static_cast<double>(gpu.duration(op.compute).count()) / 1000;
  const aicb::iteration_estimate base = aicb::estimate_iteration(job, gpu, c, fast);
  REQUIRE(base.stages[0].end_us >= base.stages[1].end_us);
  auto slow = fast;
  slow.slow_ranks = {{.rank = 0, .compute = 2}};
  const aicb::iteration_estimate straggler = aicb::estimate_iteration(job, gpu, c, slow);
  CHECK((straggler.iteration_s - base.iteration_s) * 1e6 == Approx(stage0_us).epsilon(1e-6));
  CHECK(straggler.stages[0].compute_us == Approx(2 * base.stages[0].compute_us));
  CHECK(straggler.stages[1].compute_us == Approx(base.stages[1].compute_us));

  // Communication: TP 2 on one stage, its collectives at a third of the speed.
  aicb::job_spec tp{aicb::presets::llama2_7b,
                    {.world_size = 4, .tensor_parallel = 2},
                    {.micro_batch = 1, .global_batch = 2, .seq_length = 2048}};
  tp.model.num_layers = 2;
  const aicb::iteration_estimate tp_base = aicb::estimate_iteration(tp, gpu, c, fast);
  auto degraded = fast;
  degraded.slow_ranks = {{.rank = 3, .communication = 3}};
  const aicb::iteration_estimate tp_slow = aicb::estimate_iteration(tp, gpu, c, degraded);
  CHECK(tp_slow.stages[0].rank == 3);  // the slow rank's pipeline is the one played
  CHECK(tp_slow.stages[0].communication_us == Approx(3 * tp_base.stages[0].communication_us));
  CHECK(tp_slow.stages[0].compute_us == Approx(tp_base.stages[0].compute_us));
  CHECK((tp_slow.iteration_s - tp_base.iteration_s) * 1e6 ==
        Approx(2 * tp_base.stages[0].communication_us).epsilon(1e-6));

  // A node-wide slowdown is its ranks' (the four ranks of this job sit on node 0).
  auto node = fast;
  node.slow_nodes = {{.node = 0, .communication = 3}};
  CHECK(aicb::estimate_iteration(tp, gpu, c, node).iteration_s == Approx(tp_slow.iteration_s));
  node.slow_nodes = {{.node = 1, .compute = 2}};
  CHECK_THROWS_WITH(aicb::estimate_iteration(tp, gpu, c, node), Catch::Contains("one of the job's 1 nodes"));
  // The flag's text, and what is refused.
  const aicb::slow_rank parsed = aicb::parse_slowdown("12:1.5:2", "slow_rank");
  CHECK(parsed.rank == 12);
  CHECK(parsed.compute == 1.5);
  CHECK(parsed.communication == 2);
  CHECK(aicb::parse_slowdown("3:2", "slow_rank").communication == 1);
  for (const char* bad : {"12", "12:", "a:2", "1:2:3:4", "1:2x", "-1:2", "99999999999999999999999:2"})
    CHECK_THROWS_WITH(aicb::parse_slowdown(bad, "slow_rank"), Catch::Contains("INDEX:COMPUTE"));
  auto wrong = fast;
  wrong.slow_ranks = {{.rank = 4, .compute = 2}};
  CHECK_THROWS_WITH(aicb::estimate_iteration(tp, gpu, c, wrong), Catch::Contains("below world_size (4)"));
  wrong.slow_ranks = {{.rank = 1, .compute = 0.5}};
  CHECK_THROWS_WITH(aicb::estimate_iteration(tp, gpu, c, wrong), Catch::Contains("at least 1"));
}
