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
  // With SP, per layer 2 all-gathers + 2 reduce-scatters forward and 4 + 2 backward (Megatron re-gathers
  // the column-parallel inputs for their weight gradients: layers.py:660-710); the embedding 2, the
  // logits (column-parallel too) 3; and, once per iteration, the all-reduce of the fp32 gradients of the
  // weights SP replicates: 2 RMSNorms of h per layer and the final norm.
  job.parallel.sequence_parallel = true;
  const std::uint64_t replicated = (32 * 2 + 1) * 4096 * 4;
  CHECK(aicb::comm_volume(job).tp.count() == (32 * 10 + 5) * activation + 3 * 4096 * 4 + replicated);
  job.parallel.recompute = aicb::recompute_kind::full;  // the 4 forward ones again
  CHECK(aicb::comm_volume(job).tp.count() == (32 * 14 + 5) * activation + 3 * 4096 * 4 + replicated);
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

TEST_CASE("traffic: MoE dispatchers move tokens over ETP x EP or EP, MLA reduces its latents",
          "[calc][traffic]") {
  // Mixtral on TP 2 with SP, EP 4 (ETP x EP = 8 ranks), T = 4096 / 2 local tokens, k = 2, E = 8.
  aicb::job_spec moe{aicb::presets::mixtral_8x7b,
                     {.world_size = 8, .tensor_parallel = 2, .expert_parallel = 4, .sequence_parallel = true},
                     {.seq_length = 4096}};
  const std::uint64_t A = 4096ULL * 4096 * 2, T = 2048, k = 2, E = 8, h = 4096, G = 8;
  // TP per MoE layer: the attention's 2 forward + 3 backward SP collectives (the MoE block enters on
  // local tokens); embedding 2A; logits 3A (the input gathered, its gradient scattered, the input
  // re-gathered for the weight gradient); the loss; SP-replicated fp32 gradients: 2 norms and the
  // router (h x E) per layer, and the final norm.
  const std::uint64_t replicated = (32 * (2 * h + h * E) + h) * 4;
  auto v = aicb::comm_volume(moe);
  CHECK(v.tp.count() == 32 * 5 * A + 5 * A + 3 * 4096 * 4 + replicated);
  // Allgather dispatcher (Megatron's default), per layer over ETP x EP: forward the routing map (T x E
  // bytes), the probabilities (T x E x 4) and the tokens (T x h x 2) all-gathered, the output
  // reduce-scattered; backward the output gradient gathered, the tokens' and the probabilities'
  // gradients reduce-scattered. Sizes are whole buffers: x G.
  CHECK(v.ep.count() == 32 * G * (T * E + 2 * T * E * 4 + 4 * T * h * 2));
  // Alltoall dispatcher: token counts gathered over ETP x EP (E int64 per rank); over EP the tokens
  // (T·k·h·2) and their probabilities (T·k·4) both ways, the combine both ways; over expert TP (= TP 2)
  // the dispatched tokens gathered and scattered, both ways.
  moe.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::alltoall;
  v = aicb::comm_volume(moe);
  CHECK(v.ep.count() == 32 * (E * 8 * G + 4 * T * k * h * 2 + 2 * T * k * 4));
  CHECK(v.tp.count() == 32 * (5 * A + 4 * T * k * h * 2 * 2) + 5 * A + 3 * 4096 * 4 + replicated);
  // DeepSeek-V2-Lite (no query rank), dense, without SP on TP 2: per layer the attention's output
  // all-reduce A forward; backward the latent gradient all-reduce (tokens·kv_lora·2) of the
  // column-parallel up-projection and the query projection's input-gradient all-reduce A; the MLP A + A.
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
  CHECK(aicb::comm_volume(pp, 3).pp.count() == 8 * activation);      // gradients back only
  // Interleaved (2 chunks): every chunk boundary sends, the last stage's first chunk on to the first
  // stage's second: stage 0 sends 2 activations (chunk 0 and 1 except the model's last) ... per micro
  // batch: stage 0 forward 2, backward 1 (chunk 1 back to stage 3); stage 1: 2 + 2.
  pp.parallel.virtual_pipeline = 2;
  CHECK(aicb::comm_volume(pp, 0).pp.count() == 8 * 3 * activation);
  CHECK(aicb::comm_volume(pp, 1).pp.count() == 8 * 4 * activation);
  CHECK(aicb::comm_volume(pp, 3).pp.count() == 8 * 3 * activation);
  aicb::job_spec ep{
      aicb::presets::mixtral_8x7b,
      {.world_size = 8, .expert_parallel = 8, .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall},
      {.seq_length = 4096}};
  // Tokens and probabilities over EP both ways, the combine both ways; token counts over EP (ETP 1).
  CHECK(aicb::comm_volume(ep).ep.count() ==
        32 * (4 * (4096ULL * 2 * 4096 * 2) + 2 * 4096 * 2 * 4 + 8 * 8 * 8));
  // The flex dispatcher (DeepEP) on Qwen3-30B-A3B (128 experts, top 8) over EP 8: each of a GPU's T
  // tokens travels once to each distinct destination GPU — d = 8 · (1 − C(112, 8) / C(128, 8)) of them
  // under uniform routing, not k = 8 copies — with its 8 indices and FP32 probabilities (12 bytes each);
  // the combine returns one row per destination; backward, the combine's gradient goes out as a dispatch
  // (rows only) and the dispatch's gradient back with 8 probability gradients (4 bytes each). No counts
  // gathered: DeepEP's dispatch counts them itself.
  aicb::job_spec flex{
      aicb::presets::qwen3_30b_a3b,
      {.world_size = 8, .expert_parallel = 8, .moe_dispatcher = aicb::moe_dispatcher_kind::flex},
      {.seq_length = 4096}};
  double miss = 1;
  for (int i = 0; i < 8; ++i)
    miss *= (112.0 - i) / (128.0 - i);
  const double d = 8 * (1 - miss);
  CHECK(d == Approx(5.339).epsilon(0.001));  // 5.34 rows a token instead of 8
  const auto rows = static_cast<std::uint64_t>(4096 * d + 0.5);
  const std::uint64_t row = 2048 * 2;
  CHECK(aicb::comm_volume(flex).ep.count() ==
        48 * (rows * (row + 8 * 12) + rows * row + rows * row + rows * (row + 8 * 4)));
  flex.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::alltoall;  // k copies a token: more bytes
  CHECK(aicb::comm_volume(flex).ep.count() > 48 * 4 * 4096 * 8 * row);
  aicb::job_spec cp{aicb::presets::llama3_8b, {.world_size = 4, .context_parallel = 4}, {.seq_length = 8192}};
  // Ring attention: K and V of the local sequence (8192 / 4), 8 heads of 128, bf16; CP − 1 = 3 sends
  // forward, 2·3 KV-sizes backward, per layer.
  const std::uint64_t kv = 2ULL * 2048 * 8 * 128 * 2;
  CHECK(aicb::comm_volume(cp).cp.count() == 32 * 3 * 3 * kv);
}

TEST_CASE("traffic: DualPipe's two directions move what 1F1B's stage does, plus the mirrors' exchange",
          "[calc][traffic]") {
  // Llama-2-7B (32 layers) on PP 4, 8 micro batches: every stage holds 8 layers, so a micro batch in
  // either direction moves what 1F1B's middle stage moves per micro batch; rank 0 sends one tensor per
  // micro batch in each direction (activations of the forward direction, gradients of the reverse).
  aicb::job_spec job{aicb::presets::llama2_7b,
                     {.world_size = 4, .pipeline_parallel = 4},
                     {.global_batch = 8, .seq_length = 4096}};
  const std::uint64_t activation = 4096ULL * 4096 * 2;
  job.parallel.pipeline_schedule = aicb::pipeline_schedule_kind::dualpipe;
  // The exchange: both chunks' weights (16 layers of 4h² + 3·h·11008 + 2h), in the gradients' type.
  const std::uint64_t layer = 4 * 4096ULL * 4096 + 3 * 4096ULL * 11008 + 2 * 4096;
  const std::uint64_t exchange = 16 * layer * aicb::size_of(job.batch.grad_dtype);
  CHECK(aicb::comm_volume(job, 1).pp.count() == 2 * 8 * activation + exchange);
  CHECK(aicb::comm_volume(job, 1).dp.count() == 0);
}
