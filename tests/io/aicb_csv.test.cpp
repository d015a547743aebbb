// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/io/aicb_csv.hpp>

#include <catch2/catch.hpp>

#include "text_file.hpp"

#include <filesystem>
#include <string>

namespace {
std::string line(const aicb::csv_item& item) {
  std::string out;
  aicb::append_csv_line(out, item);
  return out;
}
}  // namespace

TEST_CASE("aicb csv: operation and group names are aicb's enum members", "[io][csv]") {
  CHECK(aicb::to_string(aicb::csv_op::reduce_scatter) == "reduce_scatter");
  CHECK(aicb::from_string<aicb::csv_op>("all_to_all") == aicb::csv_op::all_to_all);
  CHECK(aicb::from_string<aicb::csv_op>("computation") == aicb::csv_op::computation);
  CHECK_FALSE(aicb::from_string<aicb::csv_op>("allreduce").has_value());
  for (std::size_t i = 0; i < aicb::enum_names<aicb::csv_op>::value.size(); ++i)
    CHECK(aicb::from_string<aicb::csv_op>(aicb::enum_names<aicb::csv_op>::value[i]) ==
          static_cast<aicb::csv_op>(i));
  CHECK(aicb::to_string(aicb::csv_group::ep_dp_group) == "ep_dp_group");
}

TEST_CASE("aicb csv: a line is Python's str() of each field", "[io][csv]") {
  CHECK(line(aicb::csv_item{}) == "CommType.epoch_end,None,None,0,,None,None,,None,None,None,1\n");

  aicb::csv_item grad_sync;
  grad_sync.op = aicb::csv_op::all_reduce;
  grad_sync.group = aicb::csv_group::dp_group;
  grad_sync.group_size = 8;
  grad_sync.msg_size = 1973518336;
  grad_sync.stage = "step.finish_grad_sync";
  CHECK(line(grad_sync) ==
        "CommType.all_reduce,CommGroup.dp_group,8,1973518336,step.finish_grad_sync,None,None,,None,None,None,"
        "1\n");

  aicb::csv_item send = grad_sync;
  send.op = aicb::csv_op::isend;
  send.group = aicb::csv_group::pp_group;
  send.group_size = 1;
  send.dst = 3;
  send.src = 0;
  send.additional = "send_next";
  send.elapsed_time = 12.5;
  send.count = 2;
  CHECK(line(send) ==
        "CommType.isend,CommGroup.pp_group,1,1973518336,step.finish_grad_sync,3,0,send_next,12.5,None,None,"
        "2\n");

  aicb::csv_item gemm;
  gemm.op = aicb::csv_op::computation;
  gemm.shapes = {aicb::csv_shape{{4096, 1, 4096}, 3}, aicb::csv_shape{{4096, 6144, 0}, 2}};
  gemm.stage = "forward.MegatronColumnLinear.attention_column";
  CHECK(line(gemm) ==
        "CommType.computation,None,None,((4096 1 4096) (4096 6144)),"
        "forward.MegatronColumnLinear.attention_column,None,None,,None,None,None,1\n");
}

TEST_CASE("aicb csv: float message sizes are written as Python writes them", "[io][csv]") {
  aicb::csv_item dispatch;
  dispatch.op = aicb::csv_op::all_to_all;
  dispatch.group = aicb::csv_group::ep_group;
  dispatch.msg_size_float = 12582912 * 0.515625;
  CHECK(line(dispatch).find(",6488064.0,") != std::string::npos);
  CHECK(dispatch.bytes() == 6488064);
  dispatch.msg_size_float = 1e16;
  CHECK(line(dispatch).find(",1e+16,") != std::string::npos);
  dispatch.msg_size_float = 0.5;
  CHECK(line(dispatch).find(",0.5,") != std::string::npos);
}

TEST_CASE("aicb csv: the writer streams into a file that appears only when finished", "[io][csv]") {
  const std::string path = "aicb_csv_writer_test.csv";
  std::filesystem::remove(path);
  {
    aicb::csv_writer out(path);
    aicb::csv_item item;
    item.stage = "init";
    for (int i = 0; i < 3; ++i)
      out.write(item);
    CHECK(out.items() == 3);
    CHECK_FALSE(std::filesystem::exists(path));
    out.finish();
  }
  CHECK(aicb_test::read_text(path) ==
        std::string(aicb::csv_header) + "\n" +
            "CommType.epoch_end,None,None,0,init,None,None,,None,None,None,1\n"
            "CommType.epoch_end,None,None,0,init,None,None,,None,None,None,1\n"
            "CommType.epoch_end,None,None,0,init,None,None,,None,None,None,1\n");
  std::filesystem::remove(path);
}

TEST_CASE("aicb csv: text that would break the columns is refused, and nothing is written", "[io][csv]") {
  const std::string path = "aicb_csv_writer_refused.csv";
  std::filesystem::remove(path);
  {
    aicb::csv_writer out(path);
    aicb::csv_item item;
    item.stage = "forward,oops";
    CHECK_THROWS_AS(out.write(item), aicb::config_error);
  }
  CHECK_FALSE(std::filesystem::exists(path));
}
