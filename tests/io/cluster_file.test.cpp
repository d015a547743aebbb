// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/io/cluster_file.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

namespace {

std::string message_of(const std::string& text) {
  try {
    (void)aicb::parse_cluster_file(text);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(accepted)";
}

const char* const minimal = R"({"schema": "aicb.cluster/1", "name": "lab", "gpu": "A100", "gpus_per_node": 4,
  "nvlink_gb_per_s": 200, "nvlink_latency_us": 3, "nics_per_node": 2, "nic_gb_per_s": 20, "nic_latency_us": 6)";

}  // namespace

TEST_CASE("cluster file: a hand-written file describes machines no preset has", "[io][cluster]") {
  const aicb::cluster_descriptor d = aicb::parse_cluster_file(std::string(minimal) + "}");
  const aicb::cluster_spec c = d.spec();
  CHECK(c.name == "lab");
  CHECK(c.gpu == "A100");
  CHECK(c.gpus_per_node == 4);
  CHECK(c.nic_gb_per_s_per_gpu() == Approx(10));  // 2 NICs for 4 GPUs
  CHECK(c.measured == nullptr);
  CHECK(c.node_of(4) == 1);
  CHECK(c.host_us_per_launch == 12);  // an A100's preset: an x86 server's host
}

TEST_CASE("cluster file: the host's time per launch is the file's, else that of its GPU's preset",
          "[io][cluster]") {
  const std::string grace = R"({"schema": "aicb.cluster/1", "name": "racks-of-64", "gpu": "GB200",
    "gpus_per_node": 64, "nvlink_gb_per_s": 720, "nvlink_latency_us": 2, "nics_per_node": 64,
    "nic_gb_per_s": 48.5, "nic_latency_us": 5)";
  const aicb::cluster_descriptor racks = aicb::parse_cluster_file(grace + "}");
  CHECK(racks.spec().host_us_per_launch == aicb::cluster_preset("gb200-nvl72").host_us_per_launch);
  const aicb::cluster_descriptor given = aicb::parse_cluster_file(grace + R"(, "host_us_per_launch": 20})");
  CHECK(given.spec().host_us_per_launch == 20);
  CHECK(aicb::parse_cluster_file(aicb::to_json(given)).host_us_per_launch == 20);  // written and read back
  CHECK_THROWS_WITH(aicb::parse_cluster_file(grace + R"(, "host_us_per_launch": -1})"),
                    Catch::Contains("host_us_per_launch") && Catch::Contains("at least 0"));
  // The estimate takes the cluster's unless told otherwise: the same tiny job, its iteration the
  // host's, runs slower on a slower host.
  const aicb::job_spec tiny{aicb::model_spec{.hidden_size = 512,
                                             .num_layers = 1,
                                             .num_attention_heads = 4,
                                             .ffn_hidden_size = 2048,
                                             .vocab_size = 512},
                            {.world_size = 1},
                            {.micro_batch = 1, .global_batch = 1, .seq_length = 8}};
  const aicb::roofline_model gpu("GB200");
  const aicb::cluster_spec spec = racks.spec();
  const double on_grace = aicb::estimate_iteration(tiny, gpu, spec).iteration_s;
  const double on_x86 = aicb::estimate_iteration(tiny, gpu, spec, {.host_us_per_launch = 12}).iteration_s;
  CHECK(on_grace > 2 * on_x86);
  CHECK(aicb::host_us_per_launch({}, spec) == spec.host_us_per_launch);
  CHECK(aicb::host_us_per_launch({.host_us_per_launch = 0}, spec) == 0);
}

TEST_CASE("cluster file: curves, sources and provenance survive a round trip", "[io][cluster]") {
  aicb::cluster_descriptor d = aicb::descriptor_of(aicb::cluster_preset("dgx-h100"));
  d.name = "measured";
  aicb::measured_curve c{
      .kind = aicb::collective::all_to_all, .where = aicb::link_class::rail, .group_size = 4};
  for (std::uint64_t s = 1024; s <= (1 << 24); s *= 2)
    c.points.push_back({s, 5 + static_cast<double>(s) / (s < 65536 ? 3e3 : 9e3)});
  c.bands = aicb::fit_bands(c);
  d.measured.curves.push_back(c);
  d.sources["nic_gb_per_s"] = "measured: all_reduce over 4 ranks, one per node, at 16 MiB";
  d.provenance["command"] = "aicb run --sweep all_to_all --calibrate";
  const std::string text = aicb::to_json(d);
  const aicb::cluster_descriptor back = aicb::parse_cluster_file(text);
  CHECK(aicb::to_json(back) == text);
  REQUIRE(back.measured.curves.size() == 1);
  CHECK(back.measured.curves[0].bands.size() == c.bands.size());
  CHECK(back.sources.at("nvlink_gb_per_s") == "preset dgx-h100 (datasheet)");
  CHECK(back.provenance.at("command") == "aicb run --sweep all_to_all --calibrate");
  // The spec views the curves, and the estimate prices an all-to-all across nodes from them.
  const aicb::cluster_spec spec = back.spec();
  REQUIRE(spec.measured == &back.measured);
  const aicb::group_placement rail{.size = 4, .nodes = 4, .per_node = 1};
  CHECK(aicb::collective_us(aicb::collective::all_to_all, 1 << 20, rail, spec) ==
        Approx(back.measured.curves[0].time_us(1 << 20, 4)));
  // Bands left out are fitted from the points when read.
  nlohmann::json doc = nlohmann::json::parse(text);
  doc["curves"][0].erase("bands");
  const std::string no_bands = doc.dump();
  CHECK(aicb::parse_cluster_file(no_bands).measured.curves[0].bands.size() == c.bands.size());
}

TEST_CASE("cluster file: errors name the key, the value and the rule", "[io][cluster]") {
  const std::string head = minimal;
  CHECK_THAT(message_of(R"({"schema": "aicb.cluster/2"})"), Catch::Contains("schema = \"aicb.cluster/2\""));
  CHECK_THAT(message_of(head + R"(, "nic_gb_per_sec": 3})"), Catch::Contains("did you mean nic_gb_per_s?"));
  CHECK_THAT(message_of(R"({"schema": "aicb.cluster/1", "name": "x", "gpu": "H100", "gpus_per_node": 8,
    "nvlink_gb_per_s": 1, "nvlink_latency_us": 1, "nics_per_node": 8, "nic_latency_us": 1})"),
             Catch::Contains("nic_gb_per_s = (missing)"));
  CHECK_THAT(message_of(head + R"(, "gpu": "Z9"})"), Catch::Contains("Z9"));
  CHECK_THAT(message_of(R"({"schema": "aicb.cluster/1", "name": "x", "gpu": "H100", "gpus_per_node": 0,
    "nvlink_gb_per_s": 1, "nvlink_latency_us": 1, "nics_per_node": 8, "nic_gb_per_s": 1, "nic_latency_us": 1})"),
             Catch::Contains("gpus_per_node = 0"));
  CHECK_THAT(
      message_of(head + R"(, "curves": [{"collective": "broadcast", "placement": "node", "group_size": 2,
    "points": [[1024, 3]]}]})"),
      Catch::Contains("curves[0].collective = broadcast"));
  CHECK_THAT(
      message_of(head + R"(, "curves": [{"collective": "all_reduce", "placement": "node", "group_size": 2,
    "points": [[2048, 3], [1024, 4]]}]})"),
      Catch::Contains("curves[0].points[1][0] = 1024") && Catch::Contains("ascend"));
  CHECK_THAT(
      message_of(head + R"(, "curves": [{"collective": "all_reduce", "placement": "node", "group_size": 2,
    "points": [[1024, 0]]}]})"),
      Catch::Contains("curves[0].points[0][1]"));
  CHECK_THAT(
      message_of(head + R"(, "curves": [{"collective": "all_reduce", "placement": "node", "group_size": 2,
    "points": [[1024, 3], [2048, 4]], "bands": [[0, 0, 1, 1]]}]})"),
      Catch::Contains("cover every point"));
  CHECK_THAT(
      message_of(head + R"(, "curves": [{"collective": "all_reduce", "placement": "node", "group_size": 2,
    "points": [[1024, 3]], "bands": [[0, 0, 1, 1e-300]]}]})"),
      Catch::Contains("curves[0].bands[0]") && Catch::Contains("10^-6 to 10^9 GB/s"));
  CHECK_THAT(
      message_of(head + R"(, "curves": [{"collective": "all_reduce", "placement": "node", "group_size": 2,
    "points": [[1024, 3]]}, {"collective": "all_reduce", "placement": "node", "group_size": 4,
    "points": [[1024, 3]]}]})"),
      Catch::Contains("curves[1]") && Catch::Contains("once per placement"));
  CHECK_THAT(message_of(head + "\n,,}"), Catch::Contains("cluster.json:3:"));
}

TEST_CASE("cluster file: --cluster takes a preset name or a file", "[io][cluster]") {
  CHECK_FALSE(aicb::names_cluster_file("dgx-h100"));
  CHECK(aicb::names_cluster_file("cluster.json"));
  CHECK(aicb::names_cluster_file("./lab"));
  CHECK(aicb::resolve_cluster("", "dgx-a100").nvlink_gb_per_s == 240);
  const std::string path = (std::filesystem::temp_directory_path() / "aicb-cluster-file-test.json").string();
  aicb::write_cluster_file(aicb::parse_cluster_file(std::string(minimal) + "}"), path);
  const aicb::cluster_spec c = aicb::resolve_cluster("", path);
  CHECK(c.name == "lab");
  CHECK(c.gpus_per_node == 4);
  CHECK(aicb::resolve_cluster("H100", path).gpu == "H100");  // a GPU given replaces the file's
  std::filesystem::remove(path);
  CHECK(aicb::resolve_cluster("", path).name == "lab");  // read once, kept
  CHECK_THROWS_WITH(aicb::resolve_cluster("", path + ".missing.json"), Catch::Contains("missing.json"));
}
