// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/calc/memory.hpp>
#include <aicb/model/presets.hpp>

#include <catch2/catch.hpp>

namespace {
aicb::job_spec gpt22b(std::uint64_t tp, std::uint64_t pp, std::uint64_t world, std::uint64_t gbs) {
  return {aicb::presets::aicb_gpt_22b,
          {.world_size = world,
           .tensor_parallel = tp,
           .pipeline_parallel = pp,
           .sequence_parallel = true,
           .recompute = aicb::recompute_kind::selective},
          {.micro_batch = 4, .global_batch = gbs, .seq_length = 2048}};
}

// Megatron-LM theoretical_memory_usage.py, compute_activation_memory (sequence parallel + selective
// recompute, non-interleaved), written out for a job whose stages hold L / p layers each.
double megatron_activation_memory(double s, double b, double h, double ffn, double L, double p, double t,
                                  double microbatches, double padded_vocab) {
  double m = s * b * h * (18 + 4 * (ffn / h));
  m *= L;
  m += 8 * s * b * p;
  m += s * b * h * p;
  if (p > 1) m *= std::min(1.0, microbatches / p);
  if (p == 1) m += s * b * h * 4 * (1 + padded_vocab / h);
  return m / t;
}
}  // namespace

TEST_CASE("memory: bytes per parameter are Megatron's 18, or 6 + 12/DP with the distributed optimizer",
          "[calc][memory]") {
  auto job = gpt22b(8, 1, 64, 64);
  const auto params = static_cast<double>(aicb::params_on_gpu(job).total());
  auto e = aicb::memory_per_gpu(job);
  CHECK(static_cast<double>((e.weights + e.gradients + e.optimizer).count()) == Approx(18 * params));
  job.parallel.distributed_optimizer = true;  // DP = 8
  e = aicb::memory_per_gpu(job);
  CHECK(static_cast<double>((e.weights + e.gradients + e.optimizer).count()) ==
        Approx((6 + 12.0 / 8) * params).epsilon(1e-9));
}

TEST_CASE("memory: ZeRO stages shard optimizer, then gradients, then weights (Rajbhandari et al.)",
          "[calc][memory]") {
  aicb::job_spec job{aicb::presets::llama2_7b, {.world_size = 64}, {.grad_dtype = aicb::dtype::bf16}};
  const double psi = static_cast<double>(aicb::params_on_gpu(job).total()), n = 64;
  const auto states = [&](std::uint64_t stage) {
    job.parallel.zero_stage = stage;
    const auto e = aicb::memory_per_gpu(job);
    return static_cast<double>((e.weights + e.gradients + e.optimizer).count());
  };
  CHECK(states(0) == Approx((2 + 2 + 12) * psi));
  CHECK(states(1) == Approx(2 * psi + 2 * psi + 12 * psi / n).epsilon(1e-9));
  CHECK(states(2) == Approx(2 * psi + (2 + 12) * psi / n).epsilon(1e-9));
  CHECK(states(3) == Approx((2 + 2 + 12) * psi / n).epsilon(1e-9));
}

TEST_CASE("memory: activations match Megatron's theoretical formula for a documented set of layouts",
          "[calc][memory]") {
  struct layout {
    std::uint64_t tp, pp, world, gbs;
  };
  for (const layout& l :
       {layout{8, 1, 64, 64}, layout{8, 4, 64, 256}, layout{4, 2, 16, 8}, layout{2, 8, 64, 16}}) {
    INFO("tp " << l.tp << " pp " << l.pp);
    const auto job = gpt22b(l.tp, l.pp, l.world, l.gbs);
    const double expected = megatron_activation_memory(
        2048, 4, 6144, 4 * 6144, 48, static_cast<double>(l.pp), static_cast<double>(l.tp),
        static_cast<double>(aicb::microbatches(job)), static_cast<double>(aicb::padded_vocab(job)));
    CHECK(static_cast<double>(aicb::memory_per_gpu(job).activations.count()) ==
          Approx(expected).epsilon(1e-9));
  }
}

// Korthikanti et al.'s Table 2 with fused attention: the 5·a·s/h of the score matrix, its softmax and
// dropout mask is never stored (flash attention keeps Q, K, V and the output, already in the 18·s·b·h),
// so no recomputation holds exactly what selective recomputation holds.
TEST_CASE("memory: Korthikanti et al. Table 2 per-layer activations for the other modes, attention fused",
          "[calc][memory]") {
  auto job = gpt22b(8, 1, 64, 64);
  const double s = 2048, b = 4, h = 6144, t = 8, sbh = s * b * h;
  job.parallel.recompute = aicb::recompute_kind::none;
  CHECK(aicb::layer_activation_bytes(job, 4 * h) == Approx(sbh * 34 / t));
  job.parallel.recompute = aicb::recompute_kind::selective;
  CHECK(aicb::layer_activation_bytes(job, 4 * h) == Approx(sbh * 34 / t));
  job.parallel.recompute = aicb::recompute_kind::none;
  job.parallel.sequence_parallel = false;
  CHECK(aicb::layer_activation_bytes(job, 4 * h) == Approx(sbh * (10 + 24 / t)));
  job.parallel.recompute = aicb::recompute_kind::full;
  CHECK(aicb::layer_activation_bytes(job, 4 * h) == Approx(2 * sbh));
  job.parallel.sequence_parallel = true;
  CHECK(aicb::layer_activation_bytes(job, 4 * h) == Approx(2 * sbh / t));
}

TEST_CASE("memory: 1F1B keeps min(PP - stage, micro batches) in flight, interleaving adds its penalty",
          "[calc][memory]") {
  auto job = gpt22b(8, 4, 64, 256);  // 2 DP ranks, 32 micro batches
  CHECK(aicb::memory_per_gpu(job, 0).in_flight_microbatches == 4);
  CHECK(aicb::memory_per_gpu(job, 3).in_flight_microbatches == 1);
  const double plain = static_cast<double>(aicb::memory_per_gpu(job, 1).activations.count());
  job.parallel.virtual_pipeline = 2;
  CHECK(static_cast<double>(aicb::memory_per_gpu(job, 1).activations.count()) ==
        Approx(plain * (1 + 3.0 / 8)).epsilon(1e-9));
}

TEST_CASE("memory: FP8 training holds BF16 weights", "[calc][memory]") {
  // Transformer Engine casts the BF16 weights for each FP8 GEMM; the model keeps them in BF16, so an
  // FP8 job needs what a BF16 one does for weights, gradients and optimizer states.
  auto job = gpt22b(8, 4, 64, 256);
  const aicb::memory_estimate bf16 = aicb::memory_per_gpu(job, 1);
  job.batch.dtype = aicb::dtype::fp8;
  const aicb::memory_estimate fp8 = aicb::memory_per_gpu(job, 1);
  CHECK(fp8.weights == bf16.weights);
  CHECK(fp8.gradients == bf16.gradients);
  CHECK(fp8.optimizer == bf16.optimizer);
  CHECK(fp8.weights.count() == 2 * aicb::params_on_gpu(job, 1).total());
}

TEST_CASE("memory: FP8 training holds its GEMMs' inputs as quantized copies, by hand", "[calc][memory]") {
  // GPT-22B, TP 8 with SP, F = 4h: a layer holds (10 + 8 + 16)/8 s·b·h in BF16; in FP8 the inputs of
  // QKV and the output projection (2 + 2 → 1 + 1) and of fc1 and fc2 (2 + 8 → 1 + 4) take half.
  auto job = gpt22b(8, 1, 64, 64);
  const double s = 2048, b = 4, h = 6144, t = 8, sbh = s * b * h;
  job.batch.dtype = aicb::dtype::fp8;
  CHECK(aicb::layer_activation_bytes(job, 4 * h) == Approx(sbh * (34 - 2 - 5) / t));
  // Without SP the first projection's and fc1's inputs are whole on every GPU: 1 each saved in full.
  job.parallel.sequence_parallel = false;
  CHECK(aicb::layer_activation_bytes(job, 4 * h) == Approx(sbh * (10 + 24 / t - 1 - 1 / t - 1 - 4 / t)));
  // Recomputing the whole MLP leaves nothing of its GEMMs' inputs to quantize.
  job.parallel.sequence_parallel = true;
  job.parallel.recompute = aicb::recompute_kind::selective;
  job.parallel.recompute_modules = aicb::recompute_modules_text::from("mlp");
  CHECK(aicb::layer_activation_bytes(job, 4 * h) == Approx(sbh * (10 - 2 + 5) / t));
}

TEST_CASE("memory: the last stage holds one micro batch's loss, its logits as the loss's kernels keep them",
          "[calc][memory]") {
  // GPT-22B on PP 4 (TP 8, SP, micro batch 4): the output layer's input, 4·s·b·h/t, and per logit of the
  // vocabulary shard s·b·V'/t the 4 bytes of Megatron's FP32 probabilities, or the 2 of Transformer Engine's
  // loss.
  auto job = gpt22b(8, 4, 64, 256);
  const double sb = static_cast<double>(job.batch.seq_length * job.batch.micro_batch);
  const double h = static_cast<double>(job.model.hidden_size);
  const double vocab = static_cast<double>(aicb::padded_vocab(job));
  const double stage3 = static_cast<double>(aicb::memory_per_gpu(job, 3).activations.count());
  // Stage 3 and stage 2 hold the same layers; stage 2 has two micro batches in flight, stage 3 one.
  const double per_microbatch = static_cast<double>(aicb::memory_per_gpu(job, 2).activations.count()) / 2;
  CHECK(stage3 - per_microbatch == Approx(sb * (4 * h + 4 * vocab) / 8).epsilon(1e-9));
  job.parallel.cross_entropy_loss_fusion = true;  // Megatron's fused loss keeps the same probabilities
  CHECK(static_cast<double>(aicb::memory_per_gpu(job, 3).activations.count()) ==
        Approx(stage3).epsilon(1e-12));
  job.parallel.cross_entropy_fusion_impl = aicb::cross_entropy_fusion_kind::te;
  CHECK(static_cast<double>(aicb::memory_per_gpu(job, 3).activations.count()) - per_microbatch ==
        Approx(sb * (4 * h + 2 * vocab) / 8).epsilon(1e-9));
}

TEST_CASE("memory: zero-bubble H1 holds what 1F1B does, DualPipe two stages and PP + 1 micro batches",
          "[calc][memory]") {
  auto job = gpt22b(8, 4, 64, 256);  // PP 4, 32 micro batches; stages of equal layers
  const aicb::memory_estimate plain = aicb::memory_per_gpu(job, 1);
  job.parallel.pipeline_schedule = aicb::pipeline_schedule_kind::zb_h1;
  CHECK(aicb::memory_per_gpu(job, 1).total() == plain.total());
  job.parallel.pipeline_schedule = aicb::pipeline_schedule_kind::dualpipe;
  const aicb::memory_estimate dual = aicb::memory_per_gpu(job, 1);  // stage 1 and its mirror, stage 2
  CHECK(dual.weights == plain.weights * 2);
  CHECK(dual.gradients == plain.gradients * 2);
  CHECK(dual.in_flight_microbatches == 5);
  // The same layers per stage: five micro batches where 1F1B's stage 1 holds three.
  CHECK(static_cast<double>(dual.activations.count()) ==
        Approx(static_cast<double>(plain.activations.count()) * 5 / 3).epsilon(1e-9));
}

TEST_CASE(
    "memory: the combined 1F1B holds one forward more: two micro batches without a pipeline, one "
    "virtual micro batch more interleaved",
    "[calc][memory]") {
  aicb::job_spec job{
      aicb::presets::mixtral_8x7b,
      {.world_size = 8, .expert_parallel = 8, .moe_dispatcher = aicb::moe_dispatcher_kind::alltoall},
      {.micro_batch = 1, .global_batch = 32, .seq_length = 2048}};
  const aicb::memory_estimate plain = aicb::memory_per_gpu(job);
  job.parallel.overlap_moe_expert_parallel_comm = true;
  const aicb::memory_estimate merged = aicb::memory_per_gpu(job);
  CHECK(plain.in_flight_microbatches == 1);
  CHECK(merged.in_flight_microbatches == 2);
  CHECK(merged.weights == plain.weights);
  CHECK(merged.activations > plain.activations);
  // Interleaved, PP 2 × VPP 2 on 16 GPUs: a chunk's share (half a micro batch of the stage) more.
  job.parallel.world_size = 16;
  job.parallel.pipeline_parallel = 2;
  job.parallel.virtual_pipeline = 2;
  job.parallel.overlap_moe_expert_parallel_comm = false;
  // Stage 1, the last, also holds the loss's logits: 2048 tokens, 4 bytes of the output layer's input
  // per hidden element and 4 per logit of the 32000-row vocabulary.
  const double loss = 2048.0 * (4 * 4096 + 4 * 32000);
  const double interleaved = static_cast<double>(aicb::memory_per_gpu(job, 1).activations.count()) - loss;
  job.parallel.overlap_moe_expert_parallel_comm = true;
  // Stage 1 holds one micro batch (of the stage) with the interleaving penalty 1 + (p − 1)/(pV) = 5/4;
  // the extra virtual micro batch adds 1/V = 1/2 of one.
  CHECK(static_cast<double>(aicb::memory_per_gpu(job, 1).activations.count()) - loss ==
        Approx(interleaved * (1.25 + 0.5) / 1.25).epsilon(1e-9));
}
