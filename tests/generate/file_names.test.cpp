// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/generate/file_names.hpp>

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("file names: a SimAI workload is named by aicb's scheme, absent names as None",
          "[generate][names]") {
  CHECK(aicb::simai_file_name({.gpu = "H100",
                               .model = "llama2-7b",
                               .world_size = 4096,
                               .tensor_parallel = 2,
                               .pipeline_parallel = 4,
                               .expert_parallel = 1,
                               .global_batch = 8192,
                               .micro_batch = 1,
                               .seq_length = 4096,
                               .moe = false,
                               .grouped_gemm = false,
                               .flash_attention = true}) ==
        "H100-llama2-7b-world_size4096-tp2-pp4-ep1-gbs8192-mbs1-seq4096-MOE-False-GEMM-False-flash_attn-True."
        "txt");
  const std::string bare =
      aicb::simai_file_name({.gpu = std::nullopt, .model = std::nullopt, .moe = true, .grouped_gemm = true});
  CHECK(bare == "None-None-world_size1-tp1-pp1-ep1-gbs1-mbs1-seq1-MOE-True-GEMM-True-flash_attn-False.txt");
}

TEST_CASE("file names: a CSV workload's name is cut at its first dot, as aicb keeps the stem",
          "[generate][names]") {
  CHECK(aicb::csv_file_name({.generator = "deepspeed_stage3",
                             .model = "llama",
                             .sequence_parallel = true,
                             .iterations = 10,
                             .computation = false,
                             .world_size = 64}) ==
        "deepspeed_stage3_llama_sp_True_iteration_10_computationEnable_False_64n_workload.csv");
  CHECK(aicb::csv_file_name({.model = "qwen2.5-7b", .world_size = 8}) == "megatron_qwen2_workload.csv");
  CHECK(aicb::csv_file_name({}) ==
        "megatron_None_sp_False_iteration_1_computationEnable_False_1n_workload.csv");
}
