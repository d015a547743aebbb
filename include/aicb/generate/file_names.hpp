// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The names of the files aicb writes, in aicb's naming scheme, so a corrected workload lands where a
/// user of aicb looks for it. One implementation for both modes: the aicb emulators
/// (<aicb/compat/aicb_args.hpp>) name their files through these functions too.
///
/// ```cpp
/// aicb::simai_file_name({.gpu = "H100", .model = "llama2-7b", .world_size = 4096, .tensor_parallel = 2, …});
/// // "H100-llama2-7b-world_size4096-tp2-pp1-ep1-gbs…-mbs…-seq…-MOE-False-GEMM-False-flash_attn-True.txt"
/// ```

#include <aicb/config.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// Python's str() of a bool, as aicb's file names spell it.
[[nodiscard]] constexpr const char* python_bool(bool b) noexcept { return b ? "True" : "False"; }

/// What names a SimAI workload file. Absent names are written as Python's `None`, as aicb does.
struct simai_file_fields {
  std::optional<std::string> gpu;    ///< the GPU that timed the compute (aicb's --gpu_type)
  std::optional<std::string> model;  ///< the model's name
  std::uint64_t world_size = 1;
  std::uint64_t tensor_parallel = 1;
  std::uint64_t pipeline_parallel = 1;
  std::uint64_t expert_parallel = 1;
  std::uint64_t global_batch = 1;
  std::uint64_t micro_batch = 1;
  std::uint64_t seq_length = 1;
  bool moe = false;
  bool grouped_gemm = false;
  bool flash_attention = false;
};

/// `{gpu}-{model}-world_size{W}-tp{T}-pp{P}-ep{E}-gbs{G}-mbs{M}-seq{S}-MOE-{bool}-GEMM-{bool}-flash_attn-{bool}.txt`
/// (aicb writes it under results/workload/).
[[nodiscard]] inline std::string simai_file_name(const simai_file_fields& f) {
  return f.gpu.value_or("None") + "-" + f.model.value_or("None") + "-world_size" +
         std::to_string(f.world_size) + "-tp" + std::to_string(f.tensor_parallel) + "-pp" +
         std::to_string(f.pipeline_parallel) + "-ep" + std::to_string(f.expert_parallel) + "-gbs" +
         std::to_string(f.global_batch) + "-mbs" + std::to_string(f.micro_batch) + "-seq" +
         std::to_string(f.seq_length) + "-MOE-" + python_bool(f.moe) + "-GEMM-" +
         python_bool(f.grouped_gemm) + "-flash_attn-" + python_bool(f.flash_attention) + ".txt";
}

/// What names a physical-cluster CSV workload file.
struct csv_file_fields {
  std::string_view generator = "megatron";  ///< "megatron", "deepspeed_stage2", …
  std::optional<std::string> model;         ///< the model's name
  bool sequence_parallel = false;
  std::uint64_t iterations = 1;  ///< aicb's epoch_num
  bool computation = false;      ///< compute times in the file (aicb's computation_enable)
  std::uint64_t world_size = 1;
};

/// `{generator}_{model}_sp_{SP}_iteration_{N}_computationEnable_{CE}_{W}n`, cut at its first '.' (aicb
/// keeps the name's stem), plus `_workload.csv` (aicb writes it under results/mocked_workload/).
[[nodiscard]] inline std::string csv_file_name(const csv_file_fields& f) {
  std::string name = std::string(f.generator) + "_" + f.model.value_or("None") + "_sp_" +
                     python_bool(f.sequence_parallel) + "_iteration_" + std::to_string(f.iterations) +
                     "_computationEnable_" + python_bool(f.computation) + "_" + std::to_string(f.world_size) +
                     "n";
  return name.substr(0, name.find('.')) + "_workload.csv";
}

AICB_END_NAMESPACE
