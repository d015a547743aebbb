// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb profile`: measures one layer's operations of a job on this machine's GPU and writes an AIOB
// version 2 profile with full provenance (docs/profiler.md). Every kernel is first checked against
// its float64 reference. Without a CUDA build, or without a GPU, it says so and exits 1.
//
// The measuring program is `aicb-profile` (profile_main.cpp), built only with a CUDA compiler and the
// only one linked with the CUDA runtime and cuBLAS: `aicb profile ARGS` runs it from aicb's own
// folder, so `aicb` itself stays small and runs where no CUDA library is installed.
#pragma once

#include "job_flags.hpp"
#include "sibling_program.hpp"
#include "vocabulary.hpp"

#include <aicb/compute/gpu.hpp>
#include <aicb/compute/profiling.hpp>
#include <aicb/io/atomic_file.hpp>

#if defined(AICB_WITH_PROFILER)
#  include <aicb/cuda/measurement.hpp>
#  include <aicb/cuda/profiler.hpp>
#endif

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

namespace aicb_tool {

struct profile_options {
  job_flags job;
  std::string output = "aiob_profile.txt";
  std::uint32_t warmup = 10, iterations = 50;
  bool no_l2_flush = false, check_only = false, skip_check = false;
  int device = 0;
};

inline constexpr const char* profile_description =
    "Measure a job's operations on this GPU and write an AIOB v2 profile";

// The options of aicb-profile.
inline void add_profile_options(CLI::App& command, profile_options& o) {
  o.job.add_to(command);
  command.add_option("-o,--output", o.output, "the profile to write")->capture_default_str();
  command.add_option("--warmup", o.warmup, "untimed calls per operation")->capture_default_str();
  command.add_option("--repeat", o.iterations, "timed calls per operation")->capture_default_str();
  // Its former names: --timed-calls, and --iterations (which elsewhere means training iterations).
  add_old_spelling(command, "--timed-calls", "--repeat", o.iterations);
  add_old_spelling(command, "--iterations", "--repeat", o.iterations);
  command.add_flag("--no-l2-flush", o.no_l2_flush, "do not flush the L2 cache before each timed call");
  command.add_flag("--check-only", o.check_only, "only compare every kernel with its float64 reference");
  command.add_flag("--skip-check", o.skip_check, "do not run the kernel checks first");
  command.add_option("--device", o.device, "CUDA device index")->capture_default_str();
}

// `aicb profile ARGS`: replaces this process with `aicb-profile ARGS` from the folder of the running
// aicb. Returns (status 1) only when that program is missing or cannot start.
inline int forward_to_profiler(int argc, char** argv) {
  return forward_to_sibling(
      argc, argv, "aicb-profile",
      "aicb: profile: this aicb was built without CUDA (no aicb-profile next to it: it is "
      "built where nvcc is installed); aicb profile needs a CUDA build and an NVIDIA GPU");
}

#if defined(AICB_WITH_PROFILER)

inline std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

inline int run_profile(const profile_options& o) {
  std::string why;
  if (!aicb::cuda::device_available(why, o.device)) {
    std::fprintf(stderr, "aicb: profile: %s; aicb profile needs an NVIDIA GPU and its driver\n", why.c_str());
    return 1;
  }
  const aicb::job_spec job = o.job.job();
  const aicb::dtype type = job.batch.dtype;
  const aicb::cuda::device_info d = aicb::cuda::query_device(o.device);
  std::printf("device: %s (sm_%d%d, %d SMs, %.0f GB, driver %s, CUDA runtime %s)\n", d.name.c_str(), d.major,
              d.minor, d.sm_count, static_cast<double>(d.memory_bytes) / 1e9,
              aicb::cuda::version_text(d.driver_version).c_str(),
              aicb::cuda::version_text(d.runtime_version).c_str());

  if (!o.skip_check) {
    bool failed = false;
    std::printf("\n%-52s %12s %10s\n", "kernel check (float64 reference)", "max error", "tolerance");
    for (const aicb::cuda::check_result& r : aicb::cuda::check_kernels(type, 1, o.device)) {
      std::printf("%-52s %12.3g %10.3g  %s\n", r.kernel.c_str(), r.max_error, r.tolerance,
                  r.passed() ? "ok" : "FAILED");
      failed = failed || !r.passed();
    }
    if (failed) {
      std::fprintf(stderr, "aicb: profile: a kernel does not match its reference; no profile written\n");
      return 1;
    }
    if (o.check_only) return 0;
  }

  const aicb::profile_plan plan = aicb::plan_profile(job);
  aicb::cuda::run_options run;
  run.warmup = o.warmup;
  run.iterations = o.iterations;
  run.l2_flush = !o.no_l2_flush;
  run.swiglu = plan.job.model.activation == aicb::activation_kind::swiglu;
  run.device = o.device;
  const aicb::gpu_spec* spec = aicb::find_gpu(d.name);
  std::printf("\n%-20s %-34s %11s %9s %8s %11s\n", "operation", "shape (forward)", "forward us", "TFLOP/s",
              "GB/s", "backward us");
  std::vector<aicb::op_measurement> measured;
  for (const aicb::profile_entry& e : plan.entries) {
    const aicb::op_measurement m = aicb::cuda::measure_entry(e, run);
    const double seconds = m.forward.median_us * 1e-6;
    const double tflops = seconds > 0 ? e.forward.flops() / seconds / 1e12 : 0;
    const double gbps = seconds > 0 ? e.forward.bytes() / seconds / 1e9 : 0;
    std::string shape = "m=" + std::to_string(e.forward.m) + " n=" + std::to_string(e.forward.n) +
                        " k=" + std::to_string(e.forward.k);
    if (e.forward.batch != 1) shape = "b=" + std::to_string(e.forward.batch) + " " + shape;
    std::printf("%-20s %-34s %11.1f %9.1f %8.0f %11s", std::string(aicb::to_string(e.role)).c_str(),
                shape.c_str(), m.forward.median_us, tflops, gbps,
                m.backward ? std::to_string(static_cast<long long>(m.backward->median_us)).c_str() : "-");
    if (spec)
      std::printf("  (%.0f%% of peak %s, %.0f%% of peak memory)",
                  100 * tflops * 1e12 / spec->peak_flops(type), std::string(aicb::to_string(type)).c_str(),
                  100 * gbps * 1e9 / spec->memory_bytes_per_s());
    std::printf("\n");
    measured.push_back(m);
  }

  const aicb::aiob_profile profile = aicb::make_profile(
      plan, measured, aicb::cuda::provenance_of(d),
      {.warmup = o.warmup, .iterations = o.iterations, .l2_flush = run.l2_flush, .date = utc_now()});
  aicb::write_file_atomically(o.output, aicb::write_aiob(profile));
  std::printf("\nwrote %s: %zu operations, %u timed calls each\n", o.output.c_str(), measured.size(),
              o.iterations);
  if (spec)
    for (const std::string& warning : aicb::implausible_timings(plan, measured, *spec))
      std::fprintf(stderr, "aicb: profile: warning: %s\n", warning.c_str());
  return 0;
}

#else

inline int run_profile(const profile_options&) {
  std::fprintf(
      stderr,
      "aicb: profile: this aicb was built without CUDA (no CUDA compiler at configure time); build it "
      "where nvcc is installed to measure profiles\n");
  return 1;
}

#endif

}  // namespace aicb_tool
