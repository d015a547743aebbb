// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/aiob_model.hpp>
#include <aicb/compute/profiling.hpp>
#include <aicb/io/aiob_reader.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

#include <regex>
#include <sstream>
#include <string>

namespace {
const aicb::profile_entry& entry(const aicb::profile_plan& plan, aicb::op_role role) {
  for (const aicb::profile_entry& e : plan.entries)
    if (e.role == role) return e;
  FAIL("no entry for " << aicb::to_string(role));
  return plan.entries.front();
}
bool has(const aicb::profile_plan& plan, aicb::op_role role) {
  for (const aicb::profile_entry& e : plan.entries)
    if (e.role == role) return true;
  return false;
}
}  // namespace

TEST_CASE("profiling: the plan holds one layer's operations per TP rank, with the generator's shapes",
          "[compute][profile]") {
  const aicb::job_spec job{aicb::presets::llama2_7b,
                           {.world_size = 8, .tensor_parallel = 2, .sequence_parallel = true},
                           {.micro_batch = 1, .seq_length = 4096}};
  const aicb::profile_plan plan = aicb::plan_profile(job);
  // Llama-2-7B on TP 2: 16 heads of 128 per rank, SwiGLU (gate and up in one GEMM).
  const auto& qkv = entry(plan, aicb::op_role::attention_qkv);
  CHECK(qkv.forward.kind == aicb::op_kind::gemm);
  CHECK(qkv.forward.m == 4096);
  CHECK(qkv.forward.k == 4096);
  CHECK(qkv.forward.n == 3 * 16 * 128);
  CHECK(qkv.input_grad.has_value());
  CHECK(qkv.weight_grad.has_value());
  const auto& core = entry(plan, aicb::op_role::attention_core);
  CHECK(core.forward.kind == aicb::op_kind::attention);
  CHECK(core.forward.batch == 16);
  CHECK(entry(plan, aicb::op_role::mlp_fc1).forward.n == 2 * 11008 / 2);
  CHECK(entry(plan, aicb::op_role::logits).forward.n == 32000 / 2);
  for (aicb::op_role role :
       {aicb::op_role::embedding, aicb::op_role::input_norm, aicb::op_role::mlp_activation,
        aicb::op_role::mlp_fc2, aicb::op_role::final_norm, aicb::op_role::optimizer})
    CHECK(has(plan, role));
  CHECK_FALSE(has(plan, aicb::op_role::moe_fc1));
  for (const aicb::profile_entry& e : plan.entries)
    CHECK(e.forward.pass == aicb::pass_kind::forward);
}

TEST_CASE("profiling: MoE plans have grouped expert GEMMs over the local experts", "[compute][profile]") {
  const aicb::job_spec job{
      aicb::presets::mixtral_8x7b,
      {.world_size = 8, .tensor_parallel = 2, .expert_parallel = 4, .sequence_parallel = true},
      {.seq_length = 4096}};
  const aicb::profile_plan plan = aicb::plan_profile(job);
  const auto& fc1 = entry(plan, aicb::op_role::moe_fc1);
  CHECK(fc1.forward.batch == 2);  // 8 experts over EP 4
  CHECK(fc1.forward.k == 4096);
  CHECK(has(plan, aicb::op_role::moe_router));
  CHECK(has(plan, aicb::op_role::moe_fc2));
}

TEST_CASE("profiling: measurements become a version 2 profile with provenance, read back as measured",
          "[compute][profile]") {
  const aicb::job_spec job{
      aicb::presets::llama2_7b, {.world_size = 8, .tensor_parallel = 2}, {.seq_length = 4096}};
  const aicb::profile_plan plan = aicb::plan_profile(job);
  std::vector<aicb::op_measurement> measured;
  double t = 10;
  for (const aicb::profile_entry& e : plan.entries) {
    aicb::op_measurement m{e.role, {t, t - 1, t + 5, 50}, std::nullopt};
    if (e.input_grad) m.backward = aicb::timing_stats{2 * t, 2 * t - 1, 2 * t + 3, 50};
    measured.push_back(m);
    t += 10;
  }
  const aicb::device_provenance device{
      "NVIDIA H200", "9.0", 132, 150'000'000'000, "580.65", "13.0", "sm 1980 MHz, memory 3201 MHz"};
  const aicb::aiob_profile profile = aicb::make_profile(
      plan, measured, device, {.warmup = 10, .iterations = 50, .l2_flush = true, .date = "2026-11-30"});
  const std::string text = aicb::write_aiob(profile);

  // Our reader: the provenance and the values, exactly.
  const aicb::aiob_profile back = aicb::parse_aiob(text, "profile.txt");
  CHECK(back == profile);
  CHECK(back.provenance("gpu") == "NVIDIA H200");
  CHECK(back.provenance("sm_count") == "132");
  CHECK(back.provenance("dtype") == "bf16");
  CHECK(back.provenance("tensor_parallel") == "2");
  CHECK(back.provenance("iterations") == "50");
  CHECK(back.provenance("warmup") == "10");
  CHECK(back.find("attention_qkv")->note("shape") == "m=4096 n=6144 k=4096 kind=gemm");

  // The aiob compute model answers the measured medians: forward as measured, a GEMM's backward split
  // evenly between its input and weight gradients.
  const aicb::aiob_model model(back, "profile.txt");
  const aicb::profile_entry& qkv = entry(plan, aicb::op_role::attention_qkv);
  const auto& qkv_measured = *std::find_if(
      measured.begin(), measured.end(), [](const auto& m) { return m.role == aicb::op_role::attention_qkv; });
  CHECK(model.duration(qkv.forward).count() ==
        static_cast<std::int64_t>(qkv_measured.forward.median_us * 1000));
  CHECK(model.duration(*qkv.weight_grad).count() ==
        static_cast<std::int64_t>(qkv_measured.backward->median_us * 1000 / 2));

  // aicb's reader: sections by `^(\w+):`, values by `time_gpu_avg:`; '#' lines invisible to it.
  std::istringstream lines(text);
  std::string line, section;
  int sections = 0, averages = 0;
  const std::regex name(R"(^(\w+):)");
  std::smatch match;
  while (std::getline(lines, line)) {
    if (line.starts_with("#")) continue;
    if (std::regex_search(line, match, name) && match[1] != "train_iter") ++sections;
    if (line.find("time_gpu_avg:") != std::string::npos) ++averages;
  }
  CHECK(sections == static_cast<int>(plan.entries.size()));
  CHECK(averages == sections);

  measured.push_back({aicb::op_role::moe_fc1, {}, std::nullopt});
  CHECK_THROWS_AS(aicb::make_profile(plan, measured, device, {}), aicb::config_error);
}

TEST_CASE("profiling: timings no kernel can reach, or far from the roofline, are named",
          "[compute][profile]") {
  // Llama-3-8B's layer on one H200, timed as the profiler's first GPU run timed it: the GEMMs near the
  // roofline, core attention 19.5 ms (the roofline: about 0.3 ms) — and a GEMM said to take 1 us.
  const aicb::job_spec job{
      aicb::presets::llama3_8b, {.world_size = 8}, {.micro_batch = 1, .seq_length = 4096}};
  const aicb::profile_plan plan = aicb::plan_profile(job);
  const aicb::gpu_spec& h200 = *aicb::find_gpu("H200");
  const aicb::roofline_model roofline(h200);
  std::vector<aicb::op_measurement> measured;
  for (const aicb::profile_entry& e : plan.entries) {
    const double us = static_cast<double>(roofline.duration(e.forward).count()) / 1000;
    measured.push_back(
        {e.role, {.median_us = us * 1.1, .min_us = us, .max_us = us * 1.2, .samples = 10}, {}});
  }
  CHECK(aicb::implausible_timings(plan, measured, h200).empty());
  for (aicb::op_measurement& m : measured) {
    if (m.role == aicb::op_role::attention_core) m.forward.median_us = 19468.4;
    if (m.role == aicb::op_role::mlp_fc1) m.forward.median_us = 1;
  }
  const std::vector<std::string> warnings = aicb::implausible_timings(plan, measured, h200);
  REQUIRE(warnings.size() == 2);
  CHECK_THAT(warnings[0] + warnings[1],
             Catch::Contains("attention_core: measured 19468.4 us") &&
                 Catch::Contains("far from competitive") &&
                 Catch::Contains("mlp_fc1: measured 1.0 us, faster than the H200's peaks"));
}

TEST_CASE("profiling: each role's plan is the kernel its section times", "[compute][profile]") {
  // Qwen3-Next's first layer is a Gated DeltaNet: the attention core planned is still a softmax
  // layer's; the QKV projection's norm and the router's softmax are not what their sections time.
  const aicb::job_spec job{
      aicb::presets::qwen3_next_80b_a3b,
      {.world_size = 8, .tensor_parallel = 2, .expert_parallel = 4, .sequence_parallel = true},
      {.seq_length = 4096}};
  const aicb::profile_plan plan = aicb::plan_profile(job);
  CHECK(entry(plan, aicb::op_role::attention_core).forward.kind == aicb::op_kind::attention);
  CHECK(entry(plan, aicb::op_role::attention_qkv).forward.kind == aicb::op_kind::gemm);
  CHECK(entry(plan, aicb::op_role::moe_router).forward.kind == aicb::op_kind::gemm);
  CHECK(entry(plan, aicb::op_role::logits).forward.kind == aicb::op_kind::gemm);
  CHECK_FALSE(has(plan, aicb::op_role::moe_permute));
  for (const aicb::profile_entry& e : plan.entries)
    CHECK(aicb::aiob_model::profiled(e.forward));
}
