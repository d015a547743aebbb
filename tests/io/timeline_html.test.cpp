// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/roofline.hpp>
#include <aicb/io/timeline_html.hpp>
#include <aicb/io/trace_events.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

// The data the page holds: the text of its JSON script element.
std::string embedded(const std::string& page) {
  const std::string open = "<script id=\"trace\" type=\"application/json\">";
  const std::size_t from = page.find(open);
  REQUIRE(from != std::string::npos);
  const std::size_t to = page.find("</script>", from);
  REQUIRE(to != std::string::npos);
  return page.substr(from + open.size(), to - from - open.size());
}

}  // namespace

TEST_CASE("timeline page: the trace inside, intact, and nothing that could end its script",
          "[io][timeline]") {
  std::string page;
  aicb::write_timeline_html(
      [&](std::string_view s) { page += s; }, "a <b> & c",
      [](const auto& sink) { sink(R"({"traceEvents":[{"name":"</script><p>x","ph":"X"}]})"); });
  CHECK(page.starts_with("<!doctype html>"));
  CHECK(page.find("<title>a &lt;b&gt; &amp; c</title>") != std::string::npos);
  const std::string data = embedded(page);
  CHECK(data.find('<') == std::string::npos);
  const nlohmann::json trace = nlohmann::json::parse(data);
  CHECK(trace["traceEvents"][0]["name"] == "</script><p>x");  // \u003c reads back as <
  CHECK(page.ends_with("</body></html>\n"));
  CHECK(page.find("http") == std::string::npos);  // nothing fetched: the page is self-contained
}

TEST_CASE("timeline page: an estimated iteration, one process per chosen rank", "[io][timeline]") {
  aicb::job_spec job{
      aicb::presets::llama3_8b,
      {.world_size = 16, .tensor_parallel = 2, .pipeline_parallel = 2, .sequence_parallel = true},
      {.micro_batch = 1, .global_batch = 8, .seq_length = 2048}};
  job.model.num_layers = 4;
  const aicb::roofline_model gpu("H100");
  const aicb::cluster_spec& c = aicb::cluster_preset("dgx-h100");
  std::string page;
  aicb::iteration_estimate e;
  aicb::write_timeline_html([&](std::string_view s) { page += s; }, "llama",
                            [&](const auto& sink) {
                              e = aicb::write_trace_events(sink, job, gpu, c, {}, {0, 1, 8, 9});
                            });
  const nlohmann::json trace = nlohmann::json::parse(embedded(page));
  std::set<int> pids;
  std::map<int, std::vector<std::string>> groups;  // rank → the TP groups of its collectives
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    pids.insert(event["pid"].get<int>());
    if (event["args"].contains("group") && event["args"]["group"].get<std::string>().starts_with("tp["))
      groups[event["pid"].get<int>()].push_back(event["args"]["group"]);
  }
  CHECK(pids == std::set<int>{0, 1, 8, 9});
  // Ranks 0 and 1 share a TP group; rank 8 and 9 share another: each rank's own groups, not its stage
  // representative's.
  REQUIRE(!groups[0].empty());
  CHECK(groups[0] == groups[1]);
  CHECK(groups[8] == groups[9]);
  CHECK(groups[0].front() != groups[8].front());
  CHECK(e.iteration_s > 0);
}
