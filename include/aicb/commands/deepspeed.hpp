// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// What `aicb deepspeed` does, as a library call: a DeepSpeed ZeRO stage 1, 2 or 3 job, described by
/// aicb's flags (aicb::aicb_args), written as SimAI text or as aicb's physical-cluster CSV — the same
/// operations of the per-rank model (aicb::deepspeed_job) in both — or, under compat_mode::aicb, as
/// aicb's own CSV byte for byte (its mocked LLaMA's parameter walk).
///
/// ```cpp
/// aicb::deepspeed_request r;
/// r.args.stage = 3;
/// r.args.world_size = 64;
/// const aicb::written_workload w = aicb::write_deepspeed(r);   // deepspeed_stage3_None_64n.txt
/// ```
///
/// The format follows the one rule (aicb::default_format): SimAI text unless asked, aicb's CSV under
/// compat_mode::aicb (aicb writes no SimAI file for DeepSpeed: asking for one is refused).

#include <aicb/commands/written.hpp>
#include <aicb/compat/aicb_args.hpp>
#include <aicb/compat/deepspeed_csv.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/generate/csv_projection.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/io/workload_file.hpp>
#include <aicb/workload/modes.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

AICB_BEGIN_NAMESPACE

/// aicb's arguments as its DeepSpeed scripts start them: frame DeepSpeed, no model parallelism.
[[nodiscard]] inline aicb_args deepspeed_args() {
  aicb_args a;
  a.frame = "DeepSpeed";
  a.tensor_model_parallel_size = a.pipeline_model_parallel = 1;
  return a;
}

/// What `aicb deepspeed` is asked.
struct deepspeed_request {
  aicb_args args = deepspeed_args();            ///< the job, by aicb's flags
  compat_mode compat = compat_mode::corrected;  ///< aicb: aicb's CSV byte for byte
  std::optional<workload_format> format{};      ///< simai | csv; none: aicb::default_format
  std::string output{};                         ///< the file; empty: aicb's name under results/
  std::string gpu = "H100";                     ///< SimAI: the roofline that times computation
  bool check_space = true;                      ///< refuse an estimate beyond the free space
  /// Told a SimAI file's path, records and estimated bytes before it is written.
  std::function<void(const std::string&, std::uint64_t, std::uint64_t)> writing{};
};

/// The format `r` writes: its own, or the rule's; refused where aicb has none.
[[nodiscard]] inline workload_format deepspeed_format(const deepspeed_request& r) {
  const workload_format f = r.format.value_or(default_format(r.compat, workload_format::csv));
  if (f != workload_format::simai && f != workload_format::csv)
    AICB_THROW(config_error("format", std::string(to_string(f)), "deepspeed writes simai or csv"));
  if (f == workload_format::simai && r.compat == compat_mode::aicb)
    AICB_THROW(config_error("format", "simai",
                            "aicb writes no SimAI file for DeepSpeed: --compat aicb writes its CSV"));
  return f;
}

/// Writes the workload `r` asks for and says what it wrote.
inline written_workload write_deepspeed(const deepspeed_request& r) {
  const aicb_args& a = r.args;
  written_workload out;
  out.format = deepspeed_format(r);
  out.mode = r.compat;
  out.iterations = a.epoch_num;
  const std::string zero = "ZeRO-" + std::to_string(a.stage);
  if (out.format == workload_format::simai) {  // a LLaMA-shaped model on data parallelism, with ZeRO
    const job_spec job = deepspeed_job(a);
    const roofline_model compute(r.gpu);
    const simai_projection w(job, compute, {.iterations = a.epoch_num});
    out.path = output_path_or_default(r.output, "results/workload", deepspeed_simai_file_name(a));
    simai_file_options file{.check_space = r.check_space};
    if (r.writing) file.on_start = [&](std::uint64_t bytes) { r.writing(out.path, w.size(), bytes); };
    out.written = write_simai_file(w, out.path, file);
    out.header = w.header();
    out.job = job;
    out.compute_model = compute.provenance();
    out.warnings = w.warnings();
    out.about = zero + ", DP " + std::to_string(a.world_size) + ", " + std::to_string(w.header().ga) +
                " micro batches per iteration";
    return out;
  }
  (void)derive(a);  // aicb's own checks first, before a file is created
  out.path = output_path_or_default(r.output, "results/mocked_workload", deepspeed_csv_file_name(a));
  if (r.compat == compat_mode::aicb) {  // aicb's CSV, emulated
    aicb_args one = a;
    one.epoch_num = 1;
    if (r.check_space)
      require_csv_space(
          out.path, [&](auto&& sink) { generate_deepspeed_csv(one, compat_mode::aicb, sink); }, a.epoch_num);
    out.items =
        write_csv_file(out.path, [&](auto&& sink) { generate_deepspeed_csv(a, compat_mode::aicb, sink); });
    out.about = zero + ", aicb";
    return out;
  }
  // Corrected: rank 0 of the per-rank model, the operations the SimAI form has.
  const job_spec job = deepspeed_job(a);
  const csv_projection_options options{
      .iterations = a.epoch_num, .rank = 0, .computation = a.computation_enable};
  const csv_projection w(job, options);
  if (r.check_space) require_csv_projection_space(job, options, out.path);
  out.items = write_csv_file(out.path, [&](auto&& sink) { w.generate(sink); });
  out.job = job;
  out.warnings = w.warnings();
  out.about = zero + ", corrected: rank 0, DP " + std::to_string(a.world_size) + ", " +
              std::to_string(a.epoch_num) + " iteration(s)";
  return out;
}

AICB_END_NAMESPACE
