// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::megatron_workload — the corrected workload of a Megatron-style training iteration (dense,
/// MoE, DeepSeek MLA), for one pipeline stage, as SimAI replays it: forward over the records in
/// order, then input-gradient and weight-gradient passes in reverse.
///
/// What it models (docs/workloads.md has the record-by-record layout):
/// - every operation of a layer on one TP rank, timed by a compute model (roofline, AIOB, constant);
///   the collectives depend on the job only — never on the compute model;
/// - tensor parallelism with Megatron's operators: without SP an all-reduce after each block forward
///   and before it backward; with SP all-gather before and reduce-scatter after each block, and the
///   reverse backward (which aicb drops, BUG-10); GQA and SwiGLU widths in every shape;
/// - MoE layers: router, token dispatch/combine all-to-alls over EP, the TP all-gather/reduce-scatter
///   of dispatched tokens, grouped expert GEMMs for the local experts, shared experts;
/// - DeepSeek MLA: down/up projections, the latent norms, core attention over q/k (nope+rope) and v;
/// - data parallelism once per iteration: the dense gradients over DP, the routed-expert gradients
///   over DP-within-EP (all-reduce, or reduce-scatter + all-gather with the distributed optimizer),
///   and the optimizer step;
/// - ZeRO (zero_stage, dense models): stage 1 = the distributed optimizer; stage 2 reduce-scatters
///   the gradients in every micro batch; stage 3 also all-gathers the weights twice per micro batch
///   (before forward and before backward). Per iteration and GPU the DP traffic of stages 1 and 2
///   equals plain data parallelism's, stage 3's is 1.5× (docs/zero.md);
/// - recomputation: full recompute replays each layer's forward records (compute and collectives)
///   in the backward pass; selective recomputes core attention;
/// - pipeline parallelism as SimAI models it: one stage's records (the last by default, which holds
///   the logits), `pp_comm` = one micro batch's activation in bytes, `vpp` = virtual stages;
/// - `iterations` consecutive iterations.
///
/// Records are produced lazily from per-layer templates: memory does not grow with iterations,
/// micro batches or layers.

#include <aicb/calc/params.hpp>
#include <aicb/checked.hpp>
#include <aicb/compat/aicb_simai.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/generate/record_stream.hpp>
#include <aicb/model/compute_op.hpp>
#include <aicb/model/job.hpp>
#include <aicb/workload/record.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Options of the corrected Megatron generator.
struct megatron_options {
  std::uint64_t iterations = 1;                 ///< consecutive training iterations in the workload
  std::optional<std::uint64_t> pipeline_stage;  ///< the stage to emit; default: the last (logits, loss)
  /// Parameters per data-parallel gradient bucket; 0 = Megatron's default, max(40M, 1M · DP).
  std::uint64_t bucket_params = 0;
};

/// The corrected Megatron workload of one pipeline stage. The compute model must outlive it.
class megatron_workload {
 public:
  megatron_workload(const job_spec& job, const compute_model& compute, megatron_options options = {})
      : job_(job), compute_(compute), options_(options) {
    validate(job_);
    job_.model = resolve(job_.model);
    const parallel_spec& p = job_.parallel;
    if (p.zero_stage > 1 && job_.model.is_moe())
      AICB_THROW(config_error("zero_stage", std::to_string(p.zero_stage),
                              "ZeRO-2/3 is generated for dense models; MoE models shard with the distributed "
                              "optimizer (zero_stage 0 or 1)"));
    if (options_.iterations == 0)
      AICB_THROW(config_error("iterations", "0", "iterations must be at least 1"));
    // SimAI has one TP size: it runs expert collectives on groups derived from TP and EP, so an
    // expert tensor-parallel size of its own cannot be written for it.
    if (job_.model.is_moe() && expert_tensor_parallel(job_) != p.tensor_parallel)
      AICB_THROW(config_error("expert_tensor_parallel", std::to_string(expert_tensor_parallel(job_)),
                              "a SimAI workload cannot express expert tensor parallelism different from "
                              "tensor_parallel (" +
                                  std::to_string(p.tensor_parallel) +
                                  "): SimAI sizes every non-EP collective by TP; see `aicb schedule` for "
                                  "the per-rank operations"));
    stage_ = options_.pipeline_stage.value_or(p.pipeline_parallel - 1);
    if (stage_ >= p.pipeline_parallel)
      AICB_THROW(config_error("pipeline_stage", std::to_string(stage_),
                              "a stage index must be below pipeline_parallel"));
    first_layer_ = stage_first_layer(job_, stage_);
    layers_ = stage_layers(job_, stage_);
    build_templates();
    header_.tensor_parallel = p.tensor_parallel;
    header_.expert_parallel = p.expert_parallel;
    header_.pipeline_parallel = p.pipeline_parallel;
    header_.vpp = p.virtual_pipeline;
    header_.ga = microbatches(job_);
    header_.all_gpus = p.world_size;
    header_.pp_comm = p.pipeline_parallel == 1 ? "0" : std::to_string(pp_message());
  }

  [[nodiscard]] const simai_header& header() const noexcept { return header_; }
  [[nodiscard]] const job_spec& job() const noexcept { return job_; }
  [[nodiscard]] std::uint64_t pipeline_stage() const noexcept { return stage_; }
  [[nodiscard]] std::uint64_t iterations() const noexcept { return options_.iterations; }

  /// Records of one iteration.
  [[nodiscard]] std::uint64_t records_per_iteration() const {
    return checked_add(records_in(prologue_),
                       checked_mul(microbatches(job_), records_per_microbatch(), "records per iteration"),
                       "records per iteration");
  }
  /// Records in the workload.
  [[nodiscard]] std::uint64_t size() const {
    return checked_mul(options_.iterations, records_per_iteration(),
                       "records (iterations x records per iteration)");
  }

  /// The records, lazily.
  [[nodiscard]] record_stream<class megatron_source> records() const&;
  /// Not on a temporary: the stream refers to the workload, which would be gone before the first
  /// record (`for (auto& r : megatron_workload(...).records())` does not compile; name the workload).
  record_stream<class megatron_source> records() const&& = delete;

 private:
  friend class megatron_source;

  // Bytes of one micro batch's activation on a TP rank: (s/CP)·b·h·bytes.
  [[nodiscard]] std::uint64_t activation() const {
    return job_.batch.seq_length / job_.parallel.context_parallel * job_.batch.micro_batch *
           job_.model.hidden_size * size_of(job_.batch.dtype);
  }
  [[nodiscard]] std::uint64_t pp_message() const {
    return job_.parallel.sequence_parallel ? activation() / job_.parallel.tensor_parallel : activation();
  }
  // A record repeated `times` times in a row: the gradient buckets of a large model are thousands of
  // identical records, held once.
  struct record_run {
    record_run(record one, std::uint64_t n = 1) : r(std::move(one)), times(n) {}  // NOLINT: implicit
    record r;
    std::uint64_t times;
  };
  using block = std::vector<record_run>;
  [[nodiscard]] static std::uint64_t records_in(const block& b) {
    std::uint64_t n = 0;
    for (const record_run& run : b)
      n = checked_add(n, run.times, "records of a block");
    return n;
  }
  [[nodiscard]] std::uint64_t records_per_microbatch() const {
    std::uint64_t n = records_in(embedding_) + records_in(final_);
    const std::uint64_t dense = records_in(dense_layer_), moe = records_in(moe_layer_);
    for (std::uint64_t l = first_layer_; l < first_layer_ + layers_; ++l)
      n += &layer_template(l) == &moe_layer_ ? moe : dense;
    return n;
  }
  [[nodiscard]] const block& layer_template(std::uint64_t layer) const {
    return job_.model.is_moe() && layer >= job_.model.first_dense_layers ? moe_layer_ : dense_layer_;
  }

  // ---- building the templates ---------------------------------------------------------------
  struct side {
    nanoseconds compute{};
    collective_op comm{};
  };
  [[nodiscard]] nanoseconds time(compute_op op, pass_kind pass) const {
    op.pass = pass;
    op.type = job_.batch.dtype;
    return compute_.duration(op);
  }
  // A record for one operation: its three passes timed, with the given collectives.
  [[nodiscard]] record op_record(std::string name, const compute_op& op, collective_op fwd = {},
                                 collective_op ig = {}, collective_op wg = {}) const {
    record r;
    r.name = std::move(name);
    r.forward = {time(op, pass_kind::forward), fwd};
    r.input_grad = {time(op, pass_kind::input_grad), ig};
    // Only GEMMs have weights worth a gradient pass (norm weights are negligible).
    r.weight_grad = {op.kind == op_kind::gemm ? time(op, pass_kind::weight_grad) : nanoseconds{0}, wg};
    return r;
  }
  [[nodiscard]] static record comm_record(std::string name, collective_op fwd, collective_op ig) {
    record r;
    r.name = std::move(name);
    r.forward.comm = fwd;
    r.input_grad.comm = ig;
    return r;
  }
  [[nodiscard]] collective_op tp(collective c, std::uint64_t size) const {
    if (job_.parallel.tensor_parallel == 1) return {};
    return {c, comm_group::tp, bytes{size}};
  }

  void build_templates() {
    const model_spec& m = job_.model;
    const parallel_spec& p = job_.parallel;
    const std::uint64_t t = p.tensor_parallel, h = m.hidden_size, b = job_.batch.micro_batch;
    const std::uint64_t s = job_.batch.seq_length / p.context_parallel, tokens = s * b;
    const bool sp = p.sequence_parallel && t > 1;
    const std::uint64_t A = activation(), norm_tokens = sp ? tokens / t : tokens;
    const collective_op block_in_fwd = sp ? tp(collective::all_gather, A) : collective_op{};
    const collective_op block_in_bwd = tp(sp ? collective::reduce_scatter : collective::all_reduce, A);
    const collective_op block_out_fwd = tp(sp ? collective::reduce_scatter : collective::all_reduce, A);
    const collective_op block_out_bwd = sp ? tp(collective::all_gather, A) : collective_op{};
    const auto gemm = [&](op_role role, std::uint64_t rows, std::uint64_t k, std::uint64_t n,
                          std::uint64_t batch = 1) {
      return compute_op{.role = role, .kind = op_kind::gemm, .batch = batch, .m = rows, .n = n, .k = k};
    };
    const auto norm = [&](op_role role) {
      return compute_op{.role = role, .kind = op_kind::norm, .m = norm_tokens, .n = h};
    };
    const std::uint64_t gated = m.activation == activation_kind::swiglu ? 2 : 1;

    // Attention block.
    block attention;
    attention.push_back(op_record("input_norm", norm(op_role::input_norm), block_in_fwd));
    const std::uint64_t local_heads = m.num_attention_heads / t;
    std::uint64_t qk_dim = m.head_dim, v_dim = m.head_dim;
    if (m.is_mla()) {
      qk_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
      v_dim = m.v_head_dim;
      const std::uint64_t qr = m.q_lora_rank, kvr = m.kv_lora_rank;
      if (qr > 0) {
        // The down-projections are replicated: their input gradients are complete, and under SP they
        // reduce-scatter back to the sequence shards.
        attention.push_back(op_record("mla_q_down", gemm(op_role::mla_q_down, tokens, h, qr), {},
                                      sp ? block_in_bwd : collective_op{}));
        attention.push_back(op_record("mla_q_up", gemm(op_role::mla_q_up, tokens, qr, local_heads * qk_dim),
                                      {},
                                      tp(collective::all_reduce, tokens * qr * size_of(job_.batch.dtype))));
      } else {
        // Without a query rank the query projection is column-parallel on the block input.
        attention.push_back(
            op_record("mla_q", gemm(op_role::mla_q_up, tokens, h, local_heads * qk_dim), {}, block_in_bwd));
      }
      attention.push_back(
          op_record("mla_kv_down", gemm(op_role::mla_kv_down, tokens, h, kvr + m.qk_rope_head_dim)));
      attention.push_back(op_record(
          "mla_kv_up", gemm(op_role::mla_kv_up, tokens, kvr, local_heads * (m.qk_nope_head_dim + v_dim)), {},
          tp(collective::all_reduce, tokens * kvr * size_of(job_.batch.dtype))));
    } else {
      const std::uint64_t kv_heads = std::max<std::uint64_t>(m.num_kv_heads / t, 1);
      attention.push_back(op_record(
          "attention_qkv", gemm(op_role::attention_qkv, tokens, h, (local_heads + 2 * kv_heads) * m.head_dim),
          {}, block_in_bwd));
    }
    compute_op core{.role = op_role::attention_core,
                    .kind = op_kind::attention,
                    .batch = b * local_heads,
                    .m = s,
                    .n = job_.batch.seq_length,
                    .k = (qk_dim + v_dim) / 2};
    record core_record = op_record("attention_core", core);
    if (p.context_parallel > 1) {
      // Ring attention: every rank sees all keys and values of its sequence.
      const std::uint64_t kv_dim = m.is_mla()
                                       ? local_heads * (qk_dim + v_dim)
                                       : 2 * std::max<std::uint64_t>(m.num_kv_heads / t, 1) * m.head_dim;
      const bytes kv{kv_dim * job_.batch.seq_length * b * size_of(job_.batch.dtype)};
      core_record.forward.comm = {collective::all_gather, comm_group::cp, kv};
      core_record.input_grad.comm = {collective::reduce_scatter, comm_group::cp, kv};
    }
    if (p.recompute == recompute_kind::selective)
      core_record.input_grad.compute += core_record.forward.compute;
    attention.push_back(std::move(core_record));
    attention.push_back(op_record("attention_out",
                                  gemm(op_role::attention_out, tokens, local_heads * v_dim, h), block_out_fwd,
                                  block_out_bwd));

    // Dense MLP block.
    const auto mlp = [&](const char* prefix, std::uint64_t ffn, bool gather) {
      block layer;
      const std::string pre(prefix);
      if (gather && sp) layer.push_back({comm_record(pre + "_gather", block_in_fwd, block_in_bwd)});
      layer.push_back({op_record(pre + "_fc1", gemm(op_role::mlp_fc1, tokens, h, gated * ffn / t), {},
                                 gather ? (sp ? collective_op{} : block_in_bwd) : block_in_bwd)});
      layer.push_back({op_record(
          pre + "_act",
          compute_op{
              .role = op_role::mlp_activation, .kind = op_kind::elementwise, .m = tokens, .n = ffn / t})});
      layer.push_back({op_record(pre + "_fc2", gemm(op_role::mlp_fc2, tokens, ffn / t, h), block_out_fwd,
                                 block_out_bwd)});
      return layer;
    };

    // Dense layer: attention, norm (+ all-gather under SP), MLP.
    dense_layer_ = attention;
    dense_layer_.push_back(
        op_record("post_attention_norm", norm(op_role::post_attention_norm), block_in_fwd));
    for (record_run& r : mlp("mlp", m.ffn_hidden_size, false))
      dense_layer_.push_back(std::move(r));
    add_recompute(dense_layer_);

    // MoE layer: attention, norm, router, dispatch, [TP gather], experts, [TP scatter], combine, shared.
    if (m.is_moe()) {
      const std::uint64_t e = p.expert_parallel, etp = expert_tensor_parallel(job_), k = m.moe_top_k;
      const std::uint64_t local_tokens = sp ? tokens / t : tokens;
      const std::uint64_t w = size_of(job_.batch.dtype);
      const std::uint64_t dispatched = local_tokens * k * h * w;  // sent by one rank, balanced routing
      const std::uint64_t local_experts = m.num_experts / e;
      const std::uint64_t expert_rows = local_tokens * k * e * etp / m.num_experts;  // per local expert
      const collective_op a2a =
          e > 1 ? collective_op{collective::all_to_all, comm_group::ep, bytes{dispatched}} : collective_op{};
      const collective_op gather =
          etp > 1 ? collective_op{collective::all_gather, comm_group::tp, bytes{dispatched * etp}}
                  : collective_op{};
      const collective_op scatter =
          etp > 1 ? collective_op{collective::reduce_scatter, comm_group::tp, bytes{dispatched * etp}}
                  : collective_op{};
      moe_layer_ = attention;
      moe_layer_.push_back(op_record("post_attention_norm", norm(op_role::post_attention_norm)));
      moe_layer_.push_back(
          op_record("moe_router", gemm(op_role::moe_router, local_tokens, h, m.num_experts)));
      moe_layer_.push_back(comm_record("moe_dispatch", a2a, a2a));
      if (etp > 1) moe_layer_.push_back(comm_record("moe_gather", gather, scatter));
      moe_layer_.push_back(op_record("moe_fc1", gemm(op_role::moe_fc1, expert_rows, h,
                                                     gated * m.moe_ffn_hidden_size / etp, local_experts)));
      moe_layer_.push_back(op_record("moe_act", compute_op{.role = op_role::moe_activation,
                                                           .kind = op_kind::elementwise,
                                                           .batch = local_experts,
                                                           .m = expert_rows,
                                                           .n = m.moe_ffn_hidden_size / etp}));
      moe_layer_.push_back(op_record(
          "moe_fc2", gemm(op_role::moe_fc2, expert_rows, m.moe_ffn_hidden_size / etp, h, local_experts),
          scatter, gather));
      moe_layer_.push_back(comm_record("moe_combine", a2a, a2a));
      if (m.num_shared_experts > 0)
        for (record_run& r : mlp("shared", m.num_shared_experts * m.shared_expert_ffn_hidden_size, true))
          moe_layer_.push_back(std::move(r));
      add_recompute(moe_layer_);
    }

    // Embedding (first stage) and output layer with loss (last stage).
    if (stage_ == 0) {
      record emb =
          op_record("embedding",
                    compute_op{.role = op_role::embedding, .kind = op_kind::embedding, .m = tokens, .n = h},
                    block_out_fwd, block_out_bwd);
      emb.input_grad.compute =
          nanoseconds{0};  // token ids have no gradient; the table's is the weight gradient
      emb.weight_grad.compute =
          time(compute_op{.role = op_role::embedding, .kind = op_kind::embedding, .m = tokens, .n = h},
               pass_kind::forward);
      embedding_.push_back(std::move(emb));
    }
    if (stage_ + 1 == p.pipeline_parallel) {
      const std::uint64_t vocab = padded_vocab(job_) / t;
      final_.push_back(op_record("final_norm", norm(op_role::final_norm), block_in_fwd));
      final_.push_back(op_record("logits", gemm(op_role::logits, tokens, h, vocab), {}, block_in_bwd));
      const collective_op loss = tp(collective::all_reduce, tokens * 4);
      final_.push_back(op_record(
          "cross_entropy_max",
          compute_op{.role = op_role::logits, .kind = op_kind::elementwise, .m = tokens, .n = vocab}, loss));
      final_.back().r.weight_grad.compute = nanoseconds{0};
      if (t > 1) {
        final_.push_back(comm_record("cross_entropy_target", loss, {}));
        final_.push_back(comm_record("cross_entropy_sum", loss, {}));
      }
    }

    // Once per iteration: the gradient reductions, the optimizer step and (distributed optimizer)
    // the gathering of the updated weights — first in the file, in reverse, because SimAI walks the
    // backward pass from the last record: reductions, then the step, then the gathers.
    const shard_params params = params_on_gpu(job_, stage_);
    const std::uint64_t dp = data_parallel(job_), edp = expert_data_parallel(job_);
    const bool sharded = p.distributed_optimizer || p.zero_stage >= 1;
    const std::uint64_t step_params =
        (sharded ? params.dense / std::max<std::uint64_t>(dp, 1) : params.dense) +
        (sharded ? params.expert / std::max<std::uint64_t>(edp, 1) : params.expert);
    const std::uint64_t w = size_of(job_.batch.dtype), g = size_of(job_.batch.grad_dtype);
    // Megatron reduces gradients bucket by bucket: one collective per bucket, never a message that
    // SimAI's 16 GiB table cannot time.
    const std::uint64_t bucket = options_.bucket_params != 0
                                     ? options_.bucket_params
                                     : std::max<std::uint64_t>(40'000'000, 1'000'000 * dp);
    const auto buckets = [&](block& into, const char* name, std::uint64_t params_total, std::uint64_t element,
                             collective kind, comm_group group) {
      if (const std::uint64_t full = params_total / bucket)
        into.push_back({wg_record(name, {kind, group, bytes{bucket} * element}), full});
      if (const std::uint64_t rest = params_total % bucket)
        into.push_back(wg_record(name, {kind, group, bytes{rest} * element}));
    };
    // ZeRO-2 reduce-scatters gradients in every micro batch, ZeRO-3 also all-gathers the weights
    // before each micro batch's forward and again before its backward. SimAI gives the DP group only
    // to the weight-gradient column, so these collectives sit there, in records at the head of each
    // micro batch: SimAI runs them as the micro batch's backward ends (docs/zero.md).
    block per_microbatch;
    if (p.zero_stage >= 2 && dp > 1) {
      if (p.zero_stage == 3) {
        buckets(per_microbatch, "zero3_param_gather_fwd", params.dense, w, collective::all_gather,
                comm_group::dp);
        buckets(per_microbatch, "zero3_param_gather_bwd", params.dense, w, collective::all_gather,
                comm_group::dp);
      }
      buckets(per_microbatch, "zero_grad_reduce", params.dense, g, collective::reduce_scatter,
              comm_group::dp);
    }
    embedding_.insert(embedding_.begin(), per_microbatch.begin(), per_microbatch.end());
    if (sharded && p.zero_stage < 3 && dp > 1)
      buckets(prologue_, "param_gather", params.dense, w, collective::all_gather, comm_group::dp);
    if (sharded && edp > 1)
      buckets(prologue_, "expert_param_gather", params.expert, w, collective::all_gather, comm_group::dp_ep);
    record step = comm_record("optimizer_step", {}, {});
    step.weight_grad.compute =
        time(compute_op{.role = op_role::optimizer, .kind = op_kind::optimizer, .m = step_params},
             pass_kind::forward);
    prologue_.push_back(std::move(step));
    const collective reduce = sharded ? collective::reduce_scatter : collective::all_reduce;
    if (dp > 1 && p.zero_stage < 2)
      buckets(prologue_, "grad_reduce", params.dense, g, reduce, comm_group::dp);
    if (edp > 1) buckets(prologue_, "expert_grad_reduce", params.expert, g, reduce, comm_group::dp_ep);
  }
  [[nodiscard]] static record wg_record(std::string name, collective_op wg) {
    record r;
    r.name = std::move(name);
    r.weight_grad.comm = wg;
    return r;
  }

  // Full recomputation: the layer's forward records replayed in the backward pass, just before the
  // layer's own backward (appended in reverse, since SimAI walks the backward pass from the end).
  void add_recompute(block& layer) const {
    if (job_.parallel.recompute != recompute_kind::full) return;
    const std::size_t n = layer.size();
    for (std::size_t i = n; i-- > 0;) {
      record r;
      r.name = "recompute_" + layer[i].r.name;
      r.input_grad = layer[i].r.forward;
      layer.push_back({std::move(r), layer[i].times});
    }
  }

  job_spec job_;
  const compute_model& compute_;
  megatron_options options_;
  std::uint64_t stage_ = 0, first_layer_ = 0, layers_ = 0;
  block prologue_, embedding_, dense_layer_, moe_layer_, final_;
  simai_header header_;
};

/// The state machine behind megatron_workload::records(): copies templates in order.
class megatron_source {
 public:
  explicit megatron_source(const megatron_workload& w) : w_(w) {}

  [[nodiscard]] std::uint64_t size() const { return w_.size(); }

  const record* next() {
    while (true) {
      if (iteration_ == w_.options_.iterations) return nullptr;
      const megatron_workload::block& block = current_block();
      if (index_ < block.size()) {
        const megatron_workload::record_run& run = block[index_];
        if (++repeat_ == run.times) {
          repeat_ = 0;
          ++index_;
        }
        return &run.r;
      }
      index_ = 0;
      advance();
    }
  }

 private:
  // Position: prologue, then per micro batch: embedding, layers, final.
  const megatron_workload::block& current_block() const {
    if (part_ == 0) return w_.prologue_;
    if (part_ == 1) return w_.embedding_;
    if (part_ == 2) return w_.layer_template(w_.first_layer_ + layer_);
    return w_.final_;
  }
  void advance() {
    if (part_ == 0) {
      part_ = microbatches() > 0 ? 1 : 4;
    } else if (part_ == 1) {
      part_ = w_.layers_ > 0 ? 2 : 3;
      layer_ = 0;
    } else if (part_ == 2) {
      if (++layer_ == w_.layers_) part_ = 3;
    } else if (part_ == 3) {
      part_ = ++microbatch_ < microbatches() ? 1 : 4;
    }
    if (part_ == 4) {
      part_ = 0;
      microbatch_ = 0;
      ++iteration_;
    }
  }
  std::uint64_t microbatches() const { return microbatches_cache_; }

  const megatron_workload& w_;
  std::uint64_t microbatches_cache_ = aicb::microbatches(w_.job_);
  std::uint64_t iteration_ = 0, microbatch_ = 0, layer_ = 0;
  int part_ = 0;
  std::size_t index_ = 0;
  std::uint64_t repeat_ = 0;  // copies of the current run already handed out
};

inline record_stream<megatron_source> megatron_workload::records() const& {
  return record_stream<megatron_source>(megatron_source(*this));
}

AICB_END_NAMESPACE
