// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb micro`: collective micro-benchmarks — a sweep of message sizes for SimAI-Analytical
// (--format simai, default), aicb's collective-test CSV (--format csv) or aicb's SimAI MICRO file
// (--format micro, which SimAI-Analytical cannot run). aicb's flag names are accepted.
#include "commands.hpp"
#include "vocabulary.hpp"
#include "workload_output.hpp"

#include <aicb/compat/aicb_micro.hpp>
#include <aicb/generate/collective_bench.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/io/workload_file.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace aicb_tool {
namespace {

struct micro_options {
  aicb::aicb_args args;
  std::string format = "simai", output;
  std::vector<std::string> test_comm;
  std::optional<std::uint64_t> iterations;
  std::uint64_t multi_all_reduce = 0;
  bool quiet = false, no_space_check = false;
};

void add_micro_options(CLI::App& app, micro_options& o, CLI::App*& command) {
  command = app.add_subcommand("micro", "Write a collective micro-benchmark sweep (aicb's flags accepted)");
  aicb::aicb_args& a = o.args;
  a.frame = "collective_test";
  command
      ->add_option("--format", o.format,
                   "simai: a sweep SimAI-Analytical runs; csv: aicb's collective-test CSV; micro: aicb's "
                   "MICRO file (SimAI-Analytical cannot run it)")
      ->check(CLI::IsMember({"simai", "csv", "micro"}))
      ->capture_default_str();
  command->add_option("-o,--output", o.output, "output file (default: aicb's name under results/)");
  command->add_flag("-q,--quiet", o.quiet, "print only errors");
  command->add_flag("--no-space-check", o.no_space_check,
                    "write even when the estimated size exceeds the free space");
  command->add_option("--frame", a.frame, "collective_test (aicb)")->capture_default_str();
  command->add_option("--world_size,--world-size", a.world_size, "GPUs in the group")->capture_default_str();
  command
      ->add_option("--tensor_model_parallel_size,--tp", a.tensor_model_parallel_size,
                   "aicb: the test runs on world_size / (tp · pp) GPUs")
      ->capture_default_str();
  command
      ->add_option("--pipeline_model_parallel,--pipeline_model_parallel_size,--pp", a.pipeline_model_parallel,
                   "aicb: the pipeline group of --multi_all_reduce_enable")
      ->capture_default_str();
  command
      ->add_option("--test_comm,--test-comm", o.test_comm,
                   "collectives: all_reduce, all_gather, reduce_scatter, all_to_all (simai: several, comma "
                   "separated)")
      ->delimiter(',');
  command->add_option("--begin_size,--begin-size", a.begin_size, "first message size (bytes)")
      ->capture_default_str();
  command->add_option("--end_size,--end-size", a.end_size, "last message size at most (bytes)")
      ->capture_default_str();
  command->add_option("--repeat,--iter_num", o.iterations,
                      "runs per size (csv: default 500, as aicb; simai: default 1 record per size)");
  add_old_spelling(*command, "--iterations", "--repeat", o.iterations);
  command->add_option("--epoch_num,--epoch-num", a.epoch_num, "csv: sweeps in the file")
      ->capture_default_str();
  command
      ->add_option("--multi_all_reduce_enable", o.multi_all_reduce,
                   "aicb: run the test on the pipeline group")
      ->capture_default_str();
}

int run_micro(micro_options o) {
  aicb::aicb_args& a = o.args;
  if (!o.test_comm.empty()) a.test_comm = o.test_comm.front();
  a.multi_all_reduce_enable = o.multi_all_reduce != 0;
  if (o.format == "csv") {
    if (o.test_comm.size() > 1)
      throw aicb::config_error("test_comm", a.test_comm + ",...",
                               "aicb's collective-test CSV holds one collective");
    if (o.iterations) a.iter_num = *o.iterations;
    (void)aicb::sweep_sizes(a.begin_size, a.end_size);  // a zero begin size is refused before any file
    (void)aicb::derive(a);
    const std::string path = aicb::output_path_or_default(o.output, "results/mocked_workload",
                                                          std::string(aicb::collective_csv_file_name));
    // A line of this CSV is at most about 100 bytes: refuse what cannot fit before writing.
    const std::uint64_t expected = aicb::collective_csv_items(a);
    if (!o.no_space_check)
      aicb::require_free_space(path, aicb::checked_mul(expected, 100, "CSV size (bytes)"));
    const std::uint64_t items =
        aicb::write_csv_file(path, [&](auto&& sink) { aicb::generate_collective_csv(a, sink); });
    if (!o.quiet) std::printf("wrote %s: %llu items\n", path.c_str(), static_cast<unsigned long long>(items));
    return 0;
  }
  if (o.format == "micro") {
    const std::string text = aicb::micro_file_text(a);
    const std::string path =
        aicb::output_path_or_default(o.output, "results/workload", "microtest_" + a.test_comm + ".txt");
    aicb::write_file_atomically(path, text);
    if (!o.quiet)
      std::fprintf(
          stderr,
          "note: SimAI-Analytical cannot run a MICRO file (it never reads the TP, PP and EP sizes it "
          "divides by); the default --format simai can be run\n");
    if (!o.quiet) std::printf("wrote %s\n", path.c_str());
    return 0;
  }
  aicb::collective_sweep_options s;
  s.world_size = a.world_size;
  s.begin_size = a.begin_size;
  s.end_size = a.end_size;
  s.iterations = o.iterations.value_or(1);
  s.collectives.clear();
  for (const std::string& name : o.test_comm.empty() ? std::vector<std::string>{"all_reduce"} : o.test_comm)
    s.collectives.push_back(aicb::sweep_collective(name));
  const aicb::collective_sweep_workload w(s);
  std::string names;
  for (const std::string& name : o.test_comm.empty() ? std::vector<std::string>{"all_reduce"} : o.test_comm)
    names += (names.empty() ? "" : "-") + name;
  const std::string path = aicb::output_path_or_default(
      o.output, "results/workload", "microbench_" + names + "_" + std::to_string(s.world_size) + "n.txt");
  (void)aicb::write_simai_file(w, path, file_options(path, w.size(), o.quiet, o.no_space_check));
  if (!o.quiet)
    std::printf("wrote %s: %llu records (%zu sizes x %zu collectives x %llu), run with SimAI -g %llu\n",
                path.c_str(), static_cast<unsigned long long>(w.size()), w.sizes().size(),
                s.collectives.size(), static_cast<unsigned long long>(s.iterations),
                static_cast<unsigned long long>(s.world_size));
  return 0;
}

}  // namespace

void add_micro_command(CLI::App& app, action& chosen) {
  add_command<micro_options>(app, chosen, add_micro_options, run_micro);
}

}  // namespace aicb_tool
