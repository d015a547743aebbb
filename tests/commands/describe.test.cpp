// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/commands/describe.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace {

aicb::job_spec small_job(aicb::dtype type = aicb::dtype::bf16) {
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 16, .tensor_parallel = 8},
                     {.micro_batch = 1, .global_batch = 4, .seq_length = 2048, .dtype = type}};
  job.model.num_layers = 4;
  return job;
}

}  // namespace

TEST_CASE("describe: the GPU and the cluster choose each other, the estimate runs on them",
          "[commands][describe]") {
  const aicb::describe_result plain = aicb::describe({.job = small_job()});
  REQUIRE(plain.estimate);
  CHECK(plain.cluster.name == "dgx-h100");
  CHECK(plain.cluster.gpu == "H100");
  const aicb::describe_result a100 = aicb::describe({.job = small_job(), .gpu = "A100"});
  CHECK(a100.cluster.name == "dgx-a100");
  CHECK(a100.estimate->iteration_s > plain.estimate->iteration_s);  // slower GPU, slower network
  // A GPU given with a cluster replaces the preset's GPU.
  const aicb::describe_result a800 =
      aicb::describe({.job = small_job(), .gpu = "A800", .cluster = "dgx-a100"});
  CHECK(a800.cluster.gpu == "A800");
  CHECK(a800.cluster.name == "dgx-a100");
  CHECK_THROWS_WITH(aicb::describe({.job = small_job(), .gpu = "P100"}), Catch::Contains("gpu = P100"));
  CHECK_THROWS_WITH(aicb::describe({.job = small_job(), .gpu = "L40S"}), Catch::Contains("--cluster"));
  CHECK_THROWS_WITH(aicb::describe({.job = small_job(), .cluster = "dgx-z"}),
                    Catch::Contains("cluster = dgx-z"));
  const aicb::describe_result none = aicb::describe({.job = small_job(), .estimate = false});
  CHECK_FALSE(none.estimate);
}

TEST_CASE("describe: JSON and text show the estimate, the attention kernel and what runs in FP8",
          "[commands][describe]") {
  const aicb::describe_result d = aicb::describe({.job = small_job(aicb::dtype::fp8)});
  const std::string json = aicb::to_json(d);
  for (const char* member :
       {R"("schema": "aicb.describe/1")", R"("attention": "flash")", R"("gemm": "fp8")",
        R"("output_layer": "bf16")", R"("attention": "bf16")", R"("elementwise": "bf16")",
        R"("communicated_activations": "bf16")", R"("gradients": "fp32")", R"("cluster": "dgx-h100")",
        R"("gpu": "H100")", R"("iteration_s": )", R"("mfu": )",
        R"("simai_command": "SimAI_analytical -w WORKLOAD.txt -g 16 -g_p_s 8 -r aicb- -nv 360)"}) {
    INFO(member);
    CHECK_THAT(json, Catch::Contains(member));
  }
  const std::string text = aicb::format_description(d);
  CHECK_THAT(text, Catch::Contains("GEMMs fp8, delayed scaling (the output layer's bf16); attention (flash), "
                                   "norms, element-wise and exchanged "
                                   "activations bf16"));
  CHECK_THAT(text, Catch::Contains("MFU / HFU"));
  CHECK_THAT(text, Catch::Contains("stage 0 (rank 0)"));
  CHECK_THAT(json, Catch::Contains(R"("gathered_activations": "bf16")"));  // no sequence parallelism
  CHECK(json.find(R"("router": "bf16")") == std::string::npos);            // no experts
  // Under SP an FP8 job gathers FP8 copies; an MoE model's router runs in BF16.
  aicb::job_spec moe{
      aicb::presets::mixtral_8x7b,
      {.world_size = 16, .tensor_parallel = 2, .expert_parallel = 8, .sequence_parallel = true},
      {.micro_batch = 1, .global_batch = 8, .seq_length = 2048, .dtype = aicb::dtype::fp8}};
  moe.model.num_layers = 2;
  const aicb::describe_result sp = aicb::describe({.job = moe, .estimate = false});
  CHECK_THAT(aicb::to_json(sp),
             Catch::Contains(R"("router": "bf16")") && Catch::Contains(R"("gathered_activations": "fp8")"));
  CHECK_THAT(aicb::format_description(sp),
             Catch::Contains("GEMMs fp8, delayed scaling (the output layer's and the router's bf16)") &&
                 Catch::Contains("exchanged activations bf16 (the SP all-gathers into FP8 GEMMs fp8)"));
  const std::string without = aicb::to_json(aicb::describe({.job = small_job(), .estimate = false}));
  CHECK(without.find("\"estimate\"") == std::string::npos);
  // The estimate's numbers are the library call's.
  const aicb::iteration_estimate direct =
      aicb::estimate_iteration(d.report.job, aicb::roofline_model("H100"), aicb::cluster_preset("dgx-h100"));
  CHECK(d.estimate->iteration_s == direct.iteration_s);
}

TEST_CASE("describe: a cluster file prices the collectives it measured, and says which",
          "[commands][describe]") {
  // A cluster file whose node all-reduce is ten times slower than the preset's NVLink.
  aicb::cluster_descriptor file = aicb::descriptor_of(aicb::cluster_preset("dgx-h100"));
  file.name = "measured";
  aicb::measured_curve c{
      .kind = aicb::collective::all_reduce, .where = aicb::link_class::node, .group_size = 2};
  for (std::uint64_t s = 1024; s <= (std::uint64_t{1} << 30); s *= 2)
    c.points.push_back({s, 25 + static_cast<double>(s) / 36e3});  // 36 GB/s bus bandwidth
  c.bands = aicb::fit_bands(c);
  file.measured.curves.push_back(c);
  const std::string path = (std::filesystem::temp_directory_path() / "aicb-describe-cluster.json").string();
  aicb::write_cluster_file(file, path);
  aicb::job_spec job = small_job();
  const aicb::describe_result preset = aicb::describe({.job = job, .cluster = "dgx-h100"});
  const aicb::describe_result measured = aicb::describe({.job = job, .cluster = path});
  std::filesystem::remove(path);  // read once and kept: the explanation still finds it
  REQUIRE(measured.cluster.measured != nullptr);
  CHECK(measured.estimate->iteration_s > preset.estimate->iteration_s);  // its TP all-reduces cost more
  CHECK_THAT(aicb::format_description(preset),
             Catch::Contains("network") && Catch::Contains("figures of dgx-h100"));
  CHECK_THAT(aicb::format_description(measured),
             Catch::Contains("measured: all_reduce in a node (2 ranks); the rest from the file's figures"));
  // --explain: each figure with its source — the file's measurements, the preset's datasheet.
  const std::string explained = aicb::format_explanation(measured, path);
  CHECK_THAT(explained, Catch::Contains("all_reduce in a node (2 ranks)") &&
                            Catch::Contains("measured curve: 21 sizes"));
  CHECK_THAT(explained, Catch::Contains("preset dgx-h100 (datasheet)"));  // the figures descriptor_of kept
  CHECK_THAT(aicb::format_explanation(preset, "dgx-h100"),
             Catch::Contains("nvlink_gb_per_s = 360 GB/s") && Catch::Contains("preset dgx-h100 (datasheet") &&
                 Catch::Contains("Lee et al. 2025"));
  const std::string json = aicb::to_json(measured);
  CHECK(json.find("\"collective\": \"all_reduce\"") != std::string::npos);
  CHECK(json.find("\"placement\": \"node\"") != std::string::npos);
}
