// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `--jobs FILE` of generate, describe, check and timeline: the same command over every job of a job set
// (docs/jobs.md; the work is aicb/commands/job_set.hpp). A set's jobs, cluster and placement are in its
// file, so a job's flags beside --jobs are refused rather than ignored.
#pragma once

#include <aicb/commands/job_set.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/timeline_html.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

namespace aicb_tool {

// Refuses `flag` given beside --jobs.
inline void refuse_beside_jobs(bool given, std::string_view flag) {
  if (given)
    throw aicb::config_error(
        std::string(flag), "(given)",
        "a job set's jobs, cluster and GPUs are in its file: give either --jobs or a job's flags");
}

inline int run_generate_job_set(const aicb::job_set_generate_request& r, bool quiet, bool json) {
  const auto start = std::chrono::steady_clock::now();
  const aicb::job_set_generated out = aicb::generate_job_set(r);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (json) {
    aicb::json_writer w;
    w.begin_object().member("schema", "aicb.jobs.generate/1").member("aicb_version", AICB_VERSION_STRING);
    w.member("path", out.path).member("format", to_string(out.format)).member("files", out.files);
    w.member(out.format == aicb::workload_format::chakra ? "nodes" : "records", out.items);
    w.member("gpus", out.gpus).member("idle_gpus", out.idle_gpus).member("compute_model", out.compute_model);
    w.key("jobs").begin_array();
    for (const auto& j : out.jobs) {
      w.begin_object().member("name", j.name).member("gpus", j.gpus).member("world_size", j.world_size);
      if (!j.file.empty()) w.member("workload", j.file).member("simai_command", j.simai_command);
      w.end_object();
    }
    w.end_array().key("notes").begin_array();
    for (const std::string& n : out.notes)
      w.value(n);
    w.end_array().member("seconds", seconds).end_object();
    std::fputs((w.str() + "\n").c_str(), stdout);
    return 0;
  }
  if (quiet) return 0;
  for (const std::string& n : out.notes)
    std::fprintf(stderr, "note: %s\n", n.c_str());
  std::printf(
      "wrote %s/: %llu file(s), %s for %zu job(s) on %llu GPUs (%llu idle); compute: %s\n", out.path.c_str(),
      static_cast<unsigned long long>(out.files),
      out.format == aicb::workload_format::chakra ? "one Chakra trace per GPU" : "a SimAI file per job",
      out.jobs.size(), static_cast<unsigned long long>(out.gpus),
      static_cast<unsigned long long>(out.idle_gpus), out.compute_model.c_str());
  for (const auto& j : out.jobs) {
    std::printf("  %s: GPUs %s\n", j.name.c_str(), j.gpus.c_str());
    if (!j.simai_command.empty()) std::printf("    simulate: %s\n", j.simai_command.c_str());
  }
  if (out.format == aicb::workload_format::chakra)
    std::printf(
        "simulate: AstraSim_Analytical_Congestion_Unaware --workload-configuration=%s/workload "
        "--comm-group-configuration=%s/comm_groups.json (a network of %llu NPUs)\n",
        out.path.c_str(), out.path.c_str(), static_cast<unsigned long long>(out.gpus));
  std::printf("took %.3f s\n", seconds);
  return 0;
}

inline int run_describe_job_set(const std::string& file, const aicb::estimate_options& overlap, bool json) {
  const aicb::placed_job_set set = aicb::place_jobs(aicb::read_job_set(file));
  const aicb::job_set_estimate e =
      aicb::estimate_job_set(set, aicb::roofline_model(std::string(set.cluster.gpu)), overlap);
  std::fputs((json ? aicb::job_set_estimate_json(e, set) : aicb::format_job_set_estimate(e, set)).c_str(),
             stdout);
  return 0;
}

inline int run_check_job_set(const std::string& file, const aicb::rank_schedule_options& schedule,
                             const aicb::job_check_options& options, bool json) {
  const auto start = std::chrono::steady_clock::now();
  const aicb::placed_job_set set = aicb::place_jobs(aicb::read_job_set(file));
  bool ok = true;
  std::string document = "{\"schema\": \"aicb.jobs.check/1\", \"jobs\": [";
  for (const aicb::job_set_check& c : aicb::check_job_set(set, schedule, options)) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ok = ok && c.check.ok;
    if (json) {
      std::string one = aicb::job_check_json(c.check, c.world_size, seconds);
      while (!one.empty() && (one.back() == '\n' || one.back() == ' '))
        one.pop_back();
      aicb::json_writer name;
      name.value(c.name);
      document += (document.back() == '[' ? "\n{\"name\": " : ",\n{\"name\": ") + name.str() +
                  ", \"check\": " + one + "}";
    } else if (c.check.ok) {
      std::printf("%s: ok: %s\n", c.name.c_str(), c.check.proved.c_str());
    } else {
      std::fprintf(stderr, "aicb: check failed: job %s: %s\n", c.name.c_str(), c.check.problem.c_str());
    }
  }
  if (json) std::fputs((document + "\n]}\n").c_str(), stdout);
  return ok ? 0 : 1;
}

inline int run_timeline_job_set(const std::string& file, const std::string& output, const std::string& format,
                                const aicb::estimate_options& overlap) {
  const aicb::placed_job_set set = aicb::place_jobs(aicb::read_job_set(file));
  const aicb::roofline_model compute{std::string(set.cluster.gpu)};
  aicb::job_set_estimate e;
  const auto produce = [&](auto&& write) {
    if (format == "json") {
      e = aicb::write_job_set_trace_events(write, set, compute, overlap);
      return;
    }
    const std::string title = std::to_string(set.jobs.size()) + " jobs on " + std::to_string(set.gpus) + " " +
                              std::string(set.cluster.gpu) + ": one iteration each, estimated";
    aicb::write_timeline_html(write, title, [&](const auto& sink) {
      e = aicb::write_job_set_trace_events(sink, set, compute, overlap);
    });
  };
  if (output == "-") {
    produce([](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); });
    return 0;
  }
  aicb::atomic_file out(output);
  produce([&](std::string_view text) { out.write(text); });
  out.commit();
  std::printf("wrote %s: %s timeline of %zu job(s) side by side\n", output.c_str(),
              format == "html" ? "an HTML" : "a trace-event JSON", e.jobs.size());
  for (const auto& j : e.jobs)
    std::printf("  %s (GPUs %s): iteration %.4g s (%.4g s alone)\n", j.name.c_str(), j.gpus.c_str(),
                j.shared.iteration_s, j.alone.iteration_s);
  return 0;
}

}  // namespace aicb_tool
