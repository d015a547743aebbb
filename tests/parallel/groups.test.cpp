// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/parallel/groups.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <vector>

namespace {

using aicb::group_kind;
using ranks = std::vector<std::uint64_t>;

// A dense model big enough for any layout below (heads, KV heads and experts divide by 8).
aicb::job_spec job(std::uint64_t world, std::uint64_t tp, std::uint64_t pp, std::uint64_t cp,
                   std::uint64_t ep = 1, std::uint64_t etp = 0) {
  aicb::job_spec j;
  j.model = {.hidden_size = 1024, .num_layers = 8, .num_attention_heads = 16, .vocab_size = 1024};
  if (ep > 1) {
    j.model.num_experts = 16;
    j.model.moe_top_k = 2;
  }
  j.parallel = {.world_size = world,
                .tensor_parallel = tp,
                .pipeline_parallel = pp,
                .context_parallel = cp,
                .expert_parallel = ep,
                .expert_tensor_parallel = etp,
                .sequence_parallel = tp > 1};
  j.batch = {.micro_batch = 1, .seq_length = 4096};
  return j;
}

ranks members(const aicb::rank_group& g) {
  ranks r;
  for (std::uint64_t i = 0; i < g.size(); ++i)
    r.push_back(g.member(i));
  return r;
}

// Every group of a kind, in Megatron's enumeration order.
std::vector<ranks> all(const aicb::process_grid& grid, group_kind kind) {
  std::vector<ranks> groups;
  for (std::uint64_t i = 0; i < grid.group_count(kind); ++i)
    groups.push_back(members(grid.group_at(kind, i)));
  return groups;
}

}  // namespace

TEST_CASE("groups: the worked example of Megatron-Core's rank generator (TP=CP=DP=PP=2)", "[parallel]") {
  const aicb::process_grid grid(job(16, 2, 2, 2));
  CHECK(all(grid, group_kind::tp) ==
        std::vector<ranks>{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
  CHECK(all(grid, group_kind::cp) ==
        std::vector<ranks>{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
  CHECK(all(grid, group_kind::dp) ==
        std::vector<ranks>{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
  CHECK(all(grid, group_kind::dp_cp) ==
        std::vector<ranks>{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}});
  CHECK(all(grid, group_kind::pp) ==
        std::vector<ranks>{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
  CHECK(all(grid, group_kind::embedding) == all(grid, group_kind::pp));  // first and last of two stages
  CHECK(all(grid, group_kind::position_embedding) ==
        std::vector<ranks>{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}});
  CHECK(grid.coordinates(13) == aicb::rank_coordinates{1, 0, 1, 1, 1, 0, 2});  // 13 = 1 + 2(0 + 2(1 + 2·1))
}

TEST_CASE("groups: the expert grid (ETP=1, EP=4 on 16 ranks) spans the dense TP x CP block", "[parallel]") {
  aicb::job_spec j = job(16, 2, 2, 2, 4, 1);
  const aicb::process_grid grid(j);
  CHECK(all(grid, group_kind::ep) ==
        std::vector<ranks>{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}});
  CHECK(all(grid, group_kind::edp) ==
        std::vector<ranks>{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
  CHECK(all(grid, group_kind::etp).size() == 16);
  CHECK(grid.group(group_kind::etp, 5).size() == 1);
}

TEST_CASE("groups: aicb's physical-run table (W=16, TP=2, PP=2, DP=4, EP=2)", "[parallel]") {
  const aicb::process_grid grid(job(16, 2, 2, 1, 2));
  CHECK(all(grid, group_kind::tp).front() == ranks{0, 1});
  CHECK(all(grid, group_kind::dp) ==
        std::vector<ranks>{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}});
  CHECK(all(grid, group_kind::pp).front() == ranks{0, 8});
  CHECK((all(grid, group_kind::ep) ==
         std::vector<ranks>{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
  CHECK(all(grid, group_kind::edp).front() == ranks{0, 4});
  CHECK(all(grid, group_kind::edp)[1] == ranks{1, 5});
  CHECK(all(grid, group_kind::edp)[3] == ranks{3, 7});
  CHECK(all(grid, group_kind::etp_ep).front() == ranks{0, 1, 2, 3});
  CHECK(all(grid, group_kind::etp_ep)[1] == ranks{4, 5, 6, 7});
}

TEST_CASE("groups: more layouts, derived by hand from the rank formula", "[parallel]") {
  SECTION("TP 4, PP 4, DP 2 on 32: pipeline groups stride 8, data-parallel groups stride 4") {
    const aicb::process_grid grid(job(32, 4, 4, 1));
    CHECK(members(grid.group(group_kind::pp, 5)) == ranks{5, 13, 21, 29});
    CHECK(members(grid.group(group_kind::dp, 5)) == ranks{1, 5});
    CHECK(members(grid.group(group_kind::tp, 5)) == ranks{4, 5, 6, 7});
    CHECK(members(grid.group(group_kind::embedding, 5)) == ranks{5, 29});
    CHECK(grid.pipeline_stage(29) == 3);
    CHECK(grid.pipeline_peer(29, true) == 5);  // wraps around, as Megatron's next rank does
    CHECK(grid.pipeline_peer(13, false) == 5);
  }
  SECTION("TP 2, CP 4, PP 2 on 16 (DP 1): context groups stride 2, dp_cp is cp") {
    const aicb::process_grid grid(job(16, 2, 2, 4));
    CHECK(members(grid.group(group_kind::cp, 3)) == ranks{1, 3, 5, 7});
    CHECK(members(grid.group(group_kind::dp_cp, 3)) == members(grid.group(group_kind::cp, 3)));
    CHECK(members(grid.group(group_kind::dp, 3)) == ranks{3});
    CHECK(members(grid.group(group_kind::tp_cp, 9)) == ranks{8, 9, 10, 11, 12, 13, 14, 15});
  }
  SECTION("TP 2, EP 4, expert TP 1 on 16 (DP 8): EP inside DP, EDP = 4") {
    const aicb::process_grid grid(job(16, 2, 1, 1, 4, 1));
    // expert rank = etp + 1·(ep + 4·(edp + 4·pp)): EP groups are 4 consecutive ranks.
    CHECK(members(grid.group(group_kind::ep, 6)) == ranks{4, 5, 6, 7});
    CHECK(members(grid.group(group_kind::edp, 6)) == ranks{2, 6, 10, 14});
    CHECK(grid.coordinates(6).tp == 0);
    CHECK(grid.coordinates(6).dp == 3);
    CHECK(grid.coordinates(6).ep == 2);
  }
  SECTION("TP 2, CP 2, DP 2, EP 2 (expert TP 2), PP 2 on 16: tp_dp_cp is a stage") {
    const aicb::process_grid grid(job(16, 2, 2, 2, 2));
    CHECK(members(grid.group(group_kind::tp_dp_cp, 9)) == ranks{8, 9, 10, 11, 12, 13, 14, 15});
    CHECK(members(grid.group(group_kind::ep, 9)) == ranks{9, 11});
    CHECK(members(grid.group(group_kind::edp, 9)) == ranks{9, 13});
  }
}

TEST_CASE("groups: every rank is in exactly one group of each kind, ids are stable", "[parallel]") {
  for (const auto& j : {job(64, 2, 4, 2), job(48, 2, 2, 1, 4), job(32, 4, 2, 2, 2, 2), job(8, 1, 1, 1)}) {
    const aicb::process_grid grid(j);
    for (int k = 0; k <= static_cast<int>(group_kind::world); ++k) {
      const auto kind = static_cast<group_kind>(k);
      INFO(aicb::to_string(kind));
      std::set<std::uint64_t> seen;
      for (std::uint64_t i = 0; i < grid.group_count(kind); ++i) {
        const aicb::rank_group g = grid.group_at(kind, i);
        CHECK(g.id() == aicb::group_id{kind, i});
        for (std::uint64_t m = 0; m < g.size(); ++m) {
          const std::uint64_t r = g.member(m);
          CHECK(g.position(r) == m);
          CHECK(grid.group(kind, r) == g);
          CHECK(seen.insert(r).second);           // no rank twice
          if (m > 0) CHECK(g.member(m - 1) < r);  // ascending
        }
      }
      const bool all_ranks = kind != group_kind::embedding && kind != group_kind::position_embedding;
      if (all_ranks || j.parallel.pipeline_parallel == 1) CHECK(seen.size() == grid.world_size());
      for (std::uint64_t r = 0; r < grid.world_size(); ++r)
        CHECK(grid.in_group(kind, r) == (seen.count(r) == 1));
    }
  }
  CHECK_THROWS_AS(aicb::process_grid(job(16, 2, 2, 2)).group(group_kind::tp, 16), aicb::config_error);
}
