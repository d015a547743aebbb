// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Megatron and DeepSeek training as aicb's physical-cluster CSV (docs/csv.md): the items aicb's
/// `generate_megatron_workload` writes for one pipeline stage — set-up, each micro-batch's forward
/// and backward (or the 1F1B pipeline schedule with its sends and receives when PP > 1), and the
/// optimizer step — with GEMM computation items when `computation_enable` (or `aiob_enable`).
///
/// The model is aicb's mock of Megatron: per layer a column-parallel QKV and a row-parallel output
/// projection (DeepSeek: multi-latent attention), a column/row MLP, or a mixture of experts whose
/// tokens cross the expert-parallel group. One model's forward and backward items are built once
/// (their number grows with layers); micro-batches and iterations replay them, so memory does not
/// grow with either.
///
/// It writes aicb's file byte for byte, its bugs included (docs/compatibility.md: two optimizer
/// steps per iteration with PP, no MoE backward communication, 0-byte norm-gradient all-reduces,
/// the gradient volume divided by PP twice, the gathered sequence doubled under SP, the word
/// embedding counted 4×, heads defaulting to the layer count). The corrected CSV is a projection of
/// the operation graph instead (aicb/generate/csv_projection.hpp).

#include <aicb/compat/aicb_args.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/workload/csv_item.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The file aicb writes: `megatron_{model}_sp_{SP}_iteration_{epochs}_computationEnable_{CE}_{W}n`,
/// cut at its first '.', plus `_workload.csv` (aicb writes it under results/mocked_workload/).
[[nodiscard]] inline std::string megatron_csv_file_name(const aicb_args& a) {
  return aicb_csv_file_name("megatron", a);
}

/// The Megatron / DeepSeek CSV workload of one pipeline stage.
class megatron_csv_workload {
 public:
  explicit megatron_csv_workload(aicb_args args) : a_(std::move(args)), d_(derive(a_)) {
    if (a_.frame != "Megatron" && a_.frame != "DeepSeek")
      AICB_THROW(config_error("frame", a_.frame,
                              "the Megatron CSV generator supports --frame Megatron or DeepSeek"));
    if (a_.aiob_enable) a_.computation_enable = true;
    t_ = a_.tensor_model_parallel_size;
    sp_ = a_.enable_sequence_parallel && t_ > 1;
    build_model();
  }

  [[nodiscard]] const aicb_args& args() const noexcept { return a_; }
  /// The parameters of the stage's model (elements), as aicb counts them.
  [[nodiscard]] std::uint64_t total_params() const noexcept { return total_params_; }
  /// The pipeline stage whose schedule is generated (aicb: always the first).
  [[nodiscard]] std::uint64_t pipeline_stage() const noexcept { return 0; }

  /// Passes every item, in order, to `sink`.
  template <class Sink>
  void generate(Sink&& sink) const {
    const std::uint64_t p = a_.pipeline_model_parallel;
    init(sink);
    sink(csv_item{});
    for (std::uint64_t epoch = 0; epoch < a_.epoch_num; ++epoch) {
      if (p > 1) {
        pipeline(sink);
        step(sink);  // aicb steps twice per iteration with PP (BUG-15)
      } else {
        for (std::uint64_t m = 0; m < d_.microbatches; ++m) {
          forward_step(sink);
          for (const csv_item& item : backward_)
            sink(item);
        }
      }
      step(sink);
      sink(csv_item{});
    }
  }

 private:
  [[nodiscard]] std::uint64_t divide(std::uint64_t n, std::uint64_t by, const char* what) const {
    if (by == 0 || n % by != 0)
      AICB_THROW(config_error(
          what, std::to_string(n),
          "aicb fails here: " + std::to_string(n) + " is not divisible by " + std::to_string(by)));
    return n / by;
  }

  [[nodiscard]] csv_item item(csv_op op, csv_group group, std::optional<std::uint64_t> size,
                              std::uint64_t bytes, std::string_view stage) const {
    csv_item i;
    i.op = op;
    i.group = group;
    i.group_size = size;
    i.msg_size = bytes;
    i.stage = stage;
    return i;
  }
  [[nodiscard]] csv_item tp(csv_op op, std::uint64_t bytes, std::string_view stage) const {
    return item(op, csv_group::tp_group, t_, bytes, stage);
  }
  static csv_item gemm(csv_shape x, csv_shape w, std::string_view stage) {
    csv_item i;
    i.op = csv_op::computation;
    i.shapes = {x, w};
    i.stage = stage;
    return i;
  }
  static csv_shape dims(std::uint64_t a, std::uint64_t b) { return {{a, b, 0}, 2}; }
  static csv_shape dims(std::uint64_t a, std::uint64_t b, std::uint64_t c) { return {{a, b, c}, 3}; }

  // ---- modules: each appends its forward and backward items and counts its parameters ----------

  // Stage names are string literals: items keep pointing at them after the workload is gone.
  struct column_stages {
    std::string_view forward, backward;
  };
  struct row_stages {
    std::string_view forward, backward;  // aicb's backward name lacks a dot
  };

  void column(std::uint64_t in, std::uint64_t out, column_stages names) {
    const std::uint64_t s = a_.seq_length, b = a_.micro_batch, out_t = divide(out, t_, "ffn_hidden_size");
    const std::uint64_t comm = 2 * s * b * in;
    const std::uint64_t seq = sp_ ? s * t_ : s;  // aicb doubles the gathered sequence (BUG-19)
    total_params_ += in * out_t + (a_.add_bias_linear ? out_t : 0);
    const std::string_view fwd_stage = names.forward, bwd_stage = names.backward;
    if (sp_) forward_.push_back(tp(csv_op::all_gather, comm, "forward.MegatronColumnLinear"));
    if (a_.computation_enable) forward_.push_back(gemm(dims(seq, b, in), dims(in, out_t), fwd_stage));
    if (sp_) backward_.push_back(tp(csv_op::all_gather, comm, "backward.MegatronColumnLinear"));
    if (a_.computation_enable) backward_.push_back(gemm(dims(seq, b, out_t), dims(out_t, in), bwd_stage));
    if (sp_) backward_.push_back(tp(csv_op::reduce_scatter, comm, "backward.MegatronColumnLinear"));
    if (a_.computation_enable) backward_.push_back(gemm(dims(out_t, seq * b), dims(seq * b, in), bwd_stage));
    if (t_ > 1 && !sp_) backward_.push_back(tp(csv_op::all_reduce, comm, "backward.MegatronColumnLinear"));
  }

  void row(std::uint64_t in, std::uint64_t out, row_stages names) {
    const std::uint64_t s = a_.seq_length, b = a_.micro_batch, in_t = divide(in, t_, "ffn_hidden_size");
    const std::uint64_t comm = 2 * s * b * out;
    total_params_ += out * in_t + (a_.add_bias_linear ? out : 0);
    const std::string_view fwd_stage = names.forward, bwd_stage = names.backward;
    if (a_.computation_enable) forward_.push_back(gemm(dims(s, b, in_t), dims(in_t, out), fwd_stage));
    if (t_ > 1)
      forward_.push_back(
          tp(sp_ ? csv_op::reduce_scatter : csv_op::all_reduce, comm, "forward.MegatronRowLinear"));
    if (sp_) backward_.push_back(tp(csv_op::all_gather, comm, "backward.MegatronRowLinear"));
    if (a_.computation_enable) {
      backward_.push_back(gemm(dims(s, b, out), dims(out, in_t), bwd_stage));
      backward_.push_back(gemm(dims(out, s * b), dims(s * b, in_t), bwd_stage));
    }
  }

  // A replicated (not tensor-parallel) linear layer of DeepSeek's attention.
  void linear(std::uint64_t in, std::uint64_t out, column_stages names) {
    const std::uint64_t s = a_.seq_length, b = a_.micro_batch;
    total_params_ += in * out + (a_.add_bias_linear ? out : 0);
    if (!a_.computation_enable) return;
    forward_.push_back(gemm(dims(s, b, in), dims(in, out), names.forward));
    backward_.push_back(gemm(dims(out, s * b), dims(s * b, in), names.backward));
  }

  void norm(std::uint64_t width) {  // a fused LayerNorm: weight and bias, replicated across TP
    total_params_ += 2 * width;
  }

  void mlp() {
    column(a_.hidden_size, d_.ffn,
           {"forward.MegatronColumnLinear.mlp_column", "backward.MegatronColumnLinear.mlp_column"});
    row(d_.ffn, a_.hidden_size, {"forward.MegatronRowLinear.mlp_row", "backward.MegatronRowLinearmlp_row"});
  }

  // Mixture of experts: routing metadata, token dispatch across EP, the TP gather/scatter of the
  // routed tokens and the combine. `deepseek`: FP8 dispatch, three expert matrices, no preprocess.
  void moe(bool deepseek) {
    const std::uint64_t h = a_.hidden_size, s = a_.seq_length, b = a_.micro_batch, k = a_.moe_router_topk;
    const std::uint64_t e = a_.expert_model_parallel_size;
    const std::uint64_t local = divide(d_.ffn * (a_.num_experts / e), t_, "ffn_hidden_size");
    total_params_ += (deepseek ? 3 : 2) * h * local;
    const std::uint64_t a2a = (s * h * b * k / t_) * 2, gathered = 2 * h * k * b * s;
    const auto ep = [&](csv_op op, std::uint64_t bytes, std::string_view stage) {
      return item(op, csv_group::ep_group, std::nullopt, bytes, stage);
    };
    const auto tp_none = [&](csv_op op, std::uint64_t bytes, std::string_view stage) {
      return item(op, csv_group::tp_group, std::nullopt, bytes, stage);
    };
    if (!deepseek && (t_ > 1 || e > 1))
      forward_.push_back(ep(csv_op::all_gather, 2 * e * a_.num_experts * t_, "forward.MoE.preprocess"));
    if (e > 1) {
      csv_item dispatch = ep(csv_op::all_to_all, a2a, "forward.MoE.dispatch");
      if (deepseek)
        dispatch.msg_size_float = static_cast<double>(a2a) * ((1 + 4.0 / 128) / 2);  // FP8 + scales
      forward_.push_back(dispatch);
    }
    if (t_ > 1) {
      forward_.push_back(tp_none(csv_op::all_gather, gathered, "forward.MoE.permutation"));
      forward_.push_back(tp_none(csv_op::reduce_scatter, gathered, "forward.MoE.unpermutation"));
    }
    if (e > 1) forward_.push_back(ep(csv_op::all_to_all, a2a, "forward.MoE.combine"));
    if (deepseek && a_.n_shared_expert > 0) {
      mlp();  // the shared experts: one dense MLP, forward after the routed experts, backward first
    }
    // aicb's MoE backward emits nothing (BUG-16).
  }

  void build_model() {
    const std::uint64_t h = a_.hidden_size, s = a_.seq_length, b = a_.micro_batch, heads = d_.heads;
    const bool deepseek = a_.frame == "DeepSeek";
    if (a_.moe_enable &&
        (a_.expert_model_parallel_size == 0 || a_.num_experts % a_.expert_model_parallel_size != 0))
      AICB_THROW(config_error("num_experts", std::to_string(a_.num_experts),
                              "num_experts % expert_model_parallel_size == 0"));
    // Embedding: aicb counts the word embedding 4× (BUG-02) plus a (seq, hidden) position table.
    const std::uint64_t vocab_t = divide(d_.padded_vocab, t_, "vocab_size");
    embedding_params_ = {4 * vocab_t * h, s * h};  // aicb counts the word embedding 4 times
    total_params_ += embedding_params_[0] + embedding_params_[1];
    if (t_ > 1) forward_.push_back(tp(csv_op::all_reduce, 2 * b * s * h, "forward.MegatronEmbedding"));
    // Layers: forward in order; backward in reverse layer order, each layer's modules in forward order.
    std::vector<csv_item> backward_layers;
    for (std::uint64_t layer = 0; layer < d_.layers; ++layer) {
      const std::size_t first = backward_.size();
      if (deepseek) {
        const std::uint64_t qk = a_.qk_nope_dim + a_.qk_rope_dim;
        linear(h, a_.q_lora_rank,
               {"forward.Linear.attention_linear_q_lora", "backward.Linear.attention_linear_q_lora"});
        norm(a_.q_lora_rank);
        column(a_.q_lora_rank, heads * qk,
               {"forward.MegatronColumnLinear.attention_q_column",
                "backward.MegatronColumnLinear.attention_q_column"});
        linear(h, a_.kv_lora_rank + a_.qk_rope_dim,
               {"forward.Linear.attention_linear_kv_lora", "backward.Linear.attention_linear_kv_lora"});
        norm(a_.kv_lora_rank);
        column(a_.kv_lora_rank, heads * (a_.qk_nope_dim + a_.v_head_dim),
               {"forward.MegatronColumnLinear.attention_kv_column",
                "backward.MegatronColumnLinear.attention_kv_column"});
        row(heads * a_.v_head_dim, h,
            {"forward.MegatronRowLinear.attention_o_row", "backward.MegatronRowLinearattention_o_row"});
      } else {
        const std::uint64_t projection = h / heads * heads;
        column(h, 3 * projection,
               {"forward.MegatronColumnLinear.attention_column",
                "backward.MegatronColumnLinear.attention_column"});
        row(projection, h,
            {"forward.MegatronRowLinear.attention_row", "backward.MegatronRowLinearattention_row"});
      }
      norm(h);
      total_params_ += h;  // the post-attention layernorm bias
      if (deepseek ? layer >= a_.n_dense_layers : a_.moe_enable) {
        moe(deepseek);
      } else {
        mlp();
      }
      // This layer's backward goes before the layers already built.
      std::vector<csv_item> layer_items(backward_.begin() + static_cast<std::ptrdiff_t>(first),
                                        backward_.end());
      backward_.resize(first);
      layer_items.insert(layer_items.end(), backward_layers.begin(), backward_layers.end());
      backward_layers = std::move(layer_items);
    }
    backward_.insert(backward_.end(), backward_layers.begin(), backward_layers.end());
    if (t_ > 1) backward_.push_back(tp(csv_op::all_reduce, 2 * b * s * h, "backward.MegatronEmbedding"));
    // The output layer: counted, never run (aicb names it final_norm).
    const std::uint64_t final_t = vocab_t;
    total_params_ += h * final_t + (a_.add_bias_linear ? final_t : 0);
  }

  // ---- the training loop ----------------------------------------------------------------------------

  template <class Sink>
  void init(Sink& sink) const {
    const std::uint64_t p = a_.pipeline_model_parallel;
    const auto dp = [&](csv_op op, std::uint64_t bytes) {
      return item(op, csv_group::dp_group, d_.dp, bytes, "init.model_setup");
    };
    sink(dp(csv_op::all_reduce, 8));
    for (int i = 0; i < 3; ++i) {
      sink(dp(csv_op::all_reduce, 8));
      if (p > 1) sink(item(csv_op::all_reduce, csv_group::pp_group, p, 8, "init.model_setup"));
    }
    sink(dp(csv_op::all_gather, 32));
    csv_item broadcast = tp(csv_op::broadcast, 24, "init.model_setup");
    broadcast.src = 0;
    sink(broadcast);
    const bool last_stage = a_.pp_rank == static_cast<std::int64_t>(p) - 1;
    if (last_stage && p > 1)  // the tied embedding's gradients are synchronised with the first stage
      for (std::uint64_t n : embedding_params_)
        sink(tp(csv_op::all_reduce, n * 2, "init.model_setup"));
    sink(dp(csv_op::all_gather, 64));
  }

  // The batch broadcast of a forward step (only the first TP rank reads data).
  template <class Sink>
  void broadcast_batch(Sink& sink) const {
    csv_item first = tp(csv_op::broadcast, 40, "forward_step");
    first.src = 0;
    sink(first);
    csv_item second =
        tp(csv_op::broadcast, 8 * (a_.world_size + a_.seq_length * a_.micro_batch), "forward_step");
    second.src = 0;
    sink(second);
  }

  template <class Sink>
  void forward_step(Sink& sink) const {
    if (t_ > 1) broadcast_batch(sink);
    for (const csv_item& i : forward_)
      sink(i);
    for (int i = 0; i < 3; ++i)  // the vocabulary-parallel loss: three fp32 all-reduces (even at TP 1)
      sink(tp(csv_op::all_reduce, a_.micro_batch * a_.seq_length * 4,
              "forward_step._VocabParallelCrossEntropy"));
    sink(item(csv_op::all_reduce, csv_group::dp_group, d_.dp, 4,
              "forward_step.average_losses_across_data_parallel_group"));
  }

  template <class Sink>
  void p2p(Sink& sink, csv_op op, std::string_view stage, std::string_view direction) const {
    csv_item i = item(op, csv_group::pp_group, 1, 2 * a_.hidden_size * a_.seq_length * a_.micro_batch, stage);
    i.additional = direction;
    sink(i);
  }

  // One-forward-one-backward (1F1B) schedule of the stage.
  template <class Sink>
  void pipeline(Sink& sink) const {
    const std::uint64_t p = a_.pipeline_model_parallel, rank = pipeline_stage(), m = d_.microbatches;
    const bool first = rank == 0, last = rank == p - 1;
    const std::uint64_t warmup = std::min(p - rank - 1, m), remaining = m - warmup;
    const auto model_forward = [&] {
      broadcast_batch(sink);
      for (const csv_item& i : forward_)
        sink(i);
    };
    const auto model_backward = [&] {
      for (const csv_item& i : backward_)
        sink(i);
    };
    for (std::uint64_t i = 0; i < warmup; ++i) {
      if (!first) p2p(sink, csv_op::irecv, "forward_step", "recv_prev");
      model_forward();
      if (!last) p2p(sink, csv_op::isend, "forward_step", "send_next");
    }
    if (remaining > 0 && !first) p2p(sink, csv_op::irecv, "forward_step", "recv_prev");
    for (std::uint64_t i = 0; i < remaining; ++i) {
      model_forward();
      if (!last) {
        p2p(sink, csv_op::irecv, "forward_step", "recv_next");
        p2p(sink, csv_op::isend, "forward_step", "send_next");
      }
      model_backward();
      if (!first) {
        p2p(sink, csv_op::isend, "backward_step", "send_prev");
        if (i + 1 != remaining) p2p(sink, csv_op::irecv, "backward_step", "recv_prev");
      }
    }
    for (std::uint64_t i = 0; i < warmup; ++i) {
      if (!last) p2p(sink, csv_op::irecv, "backward_step", "recv_next");
      model_backward();
      if (!first) p2p(sink, csv_op::isend, "backward_step", "send_prev");
    }
  }

  template <class Sink>
  void step(Sink& sink) const {
    // aicb divides the stage's parameter count by PP once more (BUG-18).
    const std::uint64_t per = a_.pipeline_model_parallel;
    const auto dp = [&](csv_op op, std::uint64_t bytes, std::string_view stage) {
      return item(op, csv_group::dp_group, d_.dp, bytes, stage);
    };
    if (a_.use_distributed_optimizer) {
      sink(dp(csv_op::reduce_scatter, 4 * total_params_ / per, "step"));
      sink(dp(csv_op::all_gather, 2 * total_params_ / per, "step"));
    } else {
      sink(dp(csv_op::all_reduce, 4 * total_params_ / per, "step.finish_grad_sync"));
    }
    // Norm weights are replicated across TP under sequence parallelism; their gradients are summed
    // there. aicb never tags them, so its all-reduce carries 0 bytes (BUG-17).
    sink(tp(csv_op::all_reduce, 0, "step._allreduce_layernorm_grads"));
    sink(tp(csv_op::all_reduce, 4, "step.check_for_nan"));
  }

  aicb_args a_;
  aicb_derived d_;
  std::uint64_t t_ = 1;
  bool sp_ = false;
  std::vector<csv_item> forward_, backward_;  // one micro-batch of the model, in order
  std::array<std::uint64_t, 2> embedding_params_{};
  std::uint64_t total_params_ = 0;
};

AICB_END_NAMESPACE
