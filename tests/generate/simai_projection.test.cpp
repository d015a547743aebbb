// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/params.hpp>
#include <aicb/calc/traffic.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/compute/roofline.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/io/simai_lint.hpp>
#include <aicb/io/simai_writer.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

using aicb::collective, aicb::comm_group;

const aicb::constant_model constant;

// The jobs the acceptance names, and more: dense, SP, PP, interleaving, MoE with both dispatchers, MLA.
std::vector<aicb::job_spec> layouts() {
  aicb::model_spec llama_like = aicb::presets::llama2_7b;
  llama_like.num_layers = 32;
  aicb::model_spec wide = aicb::presets::llama2_13b;  // 40 x 5120
  aicb::model_spec mixtral_like = aicb::presets::mixtral_8x7b;
  mixtral_like.num_layers = 8;
  aicb::model_spec lite = aicb::presets::deepseek_v2_lite;
  std::vector<aicb::job_spec> jobs{
      {llama_like, {.world_size = 64, .tensor_parallel = 8}, {.global_batch = 128, .seq_length = 4096}},
      {wide,
       {.world_size = 64, .tensor_parallel = 4, .pipeline_parallel = 2, .sequence_parallel = true},
       {.global_batch = 64, .seq_length = 4096}},
      {mixtral_like,
       {.world_size = 128, .tensor_parallel = 2, .expert_parallel = 8, .sequence_parallel = true},
       {.global_batch = 256, .seq_length = 4096}},
      {mixtral_like,
       {.world_size = 128,
        .tensor_parallel = 2,
        .expert_parallel = 8,
        .sequence_parallel = true,
        .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall},
       {.global_batch = 256, .seq_length = 4096}},
      {llama_like,
       {.world_size = 64,
        .tensor_parallel = 2,
        .pipeline_parallel = 4,
        .virtual_pipeline = 2,
        .sequence_parallel = true,
        .distributed_optimizer = true,
        .recompute = aicb::recompute_kind::full},
       {.global_batch = 64, .seq_length = 4096}},
      {lite,
       {.world_size = 16, .tensor_parallel = 2, .expert_parallel = 8, .sequence_parallel = true},
       {.global_batch = 16, .seq_length = 4096}},
      // DeepSeek-V3 with its MTP module on the emitted (last) stage.
      {aicb::presets::deepseek_v3,
       {.world_size = 256,
        .tensor_parallel = 2,
        .pipeline_parallel = 8,
        .expert_parallel = 8,
        .sequence_parallel = true,
        .first_stage_layers = 5,
        .last_stage_layers = 8},
       {.global_batch = 64, .seq_length = 4096}},
  };
  // DeepSpeed's ZeRO-2 and ZeRO-3 on data parallelism (with a tied embedding for ZeRO-3's re-fetch).
  for (const std::uint64_t zero : {2, 3}) {
    jobs.push_back(
        {llama_like, {.world_size = 64, .zero_stage = zero}, {.global_batch = 128, .seq_length = 4096}});
  }
  jobs.push_back({aicb::presets::gpt3_1_3b, {.world_size = 16, .zero_stage = 3}, {.global_batch = 32}});
  return jobs;
}

}  // namespace

TEST_CASE("simai projection: every layout writes a file that lints without errors or warnings",
          "[generate]") {
  const aicb::roofline_model h100("H100");
  int n = 0;
  for (const aicb::job_spec& job : layouts()) {
    INFO(job.model.name.view() << " TP " << job.parallel.tensor_parallel << " PP "
                               << job.parallel.pipeline_parallel << " EP " << job.parallel.expert_parallel);
    const aicb::simai_projection p(job, h100);
    const std::string path = "projection_" + std::to_string(n++) + ".txt";
    aicb::simai_writer out(path, p.header(), p.size());
    for (const aicb::record& r : p.records())
      out.write(r);
    out.finish();
    const aicb::lint_result lint = aicb::lint_simai(path);
    for (const auto& d : lint.diagnostics)
      INFO(d.line << ":" << d.column << " " << d.message);
    CHECK(lint.errors == 0);
    CHECK(lint.warnings == 0);
    CHECK(lint.records == p.size());
    std::filesystem::remove(path);
  }
}

TEST_CASE("simai projection: the bytes of every collective are the graph's, micro batch by micro batch",
          "[generate]") {
  for (const aicb::job_spec& job : layouts()) {
    INFO(job.model.name.view() << " TP " << job.parallel.tensor_parallel);
    const aicb::simai_projection p(job, constant);
    // The representative rank's collectives in the graph: micro batch 0 and the finalize.
    std::uint64_t graph = 0;
    for (const aicb::operation& op : aicb::rank_schedule(job, p.rank()))
      if (op.type == aicb::op_type::collective &&
          (op.microbatch == 0 || op.phase == aicb::op_phase::finalize))
        graph += op.size.count();
    std::uint64_t file = 0, one_microbatch = 0;
    for (const aicb::record& r : p.prologue_records())
      for (const aicb::phase* ph : {&r.forward, &r.input_grad, &r.weight_grad})
        file += ph->comm.size.count();
    for (const aicb::record& r : p.microbatch_records())
      for (const aicb::phase* ph : {&r.forward, &r.input_grad, &r.weight_grad})
        one_microbatch += ph->comm.size.count();
    // Collectives over ETP x EP (the allgather dispatcher, the alltoall dispatcher's token counts)
    // become two steps, TP then EP: each step's size is SimAI's whole buffer, so the TP step adds 1/EP
    // of the collective.
    std::uint64_t split = 0;
    if (job.model.is_moe() && job.parallel.tensor_parallel > 1)
      for (const aicb::operation& op : aicb::rank_schedule(job, p.rank()))
        if (op.type == aicb::op_type::collective && op.microbatch == 0 &&
            op.group.kind == aicb::group_kind::etp_ep && op.phase != aicb::op_phase::finalize)
          split += op.size.count() / job.parallel.expert_parallel;
    std::uint64_t left_out = 0;
    for (const std::string& w : p.warnings())
      left_out += std::stoull(w.substr(w.find(" of ") + 4));
    CHECK(file + one_microbatch == graph + split - left_out);
  }
}

TEST_CASE("simai projection: SimAI's walk meets the graph's backward order (SP: gathers before the GEMMs)",
          "[generate]") {
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 8, .tensor_parallel = 8, .sequence_parallel = true},
                     {.global_batch = 1, .seq_length = 4096}};
  job.model.num_layers = 1;
  const aicb::simai_projection p(job, constant);
  std::vector<std::string> names;
  for (const aicb::record& r : p.microbatch_records())
    names.push_back(r.name);
  CHECK(names == std::vector<std::string>{"embedding", "input_norm", "attention_qkv", "attention_core",
                                          "attention_out", "post_attention_norm", "mlp_fc1", "mlp_act",
                                          "mlp_fc2", "final_norm", "logits", "cross_entropy",
                                          "cross_entropy_target", "cross_entropy_sum"});
  std::map<std::string, aicb::record> by_name;
  for (const aicb::record& r : p.microbatch_records())
    by_name[r.name] = r;
  const aicb::bytes A{4096ULL * 4096 * 2};
  // Megatron gathers fc2's output gradient before fc2's input-gradient GEMM: SimAI reaches final_norm's
  // input-gradient column just before mlp_fc2's, so the gather is there.
  CHECK(by_name["final_norm"].input_grad.comm ==
        aicb::collective_op{collective::all_gather, comm_group::tp, A});
  // fc1's input is re-gathered for its weight gradient (after the activation's backward), and its input
  // gradient reduce-scattered after its input-gradient GEMM.
  CHECK(by_name["mlp_act"].input_grad.comm == aicb::collective_op{collective::all_gather, comm_group::tp, A});
  CHECK(by_name["mlp_fc1"].input_grad.comm ==
        aicb::collective_op{collective::reduce_scatter, comm_group::tp, A});
  // Per layer: forward 2 all-gathers + 2 reduce-scatters, backward 4 + 2.
  std::uint64_t gathers = 0, scatters = 0;
  for (const std::string layer_record : {"input_norm", "attention_qkv", "attention_core", "attention_out",
                                         "post_attention_norm", "mlp_fc1", "mlp_act", "mlp_fc2"})
    for (const aicb::phase* ph : {&by_name[layer_record].forward, &by_name[layer_record].input_grad}) {
      gathers += ph->comm.kind == collective::all_gather;
      scatters += ph->comm.kind == collective::reduce_scatter;
    }
  gathers += by_name["final_norm"].input_grad.comm.kind == collective::all_gather;  // fc2's output gradient
  // 6 of the layer, and the embedding's gradient gather, which SimAI reaches in input_norm's column.
  CHECK(gathers == 6 + 1);
  CHECK(scatters == 4);
  // No data parallelism here: the prologue is the SP-replicated weights' all-reduce and the step.
  CHECK(p.prologue_records().size() == 2);
}

TEST_CASE("simai projection: the allgather dispatcher is written as gathers over TP then EP", "[generate]") {
  aicb::job_spec job{
      aicb::presets::mixtral_8x7b,
      {.world_size = 16, .tensor_parallel = 2, .expert_parallel = 8, .sequence_parallel = true},
      {.global_batch = 8, .seq_length = 4096}};
  job.model.num_layers = 1;
  const aicb::simai_projection p(job, constant);
  std::vector<aicb::collective_op> tokens;
  for (const aicb::record& r : p.microbatch_records())
    if (r.name == "moe_tokens_gather") tokens.push_back(r.forward.comm);
  const std::uint64_t local = 2048ULL * 4096 * 2;  // T·h·bf16, T = 4096 / TP
  REQUIRE(tokens.size() == 2);
  CHECK(tokens[0] == aicb::collective_op{collective::all_gather, comm_group::tp, aicb::bytes{local * 2}});
  CHECK(tokens[1] == aicb::collective_op{collective::all_gather, comm_group::ep, aicb::bytes{local * 16}});
}

TEST_CASE("simai projection: what SimAI cannot express is refused or reported", "[generate]") {
  aicb::job_spec cp{aicb::presets::llama2_7b, {.world_size = 8, .context_parallel = 2}, {.seq_length = 4096}};
  CHECK_THROWS_WITH(aicb::simai_projection(cp, constant),
                    Catch::Contains("SimAI cannot express a cp collective"));
  aicb::job_spec tied{
      aicb::presets::llama2_7b,
      {.world_size = 8, .tensor_parallel = 2, .pipeline_parallel = 2, .sequence_parallel = true},
      {.global_batch = 4, .seq_length = 4096}};
  tied.model.tied_embeddings = true;
  const aicb::simai_projection p(tied, constant);
  REQUIRE(p.warnings().size() == 1);
  CHECK_THAT(p.warnings()[0], Catch::StartsWith("embedding_grad_reduce (all_reduce of ") &&
                                  Catch::Contains("is left out: SimAI has no such group"));
  CHECK(p.header().pp_comm == std::to_string(4096 / 2 * 4096 * 2));
}

TEST_CASE("simai projection: the collectives depend on the job, never on the compute model", "[generate]") {
  const aicb::roofline_model h100("H100");
  for (const aicb::job_spec& job : layouts()) {
    const aicb::simai_projection a(job, constant), b(job, h100);
    REQUIRE(a.size() == b.size());
    auto ra = a.microbatch_records(), rb = b.microbatch_records();
    REQUIRE(ra.size() == rb.size());
    for (std::size_t i = 0; i < ra.size(); ++i) {
      CHECK(ra[i].name == rb[i].name);
      CHECK(ra[i].forward.comm == rb[i].forward.comm);
      CHECK(ra[i].input_grad.comm == rb[i].input_grad.comm);
      CHECK(ra[i].weight_grad.comm == rb[i].weight_grad.comm);
    }
    // The first computation (after ZeRO-3's gather records, which have none) is timed differently.
    std::size_t first = 0;
    while (first < ra.size() && ra[first].forward.compute.count() == 0)
      ++first;
    REQUIRE(first < ra.size());
    CHECK(rb[first].forward.compute != ra[first].forward.compute);
  }
}

TEST_CASE("simai projection: its runs are exactly its records, in order", "[generate]") {
  for (const aicb::job_spec& job : layouts()) {
    INFO(job.model.name.view());
    const aicb::simai_projection w(job, constant, {.iterations = 2});
    std::vector<aicb::record> streamed, expanded;
    auto stream = w.records();
    for (const aicb::record& r : stream)
      streamed.push_back(r);
    w.for_each_run([&](const aicb::record_run& run) {
      for (std::uint64_t i = 0; i < run.times; ++i)
        expanded.insert(expanded.end(), run.records.begin(), run.records.end());
    });
    CHECK(streamed.size() == w.size());
    CHECK(expanded == streamed);
  }
}

// What one GPU sends over DP per iteration, in units of (n-1)/n bytes: 4Ψ for plain DP (an all-reduce of
// 2Ψ bytes moves them twice), 2Ψ + 2Ψ for ZeRO-1 and -2 — the same — and 2Ψ + 2·2Ψ = 6Ψ for ZeRO-3, 1.5×
// (Rajbhandari et al. 2019, §7). Ψ counts every weight once; a tied output layer is fetched a second
// time by ZeRO-3 (its module runs twice), which adds 2·V·h per pass.
TEST_CASE("simai projection: ZeRO's DP volume per iteration — stages 1 and 2 as plain DP, stage 3 1.5x",
          "[generate][zero]") {
  const auto dp_units = [](const aicb::simai_projection& w) {
    std::uint64_t units = 0;  // ring bus factors in units of (n-1)/n: all-reduce 2, gather/scatter 1
    w.for_each_run([&](const aicb::record_run& run) {
      for (const aicb::record& r : run.records)
        for (const aicb::phase* ph : {&r.forward, &r.input_grad, &r.weight_grad})
          if (ph->comm.active() && ph->comm.group == comm_group::dp)
            units += run.times * ph->comm.size.count() * (ph->comm.kind == collective::all_reduce ? 2 : 1);
    });
    return units;
  };
  for (const aicb::model_spec& model :
       {aicb::presets::gpt3_1_3b, aicb::presets::llama2_7b, aicb::presets::llama3_8b})
    for (const std::uint64_t dp : {2, 8, 64}) {
      INFO(model.name.view() << " on DP " << dp);
      aicb::job_spec job{model,
                         {.world_size = dp},
                         {.global_batch = dp, .grad_dtype = aicb::dtype::bf16}};  // one micro batch
      const std::uint64_t psi = aicb::params_on_gpu(job).total();
      const std::uint64_t plain = dp_units(aicb::simai_projection(job, constant));
      CHECK(plain == 2 * 2 * psi);  // one all-reduce of Ψ bf16 gradients
      const aicb::model_spec resolved = aicb::resolve(model);
      const std::uint64_t refetch =
          resolved.tied_embeddings ? 2 * aicb::padded_vocab(job) * resolved.hidden_size * 2 : 0;
      for (const std::uint64_t zero : {1, 2, 3}) {
        INFO("ZeRO-" << zero);
        job.parallel.zero_stage = zero;
        const aicb::simai_projection w(job, constant);
        const std::uint64_t units = dp_units(w);
        if (zero < 3)
          CHECK(units == plain);
        else
          CHECK(2 * units == 3 * plain + 2 * refetch);
        CHECK(units == aicb::comm_volume(job).dp.count());
        // The SimAI form lints clean: every DP collective sits in a weight-gradient column.
        const std::string path = "zero" + std::to_string(zero) + "_" + std::to_string(dp) + ".txt";
        aicb::simai_writer out(path, w.header(), w.size());
        for (const aicb::record& r : w.records())
          out.write(r);
        out.finish();
        const aicb::lint_result lint = aicb::lint_simai(path);
        CHECK(lint.errors == 0);
        CHECK(lint.warnings == 0);
        std::filesystem::remove(path);
      }
    }
}

namespace {
template <class W>
concept records_of_lvalue = requires(W& w) {
  w.records();
};
template <class W>
concept records_of_temporary = requires(W&& w) {
  static_cast<W&&>(w).records();
};
}  // namespace

TEST_CASE("simai projection: records() cannot be taken from a temporary (it would dangle)", "[generate]") {
  STATIC_REQUIRE(records_of_lvalue<const aicb::simai_projection>);
  STATIC_REQUIRE_FALSE(records_of_temporary<aicb::simai_projection>);
}
