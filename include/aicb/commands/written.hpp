// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// What a writing command did, in one shape for all of them — `generate`, `deepspeed`, `micro` and
/// `inference` each return an aicb::written_workload — with its two reports: a line for a person
/// (aicb::format_written) and a versioned JSON document for a program (aicb::written_json,
/// `aicb.generate/1`, `aicb.deepspeed/1`, … with the members docs/schemas/generate.schema.json
/// describes).
///
/// ```cpp
/// const aicb::written_workload w = aicb::generate_workload(request);
/// std::fputs(aicb::written_json(w, "generate", seconds).c_str(), stdout);
/// ```

#include <aicb/config.hpp>
#include <aicb/io/workload_file.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/job.hpp>
#include <aicb/version.hpp>
#include <aicb/workload/modes.hpp>
#include <aicb/workload/record.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// What a writing command decided and wrote.
struct written_workload {
  std::string path;  ///< the file written (chakra: the directory)
  workload_format format = workload_format::simai;
  compat_mode mode = compat_mode::corrected;
  std::optional<job_spec> job{};     ///< the corrected job, its model's defaults resolved (not in aicb mode)
  std::string compute_model{};       ///< SimAI: how compute was timed
  std::vector<std::string> notes{};  ///< what was decided for the user, one line each
  std::vector<std::string> warnings{};  ///< what the workload cannot express, and profile gaps
  std::uint64_t iterations = 1;
  simai_header header{};                       ///< SimAI
  simai_file_summary written{};                ///< SimAI: records and bytes per group
  bool sidecar = false;                        ///< SimAI: FILE.json written
  std::uint64_t items = 0;                     ///< CSV: items written; chakra: nodes
  std::uint64_t files = 0;                     ///< chakra: rank files written
  std::uint64_t rank = 0, pipeline_stage = 0;  ///< the rank projected (corrected) and its stage
  /// SimAI (corrected): the SimAI_analytical command line that runs the file on the machines of its GPU
  /// (aicb::simai_command_line); empty for a GPU no cluster preset has.
  std::string simai_command{};
  /// What SimAI does not see of the job's placement (aicb::simai_placement_problem); empty: nothing.
  std::string simai_caveat{};
  std::string about{};     ///< what the file holds, in a few words ("ZeRO-3, DP 64, …")
  std::string timeline{};  ///< a timeline written beside it (inference --timeline)
  std::string details{};   ///< further lines for a person (a serving step's report, how to simulate)
};

/// `generate` is the first of the writing commands; its result is the shared shape.
using generate_result = written_workload;

/// The count a file's summary leads with: SimAI records, CSV items or Chakra nodes.
[[nodiscard]] inline std::uint64_t written_entries(const written_workload& w) {
  return w.format == workload_format::simai || w.format == workload_format::micro ? w.written.records
                                                                                  : w.items;
}

/// "wrote PATH: N records (ABOUT)", the line a writing command prints (the noun by format; none
/// when only a timeline was written), then the details.
[[nodiscard]] inline std::string format_written(const written_workload& w) {
  if (w.path.empty()) return w.details;
  const bool chakra = w.format == workload_format::chakra;
  std::string line = "wrote " + w.path + (chakra ? "/" : "") + ": ";
  if (chakra) line += std::to_string(w.files) + " Chakra traces and ";
  line += std::to_string(written_entries(w));
  line += w.format == workload_format::csv ? " items" : chakra ? " nodes" : " records";
  if (!w.about.empty()) line += " (" + w.about + ")";
  return line + "\n" + w.details;
}

/// The document `aicb.COMMAND/1` (docs/schemas/generate.schema.json): format, mode, path, the counts
/// of its format, the compute model, notes, warnings and the seconds it took.
[[nodiscard]] inline std::string written_json(const written_workload& r, std::string_view command,
                                              double seconds) {
  json_writer w;
  w.begin_object().member("schema", "aicb." + std::string(command) + "/1");
  w.member("aicb_version", AICB_VERSION_STRING);
  w.member("format", to_string(r.format)).member("mode", to_string(r.mode)).member("path", r.path);
  w.member("iterations", r.iterations);
  if (r.format == workload_format::simai || r.format == workload_format::micro) {
    w.member("records", r.written.records).member("micro_batches", r.header.ga);
    w.member("sidecar", r.sidecar);
    w.key("collective_bytes").begin_object();
    for (comm_group g : all_comm_groups)
      if (const auto n = r.written.bytes_by_group[static_cast<std::size_t>(g)])
        w.member(std::string(to_string(g)), n);
    w.end_object();
    if (!r.simai_command.empty()) w.member("simai_command", r.simai_command);
    if (!r.simai_caveat.empty()) w.member("simai_caveat", r.simai_caveat);
  } else if (r.format == workload_format::csv) {
    w.member("items", r.items).member("rank", r.rank).member("pipeline_stage", r.pipeline_stage);
  } else {
    w.member("files", r.files).member("nodes", r.items);
  }
  if (!r.compute_model.empty()) w.member("compute_model", r.compute_model);
  if (!r.about.empty()) w.member("about", r.about);
  if (!r.timeline.empty()) w.member("timeline", r.timeline);
  w.key("notes").begin_array();
  for (const std::string& n : r.notes)
    w.value(n);
  w.end_array().key("warnings").begin_array();
  for (const std::string& n : r.warnings)
    w.value(n);
  w.end_array().member("seconds", seconds).end_object();
  return w.str() + "\n";
}

AICB_END_NAMESPACE
