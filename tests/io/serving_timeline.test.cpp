// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/roofline.hpp>
#include <aicb/io/serving_timeline.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace {

aicb::model_spec small_dense() {
  aicb::model_spec m = aicb::presets::llama3_8b;
  m.num_layers = 2;
  return m;
}

// Events of one phase ("X", "b", "e") in a parsed timeline.
std::vector<nlohmann::json> events(const nlohmann::json& doc, const std::string& ph) {
  std::vector<nlohmann::json> out;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == ph) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("serving timeline: a window's steps per group and each request's phases",
          "[io][serving][timeline]") {
  // Every computation 1 µs, one GPU, two DP-attention groups: four requests at time 0, dealt two
  // to a group; prompts of 10 tokens, 3 outputs: a prefill step, then two decode steps.
  const aicb::constant_model each(aicb::nanoseconds{1000});
  const aicb::cluster_spec cluster = aicb::cluster_preset("dgx-h100");
  const aicb::model_spec m = small_dense();
  aicb::serving_spec layout;
  layout.attention_data_parallel = 2;
  const std::vector<aicb::serving_request> four{{0, 0, 10, 3}, {1, 0, 10, 3}, {2, 0, 10, 3}, {3, 0, 10, 3}};
  aicb::serving_timeline_recorder all;
  const aicb::serving_stream_report run = aicb::simulate_serving(m, layout, four, each, cluster, {}, all);
  REQUIRE(run.steps == 3u);
  REQUIRE(all.steps().size() == 3u);
  CHECK(all.steps()[0].groups.size() == 2u);
  CHECK(all.steps()[0].groups[0].chunks.size() == 2u);  // two prompts a group
  CHECK(all.steps()[1].groups[1].decoding == 2u);
  CHECK(all.steps()[1].start_s == Approx(all.steps()[0].end_s));
  CHECK(all.steps()[2].end_s == Approx(run.end_s));
  for (const aicb::served_request& r : run.requests)
    CHECK(r.admitted_s == 0);

  std::string text;
  aicb::serving_timeline_about about;
  about.model = "small";
  about.groups = 2;
  const std::uint64_t written =
      aicb::write_serving_timeline([&](std::string_view s) { text += s; }, all, run.requests, about);
  const nlohmann::json doc = nlohmann::json::parse(text);
  CHECK(doc["otherData"]["schema"] == "aicb.serving_timeline/1");
  CHECK(doc["otherData"]["steps"] == 3);
  CHECK(doc["otherData"]["truncated"] == false);
  CHECK(doc["traceEvents"].size() == written);
  const auto steps = events(doc, "X");
  REQUIRE(steps.size() == 6u);  // 3 steps x 2 groups
  CHECK(steps[0]["name"] == "prefill");
  CHECK(steps[0]["args"]["tokens"] == 20);
  CHECK(steps[2]["name"] == "decode");
  CHECK(steps[2]["args"]["decoding"] == 2);
  CHECK(steps[2]["args"]["context_per_decoding_request"].get<double>() == Approx(11));
  CHECK(steps[0]["dur"].get<double>() == Approx(all.steps()[0].group_s[0] * 1e6));
  // Each request: queued (empty: admitted at once), prefill, decode — a begin and an end each.
  const auto begins = events(doc, "b"), ends = events(doc, "e");
  CHECK(begins.size() == 12u);
  CHECK(ends.size() == 12u);
  std::map<std::uint64_t, int> per_request;
  for (const auto& b : begins)
    ++per_request[b["id"].get<std::uint64_t>()];
  CHECK(per_request.size() == 4u);
  for (const auto& e : ends)
    if (e["name"] == "decode") CHECK(e["ts"].get<double>() == Approx(run.end_s * 1e6));

  // A window after the first step keeps the two decode steps; a recorder of one step marks the rest
  // left out; a window that ends before it starts is refused.
  aicb::serving_timeline_recorder later({.from_s = all.steps()[0].end_s * 1.01, .to_s = 1});
  static_cast<void>(aicb::simulate_serving(m, layout, four, each, cluster, {}, later));
  CHECK(later.steps().size() == 2u);
  aicb::serving_timeline_recorder one({}, 1);
  static_cast<void>(aicb::simulate_serving(m, layout, four, each, cluster, {}, one));
  CHECK(one.steps().size() == 1u);
  CHECK(one.truncated());
  CHECK_THROWS_WITH(aicb::serving_timeline_recorder({.from_s = 2, .to_s = 1}),
                    Catch::Contains("timeline_window") && Catch::Contains("FROM < TO"));
}

TEST_CASE("serving timeline: a disaggregated run's instances and KV transfers", "[io][serving][timeline]") {
  const aicb::roofline_model h100("H100");
  const aicb::cluster_spec cluster = aicb::cluster_preset("dgx-h100");
  const aicb::model_spec m = small_dense();
  aicb::disaggregated_deployment d;
  d.prefill_instances = 1;
  d.decode_instances = 2;
  std::vector<aicb::serving_request> requests;
  for (std::uint64_t i = 0; i < 6; ++i)
    requests.push_back({i, 0.001 * static_cast<double>(i), 500, 4});
  aicb::serving_timeline_recorder all;
  const aicb::disaggregated_stream_report run =
      aicb::simulate_disaggregated_serving(m, d, requests, h100, cluster, all);
  std::uint64_t prefill_steps = 0, decode_steps = 0;
  for (const aicb::serving_step_record& s : all.steps())
    (s.prefill_instance ? prefill_steps : decode_steps) += 1;
  CHECK(prefill_steps == run.prefill_steps);
  CHECK(decode_steps == run.decode_steps);

  std::string text;
  aicb::serving_timeline_about about;
  about.instances = 2;
  about.prefill_instances = 1;
  about.prefill_done_s = run.prefill_done_s;
  static_cast<void>(
      aicb::write_serving_timeline([&](std::string_view s) { text += s; }, all, run.requests, about));
  const nlohmann::json doc = nlohmann::json::parse(text);
  std::map<std::uint64_t, std::string> processes;
  for (const auto& e : doc["traceEvents"])
    if (e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
  CHECK(processes[0] == "prefill instance 0");
  CHECK(processes[1] == "decode instance 0");
  CHECK(processes[2] == "decode instance 1");
  CHECK(processes[3] == "requests");
  // Each request's KV transfer runs from its prompt's end to its first token.
  std::uint64_t transfers = 0;
  for (const auto& e : events(doc, "b"))
    if (e["name"] == "kv transfer") {
      const std::uint64_t id = e["id"];
      CHECK(e["ts"].get<double>() == Approx(run.prefill_done_s[id] * 1e6));
      ++transfers;
    }
  CHECK(transfers == 6u);
  // Prefill steps on pid 0, decode steps on 1 and 2.
  for (const auto& e : events(doc, "X"))
    CHECK((e["name"] == "prefill") == (e["pid"] == 0));
}
