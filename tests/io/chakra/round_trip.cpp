// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// aicb's Chakra traces decoded by the real protobuf library (Debian's libprotobuf, through et_def.proto
// with Chakra's field numbers), checked node for node against the rank graphs, and against aicb's own
// reader. Built only where protobuf is installed; elsewhere the suite registers this test as skipped.
#include "chakra_checks.hpp"
#include "et_def.pb.h"

#include <aicb/compute/roofline.hpp>
#include <aicb/io/chakra.hpp>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace {

// A protobuf-decoded node in aicb's terms, the oneof member kept as its field number.
aicb::chakra_node from_protobuf(const ChakraProtoMsg::Node& n) {
  aicb::chakra_node out;
  out.id = n.id();
  out.name = n.name();
  out.type = static_cast<aicb::chakra_node_type>(n.type());
  out.data_deps.assign(n.data_deps().begin(), n.data_deps().end());
  out.ctrl_deps.assign(n.ctrl_deps().begin(), n.ctrl_deps().end());
  out.duration_micros = n.duration_micros();
  for (const ChakraProtoMsg::AttributeProto& a : n.attr()) {
    aicb::chakra_attribute x;
    x.name = a.name();
    x.field = static_cast<std::uint32_t>(a.value_case());  // the oneof case is the field number
    switch (a.value_case()) {
      case ChakraProtoMsg::AttributeProto::kInt32Val:
        x.number = static_cast<std::uint64_t>(a.int32_val());
        break;
      case ChakraProtoMsg::AttributeProto::kInt64Val:
        x.number = static_cast<std::uint64_t>(a.int64_val());
        break;
      case ChakraProtoMsg::AttributeProto::kUint64Val:
        x.number = a.uint64_val();
        break;
      case ChakraProtoMsg::AttributeProto::kBoolVal:
        x.number = a.bool_val() ? 1 : 0;
        break;
      case ChakraProtoMsg::AttributeProto::kStringVal:
        x.text = a.string_val();
        break;
      default:
        FAIL("attribute " << a.name() << " in a oneof member aicb does not write: " << a.value_case());
    }
    out.attrs.push_back(std::move(x));
  }
  return out;
}

// Decodes a file as Chakra's own tools do: delimited GlobalMetadata, then delimited Nodes to the end.
std::vector<aicb::chakra_node> decode(const std::string& bytes, std::string& version) {
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  ChakraProtoMsg::GlobalMetadata metadata;
  bool clean_eof = false;
  REQUIRE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&metadata, &raw, &clean_eof));
  version = metadata.version();
  std::vector<aicb::chakra_node> nodes;
  for (;;) {
    ChakraProtoMsg::Node node;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&node, &raw, &clean_eof)) {
      REQUIRE(clean_eof);  // the end of the file, not a message protobuf could not parse
      break;
    }
    nodes.push_back(from_protobuf(node));
  }
  return nodes;
}

}  // namespace

TEST_CASE("chakra, decoded by protobuf: every rank's graph node for node, sends meet receives",
          "[io][chakra][protobuf]") {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  const aicb::roofline_model gpu("H100");
  for (const auto& [label, job] : aicb_test::chakra_layouts()) {
    INFO(label);
    const std::string dir = "chakra-protobuf";
    std::filesystem::remove_all(dir);
    const aicb::chakra_set_result r = aicb::write_chakra_set(dir, job, gpu);
    const nlohmann::json groups = nlohmann::json::parse(aicb_test::read_all(dir + "/comm_groups.json"));
    std::multiset<aicb_test::transfer_key> sends, recvs;
    std::uint64_t nodes = 0;
    for (std::uint64_t rank = 0; rank < job.parallel.world_size; ++rank) {
      const std::string file = dir + "/workload." + std::to_string(rank) + ".et";
      const std::string bytes = aicb_test::read_all(file);
      std::string version;
      const std::vector<aicb::chakra_node> decoded = decode(bytes, version);
      CHECK(version == "0.0.4");
      aicb_test::check_rank_nodes(job, rank, gpu, decoded, groups, sends, recvs);
      // aicb's reader reads the same.
      const aicb::chakra_trace own = aicb::read_chakra_trace(bytes, file);
      REQUIRE(own.nodes.size() == decoded.size());
      for (std::size_t i = 0; i < decoded.size(); ++i) {
        CHECK(own.nodes[i].id == decoded[i].id);
        CHECK(own.nodes[i].data_deps == decoded[i].data_deps);
        CHECK(own.nodes[i].attrs.size() == decoded[i].attrs.size());
      }
      nodes += decoded.size();
    }
    CHECK(nodes == r.nodes);
    CHECK(sends == recvs);
  }
}
