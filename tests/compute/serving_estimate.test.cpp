// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/roofline.hpp>
#include <aicb/compute/serving_estimate.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

TEST_CASE("serving estimate: every operation once, back to back, priced by its model", "[compute][serving]") {
  const aicb::serving_spec s{.phase = aicb::inference_phase::decode,
                             .batch = 64,
                             .context = 2048,
                             .tensor_parallel = 4,
                             .attention_data_parallel = 2,
                             .expert_parallel = 8};
  const aicb::inference_step step(aicb::presets::qwen3_235b_a22b, s, 3);
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  std::size_t n = 0;
  double clock = 0, compute = 0, communication = 0;
  const aicb::serving_timing t = aicb::play_serving_step(step, gpu, c, [&](const aicb::serving_interval& i) {
    CHECK(i.start_us == Approx(clock));  // one after the other
    CHECK(i.end_us >= i.start_us);
    const aicb::operation& op = step.operations()[n++];
    CHECK(i.op->index == op.index);
    if (op.type == aicb::op_type::compute) {
      CHECK(i.stream == "compute");
      CHECK(i.end_us - i.start_us == Approx(static_cast<double>(gpu.duration(op.compute).count()) / 1000));
      compute += i.end_us - i.start_us;
    } else {
      CHECK(i.stream == "collectives");
      communication += i.end_us - i.start_us;
    }
    clock = i.end_us;
  });
  CHECK(n == step.operations().size());
  CHECK(t.compute_us == Approx(compute));
  CHECK(t.communication_us == Approx(communication));
  CHECK(t.step_us() == Approx(clock));
  // The EP all-to-all spans the 8 GPUs of one node at NVLink speed: its time follows the cluster's model.
  const aicb::operation* dispatch = nullptr;
  for (const aicb::operation& op : step.operations())
    if (op.name == "moe_dispatch") dispatch = &op;
  REQUIRE(dispatch != nullptr);
  const aicb::group_placement one_node{.size = 8, .nodes = 1, .per_node = 8};
  const double expected = aicb::collective_us(aicb::collective::all_to_all,
                                              static_cast<double>(dispatch->size.count()), one_node, c);
  bool seen = false;
  (void)aicb::play_serving_step(step, gpu, c, [&](const aicb::serving_interval& i) {
    if (i.op->name == "moe_dispatch" && !seen) {
      CHECK(i.end_us - i.start_us == Approx(expected));
      seen = true;
    }
  });
  CHECK(seen);
}
