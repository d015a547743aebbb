// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// Checks shared by the Chakra tests: a set of decoded Chakra traces (by aicb's reader or by the real
// protobuf library) against the rank graphs they were written from, node for node.
#pragma once

#include <aicb/compute/model.hpp>
#include <aicb/io/chakra.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace aicb_test {

/// The layouts the Chakra round trips cover: dense with TP/SP and DP, MoE with EP (both
/// dispatchers), PP with VPP, zero-bubble H1 and DualPipe, CP; each small enough to check every rank.
inline std::vector<std::pair<std::string, aicb::job_spec>> chakra_layouts() {
  std::vector<std::pair<std::string, aicb::job_spec>> jobs;
  aicb::model_spec dense = aicb::presets::llama3_8b;
  dense.num_layers = 4;
  jobs.push_back({"dense tp2 dp2 pp2",
                  {dense,
                   {.world_size = 8,
                    .tensor_parallel = 2,
                    .pipeline_parallel = 2,
                    .sequence_parallel = true,
                    .distributed_optimizer = true},
                   {.micro_batch = 1, .global_batch = 8, .seq_length = 1024}}});
  aicb::model_spec moe = aicb::presets::mixtral_8x7b;
  moe.num_layers = 2;
  jobs.push_back({"moe ep4 alltoall",
                  {moe,
                   {.world_size = 8,
                    .tensor_parallel = 2,
                    .expert_parallel = 4,
                    .sequence_parallel = true,
                    .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall},
                   {.micro_batch = 1, .global_batch = 4, .seq_length = 1024}}});
  aicb::model_spec moe4 = moe;
  moe4.num_layers = 4;
  jobs.push_back({"moe pp2 vpp2 ep4, combined 1F1B with delayed weight gradients",
                  {moe4,
                   {.world_size = 8,
                    .pipeline_parallel = 2,
                    .virtual_pipeline = 2,
                    .expert_parallel = 4,
                    .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall,
                    .overlap_moe_expert_parallel_comm = true,
                    .delay_wgrad_compute = true},
                   {.micro_batch = 1, .global_batch = 8, .seq_length = 1024}}});
  jobs.push_back({"moe ep2 allgather",
                  {moe,
                   {.world_size = 4, .tensor_parallel = 2, .expert_parallel = 2, .sequence_parallel = true},
                   {.micro_batch = 1, .global_batch = 4, .seq_length = 1024}}});
  aicb::model_spec deep = dense;
  deep.num_layers = 8;
  jobs.push_back({"pp4 vpp2",
                  {deep,
                   {.world_size = 4, .pipeline_parallel = 4, .virtual_pipeline = 2},
                   {.micro_batch = 1, .global_batch = 8, .seq_length = 1024}}});
  jobs.push_back(
      {"pp4 zero-bubble h1",
       {deep,
        {.world_size = 4, .pipeline_parallel = 4, .pipeline_schedule = aicb::pipeline_schedule_kind::zb_h1},
        {.micro_batch = 1, .global_batch = 8, .seq_length = 1024}}});
  jobs.push_back({"pp4 dualpipe tp2",
                  {deep,
                   {.world_size = 8,
                    .tensor_parallel = 2,
                    .pipeline_parallel = 4,
                    .sequence_parallel = true,
                    .pipeline_schedule = aicb::pipeline_schedule_kind::dualpipe},
                   {.micro_batch = 1, .global_batch = 8, .seq_length = 1024}}});
  jobs.push_back({"cp2 tp2",
                  {dense,
                   {.world_size = 8, .tensor_parallel = 2, .context_parallel = 2, .sequence_parallel = true},
                   {.micro_batch = 1, .global_batch = 4, .seq_length = 4096}}});
  return jobs;
}

inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// What every transfer of a set must pair with: (from, to, tag, bytes).
using transfer_key = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>;

/// Checks `nodes`, decoded from rank `rank`'s file, against the rank's schedule: ids, names, types,
/// dependencies, the compute durations' rounding, every attribute with the field type ASTRA-sim
/// reads, all-gather sizes converted. Each pg_name must be a group of `groups` (comm_groups.json)
/// that lists exactly the operation's group members. Sends and receives go into the two sets.
inline void check_rank_nodes(const aicb::job_spec& job, std::uint64_t rank,
                             const aicb::compute_model& compute, const std::vector<aicb::chakra_node>& nodes,
                             const nlohmann::json& groups, std::multiset<transfer_key>& sends,
                             std::multiset<transfer_key>& recvs) {
  using aicb::chakra_node_type;
  aicb::rank_schedule schedule(job, rank);
  const aicb::process_grid& grid = schedule.grid();
  std::size_t i = 0;
  double exact_us = 0;
  std::uint64_t written_us = 0;
  const auto attr = [&](const aicb::chakra_node& n, std::string_view name, std::uint32_t field) {
    const aicb::chakra_attribute* a = n.attr(name);
    INFO("rank " << rank << " node " << n.id << " attribute " << name);
    REQUIRE(a != nullptr);
    CHECK(a->field == field);  // the oneof member ASTRA-sim's feeder reads
    return a;
  };
  for (const aicb::operation& op : schedule) {
    INFO("rank " << rank << ", operation " << op.index << " " << op.name);
    REQUIRE(i < nodes.size());
    const aicb::chakra_node& n = nodes[i++];
    CHECK(n.id == op.index);
    CHECK(n.name == op.name);
    CHECK(n.ctrl_deps.empty());
    REQUIRE(n.data_deps.size() == op.after_count);
    for (std::size_t d = 0; d < op.after_count; ++d)
      CHECK(n.data_deps[d] == op.after[d]);
    const aicb::chakra_attribute* cpu = attr(n, "is_cpu_op", 27);
    CHECK(cpu->number == 0);
    switch (op.type) {
      case aicb::op_type::compute: {
        CHECK(n.type == chakra_node_type::compute);
        exact_us += static_cast<double>(compute.duration(op.compute).count()) / 1000;
        written_us += n.duration_micros;
        CHECK(std::abs(static_cast<double>(written_us) - exact_us) <= 0.5 + 1e-6);
        CHECK(attr(n, "num_ops", 9)->number == static_cast<std::uint64_t>(std::llround(op.compute.flops())));
        CHECK(attr(n, "tensor_size", 13)->number ==
              static_cast<std::uint64_t>(std::llround(op.compute.bytes())));
        break;
      }
      case aicb::op_type::collective: {
        CHECK(n.type == chakra_node_type::collective);
        CHECK(n.duration_micros == 0);
        const std::uint64_t type = attr(n, "comm_type", 9)->number;
        const std::uint64_t size = attr(n, "comm_size", 9)->number;
        switch (op.kind) {
          case aicb::collective::all_gather:  // ASTRA-sim: each rank's input
            CHECK(type == 2);
            CHECK(size * op.group_size == op.size.count());
            break;
          case aicb::collective::reduce_scatter:
            CHECK(type == 7);
            CHECK(size == op.size.count());
            break;
          case aicb::collective::all_reduce:
            CHECK(type == 0);
            CHECK(size == op.size.count());
            break;
          case aicb::collective::all_to_all:
            CHECK(type == 6);
            CHECK(size == op.size.count());
            break;
          default:
            FAIL("a collective the schedules do not make");
        }
        const std::string pg = attr(n, "pg_name", 29)->text;
        REQUIRE(groups.contains(pg));
        const aicb::rank_group members = grid.group(op.group.kind, rank);
        std::vector<std::uint64_t> expected;
        for (std::uint64_t j = 0; j < members.size(); ++j)
          expected.push_back(members.member(j));
        CHECK(groups[pg].get<std::vector<std::uint64_t>>() == expected);
        CHECK(expected.size() == op.group_size);
        break;
      }
      case aicb::op_type::send:
      case aicb::op_type::recv: {
        const bool send = op.type == aicb::op_type::send;
        CHECK(n.type == (send ? chakra_node_type::send : chakra_node_type::recv));
        const std::uint64_t peer = attr(n, send ? "comm_dst" : "comm_src", 7)->number;
        const std::uint64_t tag = attr(n, "comm_tag", 7)->number;
        const std::uint64_t size = attr(n, "comm_size", 9)->number;
        CHECK(peer == op.peer);
        CHECK(tag == op.tag);
        CHECK(size == op.size.count());
        (send ? sends : recvs)
            .insert(send ? transfer_key{rank, peer, tag, size} : transfer_key{peer, rank, tag, size});
        break;
      }
    }
  }
  CHECK(i == nodes.size());
}

}  // namespace aicb_test
