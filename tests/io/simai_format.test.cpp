// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/io/simai_format.hpp>

#include <catch2/catch.hpp>

using namespace aicb::literals;

TEST_CASE("simai format: every collective/group pair SimAI can express has a token, and only those",
          "[io][simai]") {
  using aicb::collective, aicb::comm_group, aicb::simai_column;
  std::size_t expressible = 0;
  for (aicb::collective c : aicb::all_collectives)
    for (aicb::comm_group g : aicb::all_comm_groups)
      for (auto column : {simai_column::forward, simai_column::input_grad, simai_column::weight_grad}) {
        const aicb::collective_op op{c, g, 1_B};
        try {
          const auto token = aicb::simai_comm_token(op, column);
          ++expressible;
          if (c == collective::none) CHECK(token == "NONE");
        } catch (const aicb::config_error&) {
        }
      }
  // none: 7 groups x 3 columns; 4 collectives x (tp, ep, dp_ep in 2 columns + dp, dp_ep in 1).
  CHECK(expressible == 21 + 4 * (3 * 2 + 2));
  CHECK(aicb::simai_header{}.policy == "HYBRID_TRANSFORMER_FWD_IN_BCKWD");
  CHECK(aicb::simai_header_line(aicb::simai_header{}).find("pp_comm: 0") != std::string::npos);
}

TEST_CASE("simai format: the group, its size and the table SimAI charges a collective to", "[io][simai]") {
  using aicb::simai_column, aicb::simai_group, aicb::collective;
  STATIC_REQUIRE(aicb::simai_group_of(0, simai_column::forward) == simai_group::tp);
  STATIC_REQUIRE(aicb::simai_group_of(0, simai_column::weight_grad) == simai_group::dp);
  STATIC_REQUIRE(aicb::simai_group_of(1, simai_column::weight_grad) == simai_group::ep);
  STATIC_REQUIRE(aicb::simai_group_of(2, simai_column::input_grad) == simai_group::dp_ep);
  // TP 4, EP 8, PP 2 on 64 GPUs: DP = 64 / (4 x 2) = 8, DP_EP = 1.
  STATIC_REQUIRE(aicb::simai_group_ranks(simai_group::tp, simai_column::forward, 4, 8, 2, 64) == 4);
  STATIC_REQUIRE(aicb::simai_group_ranks(simai_group::ep, simai_column::forward, 4, 8, 2, 64) == 8);
  STATIC_REQUIRE(aicb::simai_group_ranks(simai_group::dp_ep, simai_column::forward, 4, 8, 2, 64) == 4);
  STATIC_REQUIRE(aicb::simai_group_ranks(simai_group::dp, simai_column::weight_grad, 4, 8, 2, 64) == 8);
  STATIC_REQUIRE(aicb::simai_group_ranks(simai_group::ep, simai_column::weight_grad, 4, 8, 2, 64) == 8);
  STATIC_REQUIRE(aicb::simai_group_ranks(simai_group::dp_ep, simai_column::weight_grad, 4, 8, 2, 64) == 1);
  STATIC_REQUIRE(aicb::simai_uses_ratio_table(collective::all_gather, simai_group::tp));
  STATIC_REQUIRE(aicb::simai_uses_ratio_table(collective::all_to_all, simai_group::ep));
  STATIC_REQUIRE_FALSE(aicb::simai_uses_ratio_table(collective::all_reduce, simai_group::tp));
  STATIC_REQUIRE_FALSE(aicb::simai_uses_ratio_table(collective::all_gather, simai_group::dp));
  STATIC_REQUIRE_FALSE(aicb::simai_uses_ratio_table(collective::all_gather, simai_group::ep));
  STATIC_REQUIRE(aicb::simai_single_gpu_garbage(simai_group::tp, 1, 1 << 20));
  STATIC_REQUIRE(aicb::simai_single_gpu_garbage(simai_group::tp, 1, 1));
  STATIC_REQUIRE_FALSE(aicb::simai_single_gpu_garbage(simai_group::tp, 1, 65536));  // latency table: 0
  STATIC_REQUIRE_FALSE(aicb::simai_single_gpu_garbage(simai_group::tp, 2, 1 << 20));
  STATIC_REQUIRE_FALSE(aicb::simai_single_gpu_garbage(simai_group::dp, 1, 1 << 20));  // guarded: 0
}
