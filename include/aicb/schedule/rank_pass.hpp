// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::rank_pass — the engine behind aicb::rank_schedule (<aicb/schedule/rank_schedule.hpp>, the
/// range-v3 view every projection reads): what one rank of a Megatron-Core training job does in an
/// iteration, in the order it does it — its computations, its collectives (with their groups) and
/// its point-to-point sends and receives (with their peers), each with what it waits for — produced
/// one operation at a time by a cursor (current, next, done). It needs no range library, so the
/// calculators of <aicb/core.hpp> walk it too (aicb::for_each_operation).
///
/// ```cpp
/// aicb::for_each_operation(job, 42, [](const aicb::operation& op) { ... });   // lazily, any job size
/// ```
///
/// What it models, after Megatron-Core (the citations are in docs/schedules.md):
/// - the pipeline schedule of the rank's stage (aicb/schedule/pipeline.hpp): none, 1F1B,
///   interleaved or zero-bubble H1, with the activations and gradients sent between stages; a split
///   backward runs every operation but the weight-gradient computations, which its later weight step
///   runs (the tensor-parallel gathers that feed them stay in the backward, their inputs kept);
/// - DualPipe: two chunks per rank, this stage's (the forward direction) and its mirror's, p − 1 −
///   stage (the reverse direction), each with its ends of the model; in finalize, the mirrors
///   exchange their gradients (every stage's weights are held twice) besides the usual reductions;
/// - per layer, tensor parallelism: with sequence parallelism an all-gather before each
///   column-parallel block and a reduce-scatter after each row-parallel one, and in backward the
///   all-gather of the output gradient, the re-all-gather of the column-parallel input for the
///   weight gradient and the reduce-scatter of the input gradient (4 all-gathers and 2
///   reduce-scatters per layer); without it all-reduces;
/// - context parallelism as ring attention (TE's p2p): CP − 1 key/value exchanges with the CP
///   neighbours per attention forward, and the reverse ring with key/value and their gradients in
///   backward, over a load-balanced split of 2·CP chunks (the causal work per rank is even);
/// - multi-head latent attention: replicated down-projections on the local sequence shard, the
///   latents gathered (and their gradients reduce-scattered) over TP;
/// - mixture of experts with either dispatcher (`allgather`, Megatron's default, or `alltoall`),
///   expert tensor parallelism and shared experts, assuming balanced routing;
/// - the embedding (vocabulary-parallel) on the first stage, the output layer and the loss's three
///   small all-reduces on the last;
/// - activation recomputation: `full` repeats each layer's forward, collectives included, before its
///   backward; `selective` repeats core attention;
/// - after the last backward, Megatron's finalize: the gradient reduction of each model chunk
///   (dense weights over DP×CP, routed experts over expert-DP; reduce-scatter with the distributed
///   optimizer, all-reduce otherwise; in buckets only with `overlap_grad_reduce`, and then only on
///   the first stage's first chunk, one per buffer elsewhere; always in buckets with a ZeRO stage,
///   as DeepSpeed works), the TP all-reduce of the weights that
///   sequence parallelism replicates (norms), the all-reduce of the tied word embedding between the
///   first and last stage, the router's expert-bias reduction; then the optimizer step and, with
///   the distributed optimizer, the all-gather of the updated weights.
///
/// - DeepSpeed's ZeRO (`zero_stage`): stage 1 is the distributed optimizer above; stage 2
///   reduce-scatters each module's gradients over DP×CP as its backward ends, in every micro batch,
///   and gathers the updated weights after the step; stage 3 also all-gathers each module's weights
///   before its forward and again before its backward (recomputation reuses the backward's gather),
///   and never holds the whole model. Modules are the embedding, each layer and the output layer
///   with the final norm; each collective is split into buckets of at most `bucket_params`.
///
/// Refused with a message: ZeRO stages 2 and 3 with a mixture of experts, multi-token prediction or
/// pipeline parallelism (DeepSpeed supports none of them with those stages); multi-token prediction
/// with context parallelism or learned positions; a job that is not valid.
///
/// Memory holds the rank's layer templates and one pipeline step's operations: it does not grow
/// with micro batches, iterations or world size.

#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/model/compute_op.hpp>
#include <aicb/model/job.hpp>
#include <aicb/parallel/groups.hpp>
#include <aicb/schedule/layer.hpp>
#include <aicb/schedule/operation.hpp>
#include <aicb/schedule/pipeline.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Options of a rank's schedule that are not part of the job.
struct rank_schedule_options {
  std::uint64_t iterations = 1;  ///< consecutive training iterations
  /// Interleaved pipelines: overlap point-to-point communication with compute (Megatron's default).
  bool overlap_p2p = true;
  /// Parameters per gradient bucket with overlap_grad_reduce; 0 = Megatron's max(40M, 1M · |DP×CP|).
  std::uint64_t bucket_params = 0;
};

namespace detail {

// One operation of a template: everything but where it lands in the stream.
struct op_template {
  op_type type = op_type::compute;
  std::string_view name;
  compute_op compute{};
  collective kind = collective::none;
  group_kind group = group_kind::world;
  std::uint64_t size = 0;
  // Ring exchanges (context parallelism): the step, and whether the ring runs backwards.
  std::uint64_t ring_step = 0;
  bool ring_reverse = false;
};

// The weights a rank holds for one model chunk, as gradient buffers: dense and routed-expert
// elements, and those sequence parallelism replicates over TP (norms: their gradients are summed
// over TP in finalize).
struct chunk_weights {
  std::uint64_t dense = 0, expert = 0, replicated = 0;
};

using op_block = std::vector<op_template>;

// What a rank's passes read, built once per rank: the job, the rank's place in it, its pipeline
// schedule's options and the templates of everything it runs (layers by kind, embedding, head,
// MTP modules, ZeRO's gathers and scatters), at a stable address (passes point into it).
struct rank_plan {
  rank_plan(const job_spec& j, std::uint64_t r, rank_schedule_options o)
      : rank_plan(validated_job(j), r, o) {}
  rank_plan(const validated_job& j, std::uint64_t r, rank_schedule_options o)
      : job(j.job()), options(o), grid(job), rank(r), coords(grid.coordinates(r)) {
    const parallel_spec& p = job.parallel;
    if (job.model.num_mtp_layers > 0 && p.context_parallel > 1)
      AICB_THROW(config_error("num_mtp_layers", std::to_string(job.model.num_mtp_layers),
                              "multi-token prediction with context parallelism is not modelled yet (its "
                              "token roll crosses the CP ranks); set num_mtp_layers = 0 or context_parallel "
                              "= 1"));
    if (job.model.num_mtp_layers > 0 && job.model.position == position_kind::learned)
      AICB_THROW(config_error("num_mtp_layers", std::to_string(job.model.num_mtp_layers),
                              "multi-token prediction is modelled with rotary positions only (a learned "
                              "position table would need a copy on the last stage)"));
    if (p.zero_stage >= 2) {
      const auto refuse = [&](const std::string& what) {
        AICB_THROW(config_error("zero_stage", std::to_string(p.zero_stage),
                                "ZeRO stages 2 and 3 are modelled for dense models without pipeline "
                                "parallelism, as DeepSpeed runs them; this job has " +
                                    what + " (use zero_stage 0 or 1: the distributed optimizer)"));
      };
      if (job.model.is_moe()) refuse("experts (ZeRO does not shard them over expert data parallelism)");
      if (job.model.num_mtp_layers > 0) refuse("multi-token prediction");
      if (p.pipeline_parallel > 1) refuse("pipeline_parallel = " + std::to_string(p.pipeline_parallel));
    }
    if (options.iterations == 0) AICB_THROW(config_error("iterations", "0", "iterations must be at least 1"));
    context = training_layer_context(job);
    stage = coords.pp;
    dualpipe = p.pipeline_schedule == pipeline_schedule_kind::dualpipe;
    chunks = dualpipe ? 2 : p.virtual_pipeline;
    pipeline = {.stages = p.pipeline_parallel,
                .stage = stage,
                .microbatches = microbatches(job),
                .chunks = chunks,
                .overlap_p2p = options.overlap_p2p,
                .schedule = p.pipeline_schedule,
                .combined = p.overlap_moe_expert_parallel_comm};
    (void)pipeline_schedule(pipeline);  // Megatron's constraints, checked now
    build();
  }

  // The weights of each model chunk on this rank (elements), as the gradient buffers hold them.
  std::uint64_t dense_weights() const noexcept {
    std::uint64_t n = 0;
    for (const auto& c : weights)
      n += c.dense;
    return n;
  }
  std::uint64_t expert_weights() const noexcept {
    std::uint64_t n = 0;
    for (const auto& c : weights)
      n += c.expert;
    return n;
  }

  // The first layer (global index) of chunk `c` on this stage, and its number of layers.
  // The pipeline stage whose layers chunk `c` holds: this one, or — DualPipe's reverse direction —
  // its mirror p − 1 − stage.
  std::uint64_t model_stage(std::uint64_t c) const {
    return dualpipe && c == 1 ? job.parallel.pipeline_parallel - 1 - stage : stage;
  }
  std::uint64_t first_layer(std::uint64_t c) const {
    return chunk_first_layer(job, model_stage(c), dualpipe ? 0 : c);
  }
  std::uint64_t layers_of_chunk(std::uint64_t c) const {
    return chunk_layers(job, model_stage(c), dualpipe ? 0 : c);
  }
  // Whether chunk `c` begins the model (the embedding) or ends it (the output layer and the loss).
  bool holds_embedding(std::uint64_t c) const { return model_stage(c) == 0 && (dualpipe || c == 0); }
  bool holds_head(std::uint64_t c) const {
    return model_stage(c) + 1 == job.parallel.pipeline_parallel && (dualpipe || c + 1 == chunks);
  }
  // Whether any chunk of this rank holds the embedding, or the head; and the first such chunk.
  bool any_embedding() const { return holds_embedding(0) || (chunks > 1 && holds_embedding(chunks - 1)); }
  bool any_head() const { return holds_head(chunks - 1) || holds_head(0); }
  std::uint64_t embedding_chunk() const { return holds_embedding(0) ? 0 : chunks - 1; }
  std::uint64_t head_chunk() const { return holds_head(chunks - 1) ? chunks - 1 : 0; }
  bool moe_layer(std::uint64_t layer) const { return kind_of(layer).moe; }
  layer_kind kind_of(std::uint64_t layer) const { return kind_of_layer(job.model, layer); }
  // An MTP module's transformer layer is built like the decoder's last layer (softmax attention).
  layer_kind mtp_kind() const { return kind_of_layer(job.model, job.model.num_layers); }
  bool mtp_layer_is_moe() const { return mtp_kind().moe; }
  const op_block& forward_of(layer_kind k) const { return layer_forward_[k.index()]; }
  const op_block& backward_of(layer_kind k) const { return layer_backward_[k.index()]; }
  const op_block& zero_gather_of(layer_kind k) const { return zero_gather_layer_[k.index()]; }
  const op_block& zero_scatter_of(layer_kind k) const { return zero_scatter_layer_[k.index()]; }

  void build();
  void build_layer(layer_kind kind);
  void build_embedding_and_head();
  void build_mtp();
  void build_zero();
  // Parameters per gradient or weight bucket over a data-parallel group of `ranks`.
  std::uint64_t bucket_params(std::uint64_t ranks) const {
    return options.bucket_params != 0 ? options.bucket_params
                                      : std::max<std::uint64_t>(40'000'000, 1'000'000 * ranks);
  }
  // Refuses a buffer of `elements` that buckets of `bucket` would split into more collectives
  // than any framework issues (a stream and every projection of it grow with them).
  static void check_buckets(std::string_view name, std::uint64_t elements, std::uint64_t bucket) {
    constexpr std::uint64_t most = 1 << 16;
    if (bucket == 0 || elements / bucket >= most)
      AICB_THROW(config_error("bucket_params", std::to_string(bucket),
                              "buckets of this many parameters split " + std::string(name) + "'s " +
                                  std::to_string(elements) +
                                  " into more than 65536 collectives: raise "
                                  "the bucket size (DeepSpeed: reduce_bucket_size, allgather_bucket_size)"));
  }

  job_spec job;
  rank_schedule_options options;
  process_grid grid;
  std::uint64_t rank;
  rank_coordinates coords;
  std::uint64_t stage = 0, chunks = 1;
  bool dualpipe = false;  // two chunks, one per direction: this stage's and its mirror's
  pipeline_options pipeline;
  layer_context context;  // the layer description's shapes for this rank
  // Templates: forward and backward of each layer kind the rank runs (by layer_kind::index()), the
  // embedding and the output layer.
  std::array<op_block, layer_kind::count> layer_forward_, layer_backward_;
  std::array<detail::chunk_weights, layer_kind::count> layer_weights_{};
  std::array<bool, layer_kind::count> layer_built_{};
  op_block embedding_forward, embedding_backward;
  op_block final_norm_forward, final_norm_backward;  // the decoder's last norm
  op_block logits_forward, logits_backward;          // the output layer and the loss (also each MTP module's)
  // ZeRO-3's weight gathers and ZeRO-2/3's gradient reduce-scatters around each module (empty blocks
  // otherwise): a layer, the embedding, the head (final norm and output layer).
  std::array<op_block, layer_kind::count> zero_gather_layer_, zero_scatter_layer_;  // by layer kind
  op_block zero_gather_embedding, zero_scatter_embedding;
  op_block zero_gather_head, zero_scatter_head;
  // One multi-token-prediction module around its transformer layer: before it, the embedding of the
  // shifted tokens, the two norms and the projection; after it, its own final norm.
  op_block mtp_input_forward, mtp_input_backward, mtp_norm_forward, mtp_norm_backward;
  std::vector<detail::chunk_weights> weights;  // per chunk
  std::uint64_t p2p_bytes = 0;                 // one pipeline transfer
  std::uint64_t cp_next = 0, cp_prev = 0;      // ring neighbours
  // Weights (elements) of the embedding, the output layer and the final norm.
  std::uint64_t embedding_weights_ = 0, output_weights_ = 0, final_norm_weights_ = 0;
  detail::chunk_weights mtp_weights_;  // one MTP module but its transformer layer
};

}  // namespace detail

/// One pass over a rank's operations, a cursor: each pipeline step (and the finalize of each
/// iteration) becomes a block of operations, numbered and linked to what they wait for. It refers to
/// its plan, which must outlive it (aicb::rank_schedule holds both).
class rank_pass {
 public:
  explicit rank_pass(const detail::rank_plan& plan)
      : s_(&plan), schedule_(std::make_unique<pipeline_schedule>(plan.pipeline)) {
    step_ = schedule_->begin_cursor();
    advance();
  }

  /// The operation at the cursor (not when done()), valid until next().
  [[nodiscard]] const operation& read() const noexcept { return ops_[at_]; }
  void next() { advance(); }
  /// Whether the pass is over.
  [[nodiscard]] bool done() const noexcept { return s_ == nullptr; }

 private:
  void advance() {
    if (!s_) return;
    if (++at_ < ops_.size()) return;
    ops_.clear();
    at_ = 0;
    while (ops_.empty()) {
      if (!fill()) {
        s_ = nullptr;
        return;
      }
    }
  }

  // The next block: a pipeline step, or the finalize of an iteration; false at the end.
  bool fill() {
    if (iteration_ == s_->options.iterations) return false;
    if (!step_.done()) {
      const pipeline_step& step = step_.read();
      switch (step.what) {
        case pipeline_step::kind::forward:
          if (step.overlapped && s_->pipeline.combined) {  // merged with the backward after it
            const pipeline_step f = step;
            step_.next();
            if (step_.done() || step_.read().what != pipeline_step::kind::backward)
              AICB_THROW(error("rank_pass: a combined forward without its backward"));
            forward_backward(f, step_.read());
            break;
          }
          paired_ = step.overlapped;  // DualPipe: with the backward after it
          forward(step.microbatch, step.chunk);
          break;
        case pipeline_step::kind::backward:
          backward(step.microbatch, step.chunk, step.split ? gradients::input : gradients::both);
          paired_ = false;
          break;
        case pipeline_step::kind::weight:
          backward(step.microbatch, step.chunk, gradients::weight);
          break;
        case pipeline_step::kind::communicate:
          communicate(step);
          break;
      }
      step_.next();
      return true;
    }
    finalize();
    if (++iteration_ < s_->options.iterations) {
      step_ = schedule_->begin_cursor();
    }
    return true;
  }

  // Appends one operation, waiting for the previous one (or the operations of the last call).
  operation& push(op_type type, std::string_view name, op_phase phase, std::uint64_t microbatch,
                  std::uint64_t chunk, std::uint64_t layer) {
    operation& op = ops_.emplace_back();
    op.index = next_index_++;
    op.type = type;
    op.name = name;
    op.phase = phase;
    op.microbatch = microbatch;
    op.chunk = chunk;
    op.layer = layer;
    op.paired = paired_;
    for (std::uint8_t i = 0; i < wait_count_; ++i)
      op.after[i] = waits_[i];
    op.after_count = wait_count_;
    waits_[0] = op.index;
    wait_count_ = 1;
    return op;
  }

  // Which part of a backward pass a step runs: all of it, or — split, as zero-bubble schedules do —
  // its input gradient (every operation but the weight-gradient computations) or those alone.
  enum class gradients : std::uint8_t { both, input, weight };
  static bool runs(const detail::op_template& t, gradients g) {
    if (g == gradients::both) return true;
    const bool weight = t.type == op_type::compute && t.compute.pass == pass_kind::weight_grad;
    return weight == (g == gradients::weight);
  }

  // Instantiates a template block (of a backward, the part `g`).
  void emit(const detail::op_block& b, op_phase phase, std::uint64_t microbatch, std::uint64_t chunk,
            std::uint64_t layer, gradients g = gradients::both) {
    for (const detail::op_template& t : b) {
      if (!runs(t, g)) continue;
      if (t.type == op_type::compute) {
        operation& op = push(op_type::compute, t.name, phase, microbatch, chunk, layer);
        op.compute = t.compute;
      } else if (t.type == op_type::collective) {
        operation& op = push(op_type::collective, t.name, phase, microbatch, chunk, layer);
        const rank_group g = s_->grid.group(t.group, s_->rank);
        op.kind = t.kind;
        op.group = g.id();
        op.group_size = g.size();
        op.size = bytes{t.size};
      } else {
        // A ring exchange: send to one neighbour and receive from the other, posted together.
        const std::uint64_t before = waits_[0];
        const bool has_before = wait_count_ > 0;
        const std::uint64_t to = t.ring_reverse ? s_->cp_prev : s_->cp_next;
        const std::uint64_t from = t.ring_reverse ? s_->cp_next : s_->cp_prev;
        const std::uint64_t tag = ring_tag(microbatch, layer, t.ring_step, t.ring_reverse, phase);
        operation& send = push(op_type::send, t.name, phase, microbatch, chunk, layer);
        send.peer = to;
        send.size = bytes{t.size};
        send.tag = tag;
        const std::uint64_t send_index = send.index;  // `send` may move when the next one is added
        waits_[0] = before;
        wait_count_ = has_before ? 1 : 0;
        operation& recv = push(op_type::recv, t.name, phase, microbatch, chunk, layer);
        recv.peer = from;
        recv.size = bytes{t.size};
        recv.tag = tag;
        waits_ = {send_index, recv.index};
        wait_count_ = 2;
      }
    }
  }

  // Tags: unique per pair of ranks and iteration. Pipeline and ring transfers never share a pair.
  std::uint64_t ring_tag(std::uint64_t microbatch, std::uint64_t layer, std::uint64_t step, bool reverse,
                         op_phase phase) const {
    std::uint64_t t = iteration_;
    t = t * s_->pipeline.microbatches + microbatch;
    t = t * s_->job.model.num_layers + (layer == no_layer ? 0 : layer);
    t = t * (s_->job.parallel.context_parallel + 1) + step;
    t = t * 2 + (reverse ? 1 : 0);
    t = t * 2 + (phase == op_phase::recompute ? 1 : 0);
    return t;
  }
  std::uint64_t pipeline_tag(const p2p_op& op, bool send) const {
    // The producer's virtual stage identifies the tensor on both ends.
    const std::uint64_t p = s_->pipeline.stages;
    std::uint64_t producer_stage = s_->stage, producer_chunk = op.chunk;
    if (!send) {
      const p2p_peer peer = peer_of(op, s_->stage, p, s_->dualpipe);
      producer_stage = peer.stage;
      producer_chunk = peer.chunk;
    }
    std::uint64_t t = iteration_;
    t = t * s_->pipeline.microbatches + op.microbatch;
    t = t * tag_producers() + producer_chunk * p + producer_stage;
    return t * 2 + (op.activation ? 0 : 1);
  }
  // Producers of pipeline tensors (virtual stages), and with DualPipe one more slot: its mirror
  // exchange, which may share a pair of ranks with pipeline transfers (the middle ranks, or p = 2).
  std::uint64_t tag_producers() const { return s_->pipeline.stages * s_->chunks + (s_->dualpipe ? 1 : 0); }
  std::uint64_t mirror_tag(std::uint64_t from, std::uint64_t to) const {
    const std::uint64_t t =
        iteration_ * s_->pipeline.microbatches * tag_producers() + s_->pipeline.stages * s_->chunks;
    return t * 2 + (from < to ? 0 : 1);
  }

  void forward(std::uint64_t mb, std::uint64_t chunk) {
    wait_for(pending_forward_, pending_forward_count_);
    const bool first = s_->holds_embedding(chunk);
    const bool last = s_->holds_head(chunk);
    if (first) {
      emit(s_->zero_gather_embedding, op_phase::forward, mb, chunk, no_layer);
      emit(s_->embedding_forward, op_phase::forward, mb, chunk, no_layer);
    }
    const std::uint64_t begin = s_->first_layer(chunk), end = begin + s_->layers_of_chunk(chunk);
    for (std::uint64_t l = begin; l < end; ++l) {
      emit(s_->zero_gather_of(s_->kind_of(l)), op_phase::forward, mb, chunk, l);
      emit(s_->forward_of(s_->kind_of(l)), op_phase::forward, mb, chunk, l);
    }
    if (last) {
      emit(s_->zero_gather_head, op_phase::forward, mb, chunk, no_layer);
      // Megatron-Core: the decoder's final norm, each MTP module in turn (fed by the one before), then
      // the output layer and loss of each MTP module and of the main model.
      emit(s_->final_norm_forward, op_phase::forward, mb, chunk, no_layer);
      const std::uint64_t L = s_->job.model.num_layers, mtp = s_->job.model.num_mtp_layers;
      for (std::uint64_t k = 0; k < mtp; ++k) {
        emit(s_->mtp_input_forward, op_phase::forward, mb, chunk, L + k);
        emit(s_->forward_of(s_->mtp_kind()), op_phase::forward, mb, chunk, L + k);
        emit(s_->mtp_norm_forward, op_phase::forward, mb, chunk, L + k);
      }
      for (std::uint64_t k = 0; k < mtp; ++k)
        emit(s_->logits_forward, op_phase::forward, mb, chunk, L + k);
      emit(s_->logits_forward, op_phase::forward, mb, chunk, no_layer);
    }
  }

  // A micro batch's backward on a chunk, or the part `g` of it: a weight step (g = weight) repeats the
  // walk with the weight-gradient computations alone (no recomputation: its backward had it).
  void backward(std::uint64_t mb, std::uint64_t chunk, gradients g) {
    if (g != gradients::weight) wait_for(pending_backward_, pending_backward_count_);
    const bool first = s_->holds_embedding(chunk);
    const bool last = s_->holds_head(chunk);
    const recompute_kind recompute =
        g == gradients::weight ? recompute_kind::none : s_->job.parallel.recompute;
    if (last) {
      // The reverse of the forward: the losses' output layers, the MTP modules last to first, the
      // decoder's final norm.
      const std::uint64_t L = s_->job.model.num_layers, mtp = s_->job.model.num_mtp_layers;
      emit(s_->zero_gather_head, op_phase::backward, mb, chunk, no_layer, g);
      emit(s_->logits_backward, op_phase::backward, mb, chunk, no_layer, g);
      for (std::uint64_t k = mtp; k-- > 0;)
        emit(s_->logits_backward, op_phase::backward, mb, chunk, L + k, g);
      for (std::uint64_t k = mtp; k-- > 0;) {
        const layer_kind kind = s_->mtp_kind();
        emit(s_->mtp_norm_backward, op_phase::backward, mb, chunk, L + k, g);
        if (recompute == recompute_kind::full)
          emit(s_->forward_of(kind), op_phase::recompute, mb, chunk, L + k);
        emit(s_->backward_of(kind), op_phase::backward, mb, chunk, L + k, g);
        emit(s_->mtp_input_backward, op_phase::backward, mb, chunk, L + k, g);
      }
      emit(s_->final_norm_backward, op_phase::backward, mb, chunk, no_layer, g);
      emit(s_->zero_scatter_head, op_phase::backward, mb, chunk, no_layer, g);
    }
    const std::uint64_t begin = s_->first_layer(chunk);
    for (std::uint64_t l = begin + s_->layers_of_chunk(chunk); l-- > begin;) {
      const layer_kind kind = s_->kind_of(l);
      emit(s_->zero_gather_of(kind), op_phase::backward, mb, chunk, l, g);
      if (recompute == recompute_kind::full) emit(s_->forward_of(kind), op_phase::recompute, mb, chunk, l);
      emit(s_->backward_of(kind), op_phase::backward, mb, chunk, l, g);
      emit(s_->zero_scatter_of(kind), op_phase::backward, mb, chunk, l, g);
    }
    if (first) {
      emit(s_->zero_gather_embedding, op_phase::backward, mb, chunk, no_layer, g);
      emit(s_->embedding_backward, op_phase::backward, mb, chunk, no_layer, g);
      emit(s_->zero_scatter_embedding, op_phase::backward, mb, chunk, no_layer, g);
    }
  }

  // Megatron's combined 1F1B (combined_forward_backward_step): forward `f` and backward `b` of two
  // micro batches as one step. Both passes are emitted as usual, each a chain of its own from what the
  // step waits for (neither waits for the other: they hold different micro batches), then reordered
  // into the order Megatron issues them (TransformerLayerSchedulePlan.run): forward layer i with
  // backward layer n − 1 − i, each cut at its expert-parallel all-to-alls into attention (A),
  // dispatch (D), experts (M) and combine (C):
  //   C_b  A_f  M_b  D_f  [M_b's weight gradients, delay_wgrad_compute]  D_b  M_f  C_f  A_b
  // so that every all-to-all runs between computations of the other pass. Before the layers the
  // forward's embedding and the backward's loss and output layer; after them the forward's output
  // layer and loss and the backward's embedding. Every operation is `paired`.
  void forward_backward(const pipeline_step& f, const pipeline_step& b) {
    const std::array<std::uint64_t, 8> start = waits_;
    const std::uint8_t start_count = wait_count_;
    const std::size_t begin = ops_.size();
    paired_ = true;
    forward(f.microbatch, f.chunk);
    const std::size_t middle = ops_.size();
    waits_ = start;  // the backward's chain starts where the forward's does
    wait_count_ = start_count;
    backward(b.microbatch, b.chunk, gradients::both);
    paired_ = false;
    interleave(begin, middle, f.chunk, b.chunk);
  }

  // The segments of a layer's operations, in the merged order (see forward_backward).
  enum segment : std::uint8_t {
    combine_grad,    // C_b: the backward up to its combine all-to-all
    attention,       // A_f: the forward up to its dispatch all-to-all
    experts_grad,    // M_b: the experts' input gradients (and weight gradients unless delayed)
    dispatch,        // D_f: the dispatch all-to-alls
    experts_weight,  // the experts' weight gradients, delayed
    dispatch_grad,   // D_b: the dispatch's gradient all-to-alls
    experts,         // M_f: the experts
    combine,         // C_f: the combine all-to-all and what follows it
    attention_grad,  // A_b: the rest of the backward
  };
  static bool is_ep_exchange(const operation& op) {
    return op.type == op_type::collective && op.kind == collective::all_to_all &&
           op.group.kind == group_kind::ep;
  }
  // Assigns segments to one layer's operations [from, to) of a pass. A layer without two exchanges
  // (a dense layer) is one segment: attention forward, attention_grad backward.
  void cut_layer(std::vector<std::uint8_t>& seg, std::size_t from, std::size_t to, bool forward) const {
    // The exchanges' runs: the first (dispatch, or the combine's gradient) and the second.
    std::size_t run = 0;
    bool in_run = false;
    for (std::size_t i = from; i < to; ++i) {
      const bool exchange = is_ep_exchange(ops_[i]);
      if (exchange && !in_run) ++run;
      in_run = exchange;
    }
    if (run < 2) {
      for (std::size_t i = from; i < to; ++i)
        seg[i] = forward ? attention : attention_grad;
      return;
    }
    const bool delay = s_->job.parallel.delay_wgrad_compute;
    run = 0;
    in_run = false;
    for (std::size_t i = from; i < to; ++i) {
      const bool exchange = is_ep_exchange(ops_[i]);
      if (exchange && !in_run) ++run;
      in_run = exchange;
      const operation& op = ops_[i];
      if (forward) {
        seg[i] = run == 0 ? attention : run == 1 ? (exchange ? dispatch : experts) : combine;
      } else if (run == 0 || (run == 1 && exchange)) {
        seg[i] = combine_grad;
      } else if (run == 1) {
        const bool weight = op.type == op_type::compute && op.compute.pass == pass_kind::weight_grad;
        seg[i] = delay && weight ? experts_weight : experts_grad;
      } else {
        seg[i] = run == 2 && exchange ? dispatch_grad : attention_grad;
      }
    }
  }

  // Reorders the operations of a combined step (forward in [begin, middle), backward after it) into
  // Megatron's order, renumbers them and keeps every dependency pointing backwards.
  void interleave(std::size_t begin, std::size_t middle, std::uint64_t f_chunk, std::uint64_t b_chunk) {
    const std::size_t end = ops_.size(), n = end - begin;
    if (n == 0) return;
    std::vector<std::uint8_t> seg(end, 0);
    std::vector<std::uint64_t> key(end, 0);
    // Groups: 0 the forward's embedding, 1 the backward's head, 2 + g the layer pair g, then the
    // forward's head, then the backward's embedding. Megatron runs a chunk's surplus backward layers
    // before its surplus forward ones.
    const std::uint64_t f_first = s_->first_layer(f_chunk), f_layers = s_->layers_of_chunk(f_chunk);
    const std::uint64_t b_first = s_->first_layer(b_chunk), b_layers = s_->layers_of_chunk(b_chunk);
    const std::uint64_t pairs = std::min(f_layers, b_layers), tail = 2 + f_layers + b_layers - pairs;
    const auto assign = [&](std::size_t from, std::size_t to, bool forward) {
      bool seen_layer = false;
      std::size_t i = from;
      while (i < to) {
        const std::uint64_t layer = ops_[i].layer;
        const std::uint64_t first = forward ? f_first : b_first, count = forward ? f_layers : b_layers;
        if (layer == no_layer || layer < first || layer >= first + count) {  // the chunk's ends
          key[i] = seen_layer ? (tail + (forward ? 0 : 1)) * 16 : (forward ? 0 : 1) * 16;
          ++i;
          continue;
        }
        seen_layer = true;
        std::size_t j = i;
        while (j < to && ops_[j].layer == layer)
          ++j;
        cut_layer(seg, i, j, forward);
        const std::uint64_t at = forward ? layer - first : first + count - 1 - layer;
        const std::uint64_t group = forward && at >= pairs ? b_layers + (at - pairs) : at;
        for (std::size_t k = i; k < j; ++k)
          key[k] = (2 + group) * 16 + seg[k];
        i = j;
      }
    };
    assign(begin, middle, true);
    assign(middle, end, false);
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i)
      order[i] = begin + i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    // Old index → new index; the block's indices are consecutive from its first operation's.
    const std::uint64_t first_index = ops_[begin].index;
    std::vector<std::uint64_t> new_index(n);
    for (std::size_t k = 0; k < n; ++k)
      new_index[order[k] - begin] = first_index + k;
    const auto in_block = [&](std::uint64_t index) {
      return index >= first_index && index < first_index + n;
    };
    // An operation that waited for a delayed weight gradient waits for what that one waited for: the
    // weight gradients run beside the chain, under the dispatch's gradient.
    const auto delayed = [&](std::uint64_t index) {
      return in_block(index) && seg[begin + (index - first_index)] == experts_weight;
    };
    std::vector<operation> sorted;
    sorted.reserve(n);
    std::uint64_t f_last = first_index, b_last = first_index;
    std::vector<std::uint64_t> todo;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t from = order[k];
      operation op = ops_[from];
      const bool weight_step = seg[from] == experts_weight;
      std::array<std::uint64_t, 8> after{};
      std::uint8_t count = 0;
      todo.assign(op.after.begin(), op.after.begin() + op.after_count);
      while (!todo.empty()) {
        const std::uint64_t a = todo.back();
        todo.pop_back();
        if (!weight_step && delayed(a)) {
          const operation& w = ops_[begin + (a - first_index)];
          todo.insert(todo.end(), w.after.begin(), w.after.begin() + w.after_count);
          continue;
        }
        const std::uint64_t mapped = in_block(a) ? new_index[a - first_index] : a;
        if (in_block(a) && mapped >= first_index + k)
          AICB_THROW(error("rank_pass: the combined step's order breaks a dependency"));
        if (std::find(after.begin(), after.begin() + count, mapped) == after.begin() + count && count < 8)
          after[count++] = mapped;
      }
      for (std::uint8_t x = 1; x < count; ++x)  // ascending (at most 8: an insertion sort)
        for (std::uint8_t y = x; y > 0 && after[y - 1] > after[y]; --y)
          std::swap(after[y - 1], after[y]);
      op.after = after;
      op.after_count = count;
      op.index = first_index + k;
      (from < middle ? f_last : b_last) = op.index;
      sorted.push_back(op);
    }
    std::copy(sorted.begin(), sorted.end(), ops_.begin() + static_cast<std::ptrdiff_t>(begin));
    // What follows (the step's calls, the next passes) waits for both chains.
    waits_ = {f_last, b_last};
    wait_count_ = f_last == b_last ? 1 : 2;
  }

  // An overlapped call (interleaved, Megatron's default) does not hold the rank: the next forward
  // (for activations) or backward (for gradients) waits for it — Megatron waits on the call's
  // handles there. Adds those waits to what the next operation waits for.
  void wait_for(std::array<std::uint64_t, 4>& pending, std::uint8_t& count) {
    for (std::uint8_t i = 0; i < count && wait_count_ < waits_.size(); ++i)
      waits_[wait_count_++] = pending[i];
    count = 0;
  }

  void communicate(const pipeline_step& step) {
    // What the call waits for: the operation before it — with the combined 1F1B, the last of each of
    // the merged passes' chains.
    const std::array<std::uint64_t, 8> before = waits_;
    const std::uint8_t before_count =
        s_->pipeline.combined ? wait_count_ : std::min<std::uint8_t>(wait_count_, 1);
    std::array<std::uint64_t, 8> call{};
    std::uint8_t n = 0;
    for (const p2p_op& p : step) {
      const bool send = p.send();
      const bool next = p.direction == p2p_direction::send_next || p.direction == p2p_direction::recv_next;
      operation& op =
          push(send ? op_type::send : op_type::recv,
               p.activation ? (send ? "send_activation" : "recv_activation")
                            : (send ? "send_gradient" : "recv_gradient"),
               p.activation ? op_phase::forward : op_phase::backward, p.microbatch, p.chunk, no_layer);
      op.peer = s_->grid.pipeline_peer(s_->rank, next);
      op.size = bytes{s_->p2p_bytes};
      op.tag = pipeline_tag(p, send);
      // The operations of one call are posted together: each waits for what came before the call.
      op.after = before;
      op.after_count = before_count;
      call[n++] = op.index;
    }
    if (step.batched) {
      waits_ = call;
      wait_count_ = n;
      return;
    }
    waits_ = before;
    wait_count_ = before_count;
    const bool activations = step.ops[0].activation;
    auto& pending = activations ? pending_forward_ : pending_backward_;
    auto& count = activations ? pending_forward_count_ : pending_backward_count_;
    for (std::uint8_t i = 0; i < n && count < pending.size(); ++i)
      pending[count++] = call[i];
  }

  void finalize();

  const detail::rank_plan* s_ = nullptr;
  std::unique_ptr<pipeline_schedule> schedule_;
  pipeline_schedule::cursor step_;
  std::vector<operation> ops_;
  std::size_t at_ = 0;
  std::uint64_t iteration_ = 0, next_index_ = 0;
  std::array<std::uint64_t, 8> waits_{};
  std::uint8_t wait_count_ = 0;
  bool paired_ = false;  // the operations being emitted belong to an overlapped F&B pair
  // Overlapped calls not yet waited for (at most one call of two operations each).
  std::array<std::uint64_t, 4> pending_forward_{}, pending_backward_{};
  std::uint8_t pending_forward_count_ = 0, pending_backward_count_ = 0;
};

/// `job` with the fewest micro batches its schedule allows (one; pipeline_parallel when interleaved;
/// 2 x pipeline_parallel with DualPipe). Every micro batch runs the same operations — with DualPipe,
/// every micro batch of one direction, half of them each — and the finalize does not depend on their
/// number, so what a micro batch or an iteration's finalize holds can be read from this shorter stream.
[[nodiscard]] inline job_spec with_fewest_microbatches(const job_spec& job) {
  job_spec few = job;
  const parallel_spec& p = job.parallel;
  const std::uint64_t fewest = p.pipeline_schedule == pipeline_schedule_kind::dualpipe
                                   ? 2 * p.pipeline_parallel
                               : p.virtual_pipeline > 1 ? p.pipeline_parallel
                                                        : 1;
  few.batch.global_batch = job.batch.micro_batch * data_parallel(job) * fewest;
  return few;
}

/// The same for a validated job, which stays valid: its global batch is the smallest multiple of
/// micro_batch × data parallelism the schedule allows.
[[nodiscard]] inline validated_job with_fewest_microbatches(const validated_job& job) {
  return validated_job(with_fewest_microbatches(job.job()), validated_job::already_checked{});
}

/// Calls `f(op)` for each operation of `rank` in `job`, in schedule order: one pass of the rank's
/// schedule, without a range library (what the calculators of <aicb/core.hpp> sum). The operation
/// is valid during the call only.
template <class F>
void for_each_operation(const job_spec& job, std::uint64_t rank, F&& f, rank_schedule_options options = {}) {
  const detail::rank_plan plan(job, rank, options);
  for (rank_pass pass(plan); !pass.done(); pass.next())
    f(pass.read());
}

namespace detail {

// A layer description's sink that appends templates to a block and adds up the weights declared.
struct template_sink {
  std::vector<op_template>& out;
  chunk_weights* held = nullptr;

  void compute(std::string_view name, const compute_op& op) {
    op_template t;
    t.name = name;
    t.compute = op;
    out.push_back(t);
  }
  void collective(std::string_view name, aicb::collective kind, group_kind group, std::uint64_t size) {
    op_template t;
    t.type = op_type::collective;
    t.name = name;
    t.kind = kind;
    t.group = group;
    t.size = size;
    out.push_back(t);
  }
  void ring(std::string_view name, std::uint64_t step, bool reverse, std::uint64_t size) {
    op_template t;
    t.type = op_type::send;  // a send to one neighbour and a receive from the other
    t.name = name;
    t.ring_step = step;
    t.ring_reverse = reverse;
    t.size = size;
    out.push_back(t);
  }
  void weights(weight_part, weight_sharing sharing, std::uint64_t n) {
    if (!held) return;
    switch (sharing) {
      case weight_sharing::split:
        held->dense += n;
        break;
      case weight_sharing::replicated:
        held->dense += n;
        held->replicated += n;
        break;
      case weight_sharing::expert:
        held->expert += n;
        break;
      case weight_sharing::buffer:
        break;
    }
  }
};

}  // namespace detail

// ---- building the templates: instances of the layer description (aicb/schedule/layer.hpp) --------

inline void detail::rank_plan::build_layer(layer_kind kind) {
  const std::uint8_t i = kind.index();
  if (layer_built_[i]) return;
  layer_built_[i] = true;
  detail::template_sink forward{layer_forward_[i], &layer_weights_[i]}, backward{layer_backward_[i]};
  describe_layer_forward(context, kind, forward);
  describe_layer_backward(context, kind, backward);
}

inline void detail::rank_plan::build_embedding_and_head() {
  detail::chunk_weights embedding, output, norm;
  detail::template_sink ef{embedding_forward, &embedding}, eb{embedding_backward};
  detail::template_sink hf{logits_forward, &output}, hb{logits_backward};
  detail::template_sink nf{final_norm_forward, &norm}, nb{final_norm_backward};
  using writer = detail::layer_writer<detail::template_sink>;
  writer{context, ef}.embedding_forward();
  writer{context, eb}.embedding_backward();
  writer{context, hf}.output_forward(true);
  writer{context, hb}.output_backward();
  writer{context, nf}.final_norm_forward();
  writer{context, nb}.final_norm_backward();
  embedding_weights_ = embedding.dense;
  output_weights_ = output.dense;
  final_norm_weights_ = norm.dense;
}

// One multi-token-prediction module around its transformer layer: before it, the embedding of the
// shifted tokens, the two norms and the projection; after it, its own final norm.
inline void detail::rank_plan::build_mtp() {
  mtp_weights_ = {};
  detail::template_sink f{mtp_input_forward, &mtp_weights_}, b{mtp_input_backward};
  detail::template_sink nf{mtp_norm_forward, &mtp_weights_}, nb{mtp_norm_backward};
  using writer = detail::layer_writer<detail::template_sink>;
  writer{context, f}.mtp_input_forward();
  writer{context, b}.mtp_input_backward();
  writer{context, nf}.final_norm_forward("mtp_final_norm", weight_part::mtp);
  writer{context, nb}.final_norm_backward("mtp_final_norm");
}

inline void detail::rank_plan::build() {
  const model_spec& m = job.model;
  const parallel_spec& p = job.parallel;
  const std::uint64_t w = size_of(activation_dtype(job.batch.dtype));
  const std::uint64_t t = p.tensor_parallel, cp = p.context_parallel, b = job.batch.micro_batch;
  const std::uint64_t s = job.batch.seq_length / cp;
  const bool sp = p.sequence_parallel && t > 1;
  p2p_bytes = (sp ? s / t : s) * b * m.hidden_size * w;
  if (cp > 1) {
    const rank_group ring = grid.group(group_kind::cp, rank);
    const std::uint64_t at = *ring.position(rank);
    cp_next = ring.member((at + 1) % cp);
    cp_prev = ring.member((at + cp - 1) % cp);
  }
  weights.assign(chunks, {});
  // The templates of the layer kinds this rank runs, and their weights per chunk.
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const std::uint64_t begin = first_layer(c), end = begin + layers_of_chunk(c);
    for (std::uint64_t l = begin; l < end; ++l) {
      build_layer(kind_of(l));
      const detail::chunk_weights& lw = layer_weights_[kind_of(l).index()];
      weights[c].dense += lw.dense;
      weights[c].expert += lw.expert;
      weights[c].replicated += lw.replicated;
    }
  }
  build_embedding_and_head();
  for (std::uint64_t c = 0; c < chunks; ++c)
    if (holds_embedding(c)) weights[c].dense += embedding_weights_;
  if (any_head()) {
    // The output layer (a copy of the embedding when tied and the pipeline has two ends).
    const bool own_output = !m.tied_embeddings || p.pipeline_parallel > 1;
    const std::uint64_t h = head_chunk();
    weights[h].dense += (own_output ? output_weights_ : 0) + final_norm_weights_;
    weights[h].replicated += final_norm_weights_;
    if (m.num_mtp_layers > 0) {
      // MTP modules; and their embedding, a copy of the first stage's (the tied output layer is that
      // copy already).
      build_mtp();
      build_layer(mtp_kind());
      const detail::chunk_weights& lw = layer_weights_[mtp_kind().index()];
      detail::chunk_weights& last = weights[h];
      last.dense += m.num_mtp_layers * (mtp_weights_.dense + lw.dense);
      last.expert += m.num_mtp_layers * lw.expert;
      last.replicated += m.num_mtp_layers * (mtp_weights_.replicated + lw.replicated);
      if (p.pipeline_parallel > 1 && !m.tied_embeddings) last.dense += output_weights_;  // V/TP × h
    }
  }
  build_zero();
}

// DeepSpeed ZeRO-2/3 around each module, over DP×CP (where the distributed optimizer shards too).
inline void detail::rank_plan::build_zero() {
  const parallel_spec& p = job.parallel;
  const rank_group dp = grid.group(group_kind::dp_cp, rank);
  if (p.zero_stage < 2 || dp.size() <= 1) return;
  const std::uint64_t w = size_of(activation_dtype(job.batch.dtype)), g = size_of(job.batch.grad_dtype);
  const std::uint64_t bucket = bucket_params(dp.size());
  const auto bucketed = [&](op_block& into, std::string_view name, collective kind, std::uint64_t elements,
                            std::uint64_t element_bytes) {
    check_buckets(name, elements, bucket);
    detail::template_sink x{into};
    for (std::uint64_t done = 0; done < elements; done += bucket)
      x.collective(name, kind, group_kind::dp_cp, std::min(bucket, elements - done) * element_bytes);
  };
  const auto module = [&](op_block& gather, op_block& scatter, std::uint64_t used, std::uint64_t owned) {
    if (p.zero_stage == 3) bucketed(gather, "zero_param_gather", collective::all_gather, used, w);
    bucketed(scatter, "zero_grad_scatter", collective::reduce_scatter, owned, g);
  };
  for (std::uint8_t i = 0; i < layer_built_.size(); ++i)
    if (layer_built_[i])
      module(zero_gather_layer_[i], zero_scatter_layer_[i], layer_weights_[i].dense, layer_weights_[i].dense);
  if (any_embedding())
    module(zero_gather_embedding, zero_scatter_embedding, embedding_weights_, embedding_weights_);
  if (any_head()) {
    // A tied output layer is the embedding's weight: fetched again for the logits, its gradient
    // reduced once, with the embedding's (whose backward comes last).
    const std::uint64_t output_owned = job.model.tied_embeddings ? 0 : output_weights_;
    module(zero_gather_head, zero_scatter_head, final_norm_weights_ + output_weights_,
           final_norm_weights_ + output_owned);
  }
}

// ---- once per iteration ----------------------------------------------------------------------

inline void rank_pass::finalize() {
  wait_for(pending_forward_, pending_forward_count_);
  wait_for(pending_backward_, pending_backward_count_);
  const detail::rank_plan& st = *s_;
  const job_spec& job = st.job;
  const model_spec& m = job.model;
  const parallel_spec& p = job.parallel;
  const std::uint64_t g = size_of(job.batch.grad_dtype), w = size_of(activation_dtype(job.batch.dtype));
  const bool sharded = p.distributed_optimizer || p.zero_stage >= 1;
  const rank_group dp_cp = st.grid.group(group_kind::dp_cp, st.rank);
  const rank_group edp = st.grid.group(group_kind::edp, st.rank);
  const std::uint64_t bucket = st.bucket_params(dp_cp.size());
  const auto collective_op = [&](std::string_view name, collective kind, const rank_group& group,
                                 std::uint64_t size, std::uint64_t chunk) {
    operation& op = push(op_type::collective, name, op_phase::finalize, 0, chunk, no_layer);
    op.kind = kind;
    op.group = group.id();
    op.group_size = group.size();
    op.size = bytes{size};
  };
  // A buffer's collective, in buckets where Megatron uses them: with overlap_grad_reduce, on the
  // first stage's first chunk (every other chunk and stage has one bucket per buffer). DeepSpeed's
  // ZeRO always works in buckets (reduce_bucket_size, allgather_bucket_size).
  const auto buffer = [&](std::string_view name, collective kind, const rank_group& group,
                          std::uint64_t elements, std::uint64_t element_bytes, std::uint64_t chunk) {
    if (group.size() <= 1 || elements == 0) return;
    const bool buckets = (p.overlap_grad_reduce && st.stage == 0 && chunk == 0) || p.zero_stage >= 1;
    const std::uint64_t step = buckets ? bucket : elements;
    if (buckets) detail::rank_plan::check_buckets(name, elements, step);
    for (std::uint64_t done = 0; done < elements; done += step)
      collective_op(name, kind, group, std::min(step, elements - done) * element_bytes, chunk);
  };
  const collective reduce = sharded ? collective::reduce_scatter : collective::all_reduce;
  std::uint64_t replicated = 0, dense = 0, expert = 0;
  for (std::uint64_t c = 0; c < st.chunks; ++c) {
    // ZeRO-2/3 reduced the dense gradients module by module in every micro batch.
    if (p.zero_stage < 2) buffer("grad_reduce", reduce, dp_cp, st.weights[c].dense, g, c);
    buffer("expert_grad_reduce", reduce, edp, st.weights[c].expert, g, c);
    replicated += st.weights[c].replicated;
    dense += st.weights[c].dense;
    expert += st.weights[c].expert;
  }
  // Weights sequence parallelism replicates over TP: their gradients are partial sums.
  if (p.sequence_parallel && p.tensor_parallel > 1 && replicated > 0)
    collective_op("sp_replicated_grad_reduce", collective::all_reduce, st.grid.group(group_kind::tp, st.rank),
                  replicated * g, 0);
  // The word embedding shared by the first and the last stage (tied output layer, or MTP's embedding):
  // its gradient is summed between them.
  // (DualPipe: the first and the last rank each hold both, summed with the mirror's copies below.)
  const bool shared_embedding = m.tied_embeddings || m.num_mtp_layers > 0;
  if (shared_embedding && p.pipeline_parallel > 1 && !st.dualpipe && (st.any_embedding() || st.any_head()))
    collective_op("embedding_grad_reduce", collective::all_reduce,
                  st.grid.group(group_kind::embedding, st.rank),
                  padded_vocab(job) / p.tensor_parallel * m.hidden_size * g,
                  st.any_embedding() ? st.embedding_chunk() : st.head_chunk());
  // DualPipe: every stage's weights live on two ranks (a stage's own chunk 0, its mirror's chunk 1),
  // whose gradients are summed: this rank and its mirror exchange both chunks' gradients.
  if (st.dualpipe) {
    std::uint64_t held = 0;
    for (const detail::chunk_weights& c : st.weights)
      held += c.dense + c.expert;
    const std::uint64_t mirror =
        st.grid.group(group_kind::pp, st.rank).member(p.pipeline_parallel - 1 - st.stage);
    const std::uint64_t before = waits_[0];
    const bool has_before = wait_count_ > 0;
    operation& send = push(op_type::send, "mirror_grad_exchange", op_phase::finalize, 0, 0, no_layer);
    send.peer = mirror;
    send.size = bytes{held * g};
    send.tag = mirror_tag(st.rank, mirror);
    const std::uint64_t send_index = send.index;
    waits_[0] = before;
    wait_count_ = has_before ? 1 : 0;
    operation& recv = push(op_type::recv, "mirror_grad_exchange", op_phase::finalize, 0, 1, no_layer);
    recv.peer = mirror;
    recv.size = bytes{held * g};
    recv.tag = mirror_tag(mirror, st.rank);
    waits_ = {send_index, recv.index};
    wait_count_ = 2;
  }
  // The router's expert-bias (DeepSeek-V3): per-expert token counts summed over TP x DP x CP.
  if (m.is_moe() && m.moe_router_bias) {
    std::uint64_t moe_layers = 0;
    for (std::uint64_t c = 0; c < st.chunks; ++c) {
      const std::uint64_t begin = st.first_layer(c), end = begin + st.layers_of_chunk(c);
      for (std::uint64_t l = begin; l < end; ++l)
        moe_layers += st.moe_layer(l) ? 1 : 0;
    }
    if (st.any_head() && st.mtp_layer_is_moe()) moe_layers += m.num_mtp_layers;
    if (moe_layers > 0)
      collective_op("router_bias_reduce", collective::all_reduce,
                    st.grid.group(group_kind::tp_dp_cp, st.rank), moe_layers * m.num_experts * 4, 0);
  }
  // The optimizer step, on this rank's shard with the distributed optimizer.
  operation& step = push(op_type::compute, "optimizer_step", op_phase::finalize, 0, 0, no_layer);
  const std::uint64_t owned = sharded ? dense / std::max<std::uint64_t>(dp_cp.size(), 1) +
                                            expert / std::max<std::uint64_t>(edp.size(), 1)
                                      : dense + expert;
  // The gradient buffer holds every local parameter (ZeRO-2 and -3 keep only the shard's gradients).
  // Megatron checks it for NaN and scales it by 1/DP before the reduction (each group's DP: the
  // experts' is the expert data-parallel group); DeepSpeed does neither pass.
  const bool megatron_buffer = p.zero_stage == 0;
  const std::uint64_t buffer_params = p.zero_stage >= 2 ? owned : dense + expert;
  const std::uint64_t checked = megatron_buffer ? dense + expert : 0;
  const std::uint64_t scaled =
      megatron_buffer ? (dp_cp.size() > 1 ? dense : 0) + (edp.size() > 1 ? expert : 0) : 0;
  step.compute = {.role = op_role::optimizer,
                  .kind = op_kind::optimizer,
                  .type = job.batch.dtype,
                  .m = owned,
                  .n = buffer_params,
                  .k = checked + 2 * scaled};
  // The distributed optimizer (and ZeRO-1/2) gathers the updated weights; ZeRO-3 keeps them sharded
  // and gathers each module when it runs.
  if (sharded && p.zero_stage < 3)
    for (std::uint64_t c = 0; c < st.chunks; ++c) {
      buffer("param_gather", collective::all_gather, dp_cp, st.weights[c].dense, w, c);
      buffer("expert_param_gather", collective::all_gather, edp, st.weights[c].expert, w, c);
    }
}

AICB_END_NAMESPACE
