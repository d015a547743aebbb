// The one layer description: the calculators' parameter and FLOP counts are sums over the schedules
// built from it (training and serving), and agree with the published counts and the paper formulas.
#include <aicb/calc/flops.hpp>
#include <aicb/calc/memory.hpp>
#include <aicb/calc/params.hpp>
#include <aicb/compat/deepspeed_csv.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/generate/csv_projection.hpp>
#include <aicb/generate/simai_projection.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/inference_step.hpp>
#include <aicb/schedule/layer.hpp>
#include <aicb/schedule/rank_schedule.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using u64 = std::uint64_t;

// The four kinds of model, each on a layout that exercises its parallelism: tensor and sequence
// parallelism everywhere, pipeline stages, experts over EP; the vocabulary padded to itself so the
// calculators (which count the model's own vocabulary) and the shards agree exactly.
aicb::job_spec job_of(aicb::model_spec m, u64 tp, u64 pp, u64 dp, u64 ep) {
  aicb::job_spec j;
  j.model = m;
  j.parallel.world_size = tp * pp * dp;
  j.parallel.tensor_parallel = tp;
  j.parallel.pipeline_parallel = pp;
  j.parallel.expert_parallel = ep;
  j.parallel.sequence_parallel = tp > 1;
  j.parallel.vocab_divisible_by = 1;
  j.parallel.attention = aicb::attention_kind::unfused;  // the model FLOPs' convention: the full scores
  j.parallel.moe_grouped_gemm = true;
  j.batch.seq_length = 4096;
  j.batch.micro_batch = 1;
  j.batch.global_batch = 2 * dp;
  return j;
}

struct named_job {
  const char* what;
  aicb::job_spec job;
};

std::vector<named_job> jobs() {
  aicb::model_spec mla = aicb::presets::deepseek_v2_lite;  // MLA, experts, shared experts, a dense layer
  mla.num_mtp_layers = 1;
  return {
      {"dense (Llama 3 8B)", job_of(aicb::presets::llama3_8b, 2, 2, 2, 1)},
      {"MoE (Mixtral 8x7B)", job_of(aicb::presets::mixtral_8x7b, 2, 2, 2, 2)},
      {"MLA + MTP (DeepSeek-V2-Lite)", job_of(mla, 2, 3, 2, 2)},
      {"hybrid (Qwen3-Next 80B-A3B)", job_of(aicb::presets::qwen3_next_80b_a3b, 2, 2, 2, 2)},
  };
}

// Model FLOPs of one rank's iteration, by phase: matrix products and attention cores.
struct phase_flops {
  double forward = 0, backward = 0, recompute = 0;
};
bool model_flop(const aicb::compute_op& op) {
  return op.kind == aicb::op_kind::gemm || op.kind == aicb::op_kind::attention ||
         op.kind == aicb::op_kind::linear_attention;
}
phase_flops schedule_flops(const aicb::job_spec& job) {
  phase_flops f;
  for (u64 r = 0; r < job.parallel.world_size; ++r)
    for (const aicb::operation& op : aicb::rank_schedule(job, r)) {
      if (op.type != aicb::op_type::compute || !model_flop(op.compute)) continue;
      // Selective recomputation repeats forward work (core attention, or its other modules') inside
      // the layer's backward.
      const bool recomputed =
          op.phase == aicb::op_phase::recompute ||
          (op.phase == aicb::op_phase::backward && op.compute.pass == aicb::pass_kind::forward);
      if (recomputed)
        f.recompute += op.compute.flops();
      else if (op.phase == aicb::op_phase::forward)
        f.forward += op.compute.flops();
      else if (op.phase == aicb::op_phase::backward)
        f.backward += op.compute.flops();
    }
  return f;
}

}  // namespace

TEST_CASE("layer description: each stage's weights are the calculators' shard, and sum to the model",
          "[schedule][layer]") {
  for (const auto& [what, job] : jobs()) {
    INFO(what);
    u64 held = 0;
    for (u64 stage = 0; stage < job.parallel.pipeline_parallel; ++stage) {
      const aicb::rank_schedule s(job, aicb::first_rank_of_stage(job, stage));
      const aicb::shard_params p = aicb::params_on_gpu(job, stage);
      CHECK(s.dense_weights() == p.dense);
      CHECK(s.expert_weights() == p.expert);
      // The memory report's weights, gradients and Adam state are the schedule's weights (BF16
      // weights and gradients, 12 bytes of optimizer state each, nothing sharded).
      const aicb::memory_estimate mem = aicb::memory_per_gpu(job, stage);
      const u64 weights = s.dense_weights() + s.expert_weights();
      CHECK(mem.weights.count() == 2 * weights);
      CHECK(mem.optimizer.count() == 12 * weights);
      held += p.total();
    }
    CHECK(held > 0);
    // One GPU holding everything: the model's count, less the buffers (no gradient: DeepSeek's router
    // score bias) and plus the MTP modules, which model cards count apart.
    aicb::job_spec one = job;
    one.parallel = {};
    one.parallel.vocab_divisible_by = 1;
    one.batch.global_batch = 1;
    const aicb::param_counts c = aicb::count_params(job.model, job.batch.seq_length);
    const aicb::model_spec m = aicb::resolve(job.model);
    const u64 buffers = m.moe_router_bias ? m.num_moe_layers() * m.num_experts : 0;
    const aicb::rank_schedule whole(one, 0);
    CHECK(whole.dense_weights() + whole.expert_weights() == c.total() + c.mtp - buffers);
  }
  // The published counts (the models' config.json / safetensors totals).
  STATIC_REQUIRE(aicb::count_params(aicb::presets::llama3_8b).total() == 8'030'261'248);
  STATIC_REQUIRE(aicb::count_params(aicb::presets::mixtral_8x7b).total() == 46'702'792'704);
  STATIC_REQUIRE(aicb::count_params(aicb::presets::deepseek_v3).total() == 671'026'419'200);
  CHECK(static_cast<double>(aicb::count_params(aicb::presets::qwen3_next_80b_a3b).total()) ==
        Approx(80e9).epsilon(0.005));
}

TEST_CASE("layer description: training FLOPs are the sums over every rank's schedule", "[schedule][layer]") {
  for (auto [what, job] : jobs()) {
    for (const aicb::recompute_kind recompute :
         {aicb::recompute_kind::none, aicb::recompute_kind::selective, aicb::recompute_kind::full}) {
      INFO(what << ", recompute " << static_cast<int>(recompute));
      job.parallel.recompute = recompute;
      const aicb::flop_counts closed = aicb::training_flops(job);
      const phase_flops summed = schedule_flops(job);
      CHECK(summed.forward == Approx(closed.forward).epsilon(1e-12));
      CHECK(summed.backward == Approx(closed.backward).epsilon(1e-12));
      CHECK(summed.recompute == Approx(closed.recompute).epsilon(1e-12).margin(1));
      CHECK(closed.backward == Approx(2 * closed.forward).epsilon(1e-12));
    }
  }
}

TEST_CASE("layer description: selective recomputation's modules, summed over the schedules, are the count's",
          "[schedule][layer]") {
  for (auto [what, job] : jobs()) {
    job.parallel.recompute = aicb::recompute_kind::selective;
    job.parallel.moe_grouped_gemm = true;
    for (const char* modules : {"moe", "mlp", "shared_experts", "layernorm,moe_act", "mla_up_proj core_attn",
                                "moe mlp layernorm mla_up_proj"}) {
      job.parallel.recompute_modules = aicb::recompute_modules_text::from(modules);
      try {
        aicb::validate(job);
      } catch (const aicb::config_error&) {
        continue;  // mla_up_proj without MLA
      }
      INFO(what << ", recompute_modules " << modules);
      const aicb::flop_counts closed = aicb::training_flops(job);
      const phase_flops summed = schedule_flops(job);
      CHECK(summed.forward == Approx(closed.forward).epsilon(1e-12));
      CHECK(summed.backward == Approx(closed.backward).epsilon(1e-12));
      CHECK(summed.recompute == Approx(closed.recompute).epsilon(1e-12).margin(1));
    }
  }
}

TEST_CASE("layer description: a GPT schedule's FLOPs are Narayanan et al.'s Eq. 3", "[schedule][layer]") {
  // GPT-3 1.3B shape, MHA, GeLU, ffn 4h, full recomputation: 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)).
  aicb::job_spec job = job_of(aicb::presets::gpt3_1_3b, 2, 2, 1, 1);
  job.parallel.recompute = aicb::recompute_kind::full;
  job.batch.seq_length = 2048;
  const phase_flops f = schedule_flops(job);
  const double B = 2, s = 2048, l = 24, h = 2048, V = 50257;
  const double eq3 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  // The schedule pads the vocabulary to TP; Eq. 3 counts the model's own.
  const double padding = 6 * B * s * h * (50258 - V);
  CHECK(f.forward + f.backward + f.recompute == Approx(eq3 + padding).epsilon(1e-12));
}

TEST_CASE("layer description: a serving step is the same layers, forward only", "[schedule][layer]") {
  // One request's prefill of 4096 tokens on one GPU: each layer's GEMMs are the training forward's;
  // its core attention is the causal half (fused kernels); the weights are the model's, but buffers.
  for (const auto& [what, job] : jobs()) {
    INFO(what);
    const aicb::model_spec m = aicb::resolve(job.model);
    const aicb::serving_spec s{.phase = aicb::inference_phase::prefill, .batch = 1, .prompt = 4096};
    const aicb::inference_step step(m, s);
    std::vector<double> gemm(m.num_layers, 0), core(m.num_layers, 0);
    for (const aicb::operation& op : step.operations()) {
      if (op.type != aicb::op_type::compute || op.layer >= m.num_layers) continue;
      if (op.compute.kind == aicb::op_kind::gemm) gemm[op.layer] += op.compute.flops();
      if (op.compute.kind == aicb::op_kind::attention || op.compute.kind == aicb::op_kind::linear_attention)
        core[op.layer] += op.compute.flops();
    }
    for (u64 l = 0; l < m.num_layers; ++l) {
      INFO("layer " << l);
      const aicb::layer_flops t = aicb::forward_layer_flops(m, l, 4096, 4096, {.causal_halving = true});
      CHECK(gemm[l] == Approx(t.gemm).epsilon(1e-12));
      CHECK(core[l] == Approx(t.core_attention).epsilon(1e-12));
    }
    const aicb::param_counts c = aicb::count_params(m);
    const u64 buffers = m.moe_router_bias ? m.num_moe_layers() * m.num_experts : 0;
    CHECK(step.weights() == c.total() - buffers);
  }
}

TEST_CASE("layer description: a Gated DeltaNet training layer, by hand", "[schedule][layer]") {
  // Qwen3-Next's linear-attention layer on one GPU, one sequence of T = 4096 tokens: h = 2048, 16
  // key heads and 32 value heads of 128; in_proj_qkvz h → 2·2048 + 2·4096, in_proj_ba h → 2·32,
  // out_proj 4096 → h; the gated delta rule per value head: per token the state's three products
  // (3 · 2·128·128) and, within a chunk of 64, the causal scores and weighted values (32 · 2·256).
  aicb::job_spec job = job_of(aicb::presets::qwen3_next_80b_a3b, 1, 1, 1, 1);
  job.batch.global_batch = 1;
  const double T = 4096, h = 2048;
  const double projections = 2 * T * h * 12288 + 2 * T * h * 64 + 2 * T * 4096 * h;
  const double core = 32 * T * (6 * 128 * 128 + 64 * 256);
  double forward = 0, backward = 0, core_bytes = 0;
  std::vector<std::string> names;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.layer != 0 || op.type != aicb::op_type::compute) continue;
    if (!std::string(op.name).starts_with("gdn_")) continue;
    if (op.phase == aicb::op_phase::forward) names.emplace_back(op.name);
    const double f = model_flop(op.compute) ? op.compute.flops() : 0;
    (op.phase == aicb::op_phase::forward ? forward : backward) += f;
    if (op.name == "gdn_core" && op.phase == aicb::op_phase::forward) core_bytes = op.compute.bytes();
  }
  CHECK(names == std::vector<std::string>{"gdn_in_proj_qkvz", "gdn_in_proj_ba", "gdn_conv", "gdn_core",
                                          "gdn_norm", "gdn_out"});
  CHECK(forward == Approx(projections + core).epsilon(1e-12));
  CHECK(backward == Approx(2 * (projections + core)).epsilon(1e-12));
  // q, k, v in and the output out per token and head (2·128 + 2·128), the 128 × 128 state read and
  // written, BF16.
  CHECK(core_bytes == Approx(32 * (T * 512 + 2 * 128 * 128) * 2.0));
  // The layer description's count of the layer is the calculators' (36 of them in the model).
  const aicb::param_counts c = aicb::count_params(job.model);
  CHECK(c.attention == 12 * 27'263'488ull + 36 * 33'718'464ull);
}

TEST_CASE("layer description: sliding-window attention with sinks (GPT-OSS), by hand", "[schedule][layer]") {
  // GPT-OSS-20B on one GPU, one sequence of S = 4096 tokens, flash attention: layer 0 attends over a
  // window of W = 128 keys, layer 1 over the whole causal context; 64 query heads of 64, a sink each.
  aicb::job_spec job = job_of(aicb::presets::gpt_oss_20b, 1, 1, 1, 1);
  job.parallel.attention = aicb::attention_kind::flash;
  job.batch.global_batch = 1;
  const double S = 4096, W = 128, heads = 64, d = 64;
  // Query-key pairs: each query sees min(position, W) keys: S·W − W²/2; the causal triangle S²/2.
  const double window_pairs = S * W - W * W / 2, causal_pairs = S * S / 2;
  const double sink_forward = 2 * heads * S, sink_backward = 4 * heads * S;
  std::map<std::pair<u64, int>, double> core_flops;  // (layer, forward?) -> FLOPs
  std::map<u64, double> core_bytes;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.type != aicb::op_type::compute || op.name != std::string_view("attention_core") || op.layer > 1)
      continue;
    const bool forward = op.phase == aicb::op_phase::forward;
    core_flops[{op.layer, forward ? 1 : 0}] += op.compute.flops();
    if (forward) core_bytes[op.layer] = op.compute.bytes();
  }
  CHECK(core_flops[{0, 1}] == Approx(2 * heads * window_pairs * 2 * d + sink_forward).epsilon(1e-12));
  CHECK(core_flops[{0, 0}] == Approx(2.5 * 2 * heads * window_pairs * 2 * d + sink_backward).epsilon(1e-12));
  CHECK(core_flops[{1, 1}] == Approx(2 * heads * causal_pairs * 2 * d + sink_forward).epsilon(1e-12));
  // A fused kernel reads Q, K, V and writes O once, window or not: (2·S·d + 2·S·d) per head, BF16.
  CHECK(core_bytes[0] == Approx(heads * 4 * S * d * 2));
  CHECK(core_bytes[1] == core_bytes[0]);
  // Decode over a 100000-token context: the window layer reads its 128 cached keys and values, the
  // full layer all of them.
  aicb::compute_op decode{.role = aicb::op_role::attention_core, .kind = aicb::op_kind::attention};
  decode.causal = false;
  decode.batch = 8;  // KV heads
  decode.m = 8;      // a group's query heads, one token
  decode.n = 100000;
  decode.k = 64;
  aicb::compute_op windowed = decode;
  windowed.window = 128;
  CHECK(windowed.flops() == Approx(2 * 8 * 8 * 128 * 128.0));
  CHECK(windowed.bytes() == Approx(8 * (2 * 8 * 64 + 2 * 128 * 64) * 2.0));
  CHECK(decode.bytes() == Approx(8 * (2 * 8 * 64 + 2 * 100000 * 64) * 2.0));
  // The sinks are one weight per head and layer; GPT-OSS-20B's model card counts 20.91B in all.
  const aicb::param_counts c = aicb::count_params(job.model);
  const u64 per_layer_attention = 2880 * 4096 + 4096 + 2 * (2880 * 512 + 512) + 4096 * 2880 + 2880 + 64;
  CHECK(c.attention == 24 * per_layer_attention);
  CHECK(c.total() == 20'914'757'184ull);
}

TEST_CASE("layer description: GPT-OSS's expert output bias, added expert by expert after the GEMM",
          "[schedule][layer]") {
  // GPT-OSS-20B on one GPU, one sequence of S = 4096 tokens: each of its 32 experts receives
  // S · 4 / 32 = 512 rows of h = 2880. Megatron adds the second GEMM's bias after it, expert by
  // expert: forward the scaled bias written (1 element) and added to the rows (2 in, 1 out) — two
  // kernels each — and the rows joined (1 in, 1 out); backward the bias's and the probabilities'
  // gradients (a product written and reduced, 3 each), the bias's main-gradient accumulation — five
  // kernels each — and the rows' gradients joined back (2).
  aicb::job_spec job = job_of(aicb::presets::gpt_oss_20b, 1, 1, 1, 1);
  job.parallel.attention = aicb::attention_kind::flash;
  job.batch.global_batch = 1;
  const double rows = 4096.0 * 4 / 32, h = 2880, experts = 32, e = 2;
  std::vector<aicb::compute_op> bias;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0))
    if (op.type == aicb::op_type::compute && op.layer == 0 && op.name == std::string_view("moe_fc2_bias"))
      bias.push_back(op.compute);
  REQUIRE(bias.size() == 2);
  CHECK(bias[0].pass == aicb::pass_kind::forward);
  CHECK(bias[1].pass == aicb::pass_kind::input_grad);
  for (const aicb::compute_op& o : bias) {
    CHECK(o.batch == 32);
    CHECK(o.m == 512);
    CHECK_FALSE(o.one_kernel);
  }
  CHECK(bias[0].bytes() == Approx(experts * rows * h * e * (1 + 3 + 2)));
  CHECK(bias[1].bytes() == Approx(experts * rows * h * e * (3 + 3 + 2)));
  CHECK(bias[0].kernels_per_problem == 2);
  CHECK(bias[1].kernels_per_problem == 5);
  // Experts without biases (Qwen3) and experts looped without a grouped GEMM have none.
  const auto has_bias = [](const aicb::job_spec& j) {
    for (const aicb::operation& op : aicb::rank_schedule(j, 0))
      if (op.name == std::string_view("moe_fc2_bias")) return true;
    return false;
  };
  aicb::job_spec qwen = job_of(aicb::presets::qwen3_30b_a3b, 1, 1, 1, 1);
  qwen.model.num_layers = 2;
  qwen.batch.global_batch = 1;
  CHECK_FALSE(has_bias(qwen));
  job.parallel.moe_grouped_gemm = false;
  CHECK_FALSE(has_bias(job));
}

TEST_CASE("layer description: a YaRN attention factor or --no-rope-fusion rotates unfused in training",
          "[schedule][layer]") {
  // GPT-OSS-20B on one GPU, S = 4096 tokens: 64 query heads and 8 key heads of 64. Its YaRN factor
  // is one Megatron-Core's fused RoPE cannot apply: each tensor of N elements is rotated forward in
  // 12 kernels moving 12·N·e bytes, backward in 7 moving 13·N·e; at factor 1, one kernel each way
  // moving 2·N·e.
  aicb::job_spec job = job_of(aicb::presets::gpt_oss_20b, 1, 1, 1, 1);
  job.parallel.attention = aicb::attention_kind::flash;
  job.batch.global_batch = 1;
  const auto rotations = [](const aicb::job_spec& j) {
    std::map<std::pair<std::string, int>, aicb::compute_op> ops;  // (name, forward?) -> op
    for (const aicb::operation& op : aicb::rank_schedule(j, 0))
      if (op.type == aicb::op_type::compute && op.layer == 0 && op.compute.role == aicb::op_role::rotary)
        ops[{std::string(op.name), op.compute.pass == aicb::pass_kind::forward}] = op.compute;
    return ops;
  };
  const double S = 4096, q = 64.0 * 64, k = 8.0 * 64, e = 2;
  auto unfused = rotations(job);
  REQUIRE(unfused.size() == 4);
  CHECK(unfused[{"rotary_q", 1}].bytes() == Approx(S * q * e * 12));
  CHECK(unfused[{"rotary_q", 0}].bytes() == Approx(S * q * e * 13));
  CHECK(unfused[{"rotary_k", 1}].bytes() == Approx(S * k * e * 12));
  CHECK(unfused[{"rotary_k", 1}].kernels_per_problem == 12);
  CHECK(unfused[{"rotary_k", 0}].kernels_per_problem == 7);
  job.model.rope_attention_factor = 1.0;
  auto fused = rotations(job);
  CHECK(fused[{"rotary_q", 1}].bytes() == Approx(S * q * e * 2));
  CHECK(fused[{"rotary_q", 0}].bytes() == Approx(S * q * e * 2));
  CHECK(fused[{"rotary_q", 1}].one_kernel);
  // Megatron's --no-rope-fusion rotates unfused whatever the factor.
  job.parallel.no_rope_fusion = true;
  CHECK(rotations(job)[{"rotary_q", 0}].bytes() == Approx(S * q * e * 13));
}

TEST_CASE("layer description: DeepSeek sparse attention (DeepSeek-V3.2), by hand", "[schedule][layer]") {
  // DeepSeek-V3.2 cut to 4 layers on one GPU, one sequence of S = 8192 tokens, BF16, flash attention.
  // Layer 0: MLA's 128 heads (query-key 192, value 128) over the top K = 2048 keys of each query, and the
  // lightning indexer: H = 64 heads of d = 128 from the query latent (1536), one key head of d and H
  // weights from the hidden state (7168).
  aicb::job_spec job = job_of(aicb::presets::deepseek_v3_2, 1, 1, 1, 1);
  job.model.num_layers = 4;
  job.parallel.attention = aicb::attention_kind::flash;
  job.batch.seq_length = 8192;
  job.batch.global_batch = 1;
  const double S = 8192, K = 2048, H = 64, d = 128, h = 7168, qr = 1536, heads = 128;
  const double causal_pairs = S * S / 2, selected_pairs = S * K - K * K / 2;
  std::map<std::pair<std::string, int>, double> flops, bytes;  // (name, forward?) -> sum
  std::vector<std::pair<std::string, aicb::pass_kind>> indexer_passes;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.type != aicb::op_type::compute || op.layer != 0) continue;
    const bool forward = op.phase == aicb::op_phase::forward;
    flops[{std::string(op.name), forward}] += op.compute.flops();
    bytes[{std::string(op.name), forward}] += op.compute.bytes();
    if (op.compute.role == aicb::op_role::attention_index)
      indexer_passes.emplace_back(std::string(op.name), op.compute.pass);
  }
  CHECK(flops[{"indexer_k", 1}] == Approx(2 * S * h * d));
  CHECK(flops[{"indexer_weights", 1}] == Approx(2 * S * h * H));
  CHECK(flops[{"indexer_q", 1}] == Approx(2 * S * qr * H * d));
  // Every causal pair scored, 2·H·d FLOPs each; BF16 queries and the key in, a 4-byte score per pair
  // written and read back by the top-k.
  CHECK(flops[{"indexer_scores", 1}] == Approx(causal_pairs * 2 * H * d));
  CHECK(bytes[{"indexer_scores", 1}] == Approx((S * H * d + S * d) * 2 + causal_pairs * 8));
  // Its loss differentiates the selected pairs only: query and key gradients.
  CHECK(flops[{"indexer_scores", 0}] == Approx(selected_pairs * 4 * H * d));
  // The attention computes min(position, K) keys per query.
  CHECK(flops[{"attention_core", 1}] == Approx(2 * heads * selected_pairs * (192 + 128)));
  CHECK(flops[{"attention_core", 0}] == Approx(2.5 * 2 * heads * selected_pairs * (192 + 128)));
  // The indexer's input is detached: its backward is weight gradients only.
  for (const auto& [name, pass] : indexer_passes)
    if (name != "indexer_scores" && name != "indexer_k_norm") CHECK(pass != aicb::pass_kind::input_grad);
  CHECK(std::count(indexer_passes.begin(), indexer_passes.end(),
                   std::pair<std::string, aicb::pass_kind>{"indexer_q", aicb::pass_kind::weight_grad}) == 1);
  // Its weights, whole on every TP rank: q (1536 x 8192), k (7168 x 128) with a LayerNorm (2 x 128),
  // the head weights (7168 x 64) — 13,959,424 a layer over V3's.
  const u64 indexer = 1536ull * 8192 + 7168ull * 128 + 2 * 128 + 7168ull * 64;
  CHECK(indexer == 13'959'424ull);
  CHECK(aicb::count_params(aicb::presets::deepseek_v3_2).total() ==
        aicb::count_params(aicb::presets::deepseek_v3).total() + 61 * indexer);
  aicb::job_spec tp4 = job;
  tp4.parallel.world_size = tp4.parallel.tensor_parallel = 4;
  tp4.parallel.sequence_parallel = true;
  double tp4_indexer_forward = 0;
  for (const aicb::operation& op : aicb::rank_schedule(tp4, 0))
    if (op.layer == 0 && op.phase == aicb::op_phase::forward && op.name == std::string_view("indexer_scores"))
      tp4_indexer_forward += op.compute.flops();
  CHECK(tp4_indexer_forward == flops[{"indexer_scores", 1}]);  // replicated, not split
  // Serving: the cache holds MLA's latent (576 BF16 values) and the indexer's FP8 key with its scale
  // (128 + 4 bytes) per token and layer; a decode step scores the whole 32k context in FP8 and reads
  // 2048 latents per request.
  aicb::serving_spec decode{.phase = aicb::inference_phase::decode, .batch = 8, .context = 32768};
  const aicb::inference_step step(aicb::presets::deepseek_v3_2, decode, 0);
  CHECK(step.model_kv_bytes_per_token() == Approx(61 * (576 * 2 + 132.0)));
  bool scored = false, attended = false;
  for (const aicb::operation& op : step.operations()) {
    if (op.layer != 0 || op.type != aicb::op_type::compute) continue;
    if (op.name == std::string_view("indexer_scores")) {
      scored = true;
      CHECK(op.compute.type == aicb::dtype::fp8);
      CHECK(op.compute.flops() == Approx(8 * 32768 * 2 * H * d));
    }
    if (op.name == std::string_view("attention_core")) {
      attended = true;
      CHECK(op.compute.decode_keys() == 2048);
    }
  }
  CHECK((scored && attended));
  // Not modelled, refused: context parallelism (which rank holds the selected keys) and the unfused path.
  aicb::job_spec cp = job;
  cp.parallel.world_size = cp.parallel.context_parallel = 2;
  CHECK_THROWS_WITH(aicb::validate_training(cp),
                    Catch::Contains("context parallelism with DeepSeek sparse attention"));
  aicb::job_spec unfused = job;
  unfused.parallel.attention = aicb::attention_kind::unfused;
  CHECK_THROWS_WITH(aicb::validate_training(unfused), Catch::Contains("sparse fused kernels"));
}

TEST_CASE("layer description: shared indexers (GLM-5.2's IndexShare), by hand", "[schedule][layer]") {
  // GLM-5 cut to 4 layers with the pattern F S S F: layers 1 and 2 attend to the 2048 keys layer 0
  // selected, without an indexer of their own — no indexer operations, forward or backward, no
  // indexer weights, no indexer key in the serving cache — and otherwise cost what layer 0 costs.
  aicb::job_spec job = job_of(aicb::presets::glm5, 1, 1, 1, 1);
  job.model.num_layers = 4;  // layers 0-2 dense, layer 3 experts
  job.model.indexer_pattern = "FSSF";
  job.parallel.attention = aicb::attention_kind::flash;
  job.batch.seq_length = 8192;
  job.batch.global_batch = 1;
  aicb::validate(job.model);
  const double S = 8192, K = 2048, H = 32, d = 128, h = 6144, qr = 2048;
  const double causal_pairs = S * S / 2, selected_pairs = S * K - K * K / 2;
  // The indexer of one layer, by hand: its three projections and LayerNorm forward, its scores over
  // every causal pair forward and the selected pairs backward, its projections' weight gradients.
  const double indexer_gemms = 2 * S * h * d + 2 * S * h * H + 2 * S * qr * H * d;
  const double indexer_flops = 2 * indexer_gemms + causal_pairs * 2 * H * d + selected_pairs * 4 * H * d;
  std::array<double, 4> flops{}, attention{};
  std::array<int, 4> indexer_ops{};
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.type != aicb::op_type::compute || op.layer >= 4) continue;
    if (op.compute.kind == aicb::op_kind::norm)
      continue;  // the indexer key's LayerNorm: no FLOPs priced here
    flops[op.layer] += op.compute.flops();
    if (op.compute.role == aicb::op_role::attention_index) ++indexer_ops[op.layer];
    if (op.name == std::string_view("attention_core")) attention[op.layer] += op.compute.flops();
  }
  CHECK(indexer_ops[0] > 0);
  CHECK(indexer_ops[3] == indexer_ops[0]);
  CHECK(indexer_ops[1] == 0);
  CHECK(indexer_ops[2] == 0);
  CHECK(flops[0] - flops[1] == Approx(indexer_flops).epsilon(1e-9));
  CHECK(flops[2] == flops[1]);
  // The shared layers still attend sparsely: min(position, K) keys per query.
  CHECK(attention[1] == Approx(3.5 * 2 * 64 * selected_pairs * (256 + 256)));
  CHECK(attention[1] == attention[0]);
  // Weights: two indexers fewer than four — q (2048 x 32·128), k (6144 x 128) with a LayerNorm
  // (2 x 128), the head weights (6144 x 32).
  const std::uint64_t indexer = 2048ull * 32 * 128 + 6144ull * 128 + 2 * 128 + 6144ull * 32;
  aicb::model_spec every = job.model;
  every.indexer_pattern = {};
  CHECK(aicb::count_params(every).total() - aicb::count_params(job.model).total() == 2 * indexer);
  // Serving: only the F layers keep the indexer's FP8 key (128 + 4 bytes a token).
  aicb::serving_spec decode{.phase = aicb::inference_phase::decode, .batch = 8, .context = 32768};
  const aicb::inference_step shared(job.model, decode, 0), own(every, decode, 0);
  CHECK(own.model_kv_bytes_per_token() - shared.model_kv_bytes_per_token() == Approx(2 * 132.0));
  CHECK(shared.model_kv_bytes_per_token() == Approx(4 * 576 * 2 + 2 * 132.0));
}

TEST_CASE("layer description: chunked attention and interleaved experts (Llama 4), by hand",
          "[schedule][layer]") {
  // Llama 4 Maverick cut to 4 layers on one GPU, one sequence of S = 20000 tokens, flash attention:
  // layers 0-2 attend within chunks of C = 8192 (RoPE, and Scout's L2 norm on queries and keys),
  // layer 3 over the whole causal context; layers 1 and 3 have experts, 0 and 2 a dense MLP.
  aicb::model_spec m = aicb::presets::llama4_maverick;
  m.num_layers = 4;
  m.qk_l2_norm = true;  // Scout's norm on Maverick's layout: both rules in one layer set
  aicb::job_spec job = job_of(m, 1, 1, 1, 1);
  job.parallel.attention = aicb::attention_kind::flash;
  job.batch.seq_length = 20000;
  job.batch.global_batch = 1;
  const double S = 20000, C = 8192, heads = 40, d = 128;
  // Query-key pairs: a causal triangle per chunk — two whole chunks and the 3616 tokens left.
  const double chunk_pairs = 2 * (C * C / 2) + 3616.0 * 3616 / 2, causal_pairs = S * S / 2;
  std::map<std::pair<u64, int>, double> core_flops;  // (layer, forward?) -> FLOPs
  std::map<u64, int> qk_norms, expert_gemms, dense_gemms;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.type != aicb::op_type::compute || op.phase != aicb::op_phase::forward) continue;
    const std::string_view name = op.name;
    if (name == "attention_core") core_flops[{op.layer, 1}] += op.compute.flops();
    if (name == "qk_norm") ++qk_norms[op.layer];
    if (name == "moe_fc1") ++expert_gemms[op.layer];
    if (name == "mlp_fc1") ++dense_gemms[op.layer];
  }
  for (u64 layer : {0, 1, 2})
    CHECK(core_flops[{layer, 1}] == Approx(2 * heads * chunk_pairs * 2 * d).epsilon(1e-12));
  CHECK(core_flops[{3, 1}] == Approx(2 * heads * causal_pairs * 2 * d).epsilon(1e-12));
  CHECK(qk_norms == std::map<u64, int>{{0, 1}, {1, 1}, {2, 1}});
  CHECK(expert_gemms.count(1) == 1);
  CHECK(expert_gemms.count(3) == 1);
  CHECK(dense_gemms.count(0) == 1);
  CHECK(dense_gemms.count(2) == 1);
  CHECK(expert_gemms.count(0) + expert_gemms.count(2) + dense_gemms.count(1) + dense_gemms.count(3) == 0);
  // The L2 norm has no weights: the 4 layers' attention weights are the projections alone.
  const aicb::param_counts c = aicb::count_params(job.model);
  CHECK(c.attention == 4 * (5120ull * 5120 * 2 + 2 * 5120ull * 1024));
  // Decode at position 20000 reads the last chunk's 20000 − 16384 = 3616 keys; at 16384 a whole chunk.
  aicb::compute_op decode{.role = aicb::op_role::attention_core, .kind = aicb::op_kind::attention};
  decode.causal = false;
  decode.batch = 8;
  decode.m = 5;
  decode.n = 20000;
  decode.k = 128;
  decode.attention_chunk = 8192;
  CHECK(decode.flops() == Approx(2 * 8 * 5 * 3616 * 256.0));
  CHECK(decode.bytes() == Approx(8 * (2 * 5 * 128 + 2 * 3616 * 128) * 2.0));
  decode.n = 16384;
  CHECK(decode.flops() == Approx(2 * 8 * 5 * 8192 * 256.0));
  // A sequence within one chunk is the plain causal triangle.
  aicb::compute_op within = decode;
  within.causal = true;
  within.m = within.n = 4096;
  aicb::compute_op full = within;
  full.attention_chunk = 0;
  CHECK(within.flops() == full.flops());
}

TEST_CASE("layer description: latent experts (Nemotron 3 Super) travel and work in the latent width, by hand",
          "[schedule][layer]") {
  // Nemotron 3 Super over EP 8 on 8 GPUs, one sequence of S = 4096 tokens per GPU: each token is
  // projected 4096 -> 1024 before the exchange, sent to 22 experts in 1024 values, and projected back.
  aicb::job_spec job = job_of(aicb::presets::nemotron3_super_120b_a12b, 1, 1, 8, 8);
  job.parallel.attention = aicb::attention_kind::flash;
  job.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::alltoall;
  job.batch.global_batch = 8;
  const double S = 4096, h = 4096, latent = 1024, k = 22;
  std::map<std::string, double> forward_flops, bytes;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.layer != 1 || op.phase != aicb::op_phase::forward) continue;  // layer 1: the first E layer
    if (op.type == aicb::op_type::compute) forward_flops[std::string(op.name)] += op.compute.flops();
    if (op.type == aicb::op_type::collective)
      bytes[std::string(op.name)] = static_cast<double>(op.size.count());
  }
  CHECK(forward_flops["moe_latent_down"] == Approx(2 * S * h * latent));
  CHECK(forward_flops["moe_latent_up"] == Approx(2 * S * latent * h));
  CHECK(bytes["moe_dispatch"] == Approx(S * k * latent * 2));
  CHECK(bytes["moe_combine"] == Approx(S * k * latent * 2));
  // 64 local experts of 512: each receives 4096 · 22 · 8 / 512 = 1408 tokens, 1024 -> 2688 -> 1024.
  CHECK(forward_flops["moe_fc1"] == Approx(2 * 64 * 1408 * latent * 2688));
  CHECK(forward_flops["moe_fc2"] == Approx(2 * 64 * 1408 * 2688 * latent));
  // The router reads the hidden state itself.
  CHECK(forward_flops["moe_router"] == Approx(2 * S * h * 512));
}

TEST_CASE("layer description: a Mamba-2 training layer (Nemotron 3 Nano), by hand", "[schedule][layer]") {
  // Layer 0 (M) on one GPU, one sequence of T = 4096 tokens: h = 2688, 64 heads of 64 (inner 4096),
  // 8 groups of state 128. in_proj h → 2·4096 + 2·8·128 + 64 = 10304, out_proj 4096 → h; the SSD scan
  // per head and token: the state's two products (2 · 2·128·64) and, within a chunk of 128, the
  // causal scores C·Bᵀ, once per group of 64 / 8 = 8 heads, and the weighted values
  // (128 · (128 / 8 + 64)).
  aicb::job_spec job = job_of(aicb::presets::nemotron3_nano_30b_a3b, 1, 1, 1, 1);
  job.parallel.attention = aicb::attention_kind::flash;
  job.batch.global_batch = 1;
  const double T = 4096, h = 2688;
  const double projections = 2 * T * h * 10304 + 2 * T * 4096 * h;
  const double scan = 64 * T * (4 * 128 * 64 + 128 * (128 / 8 + 64));
  double forward = 0, backward = 0, scan_bytes = 0;
  std::vector<std::string> names;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.layer != 0 || op.type != aicb::op_type::compute) continue;
    if (op.phase == aicb::op_phase::forward) names.emplace_back(op.name);
    const double f = model_flop(op.compute) ? op.compute.flops() : 0;
    (op.phase == aicb::op_phase::forward ? forward : backward) += f;
    if (op.name == std::string_view("mamba_scan") && op.phase == aicb::op_phase::forward)
      scan_bytes = op.compute.bytes();
  }
  // One block: its norm, the mixer, the residual — no MLP.
  CHECK(names == std::vector<std::string>{"input_norm", "mamba_in_proj", "mamba_conv", "mamba_scan",
                                          "mamba_norm", "mamba_out_proj", "attention_residual"});
  CHECK(forward == Approx(projections + scan).epsilon(1e-12));
  CHECK(backward == Approx(2 * (projections + scan)).epsilon(1e-12));
  // x and y (64 each), B and C (128 each) per token and head, the 128 x 64 state read and written, BF16.
  CHECK(scan_bytes == Approx(64 * (T * (2 * 128 + 2 * 64) + 2 * 128 * 64) * 2.0));
  // Layer 1 (E) is experts alone, layer 5 (*) attention alone.
  std::vector<std::string> moe_layer, attention_layer;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.phase != aicb::op_phase::forward || op.microbatch != 0) continue;
    if (op.layer == 1) moe_layer.emplace_back(op.name);
    if (op.layer == 5) attention_layer.emplace_back(op.name);
  }
  CHECK(std::count(moe_layer.begin(), moe_layer.end(), "moe_fc1") == 1);
  CHECK(std::count(moe_layer.begin(), moe_layer.end(), "attention_qkv") == 0);
  CHECK(std::count(moe_layer.begin(), moe_layer.end(), "post_attention_norm") == 0);
  CHECK(std::count(attention_layer.begin(), attention_layer.end(), "attention_core") == 1);
  CHECK(std::count(attention_layer.begin(), attention_layer.end(), "mlp_fc1") == 0);
}

TEST_CASE("layer description: Megatron's MoE bookkeeping kernels around the token exchange",
          "[schedule][layer]") {
  // Mixtral 8x7B, EP 2 with the all-to-all dispatcher: per layer and micro batch the router's
  // softmax, top-k and load-balancing loss over T x E, the per-expert histogram, the permutation
  // of the T·k token copies before the exchange, the sort of the received chunks by local expert
  // (4 of them) and back, and the probability-weighted unpermutation after the combine.
  aicb::job_spec job = job_of(aicb::presets::mixtral_8x7b, 1, 1, 2, 2);
  job.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::alltoall;
  job.batch.global_batch = 2;
  std::vector<std::string> forward;
  double permute_bytes = 0;
  for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
    if (op.layer != 0 || op.phase != aicb::op_phase::forward) continue;
    const std::string name(op.name);
    if (name.starts_with("moe_") && name != "moe_fc1" && name != "moe_fc2" && name != "moe_act")
      forward.push_back(name);
    if (name == "moe_permute") permute_bytes = op.compute.bytes();
  }
  CHECK(forward == std::vector<std::string>{"moe_router", "moe_router_softmax", "moe_router_topk",
                                            "moe_aux_loss", "moe_token_histogram", "moe_permute",
                                            "moe_token_counts", "moe_dispatch", "moe_dispatch_probs",
                                            "moe_sort_chunks", "moe_sort_chunks_back", "moe_combine",
                                            "moe_unpermute"});
  // T·k = 4096 · 2 rows of h = 4096 read and written in BF16.
  CHECK(permute_bytes == Approx(4096.0 * 2 * 4096 * 2 * 2));
}

TEST_CASE("layer description: routing imbalance, capacity and padding size the busiest GPU's experts",
          "[schedule][layer]") {
  // Mixtral 8x7B, EP 2, all-to-all: T = 4096 tokens, k = 2, E = 8, so a local expert's balanced
  // share is 4096 * 2 * 2 / 8 = 2048 rows, and the exchange 4096 * 2 copies of h = 4096 in BF16.
  const auto sizes = [](double capacity, bool pad, double skew) {
    aicb::job_spec job = job_of(aicb::presets::mixtral_8x7b, 1, 1, 2, 2);
    job.parallel.moe_dispatcher = aicb::moe_dispatcher_kind::alltoall;
    job.batch.global_batch = 2;
    job.model.moe_capacity_factor = capacity;
    job.model.moe_pad_to_capacity = pad;
    job.model.moe_load_skew = skew;
    std::pair<u64, double> out{0, 0};
    for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
      if (op.layer != 0 || op.phase != aicb::op_phase::forward) continue;
      if (op.name == "moe_fc1") out.first = op.compute.m;
      if (op.name == "moe_dispatch") out.second = static_cast<double>(op.size.count());
    }
    return out;
  };
  const double exchange = 4096.0 * 2 * 4096 * 2;
  CHECK(sizes(0, false, 0) == std::pair<u64, double>{2048, exchange});
  CHECK(sizes(0, false, 0.25) == std::pair<u64, double>{2560, 1.25 * exchange});  // dropless: all of it
  CHECK(sizes(1.1, false, 0.25).first == 2253);  // dropped beyond 1.1 x 2048 = 2252.8, rounded up
  CHECK(sizes(1.5, false, 0.25).first == 2560);  // under the capacity: nothing dropped
  CHECK(sizes(1.5, true, 0).first == 3072);      // padded to the capacity
  aicb::model_spec m = aicb::presets::mixtral_8x7b;
  m.moe_load_skew = -0.1;
  CHECK_THROWS_WITH(aicb::validate(m), Catch::Contains("moe_load_skew = -0.1"));
  m.moe_load_skew = 7.5;
  CHECK_THROWS_WITH(aicb::validate(m), Catch::Contains("at most num_experts"));
  m.moe_load_skew = 0;
  m.moe_pad_to_capacity = true;
  CHECK_THROWS_WITH(aicb::validate(m), Catch::Contains("moe_pad_to_capacity needs moe_capacity_factor"));
  aicb::model_spec dense = aicb::presets::llama2_7b;
  dense.moe_load_skew = 0.5;
  CHECK_THROWS_WITH(aicb::validate(dense), Catch::Contains("need num_experts > 0"));
}

TEST_CASE("layer description: experts padded to a capacity need no counts, HybridEP pads on arrival",
          "[schedule][layer]") {
  // Mixtral 8x7B, EP 2 as above: a local expert's balanced share is 2048 rows, the all-to-all
  // dispatcher's exchange 4096 x 2 copies of h = 4096 in BF16, the flex one each token once per
  // destination GPU.
  struct seen {
    u64 rows = 0;
    double dispatch = 0;
    bool counts = false;
  };
  const auto play = [](aicb::moe_dispatcher_kind dispatcher, bool pad) {
    aicb::job_spec job = job_of(aicb::presets::mixtral_8x7b, 1, 1, 2, 2);
    job.parallel.moe_dispatcher = dispatcher;
    if (dispatcher == aicb::moe_dispatcher_kind::flex)
      job.parallel.moe_flex_backend = aicb::moe_flex_backend_kind::hybridep;
    job.batch.global_batch = 2;
    job.model.moe_capacity_factor = pad ? 1.5 : 0;
    job.model.moe_pad_to_capacity = pad;
    seen out;
    for (const aicb::operation& op : aicb::rank_schedule(job, 0)) {
      if (op.layer != 0 || op.phase != aicb::op_phase::forward) continue;
      if (op.name == "moe_fc1") out.rows = op.compute.m;
      if (op.name == "moe_dispatch") out.dispatch = static_cast<double>(op.size.count());
      out.counts = out.counts || op.name == "moe_token_counts";
    }
    return out;
  };
  // The all-to-all dispatcher pads before the exchange: the padded rows travel, and no counts are
  // gathered (Megatron's drop-and-pad preprocess knows every split).
  const seen a2a = play(aicb::moe_dispatcher_kind::alltoall, false),
             a2a_pad = play(aicb::moe_dispatcher_kind::alltoall, true);
  CHECK(a2a.counts);
  CHECK_FALSE(a2a_pad.counts);
  CHECK(a2a.rows == 2048);
  CHECK(a2a_pad.rows == 3072);
  CHECK(a2a_pad.dispatch == Approx(1.5 * a2a.dispatch));
  // HybridEP pads where the tokens arrive: the experts compute the capacity, the wire carries what
  // was routed.
  const seen flex = play(aicb::moe_dispatcher_kind::flex, false),
             flex_pad = play(aicb::moe_dispatcher_kind::flex, true);
  CHECK(flex.rows == 2048);
  CHECK(flex_pad.rows == 3072);
  CHECK(flex.dispatch > 0);
  CHECK(flex_pad.dispatch == Approx(flex.dispatch));
}

TEST_CASE("layer description: DeepSpeed's CSV and SimAI forms carry the same collectives",
          "[schedule][layer]") {
  for (const u64 stage : {1, 2, 3}) {
    INFO("ZeRO-" << stage);
    aicb::aicb_args a;
    a.stage = stage;
    a.world_size = 8;
    a.global_batch = 16;
    a.num_layers = 4;
    a.hidden_size = 1024;
    a.num_attention_heads = 8;
    a.ffn_hidden_size = 2816;
    a.vocab_size = 32000;
    const aicb::job_spec job = aicb::deepspeed_job(a);
    using entry = std::pair<aicb::collective, u64>;
    std::vector<entry> csv, simai;
    bool warm_up = true;
    aicb::csv_projection(job, {.rank = 0}).generate([&](const aicb::csv_item& item) {
      if (item.op == aicb::csv_op::epoch_end) warm_up = false;
      if (warm_up) return;
      switch (item.op) {
        case aicb::csv_op::all_reduce:
          csv.emplace_back(aicb::collective::all_reduce, item.msg_size);
          break;
        case aicb::csv_op::all_gather:
          csv.emplace_back(aicb::collective::all_gather, item.msg_size);
          break;
        case aicb::csv_op::reduce_scatter:
          csv.emplace_back(aicb::collective::reduce_scatter, item.msg_size);
          break;
        default:
          break;
      }
    });
    const aicb::constant_model compute;
    const aicb::simai_projection w(job, compute);
    for (const aicb::record& r : w.records())
      for (const aicb::phase* p : {&r.forward, &r.input_grad, &r.weight_grad})
        if (p->comm.active()) simai.emplace_back(p->comm.kind, p->comm.size.count());
    std::sort(csv.begin(), csv.end());
    std::sort(simai.begin(), simai.end());
    CHECK(!csv.empty());
    CHECK(csv == simai);
    // ZeRO-2/3 reduce-scatter gradients module by module; ZeRO-3 gathers weights before use.
    const auto has = [&](aicb::collective k) {
      return std::any_of(csv.begin(), csv.end(), [&](const entry& e) { return e.first == k; });
    };
    CHECK(has(aicb::collective::reduce_scatter));
    CHECK(has(aicb::collective::all_gather));
  }
}
