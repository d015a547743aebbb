// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/commands/serve_steps.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/io/simai_reader.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// A fresh folder under the system's temporary one, removed when the test ends.
struct scratch {
  fs::path path;
  explicit scratch(const std::string& name)
      : path(fs::temp_directory_path() / ("aicb-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
  }
  ~scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The mix's rows, without its comment lines and header.
std::vector<std::vector<std::string>> mix_rows(const fs::path& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(read(csv));
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      CHECK(line == "instance,kind,phase,tokens_per_group,context,batch,prompt,count,busy_s,share,file");
      continue;
    }
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream fields(line);
    while (std::getline(fields, cell, ','))
      cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST_CASE("serve steps: a kind's step — decode requests over their context, or one prompt a group",
          "[commands][serve]") {
  aicb::serving_spec layout;
  layout.attention_data_parallel = 8;
  layout.expert_parallel = 8;
  const aicb::serving_spec decode =
      aicb::serving_step_of_kind(layout, {aicb::inference_phase::decode, 7, 1218, 3, 0.1});
  CHECK(decode.phase == aicb::inference_phase::decode);
  CHECK(decode.batch == 56u);  // 7 requests in each of 8 groups
  CHECK(decode.context == 1218u);
  CHECK(decode.prompt == 0u);
  const aicb::serving_spec prefill =
      aicb::serving_step_of_kind(layout, {aicb::inference_phase::prefill, 1000, 0, 1, 0.1});
  CHECK(prefill.batch == 8u);  // one prompt a group
  CHECK(prefill.prompt == 1000u);
  CHECK(prefill.context == 0u);
  // With TP 4 and expert parallelism a group's tokens are scattered over its TP ranks: rounded up.
  layout.tensor_parallel = 4;
  layout.attention_data_parallel = 2;
  const aicb::serving_spec scattered =
      aicb::serving_step_of_kind(layout, {aicb::inference_phase::decode, 7, 100, 1, 0.1});
  CHECK(scattered.batch == 16u);  // 8 requests a group
  aicb::validate_serving(aicb::presets::deepseek_v3, scattered);
}

TEST_CASE("serve steps: every kind written once as SimAI text, the mix counting every step",
          "[commands][serve]") {
  aicb::model_spec m = aicb::presets::llama3_8b;
  m.num_layers = 2;
  const aicb::roofline_model h100("H100");
  const aicb::serving_spec layout;
  std::vector<aicb::serving_request> requests;
  for (std::uint64_t i = 0; i < 20; ++i)
    requests.push_back({i, 0.002 * static_cast<double>(i), 100 + 37 * i, 5 + i % 7});
  const aicb::serving_stream_report run =
      aicb::simulate_serving(m, layout, requests, h100, aicb::cluster_preset("dgx-h100"));
  REQUIRE(run.step_kinds.size() >= 2u);
  const scratch dir("serve-steps");
  const aicb::serving_steps_written w = aicb::write_serving_steps(
      dir.path.string(), aicb::workload_format::simai, m, {{"", layout, run.step_kinds}}, h100);
  CHECK(w.kinds == run.step_kinds.size());
  CHECK(w.files == run.step_kinds.size());
  CHECK(w.steps == run.steps);
  const auto rows = mix_rows(dir.path / "steps.csv");
  REQUIRE(rows.size() == run.step_kinds.size());
  std::uint64_t counted = 0;
  double share = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    REQUIRE(row.size() == 11u);
    const aicb::serving_step_kind& k = run.step_kinds[i];
    CHECK(row[0] == "serving");
    CHECK(row[2] == std::string(aicb::to_string(k.form)));
    CHECK(std::stoull(row[3]) == k.tokens);
    CHECK(std::stoull(row[7]) == k.count);
    counted += std::stoull(row[7]);
    share += std::stod(row[9]);
    // The file is SimAI text of one step of the kind's shape: its records read back.
    aicb::simai_reader file((dir.path / row[10]).string());
    std::uint64_t records = 0;
    while (file.next())
      ++records;
    CHECK(records == file.declared_count());
    CHECK(records > 0u);
  }
  CHECK(counted == run.steps);
  CHECK(share == Approx(1).margin(1e-5));
  // A format the steps have no writer for.
  CHECK_THROWS_AS(aicb::write_serving_steps(dir.path.string(), aicb::workload_format::csv, m,
                                            {{"", layout, run.step_kinds}}, h100),
                  aicb::config_error);
}

TEST_CASE("serve steps: a KV-cache transfer as sends and receives between a prefill and a decode instance",
          "[commands][serve][chakra]") {
  const aicb::model_spec& m = aicb::presets::llama3_70b;
  aicb::serving_spec prefill, decode;
  prefill.tensor_parallel = 4;
  prefill.attention_data_parallel = 2;  // 8 senders
  decode.tensor_parallel = 2;           // 2 receivers
  const aicb::serving_kv_transfers t{prefill, decode, 4e6, 0.5, 100};
  const scratch dir("serve-kv");
  const aicb::chakra_set_result set =
      aicb::write_kv_transfer_chakra(dir.path.string(), m, t, aicb::roofline_model("H100"));
  CHECK(set.files == 10u);
  CHECK(set.sends == 8u);
  CHECK(set.recvs == 8u);
  std::uint64_t received = 0;
  for (std::uint64_t rank = 0; rank < 10; ++rank) {
    const std::string name = "kv_transfer." + std::to_string(rank) + ".et";
    const aicb::chakra_trace trace = aicb::read_chakra_trace(read(dir.path / name), name);
    REQUIRE_FALSE(trace.nodes.empty());
    for (const aicb::chakra_node& node : trace.nodes) {
      const auto number = [&](const char* name) {
        const aicb::chakra_attribute* a = node.attr(name);
        REQUIRE(a != nullptr);
        return a->number;
      };
      CHECK(number("comm_size") == 1000000u);  // 4 MB over the sender's 4 TP GPUs
      if (rank < 8) {
        CHECK(node.type == aicb::chakra_node_type::send);
        CHECK(number("comm_dst") == 8 + rank % 2);
        CHECK(number("comm_tag") == rank);
      } else {
        CHECK(node.type == aicb::chakra_node_type::recv);
        const std::uint64_t from = number("comm_src");
        CHECK(8 + from % 2 == rank);        // the receiver the sender's index selects
        CHECK(number("comm_tag") == from);  // equal on both ends
        ++received;
      }
    }
  }
  CHECK(received == 8u);
}
