// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/roofline.hpp>
#include <aicb/generate/inference_projection.hpp>
#include <aicb/io/simai_lint.hpp>
#include <aicb/io/simai_reader.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

TEST_CASE("inference projection: every collective a record, all compute kept, read back equal",
          "[generate][inference]") {
  const aicb::serving_spec s{.phase = aicb::inference_phase::decode,
                             .batch = 64,
                             .context = 2048,
                             .tensor_parallel = 4,
                             .attention_data_parallel = 2,
                             .expert_parallel = 8};
  const aicb::inference_step step(aicb::presets::qwen3_235b_a22b, s);
  const aicb::roofline_model gpu("H100");
  const aicb::inference_workload w = aicb::inference_records(step, gpu);
  CHECK(w.header.tensor_parallel == 4);
  CHECK(w.header.expert_parallel == 2);  // SimAI places ep on TP x ep GPUs: 8
  CHECK(w.header.all_gpus == 8);
  std::int64_t compute = 0, records_compute = 0;
  std::uint64_t collectives = 0, bytes = 0, records_bytes = 0;
  for (const aicb::operation& op : step.operations()) {
    if (op.type == aicb::op_type::compute) compute += gpu.duration(op.compute).count();
    if (op.type == aicb::op_type::collective) {
      ++collectives;
      bytes += op.size.count();
    }
  }
  for (const aicb::record& r : w.records) {
    records_compute += r.forward.compute.count();
    records_bytes += r.forward.comm.size.count();
    CHECK(r.input_grad == aicb::phase{});
    CHECK(r.weight_grad == aicb::phase{});
  }
  CHECK(records_compute == compute);
  CHECK(records_bytes == bytes);
  // One record per collective, and one more for compute after the last (none here: the logits are
  // gathered over TP last).
  const bool trailing = step.operations().back().type == aicb::op_type::compute;
  CHECK(!trailing);
  CHECK(w.records.size() == collectives);

  aicb::simai_writer out("inference_projection.txt", w.header, w.records.size());
  for (const aicb::record& r : w.records)
    out.write(r);
  out.finish();
  aicb::simai_reader in("inference_projection.txt");
  CHECK(in.header() == w.header);
  std::vector<aicb::record> back;
  for (const aicb::record& r : in.records())
    back.push_back(r);
  CHECK(back == w.records);
  const aicb::lint_result lint = aicb::lint_simai("inference_projection.txt");
  CHECK(lint.errors == 0);
  CHECK(lint.warnings == 0);
}
