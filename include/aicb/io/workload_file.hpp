// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Workload files as a tool writes them: a SimAI workload with its sidecar (`FILE.json`, what the
/// file holds and how it was made), or an aicb CSV — each sized before it is started, checked
/// against the command's inputs, and landing complete or not at all.
///
/// ```cpp
/// const aicb::simai_projection w(job, h100);
/// aicb::simai_sidecar about{.generator = "my-tool", .compute_model =
/// h100.provenance()}; const aicb::simai_file_summary s = aicb::write_simai_file(w, "llama.txt", {
///     .sidecar = [&](const aicb::simai_file_summary& written) { return aicb::to_json(about, "llama.txt",
///     w.header(), written); }});
/// ```
///
/// The sidecar is a versioned JSON document (`"schema": "aicb.sidecar/1"`, described by
/// docs/schemas/sidecar.schema.json): a field is added in a minor change, renamed or removed only
/// with a new version.

#include <aicb/checked.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/io/aicb_csv.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/provenance.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/units/bytes.hpp>
#include <aicb/version.hpp>
#include <aicb/workload/csv_item.hpp>
#include <aicb/workload/modes.hpp>
#include <aicb/workload/record.hpp>
#include <aicb/workload/record_stream.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The schema a sidecar names (docs/schemas/sidecar.schema.json).
inline constexpr std::string_view sidecar_schema = "aicb.sidecar/1";

/// `output` when given; otherwise `folder/name`, the folder created first (io_error when it cannot
/// be). aicb's default places: `results/workload/` (SimAI), `results/mocked_workload/` (CSV).
[[nodiscard]] inline std::string output_path_or_default(const std::string& output, const std::string& folder,
                                                        const std::string& name) {
  // "-" means standard output to most tools; a file named "-" is never what was meant.
  if (output == "-")
    AICB_THROW(config_error("output", "-",
                            "aicb writes files, not standard output: give a file name (or /dev/stdout "
                            "with -q --no-sidecar, so that nothing else mixes in)"));
  if (!output.empty()) return output;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec || !std::filesystem::is_directory(folder))
    AICB_THROW(io_error(folder, "cannot create the output folder (" +
                                    (ec ? ec.message() : std::string("a file has its name")) +
                                    "); give -o FILE to write elsewhere"));
  return folder + "/" + name;
}

/// What a SimAI workload file holds, counted while it was written.
struct simai_file_summary {
  std::uint64_t records = 0;
  std::array<std::uint64_t, all_comm_groups.size()> bytes_by_group{};  ///< whole buffers, all records
};

/// How write_simai_file writes.
struct simai_file_options {
  bool strict = true;                 ///< refuse what SimAI cannot read (simai_writer)
  bool check_space = true;            ///< refuse an estimate beyond the free space
  std::vector<std::string> inputs{};  ///< files the output may not be
  /// The sidecar's text from what was written; none: no sidecar.
  std::function<std::string(const simai_file_summary&)> sidecar{};
  /// Called once the size is estimated, before records are written (progress for a caller).
  std::function<void(std::uint64_t estimated_bytes)> on_start{};
};

/// Writes workload `w` (a SimAI projection or aicb's emulation: header(), size(), records(), and
/// optionally for_each_run()) to `path`, and its sidecar `path.json` when asked: both land or
/// neither (a sidecar that cannot be written leaves no new workload beside an old sidecar).
template <class Workload>
simai_file_summary write_simai_file(const Workload& w, const std::string& path,
                                    const simai_file_options& options = {}) {
  const output_options outputs{options.inputs};
  std::optional<atomic_file> side;
  if (options.sidecar && std::filesystem::path(path).filename().string().size() + 5 > 255)
    AICB_THROW(io_error(path + ".json",
                        "the sidecar's name would be longer than 255 bytes, the most a file "
                        "system allows: shorten the output's name, or give --no-sidecar"));
  if (options.sidecar) side.emplace(path + ".json", outputs);  // opened first: a bad name costs nothing
  simai_writer out(path, w.header(), w.size(), options.strict, outputs);
  const std::uint64_t estimate = estimate_simai_bytes(w.header(), w.size(), w.records());
  if (options.check_space) require_free_space(out.file().target(), estimate);
  if (options.on_start) options.on_start(estimate);
  simai_file_summary result;
  const auto count = [&](const record& r, std::uint64_t times) {
    for (const phase* p : {&r.forward, &r.input_grad, &r.weight_grad})
      if (p->comm.active()) {
        std::uint64_t& sum = result.bytes_by_group[static_cast<std::size_t>(p->comm.group)];
        sum = checked_add(sum, checked_mul(p->comm.size.count(), times, "bytes in collectives"),
                          "bytes in collectives of the file");
      }
  };
  if constexpr (requires { w.for_each_run([](const record_run&) {}); }) {
    // Repeated micro batches: formatted once, copied.
    w.for_each_run([&](const record_run& run) {
      out.write(run.records, run.times);
      result.records =
          checked_add(result.records, checked_mul(run.records.size(), run.times, "records"), "records");
      for (const record& r : run.records)
        count(r, run.times);
    });
  } else {
    auto records = w.records();
    for (const record& r : records) {
      out.write(r);
      ++result.records;
      count(r, 1);
    }
  }
  out.finish(false);
  if (side) {
    side->write(options.sidecar(result));
    commit_together({&out.file(), &*side});
  } else {
    out.file().commit();
  }
  return result;
}

/// What a sidecar says beyond what the file and its writing show.
struct simai_sidecar {
  std::string generator = "aicb";  ///< the program that wrote it
  compat_mode mode = compat_mode::corrected;
  std::string compute_model{};   ///< how compute was timed (compute_model::provenance)
  std::uint64_t iterations = 1;  ///< training iterations in the file
  std::optional<std::uint64_t> pipeline_stage{};
  /// Writes the job as a JSON value (descriptors, or aicb's arguments); none: null.
  std::function<void(json_writer&)> job{};
  /// Writes what runs in which format (aicb::write_precision_json); none: no "precision" key.
  std::function<void(json_writer&)> precision{};
  std::vector<std::string> warnings{};  ///< what the workload could not express, profile gaps
  provenance origin{};                  ///< the command and the input files (aicb/io/provenance.hpp)
};

/// The sidecar of a SimAI workload at `path` (its file name is recorded, not the folder).
[[nodiscard]] inline std::string to_json(const simai_sidecar& about, const std::string& path,
                                         const simai_header& header, const simai_file_summary& written) {
  json_writer w;
  w.begin_object().member("schema", sidecar_schema).member("aicb_version", AICB_VERSION_STRING);
  w.member("generator", about.generator).member("mode", to_string(about.mode));
  w.member("workload", std::filesystem::path(path).filename().string());
  w.member("format", "SimAI HYBRID_TRANSFORMER_FWD_IN_BCKWD text; times in ns, sizes in bytes");
  w.member("holds", std::to_string(about.iterations) + " training iteration(s) of one pipeline stage, " +
                        std::to_string(header.ga) + " micro batches each");
  w.member("iterations", about.iterations).member("records", written.records);
  if (about.pipeline_stage) w.member("pipeline_stage", *about.pipeline_stage);
  w.key("header").begin_object();
  w.member("model_parallel_NPU_group", header.tensor_parallel).member("ep", header.expert_parallel);
  w.member("pp", header.pipeline_parallel).member("vpp", header.vpp).member("ga", header.ga);
  w.member("all_gpus", header.all_gpus).member("pp_comm", header.pp_comm).end_object();
  w.member("compute_model", about.compute_model);
  w.key("job");
  if (about.job)
    about.job(w);
  else
    w.null();
  if (about.precision) {
    w.key("precision");
    about.precision(w);
  }
  w.key("bytes_by_group").begin_object();
  for (comm_group g : all_comm_groups)
    if (const auto n = written.bytes_by_group[static_cast<std::size_t>(g)]) w.member(to_string(g), n);
  w.end_object();
  w.key("warnings").begin_array();
  for (const std::string& warning : about.warnings)
    w.value(warning);
  w.end_array();
  w.key("provenance");
  write_json(w, about.origin);
  w.end_object();
  return w.str() + "\n";
}

/// The size of a CSV file of `epochs` epochs, estimated from one (`one_epoch` feeds a sink its
/// items), refused when it cannot fit in the free space, or when one epoch alone has more than 2^24
/// items (1.6 GB and more: the estimate would cost as much as the file).
template <class OneEpoch>
void require_csv_space(const std::string& path, OneEpoch&& one_epoch, std::uint64_t epochs) {
  struct enough {};
  constexpr std::uint64_t most = 1ULL << 24;
  std::uint64_t items = 0, bytes = 0;
  std::string line;
  try {
    one_epoch([&](const csv_item& item) {
      line.clear();
      append_csv_line(line, item);
      bytes += line.size();
      if (++items == most) throw enough{};
    });
  } catch (const enough&) {
    AICB_THROW(config_error("epoch_num", std::to_string(epochs),
                            "one iteration alone has more than 2^24 CSV items (1.6 GB and more); give "
                            "--no-space-check to write it anyway"));
  }
  const double total = static_cast<double>(bytes) * static_cast<double>(epochs);
  require_free_space(path, total >= 1.8e19 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(total));
}

/// The bytes of the CSV lines `generate` (which feeds a sink) produces, counted, not written.
template <class Generate>
[[nodiscard]] std::uint64_t csv_bytes(Generate&& generate) {
  std::uint64_t bytes = 0;
  std::string line;
  generate([&](const csv_item& item) {
    line.clear();
    append_csv_line(line, item);
    bytes += line.size();
  });
  return bytes;
}

/// Streams a CSV generator's items (`generate` feeds a sink) into `path`, which appears complete or
/// not at all. Returns the items written.
template <class Generate>
std::uint64_t write_csv_file(const std::string& path, Generate&& generate,
                             const std::vector<std::string>& inputs = {}) {
  csv_writer out(path, {inputs});
  generate([&](const csv_item& item) { out.write(item); });
  out.finish();
  return out.items();
}

AICB_END_NAMESPACE
