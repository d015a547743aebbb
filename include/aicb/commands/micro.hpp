// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// What `aicb micro` does, as a library call: a collective micro-benchmark — message sizes doubling
/// from a first to a last — written as a sweep SimAI-Analytical runs (workload_format::simai, the
/// default), as aicb's collective-test CSV (csv) or as aicb's SimAI MICRO file (micro, which
/// SimAI-Analytical cannot run: it never reads the TP, PP and EP sizes it divides by).
///
/// ```cpp
/// aicb::micro_request r;
/// r.args.world_size = 16;
/// r.collectives = {aicb::collective::all_reduce, aicb::collective::all_to_all};
/// const aicb::written_workload w = aicb::write_micro(r);   // microbench_all_reduce-all_to_all_16n.txt
/// ```

#include <aicb/checked.hpp>
#include <aicb/commands/written.hpp>
#include <aicb/compat/aicb_args.hpp>
#include <aicb/compat/aicb_micro.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/generate/collective_bench.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/workload_file.hpp>
#include <aicb/workload/modes.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

AICB_BEGIN_NAMESPACE

/// aicb's arguments as its collective test starts them (frame collective_test).
[[nodiscard]] inline aicb_args micro_args() {
  aicb_args a;
  a.frame = "collective_test";
  return a;
}

/// What `aicb micro` is asked.
struct micro_request {
  aicb_args args = micro_args();            ///< world size, sizes, aicb's test options, by aicb's flags
  std::vector<collective> collectives{};    ///< the collectives (csv and micro: one); empty: all-reduce
  std::optional<workload_format> format{};  ///< simai | csv | micro; none: aicb::default_format
  std::optional<std::uint64_t> repeat{};    ///< runs per size (csv: aicb's 500; simai: 1 record)
  std::string output{};                     ///< the file; empty: aicb's name under results/
  bool check_space = true;                  ///< refuse an estimate beyond the free space
  /// Told a SimAI file's path, records and estimated bytes before it is written.
  std::function<void(const std::string&, std::uint64_t, std::uint64_t)> writing{};
};

/// Writes the benchmark `r` asks for and says what it wrote; config_error naming the field for a
/// collective a sweep cannot run, sizes that make no sweep, or several collectives in a one-test file.
inline written_workload write_micro(const micro_request& r) {
  written_workload out;
  out.format = r.format.value_or(default_format(compat_mode::corrected));
  if (out.format != workload_format::simai && out.format != workload_format::csv &&
      out.format != workload_format::micro)
    AICB_THROW(
        config_error("format", std::string(to_string(out.format)), "micro writes simai, csv or micro"));
  const std::vector<collective> kinds =
      r.collectives.empty() ? std::vector<collective>{collective::all_reduce} : r.collectives;
  std::string names;
  for (const collective kind : kinds) {
    if (out.format != workload_format::csv) (void)sweep_collective(to_string(kind));  // else refused by name
    names += (names.empty() ? "" : "-") + std::string(to_string(kind));
  }
  aicb_args a = r.args;
  a.test_comm = std::string(to_string(kinds.front()));
  if (out.format != workload_format::simai && kinds.size() > 1)
    AICB_THROW(config_error("test_comm", names, "aicb's collective-test files hold one collective"));
  if (out.format == workload_format::csv) {
    if (r.repeat) a.iter_num = *r.repeat;
    (void)sweep_sizes(a.begin_size, a.end_size);  // a zero begin size is refused before any file
    (void)derive(a);
    out.path =
        output_path_or_default(r.output, "results/mocked_workload", std::string(collective_csv_file_name));
    // A line of this CSV is at most about 100 bytes: refuse what cannot fit before writing.
    if (r.check_space)
      require_free_space(out.path, checked_mul(collective_csv_items(a), 100, "CSV size (bytes)"));
    out.items = write_csv_file(out.path, [&](auto&& sink) { generate_collective_csv(a, sink); });
    out.iterations = a.epoch_num;
    out.about = names + ", " + std::to_string(a.iter_num) + " runs per size";
    return out;
  }
  if (out.format == workload_format::micro) {
    const std::string text = micro_file_text(a);
    out.path = output_path_or_default(r.output, "results/workload", "microtest_" + a.test_comm + ".txt");
    write_file_atomically(out.path, text);
    out.written.records = sweep_sizes(a.begin_size, a.end_size).size();  // one micro_test record per size
    out.mode = compat_mode::aicb;
    out.warnings.push_back(
        "SimAI-Analytical cannot run a MICRO file (it never reads the TP, PP and EP sizes it divides by); "
        "the default --format simai can be run");
    out.about = "aicb's MICRO file, " + a.test_comm;
    return out;
  }
  collective_sweep_options s;
  s.world_size = a.world_size;
  s.begin_size = a.begin_size;
  s.end_size = a.end_size;
  s.iterations = r.repeat.value_or(1);
  s.collectives = kinds;
  const collective_sweep_workload w(s);
  out.path = output_path_or_default(r.output, "results/workload",
                                    "microbench_" + names + "_" + std::to_string(s.world_size) + "n.txt");
  simai_file_options file{.check_space = r.check_space};
  if (r.writing) file.on_start = [&](std::uint64_t bytes) { r.writing(out.path, w.size(), bytes); };
  out.written = write_simai_file(w, out.path, file);
  out.header = w.header();
  out.about = std::to_string(w.sizes().size()) + " sizes x " + std::to_string(kinds.size()) +
              " collectives x " + std::to_string(s.iterations) + "; run with SimAI -g " +
              std::to_string(s.world_size);
  return out;
}

AICB_END_NAMESPACE
