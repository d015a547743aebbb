// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/traffic.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

TEST_CASE("traffic: TP collectives per layer, with and without sequence parallelism", "[calc][traffic]") {
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 8, .tensor_parallel = 8},
                     {.micro_batch = 1, .seq_length = 4096}};
  const std::uint64_t activation = 4096ULL * 4096 * 2;  // s·b·h bf16
  // 32 layers x 4 all-reduces, + embedding forward + logits backward, + 3 loss all-reduces of s·b·4.
  CHECK(aicb::comm_volume(job).tp.count() == (32 * 4 + 2) * activation + 3 * 4096 * 4);
  job.parallel.sequence_parallel = true;  // 8 collectives per layer; 2 each for embedding and logits
  CHECK(aicb::comm_volume(job).tp.count() == (32 * 8 + 4) * activation + 3 * 4096 * 4);
  job.parallel.recompute = aicb::recompute_kind::full;  // the forward ones again
  CHECK(aicb::comm_volume(job).tp.count() == (32 * 12 + 4) * activation + 3 * 4096 * 4);
}

TEST_CASE("traffic: DP gradient reduction per the ZeRO paper's volumes", "[calc][traffic]") {
  aicb::job_spec job{
      aicb::presets::llama2_7b, {.world_size = 16}, {.global_batch = 32, .grad_dtype = aicb::dtype::bf16}};
  const std::uint64_t psi = aicb::params_on_gpu(job).total();
  CHECK(aicb::comm_volume(job).dp.count() == 2 * psi);  // one all-reduce of bf16 gradients: 2Ψ
  job.parallel.zero_stage = 1;  // reduce-scatter + all-gather: the same 2Ψ split in two
  CHECK(aicb::comm_volume(job).dp.count() == 2 * psi + 2 * psi);
  job.parallel.zero_stage = 2;  // gradients reduce-scattered in each of the 2 micro batches
  CHECK(aicb::comm_volume(job).dp.count() == 2 * 2 * psi + 2 * psi);
  job.parallel.zero_stage = 3;  // per micro batch: weights gathered forward and backward, RS grads
  CHECK(aicb::comm_volume(job).dp.count() == 2 * (2 * psi + 2 * 2 * psi));
  job.parallel.world_size = 1;
  job.batch.global_batch = 1;
  CHECK(aicb::comm_volume(job).dp.count() == 0);  // no data parallelism, no gradient traffic
}

TEST_CASE("traffic: MoE layers move dispatched tokens over TP and EP; MLA reduces its latents",
          "[calc][traffic]") {
  // Mixtral on TP 2 with SP, EP 4: per MoE layer the attention moves 4A over TP, the experts 4 x
  // (tokens/TP)·k·h·2·TP = 4kA (gather and scatter of dispatched tokens, both ways), and EP four
  // all-to-alls of (tokens/TP)·k·h·2.
  aicb::job_spec moe{aicb::presets::mixtral_8x7b,
                     {.world_size = 8, .tensor_parallel = 2, .expert_parallel = 4, .sequence_parallel = true},
                     {.seq_length = 4096}};
  const std::uint64_t A = 4096ULL * 4096 * 2, tokens = 4096, k = 2;
  const auto v = aicb::comm_volume(moe);
  CHECK(v.tp.count() == 32 * (4 * A + 4 * k * A) + 4 * A + 3 * tokens * 4);
  CHECK(v.ep.count() == 32 * 4 * (tokens / 2 * k * 4096 * 2));
  // DeepSeek-V2-Lite (no query rank) without SP on TP 2: attention A forward, A + tokens·kv_lora·2 backward.
  aicb::job_spec mla{aicb::presets::deepseek_v2_lite,
                     {.world_size = 2, .tensor_parallel = 2, .sequence_parallel = true},
                     {.seq_length = 2048}};
  mla.model.num_experts = 0;  // dense, to isolate the attention
  mla.model.moe_top_k = 0;
  mla.model.num_shared_experts = 0;
  mla.model.first_dense_layers = 0;
  mla.parallel.sequence_parallel = false;
  const std::uint64_t a2 = 2048ULL * 2048 * 2;
  CHECK(aicb::comm_volume(mla).tp.count() ==
        27 * (a2 + (a2 + 2048 * 512 * 2) + 2 * a2) + 2 * a2 + 3 * 2048 * 4);
}

TEST_CASE("traffic: pipeline, expert and context parallel messages", "[calc][traffic]") {
  aicb::job_spec pp{aicb::presets::llama2_7b,
                    {.world_size = 4, .pipeline_parallel = 4},
                    {.global_batch = 8, .seq_length = 4096}};
  const std::uint64_t activation = 4096ULL * 4096 * 2;
  CHECK(aicb::comm_volume(pp, 0).pp.count() == 8 * activation);      // sends forward only
  CHECK(aicb::comm_volume(pp, 1).pp.count() == 2 * 8 * activation);  // forward and backward
  aicb::job_spec ep{
      aicb::presets::mixtral_8x7b, {.world_size = 8, .expert_parallel = 8}, {.seq_length = 4096}};
  CHECK(aicb::comm_volume(ep).ep.count() ==
        32 * 4 * (4096ULL * 2 * 4096 * 2));  // 4 all-to-alls of s·k·h bf16
  aicb::job_spec cp{aicb::presets::llama3_8b, {.world_size = 4, .context_parallel = 4}, {.seq_length = 8192}};
  const std::uint64_t kv =
      2ULL * 8 * 128 * 8192 * 2;  // K and V of 8 heads x 128 over the whole sequence, bf16
  CHECK(aicb::comm_volume(cp).cp.count() == 32 * 2 * kv);  // gathered forward, gradients scattered backward
}
