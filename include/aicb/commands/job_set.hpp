// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// What the tool does with a job set (docs/jobs.md), as library functions: aicb::generate_job_set
/// writes one Chakra set for the whole cluster, or one SimAI file per job with a manifest of the
/// SimAI commands that run each on its part of the cluster; aicb::format_job_set_estimate and
/// aicb::job_set_estimate_json show the jobs' iterations side by side (alone and sharing the
/// network); aicb::write_job_set_trace_events draws them on one timeline; aicb::check_job_set checks
/// every job.
///
/// ```cpp
/// aicb::job_set_generate_request r{.file = "jobs.json", .output = "cluster"};
/// const aicb::job_set_generated done = aicb::generate_job_set(r);   // cluster/workload.N.et, ...
/// ```
///
/// This header reads files, so it is not part of `<aicb/aicb.hpp>`; `<aicb/all.hpp>` includes it.

#include <aicb/commands/generate.hpp>
#include <aicb/compute/job_set.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/chakra_job_set.hpp>
#include <aicb/io/job_set_reader.hpp>
#include <aicb/io/trace_events.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/schedule/job_check.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The schema of the manifest of a job set's SimAI files.
inline constexpr std::string_view job_set_simai_schema = "aicb.jobs.simai/1";

/// What `aicb generate --jobs FILE` is asked.
struct job_set_generate_request {
  std::string file{};                                 ///< the job set document (aicb.jobs/1)
  workload_format format = workload_format::chakra;   ///< chakra (one set) | simai (a file per job)
  std::string output{};                               ///< the directory; empty: results/jobs/<document name>
  compute_source compute = compute_source::roofline;  ///< roofline | constant
  std::uint64_t iterations = 1;
};

/// What generate_job_set wrote.
struct job_set_generated {
  std::string path;  ///< the directory
  workload_format format = workload_format::chakra;
  std::uint64_t files = 0, items = 0;  ///< files written; Chakra nodes or SimAI records
  std::uint64_t gpus = 0, idle_gpus = 0;
  std::string compute_model;
  struct job {
    std::string name, gpus;
    std::uint64_t world_size = 0;
    std::string file;           ///< simai: its workload file (in the directory)
    std::string simai_command;  ///< simai: SimAI-Analytical on the job's GPUs
  };
  std::vector<job> jobs;
  std::vector<std::string> notes;  ///< "NAME: what was decided for the user"
};

namespace detail {

// Why `dir` is not a job set's SimAI directory aicb wrote (manifest.json of job_set_simai_schema
// listing exactly the files present), or "" when it is one.
inline std::string why_not_a_previous_simai_job_set(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path manifest = dir / "manifest.json";
  if (!fs::is_regular_file(fs::symlink_status(manifest, ec)))
    return "no manifest.json of a job set aicb wrote";
  std::set<std::string> listed{"manifest.json"};
  try {
    const file_prefix in = read_file_prefix(manifest.string(), 16 << 20, "manifest.json");
    const nlohmann::json m = nlohmann::json::parse(in.text);
    if (!m.is_object() || m.value("schema", "") != job_set_simai_schema || !m.contains("files") ||
        !m["files"].is_array())
      return "manifest.json is not the manifest of an aicb.jobs.simai/1 directory";
    for (const nlohmann::json& f : m["files"])
      if (f.is_string()) listed.insert(f.get<std::string>());
  } catch (const std::exception&) {
    return "manifest.json is not one aicb wrote";
  }
  std::uint64_t present = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!listed.contains(name) || !fs::is_regular_file(fs::symlink_status(it->path(), ec)))
      return "\"" + name + "\" is not a file the manifest lists";
    ++present;
  }
  if (ec) return "the directory cannot be listed: " + ec.message();
  return present == listed.size() ? std::string() : "files the manifest lists are missing";
}

inline std::unique_ptr<compute_model> job_set_compute(compute_source source, const cluster_spec& cluster) {
  if (source == compute_source::constant) return std::make_unique<constant_model>();
  if (source != compute_source::roofline && source != compute_source::automatic)
    AICB_THROW(config_error("compute", std::string(to_string(source)),
                            "a job set is timed by roofline or constant (an AIOB profile is one job's)"));
  return std::make_unique<roofline_model>(std::string(cluster.gpu));
}

}  // namespace detail

/// Writes the workloads of the job set `r.file` names (see the file comment).
inline job_set_generated generate_job_set(const job_set_generate_request& r) {
  const placed_job_set set = place_jobs(read_job_set(r.file));
  job_set_generated out;
  out.format = r.format;
  out.gpus = set.gpus;
  out.idle_gpus = set.idle_gpus();
  out.path = r.output.empty()
                 ? (std::filesystem::path("results/jobs") / std::filesystem::path(r.file).stem()).string()
                 : r.output;
  const std::unique_ptr<compute_model> compute = detail::job_set_compute(r.compute, set.cluster);
  out.compute_model = compute->provenance();
  if (r.iterations == 0) AICB_THROW(config_error("iterations", "0", "at least one iteration"));
  for (const placed_job& j : set.jobs) {
    out.jobs.push_back({.name = j.name,
                        .gpus = detail::gpu_ranges(j.gpus),
                        .world_size = j.job.parallel.world_size,
                        .file = {},
                        .simai_command = {}});
    for (const std::string& note : j.notes)
      out.notes.push_back(j.name + ": " + note);
  }
  if (r.format == workload_format::chakra) {
    const chakra_set_result written = write_chakra_job_set(
        out.path, set, *compute,
        {.name = "workload", .schedule = {.iterations = r.iterations}, .about = [&](json_writer& j) {
           j.member("compute_model", out.compute_model).member("iterations", r.iterations);
         }});
    out.files = written.files;
    out.items = written.nodes;
    return out;
  }
  if (r.format != workload_format::simai)
    AICB_THROW(
        config_error("format", std::string(to_string(r.format)),
                     "a job set is written as chakra (one set for the cluster) or simai (a file per job)"));
  // One corrected SimAI file per job, as `aicb generate` writes it, and the manifest.
  atomic_directory dir(out.path, detail::why_not_a_previous_simai_job_set);
  std::vector<std::string> files;
  for (std::size_t k = 0; k < set.jobs.size(); ++k) {
    const placed_job& j = set.jobs[k];
    generate_request g;
    g.output = dir.file(j.name + ".txt");
    g.cluster = std::string(set.cluster.name);
    g.flags.set("gpu_type", std::string(set.cluster.gpu));
    g.compute = r.compute;
    g.iterations = r.iterations;
    const generate_result written = detail::corrected_simai_of(g, j.job, {}, {});
    for (const std::string& w : written.warnings)
      out.notes.push_back(j.name + ": " + w);
    out.items += written.written.records;
    out.files += 2;  // the workload and its sidecar
    out.jobs[k].file = j.name + ".txt";
    files.push_back(j.name + ".txt");
    files.push_back(j.name + ".txt.json");
    // SimAI runs one job on its own GPUs: the rest of the cluster is the other jobs'.
    out.jobs[k].simai_command = simai_command_line(
        set.cluster, j.job.parallel.world_size,
        (std::filesystem::path(out.path) / (j.name + ".txt")).string(), "aicb-" + j.name + "-");
  }
  json_writer m;
  m.begin_object()
      .member("schema", job_set_simai_schema)
      .member("generator", std::string("aicb ") + AICB_VERSION_STRING);
  m.member("source", std::filesystem::path(r.file).filename().string()).member("cluster", set.cluster.name);
  m.member("gpus", set.gpus).member("idle_gpus", out.idle_gpus).member("compute_model", out.compute_model);
  m.member("simai",
           "SimAI-Analytical simulates one job at a time on its own GPUs: each command runs one job as if "
           "alone (aicb describe --jobs prices the jobs' contention)");
  m.key("files").begin_array();
  for (const std::string& f : files)
    m.value(f);
  m.end_array();
  m.key("jobs").begin_array();
  for (const auto& j : out.jobs)
    m.begin_object()
        .member("name", j.name)
        .member("gpus", j.gpus)
        .member("world_size", j.world_size)
        .member("workload", j.file)
        .member("simai_command", j.simai_command)
        .end_object();
  m.end_array().end_object();
  write_file_atomically(dir.file("manifest.json"), m.str() + "\n", {.remove_stale_temporaries = false});
  ++out.files;
  dir.commit();
  return out;
}

/// The jobs' iterations side by side, as a person reads them.
[[nodiscard]] inline std::string format_job_set_estimate(const job_set_estimate& e,
                                                         const placed_job_set& set) {
  std::string text;
  char line[512];
  std::snprintf(line, sizeof line, "%zu job(s) on %llu GPUs of %s (%llu idle)", e.jobs.size(),
                static_cast<unsigned long long>(e.gpus), e.cluster.c_str(),
                static_cast<unsigned long long>(e.idle_gpus));
  text += line;
  if (set.network.nodes_per_leaf > 0)
    std::snprintf(line, sizeof line, "; leaves of %llu nodes, uplinks oversubscribed %g:1\n",
                  static_cast<unsigned long long>(set.network.nodes_per_leaf), set.network.oversubscription);
  else
    std::snprintf(line, sizeof line, "; one non-blocking fabric\n");
  text += line;
  std::snprintf(line, sizeof line, "%-16s %-14s %5s %6s %12s %12s %9s %7s\n", "job", "GPUs", "nodes",
                "leaves", "alone (s)", "shared (s)", "slowdown", "MFU");
  text += line;
  for (const job_in_set_estimate& j : e.jobs) {
    std::snprintf(line, sizeof line, "%-16s %-14s %5llu %6llu %12.4f %12.4f %8.3fx %6.1f%%\n", j.name.c_str(),
                  j.gpus.c_str(), static_cast<unsigned long long>(j.nodes),
                  static_cast<unsigned long long>(j.leaves), j.alone.iteration_s, j.shared.iteration_s,
                  j.alone.iteration_s > 0 ? j.shared.iteration_s / j.alone.iteration_s : 1.0,
                  100 * j.shared.mfu);
    text += line;
  }
  bool any_shared = false;
  for (const job_in_set_estimate& j : e.jobs) {
    if (j.network_slowdown > j.network_slowdown_alone) {
      std::snprintf(line, sizeof line,
                    "%s: network busy %.0f%% of its iteration; its leaves' uplinks carry %.2fx what they "
                    "can beside the other jobs (%.2fx alone)\n",
                    j.name.c_str(), 100 * j.network_duty, j.network_slowdown, j.network_slowdown_alone);
      text += line;
      any_shared = true;
    }
    if (!j.node_aligned)
      text += j.name +
              ": its GPUs are not consecutive; estimated as if its ranks ran on consecutive GPUs from its "
              "first\n";
  }
  if (!any_shared)
    text += "no job slows another: no leaf's uplinks are oversubscribed by the jobs it carries\n";
  return text;
}

/// The estimate as JSON (schema aicb.jobs.estimate/1, docs/schemas/jobs.schema.json).
[[nodiscard]] inline std::string job_set_estimate_json(const job_set_estimate& e, const placed_job_set& set) {
  json_writer w;
  w.begin_object().member("schema", "aicb.jobs.estimate/1").member("aicb_version", AICB_VERSION_STRING);
  w.member("cluster", e.cluster).member("gpus", e.gpus).member("idle_gpus", e.idle_gpus);
  w.member("nodes_per_leaf", set.network.nodes_per_leaf)
      .member("oversubscription", set.network.oversubscription);
  w.key("jobs").begin_array();
  for (const job_in_set_estimate& j : e.jobs) {
    w.begin_object().member("name", j.name).member("gpus", j.gpus).member("nodes", j.nodes);
    w.member("leaves", j.leaves).member("node_aligned", j.node_aligned);
    w.member("network_duty", j.network_duty).member("network_slowdown_alone", j.network_slowdown_alone);
    w.member("network_slowdown", j.network_slowdown);
    w.member("alone_iteration_s", j.alone.iteration_s).member("shared_iteration_s", j.shared.iteration_s);
    w.member("alone_mfu", j.alone.mfu).member("shared_mfu", j.shared.mfu);
    w.member("tokens_per_s", j.shared.tokens_per_s).end_object();
  }
  w.end_array().end_object();
  return w.str() + "\n";
}

/// Writes the jobs of `set`, each sharing the network as estimate_job_set prices it, on one timeline:
/// a process per job and pipeline stage ("NAME stage S (GPU G)"), jobs stacked in the set's order.
template <class Write>
job_set_estimate write_job_set_trace_events(Write&& write, const placed_job_set& set,
                                            const compute_model& compute,
                                            const estimate_options& options = {}) {
  const job_set_estimate e = estimate_job_set(set, compute, options);
  detail::trace_document<Write> doc(write);
  std::uint64_t base = 0;
  double longest = 0;
  for (std::size_t k = 0; k < set.jobs.size(); ++k) {
    const job_spec& job = set.jobs[k].job;
    const std::uint64_t stages = job.parallel.pipeline_parallel;
    for (std::uint64_t s = 0; s < stages; ++s) {
      std::string label = set.jobs[k].name;
      label.append(" stage ").append(std::to_string(s)).append(" (GPU ");
      label.append(std::to_string(set.jobs[k].gpu_of(first_rank_of_stage(job, s)))).append(")");
      doc.name_process(base + s, label, base + s, trace_streams.size());
    }
    (void)estimate_iteration(
        job, compute, cluster_of_job(set, set.jobs[k], e.jobs[k].network_slowdown), options,
        [&](const timed_interval& i) { doc.emit(detail::interval_event(i, *i.op, base + i.stage)); });
    longest = std::max(longest, e.jobs[k].shared.iteration_s);
    base += stages;
  }
  doc.finish(set.cluster, compute.provenance(), longest, 0, 0);
  return e;
}

/// One job's check in a set.
struct job_set_check {
  std::string name;
  job_check check;
  std::uint64_t world_size = 0;
};

/// check_job on every job of `set` (each on its own ranks: jobs share no group, placement checked by
/// place_jobs).
[[nodiscard]] inline std::vector<job_set_check> check_job_set(const placed_job_set& set,
                                                              rank_schedule_options schedule = {},
                                                              const job_check_options& options = {}) {
  std::vector<job_set_check> out;
  for (const placed_job& j : set.jobs)
    out.push_back({.name = j.name,
                   .check = check_job(j.job, schedule, options),
                   .world_size = j.job.parallel.world_size});
  return out;
}

AICB_END_NAMESPACE
