// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/roofline.hpp>
#include <aicb/io/trace_events.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

TEST_CASE("trace events: the estimate's intervals as a trace viewers read, one process per stage",
          "[io][trace]") {
  aicb::job_spec job{
      aicb::presets::llama3_8b,
      {.world_size = 16, .tensor_parallel = 2, .pipeline_parallel = 2, .sequence_parallel = true},
      {.micro_batch = 1, .global_batch = 8, .seq_length = 2048}};
  job.model.num_layers = 4;
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  std::string text;
  const aicb::iteration_estimate e = aicb::write_trace_events([&](std::string_view s) { text += s; }, job,
                                                              gpu, c, {.tp_comm_overlap = true});
  const nlohmann::json trace = nlohmann::json::parse(text);  // valid JSON, or this throws
  CHECK(trace["otherData"]["schema"] == "aicb.trace/1");
  CHECK(trace["otherData"]["iteration_s"].get<double>() == Approx(e.iteration_s));
  CHECK(e.iteration_s == aicb::estimate_iteration(job, gpu, c, {.tp_comm_overlap = true}).iteration_s);

  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> intervals;  // (stage, thread)
  int processes = 0, threads = 0;
  double end = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "M") {
      processes += event["name"] == "process_name";
      threads += event["name"] == "thread_name";
      continue;
    }
    REQUIRE(event["ph"] == "X");
    const double ts = event["ts"], dur = event["dur"];
    CHECK(ts >= 0);
    CHECK(dur >= 0);
    intervals[{event["pid"].get<int>(), event["tid"].get<int>()}].emplace_back(ts, ts + dur);
    end = std::max(end, ts + dur);
  }
  CHECK(processes == 2);
  CHECK(threads == 2 * 5);
  CHECK(end == Approx(e.iteration_s * 1e6));
  // One GPU computes one thing at a time: a stage's compute intervals never overlap, and there are as
  // many as its representative rank has computations.
  for (int stage = 0; stage < 2; ++stage) {
    auto compute = intervals[{stage, 0}];
    std::sort(compute.begin(), compute.end());
    for (std::size_t i = 1; i < compute.size(); ++i)
      CHECK(compute[i].first >= compute[i - 1].second - 1e-6);
    std::size_t computations = 0;
    for (const aicb::operation& op : aicb::rank_schedule(job, aicb::first_rank_of_stage(job, stage)))
      computations += op.type == aicb::op_type::compute;
    CHECK(compute.size() == computations);
  }
  // The second stage waits for the first one's activations; with TP overlap, collectives run under GEMMs.
  CHECK_FALSE(intervals[{1, 4}].empty());
  CHECK_FALSE(intervals[{0, 1}].empty());
}

TEST_CASE("trace events: chosen ranks of an interleaved pipeline show the waits on their overlapped receives",
          "[io][trace]") {
  // An interleaved schedule overlaps its transfers: the estimate reports a receive's wait where the data
  // is used, after the operations between — every chosen rank still finds that receive among its own.
  aicb::job_spec job{aicb::presets::llama3_8b,
                     {.world_size = 8,
                      .tensor_parallel = 2,
                      .pipeline_parallel = 2,
                      .virtual_pipeline = 2,
                      .sequence_parallel = true},
                     {.micro_batch = 1, .global_batch = 8, .seq_length = 2048}};
  job.model.num_layers = 4;
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  std::string text;
  aicb::write_trace_events([&](std::string_view s) { text += s; }, job, gpu, c, {}, {0, 1, 2, 3, 4, 5, 6, 7});
  const nlohmann::json trace = nlohmann::json::parse(text);
  std::map<int, int> waits;  // rank → waiting intervals
  for (const auto& event : trace["traceEvents"])
    if (event["ph"] == "X" && event["tid"] == 4) ++waits[event["pid"].get<int>()];
  for (int rank = 0; rank < 8; ++rank)
    CHECK(waits[rank] > 0);  // every rank, the representatives' followers included, waits on its pipeline
  // The ranks of one stage wait alike: rank 1 follows rank 0, rank 5 follows rank 4.
  CHECK(waits[1] == waits[0]);
  CHECK(waits[5] == waits[4]);
}

TEST_CASE("trace events: a serving step, one process per GPU, the step's time at its end",
          "[io][trace][serving]") {
  const aicb::serving_spec s{.phase = aicb::inference_phase::decode,
                             .batch = 64,
                             .context = 2048,
                             .tensor_parallel = 4,
                             .attention_data_parallel = 2,
                             .expert_parallel = 8};
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  std::string text;
  const aicb::serving_timing t = aicb::write_serving_trace_events(
      [&](std::string_view x) { text += x; }, aicb::presets::qwen3_235b_a22b, s, gpu, c, {0, 6});
  const nlohmann::json trace = nlohmann::json::parse(text);
  CHECK(trace["otherData"]["schema"] == "aicb.trace/1");
  CHECK(trace["otherData"]["iteration_s"].get<double>() == Approx(t.step_us() * 1e-6));
  std::map<int, double> end;
  std::map<int, int> intervals;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    const int pid = event["pid"];
    end[pid] = std::max(end[pid], event["ts"].get<double>() + event["dur"].get<double>());
    ++intervals[pid];
  }
  CHECK(end.size() == 2);
  const aicb::inference_step step(aicb::presets::qwen3_235b_a22b, s, 6);
  CHECK(intervals[6] == static_cast<int>(step.operations().size()));
  CHECK(end[0] == Approx(t.step_us()));
  CHECK(end[6] == Approx(t.step_us()));  // GPUs of one step are symmetric
}
