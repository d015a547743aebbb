// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb aiob show | check | convert`: look into, validate and upgrade AIOB computation profiles.
#include "commands.hpp"
#include "job_flags.hpp"

#include <aicb/compute/aiob_model.hpp>
#include <aicb/compute/aiob_profile.hpp>
#include <aicb/io/aiob_reader.hpp>
#include <aicb/io/atomic_file.hpp>

#include <CLI/CLI.hpp>

#include <memory>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace aicb_tool {
namespace {

struct aiob_options {
  std::string file;
  std::string output;
  std::string to = "v2";
  bool strict = false;
  bool recompute = false;
  std::vector<std::string> set;  // key=value provenance entries for convert
  std::string gpu, dtype;
  job_flags job;  // check: the job the profile is meant for
};

void add_aiob_options(CLI::App& app, aiob_options& o, CLI::App*& show, CLI::App*& check, CLI::App*& convert) {
  auto* aiob = app.add_subcommand("aiob", "Show, check and convert AIOB computation profiles");
  aiob->require_subcommand(1);
  show = aiob->add_subcommand("show", "Sections, derived per-layer times and provenance of a profile");
  show->add_option("file", o.file, "profile")->required();
  show->add_flag("--recompute", o.recompute, "derive aicb's times as with --recompute_activations");
  check =
      aiob->add_subcommand("check", "Validate a profile (exit 0 if valid, 2 if not); compare it with a job");
  check->add_option("file", o.file, "profile")->required();
  check->add_flag("--strict", o.strict,
                  "a profile that does not match the job (or records nothing) is an error");
  check->add_option("--gpu", o.gpu, "the GPU the job runs on");
  o.job.add_to(*check);
  convert = aiob->add_subcommand("convert", "Rewrite a profile as version 2 with provenance you supply");
  convert->add_option("file", o.file, "profile")->required();
  convert->add_option("--to", o.to, "target version (v2)")->check(CLI::IsMember({"v2"}));
  convert->add_option("-o,--output", o.output, "output file (default: FILE.v2.txt)");
  convert->add_option("--gpu", o.gpu, "GPU the profile was measured on");
  convert->add_option("--dtype", o.dtype, "dtype it was measured in");
  convert->add_option("--set", o.set, "another provenance entry, key=value (repeatable)");
}

int run_aiob_show(const aiob_options& o) {
  const aicb::aiob_profile p = aicb::read_aiob_file(o.file);
  std::printf("%s: AIOB profile version %d, %zu sections\n", o.file.c_str(), p.version(), p.sections.size());
  if (p.train_iter)
    std::printf(
        "train_iter: %llu  (aicb: forward iterations profiled per operation; not simulated iterations)\n",
        static_cast<unsigned long long>(*p.train_iter));
  std::printf("\nprovenance\n");
  if (p.version() < 2)
    std::printf("  unknown: this profile does not say which GPU, dtype or shapes it was measured on\n");
  for (const std::string& line : p.header)
    if (auto kv = aicb::split_note(line); kv && kv->first != "aicb-profile")
      std::printf("  %-20s %s\n", std::string(kv->first).c_str(), std::string(kv->second).c_str());
  std::printf("\nsections (microseconds of GPU time per call)\n  %-26s %12s %12s %12s %12s\n", "name", "avg",
              "min", "max", "backward avg");
  for (const aicb::aiob_section& s : p.sections) {
    const auto cell = [](std::optional<double> v) { return v ? std::to_string(*v) : std::string("-"); };
    const auto bwd = s.note("backward_avg_us");
    std::printf("  %-26s %12s %12s %12s %12s\n", s.name.c_str(), cell(s.stat("time_gpu_avg")).c_str(),
                cell(s.stat("time_gpu_min")).c_str(), cell(s.stat("time_gpu_max")).c_str(),
                bwd ? std::string(*bwd).c_str() : "-");
  }
  std::printf("\nderived per-layer times as aicb computes them (nanoseconds)%s\n",
              o.recompute ? ", with --recompute_activations" : "");
  for (const auto& [key, value] : aicb::aicb_cache_from_profile(p, o.recompute).entries)
    std::printf("  %-26s %12lld\n", key.c_str(), static_cast<long long>(value));
  return 0;
}

int run_aiob_check(const aiob_options& o) {
  const aicb::aiob_profile p = aicb::read_aiob_file(o.file);
  std::printf("%s: valid AIOB profile, version %d, %zu sections\n", o.file.c_str(), p.version(),
              p.sections.size());
  const aicb::job_spec job = o.job.job();
  if (job.model.hidden_size == 0 && o.gpu.empty()) return 0;  // no job to compare with
  aicb::validate(job);
  const auto mismatches = aicb::profile_mismatches(p, job, o.gpu);
  for (const std::string& m : mismatches)
    std::fprintf(stderr, "%s: %s: %s\n", o.file.c_str(), o.strict ? "error" : "warning", m.c_str());
  return o.strict && !mismatches.empty() ? 2 : 0;
}

int run_aiob_convert(const aiob_options& o) {
  aicb::aiob_profile p = aicb::read_aiob_file(o.file);
  std::vector<std::pair<std::string, std::string>> entries;
  if (!o.gpu.empty()) entries.emplace_back("gpu", o.gpu);
  if (!o.dtype.empty()) entries.emplace_back("dtype", o.dtype);
  for (const std::string& kv : o.set) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw aicb::config_error("set", kv, "expected key=value");
    entries.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (p.train_iter)
    entries.emplace_back("iterations",
                         std::to_string(*p.train_iter) + " (aicb train_iter: forward iterations profiled)");
  p = aicb::with_provenance(std::move(p), entries);
  const std::string output = o.output.empty() ? o.file + ".v2.txt" : o.output;
  aicb::write_file_atomically(output, aicb::write_aiob(p), {{o.file}});
  std::printf("wrote %s (version 2, %zu provenance entries)\n", output.c_str(), p.header.size() - 1);
  return 0;
}

}  // namespace

void add_aiob_commands(CLI::App& app, action& chosen) {
  auto options = std::make_shared<aiob_options>();
  CLI::App *show = nullptr, *check = nullptr, *convert = nullptr;
  add_aiob_options(app, *options, show, check, convert);
  on_chosen(show, chosen, options, run_aiob_show);
  on_chosen(check, chosen, options, run_aiob_check);
  on_chosen(convert, chosen, options, run_aiob_convert);
}

}  // namespace aicb_tool
