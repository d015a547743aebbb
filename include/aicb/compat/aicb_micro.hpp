// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb's collective micro-test (`--frame collective_test`), byte for byte (docs/micro.md):
///
/// - generate_collective_csv() — aicb's physical-cluster CSV: `iter_num` warm-up runs at begin_size,
///   then `iter_num` runs per size of the sweep, each epoch closed by an empty item.
/// - micro_file_text() — aicb's SimAI `MICRO` file. SimAI-Analytical cannot run it: the MICRO policy
///   never sets the TP/PP/EP sizes, and its report divides by them. The corrected sweep SimAI runs is
///   aicb::collective_sweep_workload (<aicb/generate/collective_bench.hpp>).

#include <aicb/checked.hpp>
#include <aicb/compat/aicb_args.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/generate/collective_bench.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/workload/csv_item.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// aicb's collective-test CSV items (`--frame collective_test`), passed one by one to `sink`.
/// With `multi_all_reduce_enable` the test runs on the pipeline group, as aicb's does.
template <class Sink>
void generate_collective_csv(const aicb_args& a, Sink&& sink) {
  const auto op = from_string<csv_op>(a.test_comm);
  if (!op)
    AICB_THROW(config_error("test_comm", a.test_comm, "aicb fails here: not one of aicb's CommType values"));
  const aicb_derived d = derive(a);
  const std::vector<std::uint64_t> sizes = sweep_sizes(a.begin_size, a.end_size);
  csv_item item;
  item.op = *op;
  item.group = csv_group::dp_group;
  item.group_size = d.dp;
  item.msg_size = a.begin_size;
  item.stage = "warmup";
  for (std::uint64_t i = 0; i < a.iter_num; ++i)
    sink(item);
  const csv_item epoch_end{};
  sink(epoch_end);
  if (a.multi_all_reduce_enable) {
    item.group = csv_group::pp_group;
    item.group_size = a.pipeline_model_parallel;
  }
  item.stage = "test_step";
  for (std::uint64_t epoch = 0; epoch < a.epoch_num; ++epoch) {
    for (std::uint64_t size : sizes) {
      item.msg_size = size;
      for (std::uint64_t i = 0; i < a.iter_num; ++i)
        sink(item);
    }
    sink(epoch_end);
  }
}

/// Items generate_collective_csv produces for `a` (known before writing: the sweep's repetitions are
/// the user's, and may be enormous); config_error when the count exceeds 2^64 − 1.
[[nodiscard]] inline std::uint64_t collective_csv_items(const aicb_args& a) {
  const std::uint64_t sizes = sweep_sizes(a.begin_size, a.end_size).size();
  const std::uint64_t per_epoch =
      checked_add(checked_mul(sizes, a.iter_num, "CSV items of an epoch (sizes x iter_num)"), 1, "CSV items");
  return checked_add(checked_add(a.iter_num, 1, "CSV items"),
                     checked_mul(a.epoch_num, per_epoch, "CSV items (epoch_num x items)"), "CSV items");
}

/// The CSV file aicb writes for its collective test: always this name.
inline constexpr std::string_view collective_csv_file_name = "multi_all_reduce_workload.csv";

/// aicb's SimAI `MICRO` file: `MICRO`, the record count, one `micro_test` record per size.
/// Throws where aicb does: an unsupported collective, or `multi_all_reduce_enable` (aicb BUG-21).
[[nodiscard]] inline std::string micro_file_text(const aicb_args& a) {
  if (a.multi_all_reduce_enable)
    AICB_THROW(
        config_error("multi_all_reduce_enable", "1",
                     "aicb crashes here: its MICRO writer reads self.ga_num, which the micro test never "
                     "sets (AttributeError, aicb BUG-21); no file is written"));
  const collective kind = sweep_collective(a.test_comm);
  const std::vector<std::uint64_t> sizes = sweep_sizes(a.begin_size, a.end_size);
  // Appended piece by piece: g++ 12 warns falsely (-Wrestrict, PR 105329) on chained operator+ here.
  std::string text = "MICRO\n";
  text.append(std::to_string(sizes.size())).append("\n");
  for (std::uint64_t size : sizes) {
    text += "micro_test\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\t";
    text += simai_comm_token({kind, comm_group::dp, bytes{size}}, simai_column::weight_grad);
    text.append("\t").append(std::to_string(size)).append("\t1\n");
  }
  return text;
}

AICB_END_NAMESPACE
