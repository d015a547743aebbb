// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/workload/record.hpp>

#include <catch2/catch.hpp>

using namespace aicb::literals;

TEST_CASE("record: a default record does nothing", "[workload][record]") {
  const aicb::record r{};
  CHECK(r.name.empty());
  for (const aicb::phase* p : {&r.forward, &r.input_grad, &r.weight_grad}) {
    CHECK(p->compute == 0ns);
    CHECK_FALSE(p->comm.active());
    CHECK(p->comm.size == 0_B);
  }
  CHECK(r.update == 0ns);
}

TEST_CASE("record: phases hold compute and an optional collective, equality is member-wise",
          "[workload][record]") {
  aicb::record r{"attention_row",
                 {910'000ns, {aicb::collective::reduce_scatter, aicb::comm_group::tp, 16_MiB}},
                 {910'000ns, {aicb::collective::all_gather, aicb::comm_group::tp, 16_MiB}},
                 {910'000ns, {}},
                 100ns};
  CHECK(r.forward.comm.active());
  CHECK_FALSE(r.weight_grad.comm.active());
  aicb::record copy = r;
  CHECK(copy == r);
  copy.input_grad.comm.size = 8_MiB;
  CHECK_FALSE(copy == r);
  // A NONE column may still carry a size (aicb's own files do); it is kept, and it is not active.
  aicb::collective_op none_with_size{aicb::collective::none, aicb::comm_group::tp, 4_KiB};
  CHECK_FALSE(none_with_size.active());
  CHECK(none_with_size.size == 4_KiB);
}
