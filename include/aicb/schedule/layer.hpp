// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The one description of a model's layers — what each block computes, communicates and holds on
/// one GPU — that every consumer instantiates: the training schedule (aicb::rank_schedule), the
/// serving step (aicb::inference_step), the parameter counts (aicb::count_params, params_on_gpu)
/// and the FLOP count (aicb::training_flops).
///
/// A block is written once, as a function of a `layer_context` (the model, the GPU's share of the
/// parallel layout, its tokens, training or serving) that tells a sink, in order, its operations:
///
/// ```cpp
/// sink.compute(name, compute_op)                      // a computation on this GPU
/// sink.collective(name, collective, group_kind, size) // a collective over one of its groups
/// sink.ring(name, step, reverse, size)                // a context-parallel ring exchange
/// sink.weights(weight_part, weight_sharing, elements) // weights the operation just before reads
/// ```
///
/// Forward builders declare each weight with the operation that reads it; backward builders list
/// the gradient passes in the order they run. Sinks are plain structs: a schedule's template
/// collects operations, a counter adds up weights or FLOPs — at compile time if it likes (every
/// builder is constexpr).
///
/// Blocks (the sources are in docs/schedules.md and docs/inference.md):
/// - softmax attention: grouped-query heads over TP, optional q/k norms and a sigmoid output gate
///   (Qwen3-Next); multi-head latent attention (replicated down-projections, latents gathered over
///   TP; in serving decode the weight-absorbed form); context parallelism as ring attention;
/// - Gated DeltaNet linear attention (Qwen3-Next's hybrid layout), its heads over TP;
/// - a dense MLP (GeLU or SwiGLU) over TP; a mixture of experts with shared experts (and their
///   gate), dispatched by Megatron's all-gather or all-to-all dispatcher in training, by DeepEP's
///   kernels (or not at all: experts split over TP) in serving;
/// - the vocabulary-parallel embedding, the output layer (the loss in training, the logits gathered
///   for sampling in serving), a multi-token-prediction module's input.
///
/// Where training and serving differ it is in what runs, not in how a block is described: serving
/// is forward only, keeps no sequence parallelism (the tokens are scattered over TP only around
/// expert-parallel experts), fuses the residual addition into the next norm (as its engines do) and
/// folds a KV group's query heads into one attention problem (as its decode and prefill kernels
/// do); training keeps Megatron's bias-dropout-add and one attention problem per query head.

#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/model/compute_op.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/options.hpp>
#include <aicb/model/spec.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/workload/collective.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// Which component of the model a weight belongs to (the breakdown of aicb::param_counts).
enum class weight_part : std::uint8_t {
  embedding,       ///< the input embedding and a learned position table
  output,          ///< the output projection
  attention,       ///< projections, their biases, q/k norms, MLA latent norms, Gated DeltaNet's weights
  dense_mlp,       ///< dense MLPs
  routed_experts,  ///< routed experts
  shared_experts,  ///< shared experts and their gate
  router,          ///< the MoE layer's own weights: routers, their score bias, latent projections
  norms,           ///< the two norms of each layer and the final norm
  mtp,             ///< a multi-token-prediction module's own weights (norms, projection)
};

/// How a weight is held across the GPUs, which decides how its gradient is reduced.
enum class weight_sharing : std::uint8_t {
  split,       ///< a TP shard (or a whole weight without TP): gradient reduced over DP × CP
  replicated,  ///< the same on every TP rank; under sequence parallelism its gradient is a partial sum
  expert,      ///< a routed expert's shard: gradient reduced over expert-DP
  buffer,      ///< not trained: no gradient, no optimizer state (DeepSeek-V3's router score bias)
};

/// How a mixture of experts moves its tokens.
enum class expert_exchange : std::uint8_t {
  allgather,        ///< Megatron's all-gather dispatcher over ETP × EP
  alltoall,         ///< Megatron's all-to-all dispatcher over EP (and a gather over ETP)
  flex,             ///< Megatron's flex dispatcher on DeepEP over EP: a token once per destination GPU
  deepep,           ///< serving: DeepEP's dispatch and combine all-to-alls over every GPU
  tensor_parallel,  ///< serving without EP: every expert split over TP, one all-reduce
};

/// The kind of one decoder layer: its token mixer and its MLP.
struct layer_kind {
  bool linear_attention = false;  ///< Gated DeltaNet instead of softmax attention
  bool moe = false;               ///< experts instead of a dense MLP
  bool local_attention = false;   ///< softmax attention over the model's sliding window or chunk
  bool mamba = false;             ///< a Mamba-2 mixer instead of attention
  bool no_mixer = false;          ///< an MLP (or experts) alone: a pattern's - or E layer
  bool no_mlp = false;            ///< a token mixer alone: a pattern's M or * layer
  bool shared_index = false;      ///< sparse attention on the previous layer's selection, no indexer
  /// Distinct kinds (index() is below it).
  static constexpr std::size_t count = 128;
  [[nodiscard]] constexpr std::uint8_t index() const noexcept {
    return static_cast<std::uint8_t>((shared_index ? 64 : 0) + (no_mlp ? 32 : 0) + (no_mixer ? 16 : 0) +
                                     (mamba ? 8 : 0) + (local_attention ? 4 : 0) +
                                     (linear_attention ? 2 : 0) + (moe ? 1 : 0));
  }
  friend constexpr bool operator==(layer_kind, layer_kind) = default;
};

/// Layer `layer` of `m` (0-based); index num_layers is a multi-token-prediction module's layer
/// (built like the decoder's last, with full softmax attention). A layer pattern gives each layer
/// one block: M a Mamba-2 mixer, * attention, - an MLP, E experts. An S layer of the
/// indexer_pattern attends sparsely without an indexer of its own.
[[nodiscard]] constexpr layer_kind kind_of_layer(const model_spec& m, std::uint64_t layer) noexcept {
  const bool decoder = layer < m.num_layers;
  if (decoder && m.has_layer_pattern()) {
    const char block = m.pattern_at(layer);
    return {.moe = block == 'E',
            .mamba = block == 'M',
            .no_mixer = block == '-' || block == 'E',
            .no_mlp = block == 'M' || block == '*'};
  }
  return {.linear_attention = decoder && m.is_linear_attention_layer(layer),
          .moe = m.is_moe_layer(layer),
          .local_attention = decoder && m.is_local_attention_layer(layer),
          .shared_index = m.has_sparse_attention() && !m.runs_indexer(layer)};
}

namespace detail {
// C(a, k) / C(b, k) for a ≤ b: Π_{i<k} (a − i) / (b − i); 0 when a < k.
[[nodiscard]] constexpr double choose_ratio(std::uint64_t a, std::uint64_t b, std::uint64_t k) {
  double r = 1;
  for (std::uint64_t i = 0; i < k; ++i) {
    if (a < i + 1) return 0;
    r *= static_cast<double>(a - i) / static_cast<double>(b - i);
  }
  return r;
}
// The probability that `draws` of `population` items, `marked` of them marked, include exactly `j`
// marked ones: C(marked, j) · C(population − marked, draws − j) / C(population, draws).
[[nodiscard]] constexpr double hypergeometric(std::uint64_t population, std::uint64_t marked,
                                              std::uint64_t draws, std::uint64_t j) {
  if (j > marked || j > draws || draws - j > population - marked) return 0;
  double p = 1;
  for (std::uint64_t i = 0; i < j; ++i)
    p *= static_cast<double>(marked - i) / static_cast<double>(i + 1);
  for (std::uint64_t i = 0; i < draws - j; ++i)
    p *= static_cast<double>(population - marked - i) / static_cast<double>(i + 1);
  for (std::uint64_t i = 0; i < draws; ++i)
    p *= static_cast<double>(i + 1) / static_cast<double>(population - i);
  return p;
}
}  // namespace detail

/// Expected distinct destinations — GPUs, or nodes — of a token routed to `k` of `experts` experts
/// spread evenly over `units` (each holding experts / units consecutive experts), under uniform
/// routing: units · (1 − C(E − E/units, k) / C(E, k)). With group-limited routing (DeepSeek's
/// n_group / topk_group: `groups` equal groups of consecutive experts, a token's k experts chosen
/// among those of `group_topk` groups), the groups are chosen uniformly and the k experts uniformly
/// among theirs: a unit inside a group is reached when its group is chosen and one of the k falls on
/// it; a unit of whole groups when one of its chosen groups receives one of the k.
[[nodiscard]] constexpr double expected_destinations(std::uint64_t experts, std::uint64_t k,
                                                     std::uint64_t units, std::uint64_t groups = 0,
                                                     std::uint64_t group_topk = 0) {
  if (units <= 1 || experts == 0) return 1;
  const std::uint64_t per = experts / units;
  const bool limited = groups > 1 && group_topk < groups && experts % groups == 0;
  const std::uint64_t group = limited ? experts / groups : 0, pool = group * group_topk;
  if (!limited || per == 0 || (per < group ? group % per != 0 : per % group != 0))
    return static_cast<double>(units) * (1 - detail::choose_ratio(experts - per, experts, k));
  double reached = 0;
  if (per <= group) {
    reached = static_cast<double>(group_topk) / static_cast<double>(groups) *
              (1 - detail::choose_ratio(pool - per, pool, k));
  } else {
    // j of the unit's whole groups among the chosen ones (hypergeometric), then one of the k on them.
    const std::uint64_t mine = per / group;
    for (std::uint64_t j = 1; j <= mine && j <= group_topk; ++j)
      reached += detail::hypergeometric(groups, mine, group_topk, j) *
                 (1 - detail::choose_ratio(pool - j * group, pool, k));
  }
  return static_cast<double>(units) * reached;
}

/// Everything a block's description depends on: the model and one GPU's share of the work.
struct layer_context {
  model_spec model;  ///< resolved
  bool training = true;
  dtype gemm_type = dtype::bf16;        ///< GEMMs (the weights' format)
  dtype activation_type = dtype::bf16;  ///< everything else, and the activations communicated
  /// Serving: the KV cache's format, which attention reads in decode, and in prefill too where it is
  /// FP8 (see core_attention).
  dtype cache_type = dtype::bf16;
  /// Serving: the recurrent layers' state cache (Gated DeltaNet's, Mamba-2's) each request's scan reads
  /// and writes; training keeps no state across steps and leaves it the activations'.
  dtype state_type = dtype::bf16;
  std::uint64_t tp = 1, cp = 1, ep = 1, etp = 1;
  bool sp = false;                 ///< sequence parallelism (training, TP > 1)
  std::uint64_t sequences = 1;     ///< micro batch, or the requests of a DP-attention group
  std::uint64_t query_tokens = 1;  ///< tokens per sequence on this GPU (seq / CP; serving: per request)
  std::uint64_t key_tokens = 1;    ///< keys each query attends over (seq; serving: context or prompt)
  bool decode = false;             ///< serving decode: attention reads the KV cache, MLA absorbed
  bool fused_attention = true;     ///< FlashAttention; false: Megatron's unfused path
  bool fused_rope = true;          ///< training: Megatron-Core's fused RoPE kernel (apply_rope_fusion)
  loss_kernel loss = loss_kernel::unfused;  ///< training: whose cross-entropy kernels run
  recompute_set recompute{};                ///< training: what selective recomputation repeats (parallel.hpp)
  expert_exchange exchange = expert_exchange::allgather;
  bool grouped_gemm = false;                              ///< the local experts as one grouped GEMM
  fp8_recipe_kind fp8_recipe = fp8_recipe_kind::delayed;  ///< training: how FP8 GEMMs' operands are scaled
  bool fp8_dispatch = true;                               ///< serving: DeepEP dispatches FP8 tokens
  std::uint64_t gpus = 1;               ///< serving: every GPU (DeepEP's expert-parallel group)
  std::uint64_t vocab_rows = 0;         ///< vocabulary rows of the embedding and output shards
  std::uint64_t learned_positions = 0;  ///< rows of a learned position table (0: none)

  /// Tokens of the GPU's sequences, and those it holds between TP blocks (its sequence shard).
  [[nodiscard]] constexpr std::uint64_t tokens() const noexcept { return sequences * query_tokens; }
  [[nodiscard]] constexpr std::uint64_t local_tokens() const noexcept {
    return sp ? tokens() / tp : tokens();
  }
  /// Bytes of one activation element.
  [[nodiscard]] constexpr std::uint64_t element_bytes() const noexcept { return size_of(activation_type); }
};

/// Whose cross-entropy kernels a training job runs: Megatron's unfused operations, or with
/// cross_entropy_loss_fusion its fused ones or Transformer Engine's (cross_entropy_fusion_impl).
[[nodiscard]] constexpr loss_kernel training_loss_kernel(const parallel_spec& p) noexcept {
  if (!p.cross_entropy_loss_fusion) return loss_kernel::unfused;
  return p.cross_entropy_fusion_impl == cross_entropy_fusion_kind::te ? loss_kernel::te : loss_kernel::fused;
}

/// The context of one GPU of a training job: its micro batch's sequence shard (seq / CP), its TP,
/// EP and expert-TP shares, the job's dispatcher, attention kernel and recomputation.
[[nodiscard]] constexpr layer_context training_layer_context(const job_spec& job) noexcept {
  const parallel_spec& p = job.parallel;
  const model_spec m = resolve(job.model);
  layer_context c{.model = m};
  c.training = true;
  c.gemm_type = job.batch.dtype;
  c.activation_type = activation_dtype(job.batch.dtype);
  c.tp = p.tensor_parallel;
  c.cp = p.context_parallel;
  c.ep = p.expert_parallel;
  c.etp = expert_tensor_parallel(job);
  c.sp = p.sequence_parallel && p.tensor_parallel > 1;
  c.fused_rope = !p.no_rope_fusion;
  c.sequences = job.batch.micro_batch;
  c.query_tokens = job.batch.seq_length / p.context_parallel;
  c.key_tokens = job.batch.seq_length;
  c.fused_attention = p.attention == attention_kind::flash;
  c.loss = training_loss_kernel(p);
  c.recompute = recomputed_modules(p);
  c.exchange = p.moe_dispatcher == moe_dispatcher_kind::alltoall ? expert_exchange::alltoall
               : p.moe_dispatcher == moe_dispatcher_kind::flex   ? expert_exchange::flex
                                                                 : expert_exchange::allgather;
  c.grouped_gemm = p.moe_grouped_gemm;
  c.fp8_recipe = job.batch.fp8_recipe;
  c.vocab_rows = padded_vocab(job) / p.tensor_parallel;
  if (m.position == position_kind::learned)
    c.learned_positions = m.max_position_embeddings != 0 ? m.max_position_embeddings : job.batch.seq_length;
  return c;
}

namespace detail {

// Writes a block's operations to a sink with the context's shapes and formats; every block below
// is a member, so the context, the sink and the shorthands are in scope.
template <class Sink>
struct layer_writer {
  const layer_context& c;
  Sink& out;
  using pk = pass_kind;
  // True while a block's forward is written again inside its backward (selective recomputation of
  // the moe, mlp or shared_experts modules): its operations repeat, its weights are declared once.
  bool replaying = false;

  constexpr void declare(weight_part part, weight_sharing sharing, std::uint64_t n) {
    if (!replaying) out.weights(part, sharing, n);
  }
  constexpr bool recomputes(recompute_module m) const { return c.training && c.recompute.has(m); }
  // Writes `block` (a forward) again, its weights not declared twice.
  template <class Block>
  constexpr void replay(Block&& block) {
    replaying = true;
    block();
    replaying = false;
  }

  constexpr std::uint64_t h() const { return c.model.hidden_size; }
  constexpr bool tp() const { return c.tp > 1; }
  constexpr std::uint64_t norm_weights(std::uint64_t n) const {
    return c.model.norm == norm_kind::layernorm ? 2 * n : n;
  }
  constexpr std::uint64_t gated() const { return c.model.activation == activation_kind::swiglu ? 2 : 1; }
  // The full (gathered) activation of the GPU's tokens, in bytes.
  constexpr std::uint64_t activation() const { return c.tokens() * h() * c.element_bytes(); }

  // A computation of this layer's precision: GEMMs in the GEMM type, everything else in the
  // activations'; causal when training. The output layer's GEMM (and the MoE router's gate, gate())
  // runs in the activations' type whatever the GEMM type: Megatron's output layer is its own
  // ColumnParallelLinear and its router a plain linear of the router's weight, both outside
  // Transformer Engine's FP8 regions, and FP8 checkpoints for serving keep the LM head and the gate
  // in 16 bits (TensorRT Model Optimizer and vLLM leave the LM head unquantized; DeepSeek-V3's FP8
  // release quantises neither).
  constexpr compute_op shaped(op_role role, op_kind kind, pass_kind pass, std::uint64_t batch,
                              std::uint64_t m, std::uint64_t n, std::uint64_t k) const {
    compute_op o{.role = role,
                 .kind = kind,
                 .pass = pass,
                 .type = kind == op_kind::gemm && role != op_role::logits ? c.gemm_type : c.activation_type,
                 .batch = batch,
                 .m = m,
                 .n = n,
                 .k = k};
    o.causal = c.training;
    return o;
  }
  constexpr void op(std::string_view name, op_role role, op_kind kind, pass_kind pass, std::uint64_t batch,
                    std::uint64_t m, std::uint64_t n, std::uint64_t k = 0, std::uint8_t inputs = 1) {
    compute_op o = shaped(role, kind, pass, batch, m, n, k);
    o.inputs = inputs;
    out.compute(name, o);
  }
  // A GEMM rows × k times k × n (`batch` of them; one kernel or one after another).
  constexpr void gemm(std::string_view name, op_role role, pass_kind pass, std::uint64_t rows,
                      std::uint64_t k, std::uint64_t n, std::uint64_t batch = 1, bool one_kernel = true) {
    compute_op o = shaped(role, op_kind::gemm, pass, batch, rows, n, k);
    o.one_kernel = one_kernel;
    if (o.type == dtype::fp8) fp8_scaling(o, reads_fused_norm(name, role));
    out.compute(name, o);
  }
  // The MoE router's gate, one pass: a plain linear of the router's weight, in the activations' type
  // whatever the GEMM type (shaped).
  constexpr void gate(pass_kind pass, std::uint64_t rows, std::uint64_t experts) {
    compute_op o = shaped(op_role::moe_router, op_kind::gemm, pass, 1, rows, experts, h());
    o.type = c.activation_type;
    out.compute("moe_router", o);
  }
  // Whether a GEMM's input is written by the norm fused before it (Megatron's Transformer Engine
  // layers: TELayerNormColumnParallelLinear for the attention's input projection — QKV, Mamba's and
  // Gated DeltaNet's — the dense MLP's fc1 and MLA's up-projections with their latent norms). Shared
  // experts and MLA's direct query projection read a norm of their own.
  static constexpr bool reads_fused_norm(std::string_view name, op_role role) noexcept {
    switch (role) {
      case op_role::attention_qkv:
      case op_role::mla_kv_up:
        return true;
      case op_role::mla_q_up:
        return name != "mla_q";
      case op_role::mlp_fc1:
        return name != shared_names.fc1;
      default:
        return false;
    }
  }
  // The FP8 scaling work of one pass of a GEMM (compute_op::quantize_input_bytes and the rest).
  // Serving engines quantise the input once (a cast: 2 bytes read, 1 written). Training counts
  // Transformer Engine's (module/linear.py, layernorm_linear.py, base.py's grad_output_preprocess),
  // with X the input and G the output gradient as the GEMM sees them, under delayed scaling:
  // - forward: without sequence parallelism one fused cast-transpose writes the FP8 input and its
  //   transpose for the weight gradient (2 + 1 + 1 bytes per element of X); with it a cast only (3),
  //   of the GPU's shard before the all-gather when the input is gathered; nothing when a fused norm
  //   wrote the input in FP8;
  // - input gradient: a cast-transpose of G (4), or, where G is all-gathered (a row-parallel output
  //   under sequence parallelism), a cast of the GPU's shard (3 / TP) and a transpose of the gathered
  //   G (1 + 1) — two kernels;
  // - weight gradient: the transpose of the FP8 input (2 per element of X) when the forward did not
  //   write it (sequence parallelism, or a fused norm's output).
  // The other recipes (fp8_recipe_kind), as Transformer Engine 2.x runs them (csrc/quantizer.cpp,
  // extensions/cast.cpp's split_quantize, extensions/normalization.cpp):
  // - tensorwise: each quantised tensor first has its amax taken (2 more bytes read per element of what
  //   is cast), then its scale computed, then the cast — two more kernels; a norm takes the amax of its
  //   own output but writes it in 16 bits, so its GEMM's input is cast apart (2 + 1 + 1, two kernels);
  // - blockwise and mxfp8: the scales come with the cast, one kernel; a norm writes 16 bits and its GEMM's
  //   input is cast apart (2 + 1 + 1: the row-wise and column-wise copies at once).
  // A grouped GEMM's experts are one fused cast-transpose under delayed scaling (nvte_multi_cast_transpose);
  // under the others, and when the experts run as a loop of linears, each expert's operand is quantised
  // by its own kernels.
  constexpr void fp8_scaling(compute_op& o, bool normed) const {
    if (!c.training) {
      if (o.pass == pk::forward) {
        o.quantize_input_bytes = 3;
        o.quantize_kernels = 1;
      }
      return;
    }
    // The TP-split linears see the TP group's tokens; experts, the router and the GEMMs over the
    // GPU's own sequence shard quantise what they read, as without sequence parallelism.
    bool split = false;
    switch (o.role) {
      case op_role::attention_qkv:
      case op_role::attention_out:
      case op_role::mlp_fc1:
      case op_role::mlp_fc2:
      case op_role::mla_q_up:
      case op_role::mla_kv_up:
      case op_role::attention_index:
      case op_role::mtp_projection:
        split = c.sp && o.m == c.tokens();
        break;
      default:
        break;
    }
    const bool row = split && (o.role == op_role::attention_out || o.role == op_role::mlp_fc2);
    const double shard = 1.0 / static_cast<double>(c.tp);
    const bool delayed = c.fp8_recipe == fp8_recipe_kind::delayed;
    const bool amax = c.fp8_recipe == fp8_recipe_kind::tensorwise;  // its amax pass and scale kernel
    const bool norm_writes_fp8 = normed && delayed;
    // Each expert's operand on its own (see above), else one quantisation for the whole pass.
    const bool experts = o.role == op_role::moe_fc1 || o.role == op_role::moe_fc2;
    const std::uint32_t tensors =
        experts && o.batch > 1 && !(delayed && o.one_kernel) ? static_cast<std::uint32_t>(o.batch) : 1;
    switch (o.pass) {
      case pk::forward:
        if (norm_writes_fp8) return;
        // A norm's 16-bit output is cast apart; under tensorwise scaling its amax came with the norm.
        o.quantize_input_bytes = (!split ? 4
                                  : row  ? 3
                                         : 3 * shard) +
                                 (amax && !normed ? 2 * (split && !row ? shard : 1) : 0);
        o.quantize_kernels = (amax ? (normed ? 2 : 3) : 1) * tensors;
        return;
      case pk::input_grad:
        o.quantize_output_bytes = (row ? 3 * shard + 2 : 4) + (amax ? 2 * (row ? shard : 1) : 0);
        o.quantize_kernels = ((row ? 2 : 1) + (amax ? 2 : 0)) * tensors;
        return;
      case pk::weight_grad:
        if (!norm_writes_fp8 && !split) return;
        o.quantize_input_bytes = 2;
        o.quantize_kernels = tensors;
        return;
    }
  }
  // A forward GEMM and the weights it reads (`batch` × k × n, and `bias` elements).
  constexpr void projection(std::string_view name, op_role role, std::uint64_t rows, std::uint64_t k,
                            std::uint64_t n, weight_part part, weight_sharing sharing,
                            std::uint64_t batch = 1, bool one_kernel = true) {
    gemm(name, role, pk::forward, rows, k, n, batch, one_kernel);
    declare(part, sharing, batch * k * n);
  }
  // A GEMM's two gradient passes, input gradient first.
  constexpr void gradients(std::string_view name, op_role role, std::uint64_t rows, std::uint64_t k,
                           std::uint64_t n, std::uint64_t batch = 1, bool one_kernel = true) {
    gemm(name, role, pk::input_grad, rows, k, n, batch, one_kernel);
    gemm(name, role, pk::weight_grad, rows, k, n, batch, one_kernel);
  }
  // A norm over `features` of `rows` rows; in forward it declares its weights.
  constexpr void norm(std::string_view name, op_role role, pass_kind pass, std::uint64_t rows,
                      std::uint64_t features, weight_part part, std::uint64_t weights_of = 0) {
    op(name, role, op_kind::norm, pass, 1, rows, features);
    if (pass == pk::forward)
      declare(part, weight_sharing::replicated, norm_weights(weights_of ? weights_of : features));
  }
  constexpr void collective(std::string_view name, aicb::collective kind, group_kind group,
                            std::uint64_t size) {
    out.collective(name, kind, group, size);
  }

  // What an SP all-gather in front of a GEMM moves: the activation, or in FP8 training the FP8 copy
  // the GEMM reads (aicb::gathered_dtype) — Transformer Engine quantises before it gathers (a fused
  // norm's FP8 output, the input cast on its shard, the output gradient cast on its shard), while the
  // reduce-scatters after the GEMMs carry their 16-bit outputs.
  constexpr std::uint64_t gathered(bool into_fp8_gemm = true) const {
    return into_fp8_gemm && c.training ? c.tokens() * h() * size_of(gathered_dtype(c.gemm_type, c.sp))
                                       : activation();
  }

  // Entering a TP block: under SP an all-gather of the (norm) output. Leaving it: a reduce-scatter
  // under SP (or when the tokens go to expert-parallel experts), an all-reduce without.
  constexpr void enter(std::string_view name) {
    if (c.sp) collective(name, collective::all_gather, group_kind::tp, gathered());
  }
  constexpr void leave(std::string_view scatter, std::string_view reduce, bool scatter_tokens = false) {
    if (!tp()) return;
    if (c.sp || scatter_tokens)
      collective(scatter, collective::reduce_scatter, group_kind::tp, activation());
    else
      collective(reduce, collective::all_reduce, group_kind::tp, activation());
  }
  // The backward of leave(): under SP, the output gradient gathered.
  constexpr void leave_backward(std::string_view name) {
    if (c.sp) collective(name, collective::all_gather, group_kind::tp, gathered());
  }
  // The backward of a column-parallel input: re-gathered (SP) for the weight gradient, the input
  // gradient reduce-scattered (SP) or all-reduced. `into_fp8_gemm`: the GEMM runs in the GEMM type
  // (the output layer's does not).
  constexpr void regather(std::string_view name, bool into_fp8_gemm = true) {
    if (c.sp) collective(name, collective::all_gather, group_kind::tp, gathered(into_fp8_gemm));
  }

  // ---- softmax attention ------------------------------------------------------------------------

  constexpr std::uint64_t heads() const { return c.model.num_attention_heads / c.tp; }
  constexpr std::uint64_t kv_heads() const {  // replicated where TP exceeds them
    return std::max<std::uint64_t>(c.model.num_kv_heads / c.tp, 1);
  }
  constexpr std::uint64_t qk_dim() const {
    return c.model.is_mla() ? c.model.qk_nope_head_dim + c.model.qk_rope_head_dim : c.model.head_dim;
  }
  constexpr std::uint64_t v_dim() const { return c.model.is_mla() ? c.model.v_head_dim : c.model.head_dim; }
  // Query width of the QKV projection: with an output gate each head's query and its gate.
  constexpr std::uint64_t query_width() const {
    return (c.model.attention_output_gate ? 2 : 1) * heads() * c.model.head_dim;
  }
  constexpr std::uint64_t qkv_width() const { return query_width() + 2 * kv_heads() * c.model.head_dim; }
  // Keys and values exchanged per ring step (context parallelism).
  constexpr std::uint64_t ring_bytes() const {
    const std::uint64_t s = c.query_tokens, b = c.sequences, w = c.element_bytes();
    return c.model.is_mla() ? b * s * heads() * (qk_dim() + v_dim()) * w
                            : 2 * b * s * kv_heads() * c.model.head_dim * w;
  }

  // Core attention: training runs one problem per query head over the full sequence's keys;
  // serving folds a KV group's query heads into one problem (or, absorbed MLA, every head into one
  // latent head read once from the cache).
  constexpr compute_op core_attention(bool local) const {
    compute_op o{.role = op_role::attention_core, .kind = op_kind::attention, .type = c.activation_type};
    o.fused = c.fused_attention;
    o.causal = !c.decode;
    o.n = c.key_tokens;
    if (c.model.has_sparse_attention()) o.window = c.model.sparse_attention_topk;
    if (local) {
      o.window = c.model.sliding_window;
      o.attention_chunk = c.model.attention_chunk_size;
    }
    o.sinks = c.model.attention_sinks;
    const model_spec& m = c.model;
    if (m.is_mla() && c.decode) {
      o.batch = c.sequences;
      o.m = c.query_tokens * heads();
      o.k = m.kv_lora_rank + m.qk_rope_head_dim;
      o.v_dim = m.kv_lora_rank;
      o.shared_kv = true;
      o.type = c.cache_type;
      return o;
    }
    if (m.is_mla() || c.training) {
      o.batch = c.sequences * heads();
      o.m = c.query_tokens;
    } else {
      o.batch = c.sequences * kv_heads();
      o.m = c.query_tokens * (heads() / kv_heads());
    }
    o.k = qk_dim();
    if (v_dim() != qk_dim()) o.v_dim = v_dim();
    // Attention runs in the KV cache's format in decode, and in prefill too over an FP8 cache of per-head
    // keys and values: TensorRT-LLM's paged context FMHA over an FP8 cache requires FP8 attention,
    // and vLLM's FlashAttention 3 path serves an FP8 cache with FP8 attention. MLA's prefill attends
    // its decompressed heads, not the latent cache.
    const bool fp8_prefill = !c.training && !m.is_mla() && c.cache_type == dtype::fp8;
    if (c.decode || fp8_prefill) o.type = c.cache_type;
    return o;
  }

  // Rotary position embedding, between the projections and the attention core. Every layer of a
  // RoPE model rotates, except Llama 4's full-attention layers (no positions: NoPE). Training runs
  // Megatron-Core's fused kernels (apply_rope_fusion): the queries and the keys each read and
  // written whole as a new tensor; MLA's query rotated in place on its rotary part, and its key and
  // value built in one pass from the up-projection's output and the rotated key part (read: every
  // head's no-position key and value, and the one shared rotary key; written: every head's whole
  // key and value). Serving engines rotate queries and keys in place in one kernel (a partial
  // rotary factor is priced over the whole head); MLA's prefill then joins each head's key from its
  // no-position part and the shared rotary part (one copy), and absorbed decode rotates only the
  // rotary query parts and the one rotary key.
  constexpr bool rotates(bool local_layer) const {
    return c.model.position == position_kind::rope && !(c.model.attention_chunk_size > 0 && !local_layer);
  }
  // Without the fused kernel (--no-rope-fusion), or with a YaRN attention factor (GPT-OSS), which
  // Megatron-Core's fused kernel cannot apply, training rotates each of the queries and the keys
  // with PyTorch operations (rope_utils.py, _apply_rotary_pos_emb_bshd, Megatron-Core 0.16 and
  // later) — forward the cosines and sines (six small kernels) and six passes over the tensor,
  // backward seven (bytes: compute_op::bytes, op_role::rotary). MLA rotates with kernels of its own.
  constexpr bool unfused_rotary() const {
    return c.training && !c.model.is_mla() && (!c.fused_rope || c.model.rope_attention_factor != 1.0);
  }
  constexpr void rotary(std::string_view name, pass_kind pass, std::uint64_t written,
                        std::uint64_t read = 0) {
    compute_op o = shaped(op_role::rotary, op_kind::elementwise, pass, 1, c.tokens(), written, read);
    if (unfused_rotary()) {
      o.fused = false;
      o.one_kernel = false;
      o.kernels_per_problem = pass == pk::forward ? 12 : 7;
    }
    out.compute(name, o);
  }
  constexpr void rotary_forward(bool local_layer) {
    if (!rotates(local_layer)) return;
    const model_spec& m = c.model;
    if (!m.is_mla()) {
      if (!c.training) return rotary("rotary", pk::forward, (heads() + kv_heads()) * m.head_dim);
      rotary("rotary_q", pk::forward, heads() * m.head_dim);
      return rotary("rotary_k", pk::forward, kv_heads() * m.head_dim);
    }
    const std::uint64_t rope = m.qk_rope_head_dim, nope = m.qk_nope_head_dim, v = v_dim();
    if (!c.training) {
      rotary("rotary", pk::forward, (heads() + 1) * rope);
      if (!c.decode) rotary("mla_key_join", pk::forward, heads() * (nope + rope), heads() * nope + rope);
      return;
    }
    rotary("rotary_q", pk::forward, heads() * rope);
    rotary("rotary_kv", pk::forward, heads() * (nope + rope + v), heads() * (nope + v) + rope);
  }
  // Training's backward: the gradients rotated back (MLA: the key's and value's gradients split back
  // into the up-projection's output gradient and the rotary key's, summed over the heads).
  constexpr void rotary_backward(bool local_layer) {
    if (!rotates(local_layer)) return;
    const model_spec& m = c.model;
    if (!m.is_mla()) {
      rotary("rotary_k", pk::input_grad, kv_heads() * m.head_dim);
      return rotary("rotary_q", pk::input_grad, heads() * m.head_dim);
    }
    const std::uint64_t rope = m.qk_rope_head_dim, nope = m.qk_nope_head_dim, v = v_dim();
    rotary("rotary_kv", pk::input_grad, heads() * (nope + v) + rope, heads() * (nope + rope + v));
    rotary("rotary_q", pk::input_grad, heads() * rope);
  }

  // `shared_index`: a sparse layer that reuses the previous layer's selection runs no indexer.
  constexpr void softmax_attention_forward(bool local_layer = false, bool shared_index = false) {
    const model_spec& m = c.model;
    const std::uint64_t tokens = c.tokens(), hd = m.head_dim;
    if (m.is_mla()) {
      mla_projections_forward();
      if (m.has_sparse_attention() && !shared_index) indexer_forward();
    } else {
      enter("attention_input_gather");
      gemm("attention_qkv", op_role::attention_qkv, pk::forward, tokens, h(), qkv_width());
      declare(weight_part::attention, weight_sharing::split, h() * qkv_width());
      if (m.linear_bias || m.qkv_bias) declare(weight_part::attention, weight_sharing::split, qkv_width());
      if (m.qk_norm || (m.qk_l2_norm && local_layer)) {  // Llama 4's L2 norm: the same pass, no weights
        op("qk_norm", op_role::attention_qkv, op_kind::norm, pk::forward, 1, tokens * (heads() + kv_heads()),
           hd);
        if (m.qk_norm) declare(weight_part::attention, weight_sharing::replicated, 2 * norm_weights(hd));
      }
    }
    rotary_forward(local_layer);
    for (std::uint64_t i = 0; i + 1 < c.cp; ++i)
      out.ring("attention_kv_ring", i, false, ring_bytes());
    out.compute("attention_core", core_attention(local_layer));
    if (m.attention_sinks) declare(weight_part::attention, weight_sharing::split, heads());
    if (m.attention_output_gate)  // output × sigmoid(gate), element by element
      op("attention_gate", op_role::attention_out, op_kind::elementwise, pk::forward, 1, tokens, heads() * hd,
         0, 2);
    if (m.is_mla() && c.decode) {
      projection("mla_absorb_v", op_role::mla_kv_up, tokens, m.kv_lora_rank, m.v_head_dim,
                 weight_part::attention, weight_sharing::split, heads());
    }
    projection("attention_out", op_role::attention_out, tokens, heads() * v_dim(), h(),
               weight_part::attention, weight_sharing::split);
    if (m.linear_bias) declare(weight_part::attention, weight_sharing::replicated, h());
  }

  // MLA's projections up to core attention. Down-projections replicated over TP on the GPU's own
  // sequence shard; only the latents are gathered. Decode absorbs the key up-projection into the
  // queries (and the value one after attention): the cache holds the latent.
  constexpr void mla_projections_forward() {
    const model_spec& m = c.model;
    const std::uint64_t tokens = c.tokens(), local = c.local_tokens(), w = c.element_bytes();
    const std::uint64_t qr = m.q_lora_rank, kvr = m.kv_lora_rank + m.qk_rope_head_dim;
    if (qr > 0) {
      projection("mla_q_down", op_role::mla_q_down, local, h(), qr, weight_part::attention,
                 weight_sharing::replicated);
      norm("mla_q_norm", op_role::mla_q_down, pk::forward, local, qr, weight_part::attention);
    }
    projection("mla_kv_down", op_role::mla_kv_down, local, h(), kvr, weight_part::attention,
               weight_sharing::replicated);
    norm("mla_kv_norm", op_role::mla_kv_down, pk::forward, local, m.kv_lora_rank, weight_part::attention);
    if (c.sp) {
      if (qr > 0) collective("mla_q_latent_gather", collective::all_gather, group_kind::tp, tokens * qr * w);
      collective("mla_kv_latent_gather", collective::all_gather, group_kind::tp, tokens * kvr * w);
    }
    if (qr > 0) {
      projection("mla_q_up", op_role::mla_q_up, tokens, qr, heads() * qk_dim(), weight_part::attention,
                 weight_sharing::split);
    } else {
      enter("attention_input_gather");
      projection("mla_q", op_role::mla_q_up, tokens, h(), heads() * qk_dim(), weight_part::attention,
                 weight_sharing::split);
    }
    if (c.decode) {  // the weight-absorbed form: the queries' no-position part into the latent
      projection("mla_absorb_k", op_role::mla_kv_up, tokens, m.qk_nope_head_dim, m.kv_lora_rank,
                 weight_part::attention, weight_sharing::split, heads());
    } else {
      projection("mla_kv_up", op_role::mla_kv_up, tokens, m.kv_lora_rank,
                 heads() * (m.qk_nope_head_dim + v_dim()), weight_part::attention, weight_sharing::split);
    }
  }

  // DeepSeek sparse attention's lightning indexer, as DeepSeek's reference implementation runs it:
  // whole on every TP rank (its weights replicated). Its key (one head, LayerNorm'd) and per-head
  // weights come from the layer's input on the GPU's own tokens — gathered over TP under SP — its
  // queries from MLA's query latent; it scores every earlier key for each query (FP8 in serving, the
  // job's GEMM type in training) and keeps the top-k, which the attention then reads.
  constexpr compute_op indexer_scores(pass_kind pass) const {
    const model_spec& m = c.model;
    compute_op o{.role = op_role::attention_index,
                 .kind = op_kind::attention_index,
                 .pass = pass,
                 .type = pass != pk::forward ? c.activation_type
                         : c.training        ? c.gemm_type
                                             : dtype::fp8,
                 .batch = c.sequences,
                 .m = c.query_tokens,
                 .n = c.key_tokens,
                 .k = m.indexer_head_dim};
    o.causal = !c.decode;
    o.index_heads = m.indexer_heads;
    if (pass != pk::forward) o.window = m.sparse_attention_topk;  // its loss covers the selected keys
    return o;
  }
  constexpr void indexer_forward() {
    const model_spec& m = c.model;
    const std::uint64_t tokens = c.tokens(), local = c.local_tokens(), d = m.indexer_head_dim,
                        heads = m.indexer_heads;
    projection("indexer_k", op_role::attention_index, local, h(), d, weight_part::attention,
               weight_sharing::replicated);
    op("indexer_k_norm", op_role::attention_index, op_kind::norm, pk::forward, 1, local, d);
    declare(weight_part::attention, weight_sharing::replicated, 2 * d);  // LayerNorm: scale and bias
    projection("indexer_weights", op_role::attention_index, local, h(), heads, weight_part::attention,
               weight_sharing::replicated);
    if (c.sp)
      collective("indexer_key_gather", collective::all_gather, group_kind::tp,
                 tokens * (d + heads) * c.element_bytes());
    projection("indexer_q", op_role::attention_index, tokens, m.q_lora_rank, heads * d,
               weight_part::attention, weight_sharing::replicated);
    out.compute("indexer_scores", indexer_scores(pk::forward));
  }
  // Training's sparse stage: the indexer learns from its own loss (the attention's distribution over
  // the selected keys) with its input detached — weight gradients only, no input gradients.
  constexpr void indexer_backward() {
    const model_spec& m = c.model;
    const std::uint64_t tokens = c.tokens(), local = c.local_tokens(), d = m.indexer_head_dim;
    out.compute("indexer_scores", indexer_scores(pk::input_grad));
    gemm("indexer_q", op_role::attention_index, pk::weight_grad, tokens, m.q_lora_rank, m.indexer_heads * d);
    gemm("indexer_weights", op_role::attention_index, pk::weight_grad, local, h(), m.indexer_heads);
    op("indexer_k_norm", op_role::attention_index, op_kind::norm, pk::input_grad, 1, local, d);
    gemm("indexer_k", op_role::attention_index, pk::weight_grad, local, h(), d);
  }

  constexpr void softmax_attention_backward(bool local_layer = false, bool shared_index = false) {
    const model_spec& m = c.model;
    const std::uint64_t tokens = c.tokens(), local = c.local_tokens(), w = c.element_bytes();
    leave_backward("attention_output_grad_gather");
    gradients("attention_out", op_role::attention_out, tokens, heads() * v_dim(), h());
    if (m.attention_output_gate)
      op("attention_gate", op_role::attention_out, op_kind::elementwise, pk::input_grad, 1, tokens,
         heads() * m.head_dim, 0, 2);
    const compute_op core = core_attention(local_layer);
    // MLA's up-projections and their rotary part, whose outputs mla_up_proj discards.
    if (m.is_mla() && recomputes(recompute_module::mla_up_proj)) {
      const std::uint64_t qr = m.q_lora_rank;
      gemm(qr > 0 ? "mla_q_up" : "mla_q", op_role::mla_q_up, pk::forward, tokens, qr > 0 ? qr : h(),
           heads() * qk_dim());
      gemm("mla_kv_up", op_role::mla_kv_up, pk::forward, tokens, m.kv_lora_rank,
           heads() * (m.qk_nope_head_dim + v_dim()));
      rotary_forward(local_layer);
    }
    if (recomputes(recompute_module::core_attn)) {
      for (std::uint64_t i = 0; i + 1 < c.cp; ++i)
        out.ring("attention_kv_ring", i, false, ring_bytes());
      out.compute("attention_core_recompute", core);
    }
    // The reverse ring: step 0 sends the keys and values, the middle steps them and their gradients,
    // the last step the gradients alone (2·(CP − 1) times their size in all).
    for (std::uint64_t i = 0; i < c.cp && c.cp > 1; ++i)
      out.ring("attention_kv_grad_ring", i, true,
               (i + 1 < c.cp ? ring_bytes() : 0) + (i >= 1 ? ring_bytes() : 0));
    compute_op core_backward = core;
    core_backward.pass = pk::input_grad;
    out.compute("attention_core", core_backward);
    rotary_backward(local_layer);
    if (m.has_sparse_attention() && !shared_index) indexer_backward();
    if (m.is_mla()) {
      const std::uint64_t qr = m.q_lora_rank, kvr = m.kv_lora_rank + m.qk_rope_head_dim;
      const std::uint64_t kv_up = heads() * (m.qk_nope_head_dim + v_dim());
      // The up-projections are column-parallel over the heads: without SP their input gradient (the
      // latent's) is a partial sum, all-reduced over TP; under SP the latents' gathers reduce-scatter it.
      gemm("mla_kv_up", op_role::mla_kv_up, pk::input_grad, tokens, m.kv_lora_rank, kv_up);
      if (tp() && !c.sp)
        collective("mla_kv_latent_grad_reduce", collective::all_reduce, group_kind::tp,
                   tokens * m.kv_lora_rank * w);
      gemm("mla_kv_up", op_role::mla_kv_up, pk::weight_grad, tokens, m.kv_lora_rank, kv_up);
      if (qr > 0) {
        gemm("mla_q_up", op_role::mla_q_up, pk::input_grad, tokens, qr, heads() * qk_dim());
        if (tp() && !c.sp)
          collective("mla_q_latent_grad_reduce", collective::all_reduce, group_kind::tp, tokens * qr * w);
        gemm("mla_q_up", op_role::mla_q_up, pk::weight_grad, tokens, qr, heads() * qk_dim());
      } else {
        regather("attention_input_regather");
        gemm("mla_q", op_role::mla_q_up, pk::input_grad, tokens, h(), heads() * qk_dim());
        leave("attention_input_grad_scatter", "attention_input_grad_reduce");
        gemm("mla_q", op_role::mla_q_up, pk::weight_grad, tokens, h(), heads() * qk_dim());
      }
      if (c.sp) {
        collective("mla_kv_latent_grad_scatter", collective::reduce_scatter, group_kind::tp,
                   tokens * kvr * w);
        if (qr > 0)
          collective("mla_q_latent_grad_scatter", collective::reduce_scatter, group_kind::tp,
                     tokens * qr * w);
      }
      norm("mla_kv_norm", op_role::mla_kv_down, pk::input_grad, local, m.kv_lora_rank,
           weight_part::attention);
      gradients("mla_kv_down", op_role::mla_kv_down, local, h(), kvr);
      if (qr > 0) {
        norm("mla_q_norm", op_role::mla_q_down, pk::input_grad, local, qr, weight_part::attention);
        gradients("mla_q_down", op_role::mla_q_down, local, h(), qr);
      }
      return;
    }
    if (m.qk_norm || (m.qk_l2_norm && local_layer))
      op("qk_norm", op_role::attention_qkv, op_kind::norm, pk::input_grad, 1, tokens * (heads() + kv_heads()),
         m.head_dim);
    regather("attention_input_regather");
    gemm("attention_qkv", op_role::attention_qkv, pk::input_grad, tokens, h(), qkv_width());
    leave("attention_input_grad_scatter", "attention_input_grad_reduce");
    gemm("attention_qkv", op_role::attention_qkv, pk::weight_grad, tokens, h(), qkv_width());
  }

  // ---- Gated DeltaNet -----------------------------------------------------------------------------
  // Its heads split over TP: the input projections (q, k, v and the output gate z; the decay and
  // update gates per value head), the short causal convolution over q, k, v, the gated delta rule
  // over each sequence's state (chunked), the gated norm and the output projection. No biases.

  constexpr std::uint64_t gdn_key() const { return c.model.linear_key_dim() / c.tp; }
  constexpr std::uint64_t gdn_value() const { return c.model.linear_value_dim() / c.tp; }
  constexpr std::uint64_t gdn_value_heads() const { return c.model.linear_num_value_heads / c.tp; }
  constexpr std::uint64_t gdn_conv() const { return 2 * gdn_key() + gdn_value(); }
  constexpr compute_op gdn_core() const {
    return {.role = op_role::attention_core,
            .kind = op_kind::linear_attention,
            .type = c.activation_type,
            .batch = c.sequences * gdn_value_heads(),
            .m = c.query_tokens,
            .n = c.model.linear_value_head_dim,
            .k = c.model.linear_key_head_dim,
            .state_bytes = state_bytes()};
  }
  // Bytes of a recurrent state element in the scans: the serving cache's format (see state_type).
  constexpr std::uint8_t state_bytes() const {
    return c.training ? 0 : static_cast<std::uint8_t>(size_of(c.state_type));
  }

  constexpr void gated_deltanet_forward() {
    const model_spec& m = c.model;
    const std::uint64_t tokens = c.tokens(), nv = gdn_value_heads();
    enter("attention_input_gather");
    projection("gdn_in_proj_qkvz", op_role::attention_qkv, tokens, h(), 2 * gdn_key() + 2 * gdn_value(),
               weight_part::attention, weight_sharing::split);
    projection("gdn_in_proj_ba", op_role::attention_qkv, tokens, h(), 2 * nv, weight_part::attention,
               weight_sharing::split);
    op("gdn_conv", op_role::attention_qkv, op_kind::elementwise, pk::forward, 1, tokens, gdn_conv());
    // The depthwise filters, and the per-head decay A and time-step bias.
    declare(weight_part::attention, weight_sharing::split, gdn_conv() * m.linear_conv_kernel_dim + 2 * nv);
    out.compute("gdn_core", gdn_core());
    op("gdn_norm", op_role::attention_core, op_kind::norm, pk::forward, 1, tokens * nv,
       m.linear_value_head_dim);
    // One head's norm weight, shared by every head: replicated over TP.
    declare(weight_part::attention, weight_sharing::replicated, m.linear_value_head_dim);
    projection("gdn_out", op_role::attention_out, tokens, gdn_value(), h(), weight_part::attention,
               weight_sharing::split);
  }

  constexpr void gated_deltanet_backward() {
    const model_spec& m = c.model;
    const std::uint64_t tokens = c.tokens(), nv = gdn_value_heads();
    leave_backward("attention_output_grad_gather");
    gradients("gdn_out", op_role::attention_out, tokens, gdn_value(), h());
    op("gdn_norm", op_role::attention_core, op_kind::norm, pk::input_grad, 1, tokens * nv,
       m.linear_value_head_dim);
    compute_op core = gdn_core();
    core.pass = pk::input_grad;
    out.compute("gdn_core", core);
    op("gdn_conv", op_role::attention_qkv, op_kind::elementwise, pk::input_grad, 1, tokens, gdn_conv());
    regather("attention_input_regather");
    gemm("gdn_in_proj_ba", op_role::attention_qkv, pk::input_grad, tokens, h(), 2 * nv);
    gemm("gdn_in_proj_qkvz", op_role::attention_qkv, pk::input_grad, tokens, h(),
         2 * gdn_key() + 2 * gdn_value());
    leave("attention_input_grad_scatter", "attention_input_grad_reduce");
    gemm("gdn_in_proj_ba", op_role::attention_qkv, pk::weight_grad, tokens, h(), 2 * nv);
    gemm("gdn_in_proj_qkvz", op_role::attention_qkv, pk::weight_grad, tokens, h(),
         2 * gdn_key() + 2 * gdn_value());
  }

  // ---- Mamba-2 ------------------------------------------------------------------------------------
  // Megatron's MambaMixer, its heads (and B/C groups) split over TP: the input projection (z, x, B,
  // C and the time step per head), the short causal convolution over x, B and C, the chunked SSD
  // scan over each sequence's state, the gated RMSNorm over the inner width, the output projection.

  constexpr std::uint64_t mamba_heads() const { return c.model.mamba_num_heads / c.tp; }
  constexpr std::uint64_t mamba_inner() const { return c.model.mamba_inner_dim() / c.tp; }
  constexpr std::uint64_t mamba_bc() const {
    return 2 * (c.model.mamba_num_groups / c.tp) * c.model.mamba_state_dim;
  }
  constexpr std::uint64_t mamba_in_width() const { return 2 * mamba_inner() + mamba_bc() + mamba_heads(); }
  constexpr std::uint64_t mamba_conv() const { return mamba_inner() + mamba_bc(); }
  constexpr compute_op mamba_scan() const {
    compute_op o{.role = op_role::attention_core,
                 .kind = op_kind::linear_attention,
                 .type = c.activation_type,
                 .batch = c.sequences * mamba_heads(),
                 .m = c.query_tokens,
                 .n = c.model.mamba_head_dim,
                 .k = c.model.mamba_state_dim};
    o.state_products = 2;
    o.state_bytes = state_bytes();
    o.chunk = c.model.mamba_chunk_size;
    if (c.model.mamba_num_groups > 0) o.heads_per_key = c.model.mamba_num_heads / c.model.mamba_num_groups;
    return o;
  }

  constexpr void mamba_forward() {
    const model_spec& m = c.model;
    const std::uint64_t tokens = c.tokens();
    enter("attention_input_gather");
    projection("mamba_in_proj", op_role::attention_qkv, tokens, h(), mamba_in_width(), weight_part::attention,
               weight_sharing::split);
    op("mamba_conv", op_role::attention_qkv, op_kind::elementwise, pk::forward, 1, tokens, mamba_conv());
    // The depthwise filters and their bias; per head the decay A, the skip D and the time-step bias.
    declare(weight_part::attention, weight_sharing::split,
            mamba_conv() * (m.mamba_conv_kernel + 1) + 3 * mamba_heads());
    out.compute("mamba_scan", mamba_scan());
    op("mamba_norm", op_role::attention_core, op_kind::norm, pk::forward, 1, tokens, mamba_inner());
    declare(weight_part::attention, weight_sharing::split, mamba_inner());
    projection("mamba_out_proj", op_role::attention_out, tokens, mamba_inner(), h(), weight_part::attention,
               weight_sharing::split);
  }

  constexpr void mamba_backward() {
    const std::uint64_t tokens = c.tokens();
    leave_backward("attention_output_grad_gather");
    gradients("mamba_out_proj", op_role::attention_out, tokens, mamba_inner(), h());
    op("mamba_norm", op_role::attention_core, op_kind::norm, pk::input_grad, 1, tokens, mamba_inner());
    compute_op scan = mamba_scan();
    scan.pass = pk::input_grad;
    out.compute("mamba_scan", scan);
    op("mamba_conv", op_role::attention_qkv, op_kind::elementwise, pk::input_grad, 1, tokens, mamba_conv());
    regather("attention_input_regather");
    gemm("mamba_in_proj", op_role::attention_qkv, pk::input_grad, tokens, h(), mamba_in_width());
    leave("attention_input_grad_scatter", "attention_input_grad_reduce");
    gemm("mamba_in_proj", op_role::attention_qkv, pk::weight_grad, tokens, h(), mamba_in_width());
  }

  // ---- MLPs -------------------------------------------------------------------------------------

  // A dense MLP of `width` (this GPU's share) over `rows` tokens; `communicate`: its own TP
  // collectives (a dense layer's MLP, shared experts in training).
  struct mlp_names {
    std::string_view gather, fc1, act, fc2, scatter, reduce;
  };
  static constexpr mlp_names dense_names{"mlp_input_gather",   "mlp_fc1",          "mlp_act", "mlp_fc2",
                                         "mlp_output_scatter", "mlp_output_reduce"};
  static constexpr mlp_names shared_names{
      "shared_input_gather",   "shared_fc1",          "shared_act", "shared_fc2",
      "shared_output_scatter", "shared_output_reduce"};

  constexpr void mlp_forward(const mlp_names& n, std::uint64_t rows, std::uint64_t width, weight_part part,
                             bool communicate) {
    const model_spec& m = c.model;
    if (communicate) enter(n.gather);
    projection(n.fc1, op_role::mlp_fc1, rows, h(), gated() * width, part, weight_sharing::split);
    if (m.linear_bias) declare(part, weight_sharing::split, gated() * width);
    op(n.act, op_role::mlp_activation, op_kind::elementwise, pk::forward, 1, rows, width, 0,
       static_cast<std::uint8_t>(gated()));
    projection(n.fc2, op_role::mlp_fc2, rows, width, h(), part, weight_sharing::split);
    if (m.linear_bias) declare(part, weight_sharing::replicated, h());
    if (communicate) leave(n.scatter, n.reduce);
  }
  // Backward: the output gradient gathered, fc2's passes, the activation, fc1's input re-gathered
  // for its weight gradient, its input gradient reduce-scattered.
  constexpr void mlp_backward(const mlp_names& n, std::uint64_t rows, std::uint64_t width) {
    leave_backward("mlp_output_grad_gather");
    gradients(n.fc2, op_role::mlp_fc2, rows, width, h());
    op(n.act, op_role::mlp_activation, op_kind::elementwise, pk::input_grad, 1, rows, width, 0,
       static_cast<std::uint8_t>(gated()));
    regather("mlp_input_regather");
    gemm(n.fc1, op_role::mlp_fc1, pk::input_grad, rows, h(), gated() * width);
    leave("mlp_input_grad_scatter", "mlp_input_grad_reduce");
    gemm(n.fc1, op_role::mlp_fc1, pk::weight_grad, rows, h(), gated() * width);
  }

  // ---- mixture of experts -----------------------------------------------------------------------
  // Balanced routing: each local expert receives every GPU's tokens × k / E of the exchange group
  // (serving rounds up: a decode step's few tokens still reach their experts).

  constexpr bool scatter_for_experts() const { return c.exchange == expert_exchange::deepep && tp(); }
  // Tokens this GPU routes (its sequence shard, or its TP share before DeepEP: equal shares, the
  // last padded when the group's tokens are not a multiple of TP, as serving engines pad the scatter).
  constexpr std::uint64_t router_tokens() const {
    return scatter_for_experts() ? (c.tokens() + c.tp - 1) / c.tp : c.local_tokens();
  }
  constexpr std::uint64_t local_experts() const {
    return c.exchange == expert_exchange::deepep ? c.model.num_experts / c.gpus : c.model.num_experts / c.ep;
  }
  constexpr std::uint64_t expert_rows() const {
    const model_spec& m = c.model;
    const std::uint64_t T = router_tokens(), E = m.num_experts, k = m.moe_top_k;
    switch (c.exchange) {
      case expert_exchange::deepep:
        return (T * c.gpus * k + E - 1) / E;
      case expert_exchange::tensor_parallel:
        return (T * k + E - 1) / E;
      default:  // training's tokens are many: Megatron's balanced share, rounded down
        return scaled_by_load(T * k * c.ep * c.etp, E);
    }
  }
  // numerator / denominator, rounded down when routing is balanced; times the model's load factor
  // (the busiest GPU's share: skew, capacity, padding), rounded up, when it is not.
  constexpr std::uint64_t scaled_by_load(std::uint64_t numerator, std::uint64_t denominator) const {
    const double factor = c.model.moe_load_factor();
    if (factor == 1.0) return numerator / denominator;
    const double exact = static_cast<double>(numerator) / static_cast<double>(denominator) * factor;
    const auto whole = static_cast<std::uint64_t>(exact);
    return static_cast<double>(whole) < exact ? whole + 1 : whole;
  }
  // The width the experts work in and the tokens travel in: the latent size of latent experts, else
  // the hidden size.
  constexpr std::uint64_t expert_hidden() const {
    return c.model.moe_latent_size > 0 ? c.model.moe_latent_size : h();
  }
  // Bytes of the routed token copies the busiest GPU exchanges (its send buffer when balanced).
  constexpr std::uint64_t routed_bytes() const {
    return scaled_by_load(router_tokens() * c.model.moe_top_k * expert_hidden() * c.element_bytes(), 1);
  }
  constexpr std::uint64_t expert_width() const {
    return c.exchange == expert_exchange::tensor_parallel ? c.model.moe_ffn_hidden_size / c.tp
           : c.exchange == expert_exchange::deepep        ? c.model.moe_ffn_hidden_size
                                                          : c.model.moe_ffn_hidden_size / c.etp;
  }
  // Shared experts: in training a TP-split MLP with its own collectives over the gathered tokens; in
  // serving split over TP with the attention, or whole on each GPU's scattered tokens with DeepEP.
  constexpr std::uint64_t shared_rows() const {
    return c.exchange == expert_exchange::deepep ? router_tokens() : c.tokens();
  }
  constexpr std::uint64_t shared_width() const {
    const std::uint64_t all = c.model.num_shared_experts * c.model.shared_expert_ffn_hidden_size;
    return c.exchange == expert_exchange::deepep ? all : all / c.tp;
  }
  // Training's flex dispatcher: the tokens the busiest GPU exchanges — each of its tokens once per
  // distinct destination GPU of the EP group (the expectation under uniform routing), times the
  // routed share (HybridEP pads to a capacity on arrival, not on the wire) — and their bytes: the row
  // and `per_row` more (a dispatch's k expert indices and FP32 probabilities, 12 bytes each; its
  // gradient's k probability gradients, 4 each).
  constexpr std::uint64_t flex_rows() const {
    const double rows = static_cast<double>(router_tokens()) *
                        expected_destinations(c.model.num_experts, c.model.moe_top_k, c.ep,
                                              c.model.moe_router_num_groups, c.model.moe_router_group_topk) *
                        c.model.moe_routed_factor();
    return rounded(rows);
  }
  constexpr std::uint64_t flex_bytes(std::uint64_t per_row) const {
    return flex_rows() * (expert_hidden() * c.element_bytes() + per_row);
  }
  // DeepEP's messages: decode's low-latency kernels send one per (token, expert); prefill's normal
  // kernels one per distinct destination GPU (its expectation under uniform routing).
  constexpr double deepep_messages() const {
    const double T = static_cast<double>(router_tokens());
    if (c.decode) return T * static_cast<double>(c.model.moe_top_k);
    return T * expected_destinations(c.model.num_experts, c.model.moe_top_k, c.gpus,
                                     c.model.moe_router_num_groups, c.model.moe_router_group_topk);
  }
  static constexpr std::uint64_t rounded(double x) { return static_cast<std::uint64_t>(x + 0.5); }
  // x to the power `times`, by squaring (constexpr, unlike std::pow).
  static constexpr double power(double x, std::uint64_t times) {
    double result = 1;
    for (; times > 0; times >>= 1, x *= x)
      if (times & 1) result *= x;
    return result;
  }

  // Serving: the local experts a step's tokens reach, and the rows each of them runs. Each of the N
  // tokens the exchange routes picks k of the E experts, so under uniform routing each local expert
  // receives at least one with probability 1 - (1 - k/E)^N; the engines' grouped kernels skip an
  // expert that received none, whose weights are then not read — a decode step of a few requests
  // reads a few experts, not every local one. The rows arriving, N·k·n/E in expectation, are shared
  // by the experts reached. Training's many tokens reach every expert (its rows as expert_rows).
  constexpr std::uint64_t active_local_experts() const {
    const std::uint64_t n = local_experts();
    if (c.training || c.model.num_experts == 0) return n;
    const double hit =
        1 - power(1 - static_cast<double>(c.model.moe_top_k) / static_cast<double>(c.model.num_experts),
                  routed_tokens());
    return std::clamp<std::uint64_t>(rounded(static_cast<double>(n) * hit), 1, n);
  }
  constexpr std::uint64_t active_expert_rows(std::uint64_t reached) const {
    if (c.training) return expert_rows();
    const std::uint64_t arriving = routed_tokens() * c.model.moe_top_k * local_experts();
    const std::uint64_t per_expert = c.model.num_experts * reached;
    return (arriving + per_expert - 1) / per_expert;
  }
  // The tokens a serving step's exchange routes: every GPU's share with DeepEP, the group's own with
  // the experts split over TP.
  constexpr std::uint64_t routed_tokens() const {
    return c.exchange == expert_exchange::deepep ? router_tokens() * c.gpus : router_tokens();
  }

  constexpr void shared_gate(std::uint64_t rows) {
    if (!c.model.shared_expert_gate) return;
    projection("shared_expert_gate", op_role::mlp_fc2, rows, h(), 1, weight_part::shared_experts,
               weight_sharing::replicated);
    op("shared_expert_scale", op_role::mlp_activation, op_kind::elementwise, pk::forward, 1, rows, h(), 0, 2);
  }

  constexpr void moe_forward() {
    const model_spec& m = c.model;
    const std::uint64_t E = m.num_experts, k = m.moe_top_k, w = c.element_bytes();
    const std::uint64_t T = router_tokens(), group = c.etp * c.ep;
    const bool training = c.training;
    if (m.num_shared_experts > 0 && training)
      mlp_forward(shared_names, shared_rows(), shared_width(), weight_part::shared_experts, true);
    // The gate reads the GPU's own tokens (its sequence shard in training) and scales the output there.
    if (m.num_shared_experts > 0 && training) shared_gate(c.local_tokens());
    gate(pk::forward, T, E);
    declare(weight_part::router, weight_sharing::replicated, h() * E);
    if (m.linear_bias) declare(weight_part::router, weight_sharing::replicated, E);
    if (m.moe_router_bias) declare(weight_part::router, weight_sharing::buffer, E);
    const std::uint64_t token_bytes = routed_bytes();
    // Megatron's router and token bookkeeping in training (serving runtimes fuse them into their
    // expert kernels): the scores' softmax, the top-k, the load-balancing loss (none with the
    // expert-bias method), the per-expert token histogram.
    if (training) {
      op("moe_router_softmax", op_role::moe_router, op_kind::softmax, pk::forward, 1, T, E);
      op("moe_router_topk", op_role::moe_router, op_kind::elementwise, pk::forward, 1, T, E);
      if (!m.moe_router_bias)
        op("moe_aux_loss", op_role::moe_router, op_kind::elementwise, pk::forward, 1, T, E);
      if (c.exchange == expert_exchange::flex)  // DeepEP's notify counts them; the top-k as indices
        op("moe_routing_indices", op_role::moe_router, op_kind::elementwise, pk::forward, 1, T, E);
      else
        op("moe_token_histogram", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, T, k);
    }
    // Latent experts: each token projected to the latent width before it travels (Nemotron 3 Super).
    if (m.moe_latent_size > 0)
      projection("moe_latent_down", op_role::moe_router, T, h(), expert_hidden(), weight_part::router,
                 weight_sharing::replicated);
    const std::uint64_t rows = expert_rows(), ffn = expert_width(), n = local_experts();
    switch (c.exchange) {
      case expert_exchange::alltoall:
        // Each token copied once per chosen expert, grouped by destination; after the exchange the
        // received chunks sorted by local expert. Padded to a capacity, every split is known without
        // gathering the counts (Megatron's drop-and-pad path).
        op("moe_permute", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, T * k, expert_hidden());
        if (group > 1 && !m.moe_pad_to_capacity)
          collective("moe_token_counts", collective::all_gather, group_kind::etp_ep, E * 8 * group);
        if (c.ep > 1) {
          collective("moe_dispatch", collective::all_to_all, group_kind::ep, token_bytes);
          collective("moe_dispatch_probs", collective::all_to_all, group_kind::ep, T * k * 4);
        }
        if (c.etp > 1)
          collective("moe_expert_tp_gather", collective::all_gather, group_kind::etp, token_bytes * c.etp);
        if (n > 1)
          op("moe_sort_chunks", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, rows * n,
             expert_hidden());
        break;
      case expert_exchange::flex:
        // DeepEP's dispatch reads the tokens in place and sends each once per destination GPU with
        // its indices and probabilities (the host waits for the received counts, except where HybridEP
        // pads to a capacity); there, each received token is copied once per local expert it chose,
        // into expert order.
        if (c.ep > 1) collective("moe_dispatch", collective::all_to_all, group_kind::ep, flex_bytes(k * 12));
        op("moe_dispatched_routing_map", op_role::moe_permute, op_kind::elementwise, pk::forward, 1,
           flex_rows(), n);
        op("moe_permute", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, rows * n,
           expert_hidden());
        break;
      case expert_exchange::allgather:
        if (group > 1) {
          collective("moe_routing_map_gather", collective::all_gather, group_kind::etp_ep, T * E * group);
          collective("moe_probs_gather", collective::all_gather, group_kind::etp_ep, T * E * 4 * group);
          collective("moe_tokens_gather", collective::all_gather, group_kind::etp_ep,
                     T * expert_hidden() * w * group);
        }
        // The gathered tokens of this GPU's experts, grouped by expert.
        op("moe_permute", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, rows * n,
           expert_hidden());
        break;
      case expert_exchange::deepep: {
        // Per message: FP8 values with a 4-byte scale per 128, or BF16; decode's kernels add a
        // 16-byte header.
        const double per = c.fp8_dispatch ? static_cast<double>(expert_hidden() + expert_hidden() / 128 * 4)
                                          : 2.0 * static_cast<double>(expert_hidden());
        collective("moe_dispatch", collective::all_to_all, group_kind::ep,
                   rounded(deepep_messages() * (per + (c.decode ? 16 : 0))));
        break;
      }
      case expert_exchange::tensor_parallel:
        // Serving with the experts split over TP: every GPU routes the group's tokens — the gate's
        // top-k (softmax fused), then each token copied once per chosen expert into expert order for
        // the grouped GEMMs (TensorRT-LLM's expandInputRows, vLLM's CUTLASS path; its Triton kernel
        // gathers inside the GEMM instead, a copy this prices the same).
        op("moe_router_topk", op_role::moe_router, op_kind::elementwise, pk::forward, 1, T, E);
        op("moe_permute", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, T * k, expert_hidden());
        break;
    }
    // Megatron's GroupedMLP runs the local experts as one kernel; SequentialMLP (its default) loops.
    // The GEMMs run the experts reached (serving: see active_local_experts); every local expert's
    // weights are held.
    const bool one = c.grouped_gemm || !training;
    const std::uint64_t reached = active_local_experts(), reached_rows = active_expert_rows(reached);
    gemm("moe_fc1", op_role::moe_fc1, pk::forward, reached_rows, expert_hidden(), gated() * ffn, reached,
         one);
    declare(weight_part::routed_experts, weight_sharing::expert, n * expert_hidden() * gated() * ffn);
    if (m.linear_bias) declare(weight_part::routed_experts, weight_sharing::expert, n * gated() * ffn);
    op("moe_act", op_role::moe_activation, op_kind::elementwise, pk::forward, reached, reached_rows, ffn, 0,
       static_cast<std::uint8_t>(gated()));
    gemm("moe_fc2", op_role::moe_fc2, pk::forward, reached_rows, ffn, expert_hidden(), reached, one);
    declare(weight_part::routed_experts, weight_sharing::expert, n * ffn * expert_hidden());
    if (m.linear_bias) declare(weight_part::routed_experts, weight_sharing::expert, n * expert_hidden());
    expert_output_bias(pk::forward);
    if (m.num_shared_experts > 0 && !training) {
      mlp_forward(shared_names, shared_rows(), shared_width(), weight_part::shared_experts, false);
      shared_gate(shared_rows());
    }
    // The combine, the way the tokens came.
    switch (c.exchange) {
      case expert_exchange::alltoall:
        if (n > 1)
          op("moe_sort_chunks_back", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, rows * n,
             expert_hidden());
        if (c.etp > 1)
          collective("moe_expert_tp_scatter", collective::reduce_scatter, group_kind::etp,
                     token_bytes * c.etp);
        if (c.ep > 1) collective("moe_combine", collective::all_to_all, group_kind::ep, token_bytes);
        // Each token's expert outputs weighted by their probabilities and summed into its row.
        op("moe_unpermute", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, T * k,
           expert_hidden());
        latent_up(T);
        break;
      case expert_exchange::flex:
        // Each received token's expert outputs weighted and summed where they ran; DeepEP's combine
        // returns one row per destination and sums them at the source.
        op("moe_unpermute", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, rows * n,
           expert_hidden());
        if (c.ep > 1) collective("moe_combine", collective::all_to_all, group_kind::ep, flex_bytes(0));
        latent_up(T);
        break;
      case expert_exchange::allgather:
        op("moe_unpermute", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, rows * n,
           expert_hidden());
        if (group > 1)
          collective("moe_output_scatter", collective::reduce_scatter, group_kind::etp_ep,
                     T * expert_hidden() * w * group);
        latent_up(T);
        break;
      case expert_exchange::deepep:
        collective("moe_combine", collective::all_to_all, group_kind::ep,
                   rounded(deepep_messages() * 2.0 * static_cast<double>(expert_hidden())));
        latent_up(T);
        if (tp()) collective("moe_output_gather", collective::all_gather, group_kind::tp, activation());
        break;
      case expert_exchange::tensor_parallel:
        // Each token's k expert outputs weighted and summed into its row (TensorRT-LLM's
        // finalizeMoeRouting, vLLM's moe_sum), then the partial sums all-reduced over TP.
        op("moe_unpermute", op_role::moe_permute, op_kind::elementwise, pk::forward, 1, T * k,
           expert_hidden());
        if (tp())
          collective("moe_output_reduce", collective::all_reduce, group_kind::tp,
                     activation() / h() * expert_hidden());
        latent_up(T);
        break;
    }
  }
  // Training with biased experts (GPT-OSS): Megatron's grouped experts return the second GEMM's bias
  // unadded and add it after the GEMM in an eager loop over the local experts (TEGroupedMLP's
  // _apply_bias, Megatron-Core 0.15 to 0.18): each expert's rows plus its bias scaled by their routing
  // probabilities — a product and a sum per expert — then the rows joined (torch.cat); backward, per
  // expert, the bias's gradient and the probabilities' (a product and a reduction each) and the
  // bias's main-gradient accumulation, then the rows' gradients joined back. Bytes:
  // compute_op::bytes (op_role::moe_fc2, element-wise). Megatron's per-expert loop without
  // --moe-grouped-gemm and serving engines' fused bias epilogues are not this.
  constexpr void expert_output_bias(pass_kind pass) {
    if (!c.training || !c.model.linear_bias || !c.grouped_gemm) return;
    compute_op o = shaped(op_role::moe_fc2, op_kind::elementwise, pass, local_experts(), expert_rows(),
                          expert_hidden(), 0);
    o.one_kernel = false;
    o.kernels_per_problem = pass == pk::forward ? 2 : 5;
    out.compute("moe_fc2_bias", o);
  }
  // Latent experts: the combined tokens projected back to the hidden size.
  constexpr void latent_up(std::uint64_t tokens) {
    if (c.model.moe_latent_size > 0)
      projection("moe_latent_up", op_role::moe_router, tokens, expert_hidden(), h(), weight_part::router,
                 weight_sharing::replicated);
  }

  // Training only: the experts' backward (the combine's gradient comes back the way the tokens
  // went), then the shared experts' (the reverse of their forward order).
  constexpr void moe_backward() {
    const model_spec& m = c.model;
    const std::uint64_t E = m.num_experts, k = m.moe_top_k, w = c.element_bytes();
    const std::uint64_t T = router_tokens(), group = c.etp * c.ep, token_bytes = routed_bytes();
    const std::uint64_t rows = expert_rows(), ffn = expert_width(), n = local_experts();
    const bool one = c.grouped_gemm;
    const auto permute_grad = [&](std::string_view name, std::uint64_t rows_moved) {
      op(name, op_role::moe_permute, op_kind::elementwise, pk::input_grad, 1, rows_moved, expert_hidden());
    };
    if (m.moe_latent_size > 0) gradients("moe_latent_up", op_role::moe_router, T, expert_hidden(), h());
    if (c.exchange == expert_exchange::alltoall) {
      permute_grad("moe_unpermute", T * k);
      if (c.ep > 1) collective("moe_combine_grad", collective::all_to_all, group_kind::ep, token_bytes);
      if (c.etp > 1)
        collective("moe_expert_tp_grad_gather", collective::all_gather, group_kind::etp, token_bytes * c.etp);
      if (n > 1) permute_grad("moe_sort_chunks_back", rows * n);
    } else if (c.exchange == expert_exchange::flex) {  // the combine's gradient is a dispatch
      if (c.ep > 1) collective("moe_combine_grad", collective::all_to_all, group_kind::ep, flex_bytes(0));
      permute_grad("moe_unpermute", rows * n);
    } else {
      if (group > 1)
        collective("moe_output_grad_gather", collective::all_gather, group_kind::etp_ep,
                   T * expert_hidden() * w * group);
      permute_grad("moe_unpermute", rows * n);
    }
    expert_output_bias(pk::input_grad);
    // moe_act: the activation's output, the second GEMM's input, computed again for its gradients.
    if (recomputes(recompute_module::moe_act) && !recomputes(recompute_module::moe))
      op("moe_act", op_role::moe_activation, op_kind::elementwise, pk::forward, n, rows, ffn, 0,
         static_cast<std::uint8_t>(gated()));
    gradients("moe_fc2", op_role::moe_fc2, rows, ffn, expert_hidden(), n, one);
    op("moe_act", op_role::moe_activation, op_kind::elementwise, pk::input_grad, n, rows, ffn, 0,
       static_cast<std::uint8_t>(gated()));
    gradients("moe_fc1", op_role::moe_fc1, rows, expert_hidden(), gated() * ffn, n, one);
    if (c.exchange == expert_exchange::alltoall) {
      if (n > 1) permute_grad("moe_sort_chunks", rows * n);
      if (c.etp > 1)
        collective("moe_expert_tp_grad_scatter", collective::reduce_scatter, group_kind::etp,
                   token_bytes * c.etp);
      if (c.ep > 1) {
        collective("moe_dispatch_grad", collective::all_to_all, group_kind::ep, token_bytes);
        collective("moe_dispatch_probs_grad", collective::all_to_all, group_kind::ep, T * k * 4);
      }
      permute_grad("moe_permute", T * k);
    } else if (c.exchange == expert_exchange::flex) {  // the dispatch's gradient is a combine
      permute_grad("moe_permute", rows * n);
      if (c.ep > 1)
        collective("moe_dispatch_grad", collective::all_to_all, group_kind::ep, flex_bytes(k * 4));
    } else {
      permute_grad("moe_permute", rows * n);
      if (group > 1) {
        collective("moe_tokens_grad_scatter", collective::reduce_scatter, group_kind::etp_ep,
                   T * expert_hidden() * w * group);
        collective("moe_probs_grad_scatter", collective::reduce_scatter, group_kind::etp_ep,
                   T * E * 4 * group);
      }
    }
    if (m.moe_latent_size > 0) gradients("moe_latent_down", op_role::moe_router, T, h(), expert_hidden());
    if (!m.moe_router_bias)
      op("moe_aux_loss", op_role::moe_router, op_kind::elementwise, pk::input_grad, 1, T, E);
    op("moe_router_topk", op_role::moe_router, op_kind::elementwise, pk::input_grad, 1, T, E);
    op("moe_router_softmax", op_role::moe_router, op_kind::softmax, pk::input_grad, 1, T, E);
    gate(pk::input_grad, T, E);
    gate(pk::weight_grad, T, E);
    if (m.num_shared_experts > 0) {
      if (m.shared_expert_gate) {
        op("shared_expert_scale", op_role::mlp_activation, op_kind::elementwise, pk::input_grad, 1,
           c.local_tokens(), h(), 0, 2);
        gradients("shared_expert_gate", op_role::mlp_fc2, c.local_tokens(), h(), 1);
      }
      mlp_backward(shared_names, shared_rows(), shared_width());
    }
  }

  // ---- a decoder layer ----------------------------------------------------------------------------

  constexpr void layer_forward(layer_kind kind) {
    const std::uint64_t local = c.local_tokens();
    norm("input_norm", op_role::input_norm, pk::forward, local, h(), weight_part::norms);
    const bool scatter = kind.moe && scatter_for_experts();
    if (!kind.no_mixer) {
      if (kind.linear_attention)
        gated_deltanet_forward();
      else if (kind.mamba)
        mamba_forward();
      else
        softmax_attention_forward(kind.local_attention, kind.shared_index);
      leave("attention_output_scatter", "attention_output_reduce", scatter && !kind.no_mlp);
      // The residual connection: Megatron's fused bias-dropout-add, on the GPU's (sequence) shard.
      if (c.training)
        op("attention_residual", op_role::residual, op_kind::elementwise, pk::forward, 1, local, h());
      if (kind.no_mlp) return;
      norm("post_attention_norm", op_role::post_attention_norm, pk::forward,
           scatter ? c.tokens() / c.tp : local, h(), weight_part::norms);
    }
    if (kind.moe)
      moe_forward();
    else
      mlp_forward(dense_names, c.tokens(), c.model.ffn_hidden_size / c.tp, weight_part::dense_mlp, true);
    if (c.training) op("mlp_residual", op_role::residual, op_kind::elementwise, pk::forward, 1, local, h());
  }

  // Training: the MLP's residual, the MLP, its norm, attention's residual and attention (a pattern's
  // layer: its one block).
  constexpr void layer_backward(layer_kind kind) {
    const std::uint64_t local = c.local_tokens();
    if (!kind.no_mlp) {
      op("mlp_residual", op_role::residual, op_kind::elementwise, pk::input_grad, 1, local, h());
      // Selective recomputation before the block's backward: the norm in front of the experts (a
      // separate module; Transformer Engine fuses the others into the next linear, where Megatron
      // has nothing to recompute), then the whole block (moe, mlp) or its shared experts.
      if (kind.moe && recomputes(recompute_module::layernorm))
        replay([&] {
          norm(kind.no_mixer ? "input_norm" : "post_attention_norm",
               kind.no_mixer ? op_role::input_norm : op_role::post_attention_norm, pk::forward, local, h(),
               weight_part::norms);
        });
      if (kind.moe && recomputes(recompute_module::moe))
        replay([&] { moe_forward(); });
      else if (!kind.moe && recomputes(recompute_module::mlp))
        replay([&] {
          mlp_forward(dense_names, c.tokens(), c.model.ffn_hidden_size / c.tp, weight_part::dense_mlp, true);
        });
      else if (kind.moe && c.model.num_shared_experts > 0 && recomputes(recompute_module::shared_experts))
        replay([&] {
          mlp_forward(shared_names, shared_rows(), shared_width(), weight_part::shared_experts, true);
          shared_gate(c.local_tokens());
        });
      if (kind.moe)
        moe_backward();
      else
        mlp_backward(dense_names, c.tokens(), c.model.ffn_hidden_size / c.tp);
      if (!kind.no_mixer)
        norm("post_attention_norm", op_role::post_attention_norm, pk::input_grad, local, h(),
             weight_part::norms);
    }
    if (!kind.no_mixer) {
      op("attention_residual", op_role::residual, op_kind::elementwise, pk::input_grad, 1, local, h());
      // layernorm: MLA's input norm feeds two down-projections, so it is a module of its own (the
      // other mixers' input norms are fused into their first linear).
      if (!kind.mamba && !kind.linear_attention && c.model.is_mla() &&
          recomputes(recompute_module::layernorm))
        replay([&] { norm("input_norm", op_role::input_norm, pk::forward, local, h(), weight_part::norms); });
      if (kind.linear_attention)
        gated_deltanet_backward();
      else if (kind.mamba)
        mamba_backward();
      else
        softmax_attention_backward(kind.local_attention, kind.shared_index);
    }
    norm("input_norm", op_role::input_norm, pk::input_grad, local, h(), weight_part::norms);
  }

  // ---- embedding, output layer, multi-token prediction ----------------------------------------------

  // The vocabulary-parallel embedding: each GPU looks up its share, then the partial embeddings are
  // summed over TP (reduce-scattered onto the sequence shards under SP). Its backward writes the
  // gradient of the whole local table every micro batch (PyTorch's dense embedding gradient, which
  // Megatron then adds into the FP32 main gradient), not just of the rows looked up.
  constexpr void embedding_forward(std::string_view name = "embedding",
                                   std::string_view reduce = "embedding_reduce", bool declare = true) {
    op(name, op_role::embedding, op_kind::embedding, pk::forward, 1, c.tokens(), h());
    if (declare)
      this->declare(weight_part::embedding, weight_sharing::split,
                    (c.vocab_rows + c.learned_positions) * h());
    if (tp())
      collective(reduce, c.sp ? collective::reduce_scatter : collective::all_reduce, group_kind::tp,
                 activation());
  }
  constexpr void embedding_backward(std::string_view name = "embedding",
                                    std::string_view gather = "embedding_grad_gather") {
    if (c.sp) collective(gather, collective::all_gather, group_kind::tp, activation());
    op(name, op_role::embedding, op_kind::embedding, pk::weight_grad, 1, c.tokens(), h(),
       c.vocab_rows + c.learned_positions);
  }

  constexpr void final_norm_forward(std::string_view name = "final_norm",
                                    weight_part part = weight_part::norms) {
    norm(name, op_role::final_norm, pk::forward, c.local_tokens(), h(), part);
  }
  constexpr void final_norm_backward(std::string_view name = "final_norm") {
    norm(name, op_role::final_norm, pk::input_grad, c.local_tokens(), h(), weight_part::norms);
  }

  // The output layer (column-parallel over the vocabulary; `owned`: its weights are its own, not the
  // embedding's). Training: the loss (compute_op::loss_bytes_per_logit) and its reductions over TP —
  // Megatron's three all-reduces of one float per token (max, target logit, sum of exponentials), or
  // fused the max and then the other two as one of two floats; Transformer Engine's one all-gather of
  // each rank's three floats per token (max, sum, target logit). Serving: the logits of every token in
  // decode, of each request's last in prefill, gathered over TP for sampling.
  constexpr void output_forward(bool owned) {
    const std::uint64_t vocab = c.vocab_rows;
    if (!c.training) {
      const std::uint64_t rows = c.decode ? c.tokens() : c.sequences;
      norm("final_norm", op_role::final_norm, pk::forward, rows, h(), weight_part::norms);
      gemm("logits", op_role::logits, pk::forward, rows, h(), vocab);
      if (owned) declare(weight_part::output, weight_sharing::split, vocab * h());
      if (tp())
        collective("logits_gather", collective::all_gather, group_kind::tp,
                   rows * vocab * c.tp * c.element_bytes());
      return;
    }
    const std::uint64_t tokens = c.tokens();
    if (c.sp) collective("logits_input_gather", collective::all_gather, group_kind::tp, activation());
    gemm("logits", op_role::logits, pk::forward, tokens, h(), vocab);
    if (owned) declare(weight_part::output, weight_sharing::split, vocab * h());
    loss(pk::forward, tokens, vocab);
    if (tp()) {
      if (c.loss == loss_kernel::te) {
        collective("cross_entropy_stats_gather", collective::all_gather, group_kind::tp, tokens * 12 * c.tp);
      } else {
        collective("cross_entropy_max", collective::all_reduce, group_kind::tp, tokens * 4);
        if (c.loss == loss_kernel::fused) {
          collective("cross_entropy_target_sum", collective::all_reduce, group_kind::tp, tokens * 8);
        } else {
          collective("cross_entropy_target", collective::all_reduce, group_kind::tp, tokens * 4);
          collective("cross_entropy_sum", collective::all_reduce, group_kind::tp, tokens * 4);
        }
      }
    }
  }
  // The cross-entropy loss over the vocabulary shard, fused or not as the job says.
  constexpr void loss(pass_kind pass, std::uint64_t tokens, std::uint64_t vocab) {
    compute_op o = shaped(op_role::logits, op_kind::elementwise, pass, 1, tokens, vocab, 0);
    o.loss = c.loss;
    out.compute("cross_entropy", o);
  }
  // The output layer is column-parallel too: under SP its input is re-gathered for the weight gradient
  // (LinearWithGradAccumulationAndAsyncCommunication.backward, as for QKV and FC1).
  constexpr void output_backward() {
    const std::uint64_t tokens = c.tokens(), vocab = c.vocab_rows;
    loss(pk::input_grad, tokens, vocab);
    regather("logits_input_regather", false);
    gemm("logits", op_role::logits, pk::input_grad, tokens, h(), vocab);
    leave("logits_input_grad_scatter", "logits_input_grad_reduce");
    gemm("logits", op_role::logits, pk::weight_grad, tokens, h(), vocab);
  }

  // Megatron-Core's MultiTokenPredictionLayer (transformer/multi_token_prediction.py): the embedding of
  // the tokens shifted by one (the main embedding's weights), enorm and hnorm, their concatenation
  // projected 2h → h by a column-parallel eh_proj whose output is all-gathered over TP (and split onto
  // the sequence shards under SP). Serving engines keep eh_proj whole on every GPU.
  constexpr void mtp_input_forward() {
    const std::uint64_t tokens = c.tokens(), local = c.local_tokens();
    embedding_forward("mtp_embedding", "mtp_embedding_reduce", false);
    norm("mtp_enorm", op_role::input_norm, pk::forward, local, h(), weight_part::mtp);
    norm("mtp_hnorm", op_role::input_norm, pk::forward, local, h(), weight_part::mtp);
    if (!c.training) {
      projection("mtp_eh_proj", op_role::mtp_projection, tokens, 2 * h(), h(), weight_part::mtp,
                 weight_sharing::replicated);
      return;
    }
    if (c.sp) collective("mtp_proj_input_gather", collective::all_gather, group_kind::tp, 2 * gathered());
    projection("mtp_eh_proj", op_role::mtp_projection, tokens, 2 * h(), h() / c.tp, weight_part::mtp,
               weight_sharing::split);
    if (tp()) collective("mtp_proj_output_gather", collective::all_gather, group_kind::tp, activation());
  }
  // Backward: the sequence split's gradient is gathered (SP); the hidden-dimension gather's is split
  // (no communication); eh_proj as any column-parallel layer; the norms; the embedding's backward.
  constexpr void mtp_input_backward() {
    const std::uint64_t tokens = c.tokens(), local = c.local_tokens();
    if (c.sp) collective("mtp_proj_output_grad_gather", collective::all_gather, group_kind::tp, activation());
    if (c.sp) collective("mtp_proj_input_regather", collective::all_gather, group_kind::tp, 2 * gathered());
    gemm("mtp_eh_proj", op_role::mtp_projection, pk::input_grad, tokens, 2 * h(), h() / c.tp);
    if (tp())
      collective(c.sp ? "mtp_proj_input_grad_scatter" : "mtp_proj_input_grad_reduce",
                 c.sp ? collective::reduce_scatter : collective::all_reduce, group_kind::tp,
                 2 * activation());
    gemm("mtp_eh_proj", op_role::mtp_projection, pk::weight_grad, tokens, 2 * h(), h() / c.tp);
    norm("mtp_hnorm", op_role::input_norm, pk::input_grad, local, h(), weight_part::mtp);
    norm("mtp_enorm", op_role::input_norm, pk::input_grad, local, h(), weight_part::mtp);
    embedding_backward("mtp_embedding", "mtp_embedding_grad_gather");
  }
};

}  // namespace detail

/// The blocks of the layer description, written to `sink` (see the file comment).
template <class Sink>
constexpr void describe_layer_forward(const layer_context& c, layer_kind kind, Sink& sink) {
  detail::layer_writer<Sink>{c, sink}.layer_forward(kind);
}
template <class Sink>
constexpr void describe_layer_backward(const layer_context& c, layer_kind kind, Sink& sink) {
  detail::layer_writer<Sink>{c, sink}.layer_backward(kind);
}

/// A sink that adds up the weights declared, by part and by sharing (a counter for the calculators).
struct weight_tally {
  std::uint64_t by_part[9] = {};
  std::uint64_t by_sharing[4] = {};
  constexpr void compute(std::string_view, const compute_op&) noexcept {}
  constexpr void collective(std::string_view, collective, group_kind, std::uint64_t) noexcept {}
  constexpr void ring(std::string_view, std::uint64_t, bool, std::uint64_t) noexcept {}
  constexpr void weights(weight_part part, weight_sharing sharing, std::uint64_t n) noexcept {
    by_part[static_cast<int>(part)] += n;
    by_sharing[static_cast<int>(sharing)] += n;
  }
  [[nodiscard]] constexpr std::uint64_t part(weight_part p) const noexcept {
    return by_part[static_cast<int>(p)];
  }
  [[nodiscard]] constexpr std::uint64_t sharing(weight_sharing s) const noexcept {
    return by_sharing[static_cast<int>(s)];
  }
  /// Trained weights (buffers excluded).
  [[nodiscard]] constexpr std::uint64_t trained() const noexcept {
    return sharing(weight_sharing::split) + sharing(weight_sharing::replicated) +
           sharing(weight_sharing::expert);
  }
};

AICB_END_NAMESPACE
