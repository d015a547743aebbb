// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the texts a parallel layout carries: a pipeline layout (the input's first line)
// and selective recomputation's modules (its second). Any text must either be a job that validates —
// whose stages then hold every layer once, in order, and whose ranks' schedules match and never
// deadlock (a virtual stage may hold no transformer layer) — or be refused with aicb::config_error
// (never another exception, a crash, a hang or undefined behaviour).
#include <aicb/model/job.hpp>
#include <aicb/model/pipeline_layout.hpp>
#include <aicb/model/recompute.hpp>
#include <aicb/schedule/job_check.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  const std::string_view layout = text.substr(0, newline);
  const std::string_view modules =
      newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);

  // The readers agree with each other on any text.
  const auto stages = aicb::pipeline_layout_stages(layout);
  if (stages && *stages <= 4096) {
    std::uint64_t layers = 0;
    for (std::uint64_t v = 0; v < *stages; ++v) {
      if (aicb::pipeline_layout_layers_before(layout, v) != layers) __builtin_trap();
      layers += aicb::pipeline_layout_stage(layout, v).decoder;
    }
  }
  (void)aicb::parse_recompute_modules(modules);

  // A job of 8 layers on 4 stages x 2 chunks, its layout and modules from the input.
  aicb::job_spec job;
  job.model = {.hidden_size = 256, .num_layers = 8, .num_attention_heads = 4, .vocab_size = 1024};
  job.parallel.world_size = 4;
  job.parallel.pipeline_parallel = 4;
  job.parallel.virtual_pipeline = 2;
  job.parallel.recompute = aicb::recompute_kind::selective;
  job.batch = {.micro_batch = 1, .global_batch = 8, .seq_length = 128};
  try {
    job.parallel.pipeline_layout = aicb::pipeline_layout_text::from(layout);
    job.parallel.recompute_modules = aicb::recompute_modules_text::from(modules);
    aicb::validate(job);
    std::uint64_t next = 0;  // every layer once, in Megatron's virtual-stage order
    for (std::uint64_t chunk = 0; chunk < 2; ++chunk)
      for (std::uint64_t stage = 0; stage < 4; ++stage) {
        if (aicb::chunk_first_layer(job, stage, chunk) != next) __builtin_trap();
        next += aicb::chunk_layers(job, stage, chunk);
      }
    if (next != 8) __builtin_trap();
    if (!aicb::check_job(job).ok) __builtin_trap();
  } catch (const aicb::config_error&) {
    // Refused with a message naming the field: the expected outcome for most texts.
  }
  return 0;
}
