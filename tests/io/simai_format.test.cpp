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
