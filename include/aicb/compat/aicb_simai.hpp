// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb compatibility: the workload aliyun/aicb (commit 23eec3c) writes with its
/// `SimAI_training_workload_generator`, reproduced record for record — its documented bugs
/// included (see docs/compatibility.md) — on both its paths: without a profile (every compute time
/// 1) and with `--aiob_enable` (times from the profile, aicb's arithmetic).
///
/// The layer list, the parameter totals behind the data-parallel sizes, the prologue, the
/// micro-batch blocks and the epilogue follow aicb's code paths (spec sections 3-5). Records are
/// produced lazily (aicb::record_stream): memory does not grow with micro batches or layers.

#include <aicb/checked.hpp>
#include <aicb/compat/aicb_args.hpp>
#include <aicb/compute/aiob_profile.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/python_float.hpp>
#include <aicb/error.hpp>
#include <aicb/io/simai_format.hpp>
#include <aicb/workload/record.hpp>
#include <aicb/workload/record_stream.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

namespace detail {

// One entry of aicb's "layer list" (SIMAI_workload.get_model_details): a module name and its
// parameters on one TP rank of one pipeline stage.
struct aicb_entry {
  std::string_view name;
  std::uint64_t params = 0;
};

}  // namespace detail

/// aicb's workload for `args`, lazily. Throws config_error where aicb fails.
class aicb_workload {
 public:
  /// @param args    aicb's arguments (as its generator parses them)
  /// @param profile the AIOB profile when args.aiob_enable (read from args.comp_filepath by the caller)
  explicit aicb_workload(aicb_args args, std::optional<aiob_profile> profile = std::nullopt)
      : a_(std::move(args)), d_(derive(a_)) {
    if (a_.frame != "Megatron" && a_.frame != "DeepSeek")
      AICB_THROW(
          config_error("frame", a_.frame, "the SimAI generator supports --frame Megatron or DeepSeek"));
    const bool deepseek = a_.frame == "DeepSeek";
    if (a_.aiob_enable) {
      if (!profile)
        AICB_THROW(
            config_error("comp_filepath", "(none)",
                         "with --aiob_enable aicb profiles on a GPU; give --comp_filepath with a profile"));
      cache_ = aicb_cache_from_profile(*profile, a_.recompute_activations);
    }
    check_divisibility();
    // aicb fails where its generator reaches an entry, not before: a stage with no layers (more
    // stages than layers) has no attention_linear or MoE entry, and aicb writes its file.
    bool linear_entry = false, moe_entry = false;
    for_each_entry([&](const detail::aicb_entry& e) {
      total_ += e.params;
      if (e.name.find("moe") != std::string_view::npos) moe_ += e.params;
      linear_entry = linear_entry || e.name.find("attention_linear") != std::string_view::npos;
      moe_entry = moe_entry || e.name.find("moelayer") != std::string_view::npos;
    });
    if (deepseek && a_.enable_sequence_parallel && !a_.aiob_enable && linear_entry)
      AICB_THROW(
          config_error("aiob_enable", "false",
                       "aicb crashes here: --frame DeepSeek with sequence parallelism needs --aiob_enable "
                       "(AttributeError: 'NoneType' object has no attribute 'keys', aicb BUG-04)"));
    if (deepseek && a_.enable_sequence_parallel && a_.aiob_enable && !a_.moe_enable && moe_entry)
      AICB_THROW(
          config_error("moe_enable", "false",
                       "aicb crashes here: --frame DeepSeek with sequence parallelism and --aiob_enable "
                       "emits MoE items, which need --moe_enable"));
    header_.tensor_parallel = a_.tensor_model_parallel_size;
    header_.expert_parallel = a_.expert_model_parallel_size;
    header_.pipeline_parallel = a_.pipeline_model_parallel;
    header_.vpp = d_.layers;
    header_.ga = d_.microbatches;
    header_.all_gpus = a_.world_size;
    const std::uint64_t pp_message = 2 * a_.micro_batch * a_.seq_length * a_.hidden_size;
    if (a_.pipeline_model_parallel == 1)
      header_.pp_comm = "0";
    else if (a_.enable_sequence_parallel)
      header_.pp_comm = detail::python_float_repr(static_cast<double>(pp_message) /
                                                  static_cast<double>(a_.tensor_model_parallel_size));
    else
      header_.pp_comm = std::to_string(pp_message);
  }

  [[nodiscard]] const simai_header& header() const noexcept { return header_; }
  /// aicb's parameter totals: T (every listed module) and M (the MoE modules), per TP rank and stage.
  [[nodiscard]] std::uint64_t total_params() const noexcept { return total_; }
  [[nodiscard]] std::uint64_t moe_params() const noexcept { return moe_; }
  [[nodiscard]] const aicb_args& args() const noexcept { return a_; }
  [[nodiscard]] const aicb_derived& derived() const noexcept { return d_; }
  /// The file name aicb would choose (under results/workload/).
  [[nodiscard]] std::string file_name() const { return aicb_file_name(a_); }

  /// Records in the workload.
  [[nodiscard]] std::uint64_t size() const {
    std::uint64_t per_microbatch = 0;
    for_each_entry([&](const detail::aicb_entry& e) { per_microbatch += items_of(e.name); });
    if (!a_.aiob_enable) ++per_microbatch;  // embedding_norm
    return checked_add(checked_mul(d_.microbatches, per_microbatch, "records (micro batches x records each)"),
                       prologue_size() + 7, "records");
  }

  /// The records as runs (aicb::record_run), the same as records(): without an AIOB profile every
  /// micro batch is the same records (no profiled time is carried from entry to entry), so the
  /// prologue, one micro batch `microbatches` times, and the epilogue; with a profile, one record at
  /// a time.
  template <class F>
  void for_each_run(F&& f) const;

  /// The records, lazily.
  [[nodiscard]] record_stream<class aicb_source> records() const&;
  /// Not on a temporary: the stream refers to the workload, which would be gone before the first
  /// record (`for (auto& r : aicb_workload(...).records())` does not compile; name the workload).
  record_stream<class aicb_source> records() const&& = delete;

 private:
  friend class aicb_source;

  void check_divisibility() const {
    const std::uint64_t t = a_.tensor_model_parallel_size, h = a_.hidden_size;
    const auto divide = [&](const char* what, std::uint64_t n) {
      if (n % t != 0)
        AICB_THROW(config_error("tensor_model_parallel_size", std::to_string(t),
                                std::string("aicb asserts here: ") + what + " (" + std::to_string(n) +
                                    ") must be divisible by tensor_model_parallel_size"));
    };
    const std::uint64_t P = h / d_.heads * d_.heads;
    divide("ffn_hidden_size", d_.ffn);
    if (a_.frame == "DeepSeek") {
      divide("num_attention_heads x (qk_nope_dim + qk_rope_dim)",
             d_.heads * (a_.qk_nope_dim + a_.qk_rope_dim));
      divide("num_attention_heads x (qk_nope_dim + v_head_dim)", d_.heads * (a_.qk_nope_dim + a_.v_head_dim));
      divide("num_attention_heads x v_head_dim", d_.heads * a_.v_head_dim);
    } else {
      divide("3 x the query projection size", 3 * P);
      divide("the query projection size", P);
    }
    if (a_.moe_enable)
      divide("ffn_hidden_size x local experts", d_.ffn * (a_.num_experts / a_.expert_model_parallel_size));
  }

  // Calls f(entry) for every entry of aicb's layer list, in order (pre-order traversal of the
  // mocked model, filtered by class: which classes depends on sequence parallelism).
  template <class F>
  void for_each_entry(F&& f) const {
    for (std::uint64_t layer = 0; layer <= d_.layers + 1; ++layer)
      entries_of(layer, f);
  }

  // Entries of position `i` of the list: 0 = embedding, 1..L = layers, L+1 = the final column.
  template <class F>
  void entries_of(std::uint64_t i, F&& f) const {
    const bool sp = a_.enable_sequence_parallel, deepseek = a_.frame == "DeepSeek";
    const std::uint64_t t = a_.tensor_model_parallel_size, h = a_.hidden_size,
                        beta = a_.add_bias_linear ? 1 : 0;
    const std::uint64_t F_ = d_.ffn, a = d_.heads, d = h / a, P = d * a, Vp = d_.padded_vocab;
    const auto column = [&](std::uint64_t in, std::uint64_t out) {
      return in * (out / t) + beta * (out / t);
    };
    const auto row = [&](std::uint64_t in, std::uint64_t out) { return out * (in / t) + beta * out; };
    const auto linear = [&](std::uint64_t in, std::uint64_t out) { return in * out + beta * out; };
    if (i == 0) {
      f(detail::aicb_entry{"embedding_layer", 4 * (Vp / t) * h + a_.seq_length * h});
      return;
    }
    if (i == d_.layers + 1) {
      if (sp) f(detail::aicb_entry{"final_column", column(h, Vp)});
      return;
    }
    const std::uint64_t layer = i - 1;
    const std::uint64_t local_experts = a_.num_experts / a_.expert_model_parallel_size;
    const std::uint64_t mlp_column = column(h, F_), mlp_row = row(F_, h);
    if (!deepseek) {
      if (sp) {
        f(detail::aicb_entry{"attention_column", column(h, 3 * P)});
        f(detail::aicb_entry{"attention_row", row(P, h)});
        f(detail::aicb_entry{"fused", 2 * h});
        if (a_.moe_enable) {
          f(detail::aicb_entry{"mlp_moelayer", 2 * h * (F_ * local_experts / t)});
        } else {
          f(detail::aicb_entry{"mlp_column", mlp_column});
          f(detail::aicb_entry{"mlp_row", mlp_row});
        }
      } else {
        f(detail::aicb_entry{"attention_layer", column(h, 3 * P) + row(P, h)});
        f(detail::aicb_entry{"mlp_layer", mlp_column + mlp_row});  // MoE without SP fails earlier
      }
      return;
    }
    const std::uint64_t qr = a_.q_lora_rank, kvr = a_.kv_lora_rank, rope = a_.qk_rope_dim,
                        nope = a_.qk_nope_dim, v = a_.v_head_dim;
    const std::uint64_t q_lora = linear(h, qr), q_column = column(qr, a * (nope + rope));
    const std::uint64_t kv_lora = linear(h, kvr + rope), kv_column = column(kvr, a * (nope + v)),
                        o_row = row(a * v, h);
    const bool dense = (layer < a_.n_dense_layers);
    const bool shared = (a_.n_shared_expert > 0);
    const std::uint64_t moe = 3 * h * (F_ * local_experts / t) + (shared ? mlp_column + mlp_row : 0);
    if (sp) {
      f(detail::aicb_entry{"attention_linear_q_lora", q_lora});
      f(detail::aicb_entry{"fused", 2 * qr});
      f(detail::aicb_entry{"attention_q_column", q_column});
      f(detail::aicb_entry{"attention_linear_kv_lora", kv_lora});
      f(detail::aicb_entry{"fused", 2 * kvr});
      f(detail::aicb_entry{"attention_kv_column", kv_column});
      f(detail::aicb_entry{"attention_o_row", o_row});
      f(detail::aicb_entry{"fused", 2 * h});
      if (dense) {
        f(detail::aicb_entry{"mlp_column", mlp_column});
        f(detail::aicb_entry{"mlp_row", mlp_row});
      } else {
        f(detail::aicb_entry{"mlp_moelayer", moe});
        if (shared) {  // aicb BUG-03: the shared expert is listed again
          f(detail::aicb_entry{"mlp_column", mlp_column});
          f(detail::aicb_entry{"mlp_row", mlp_row});
        }
      }
    } else {
      f(detail::aicb_entry{"attention_layer_mla",
                           q_lora + 2 * qr + q_column + kv_lora + 2 * kvr + kv_column + o_row});
      if (dense) {
        f(detail::aicb_entry{"mlp_layer", mlp_column + mlp_row});
      } else {
        f(detail::aicb_entry{"mlp_moelayer", moe});
        if (shared) f(detail::aicb_entry{"mlp_layer", mlp_column + mlp_row});
      }
    }
  }

  // Records aicb emits for a list entry.
  [[nodiscard]] std::uint64_t items_of(std::string_view name) const {
    const auto has = [&](std::string_view s) { return name.find(s) != std::string_view::npos; };
    if (!a_.enable_sequence_parallel) return 1;
    std::uint64_t n = 0;
    if (has("embedding")) ++n;
    if (has("attention_linear")) ++n;
    if (has("row"))
      ++n;
    else if (has("column"))
      ++n;
    else if (has("moelayer"))
      n += 5;
    return n;
  }

  [[nodiscard]] std::uint64_t prologue_size() const {
    const bool dp_ep = a_.expert_model_parallel_size != d_.dp;
    const std::uint64_t layernorm = a_.enable_sequence_parallel ? 0 : 1;
    return (a_.aiob_enable ? 4 : 1) + layernorm + (dp_ep ? 2 : 0);
  }

  aicb_args a_;
  aicb_derived d_;
  std::optional<aicb_compute_cache> cache_;
  std::uint64_t total_ = 0, moe_ = 0;
  simai_header header_;
};

/// The state machine behind aicb_workload::records(). The records of a list entry depend only on
/// its name (and, for the embedding on aicb's AIOB path, on a variable carried from the entry
/// before — aicb BUG-05), so each distinct entry is generated once and handed out from then on
/// without copies: memory is bounded by the number of distinct entry names (about a dozen).
class aicb_source {
 public:
  explicit aicb_source(const aicb_workload& w) : w_(w) {
    if (w_.a_.aiob_enable) {
      forward_ = lookup("forward", "grad");
      backward_ = lookup("backward", "grad");
    }
    target_ = &prologue_;
    build_prologue();
    const aicb_args& a = w_.a_;
    target_ = &embedding_norm_;
    const std::uint64_t norm = a.vocab_size * a.hidden_size * 2;
    push("embedding_norm", {1, col::all_reduce, norm}, {1, col::none, 0}, {1, col::none, 0});
    target_ = &epilogue_;
    const std::uint64_t loss = a.seq_length * a.micro_batch * 4;
    for (const char* name : {"cross_entropy1", "cross_entropy2", "cross_entropy3"})
      push(name, {0, col::all_reduce, loss}, {0, col::none, 0}, {0, col::none, 0});
    for (const char* name : {"optimizer1", "optimizer2", "optimizer3", "optimizer4"})
      push(name, {0, col::all_reduce, 4}, {0, col::none, 0}, {0, col::none, 0});
    for (const record& r : prologue_)
      current_.push_back(&r);
  }

  [[nodiscard]] std::uint64_t size() const { return w_.size(); }

  /// Jumps over `n` micro batches; only at a micro batch's start (after its predecessor's last
  /// record), and only without an AIOB profile, where micro batches are all alike.
  void skip_microbatches(std::uint64_t n) {
    if (position_ != 0 || position_in_current_ < current_.size() || w_.a_.aiob_enable)
      AICB_THROW(error("aicb_source: micro batches can be skipped only at a boundary, without AIOB"));
    microbatch_ += n;
  }

  const record* next() {
    for (;;) {
      if (position_in_current_ < current_.size()) return current_[position_in_current_++];
      current_.clear();
      position_in_current_ = 0;
      if (!refill()) return nullptr;
    }
  }

 private:
  using col = collective;
  // One column as aicb writes it: compute, collective, size.
  struct cell {
    std::int64_t compute;
    collective kind;
    std::uint64_t size;
  };
  // The records of one distinct entry, and aicb's carried variables after it.
  struct cached_entry {
    std::string_view name;
    std::vector<record> records;
    std::int64_t forward_after = 0, backward_after = 0;
  };

  // Phases: prologue (queued at construction), micro batches (list position by position), epilogue.
  bool refill() {
    const aicb_derived& d = w_.d_;
    if (microbatch_ < d.microbatches) {
      w_.entries_of(position_, [&](const detail::aicb_entry& e) { queue_entry(e.name); });
      if (++position_ > d.layers + 1) {
        position_ = 0;
        ++microbatch_;
        if (!w_.a_.aiob_enable) current_.push_back(&embedding_norm_.front());
      }
      return true;
    }
    if (epilogue_done_) return false;
    epilogue_done_ = true;
    for (const record& r : epilogue_)
      current_.push_back(&r);
    return true;
  }

  void queue_entry(std::string_view name) {
    if (name.find("embedding") != std::string_view::npos) {
      // Stateful on aicb's AIOB path: regenerated each time. The records handed out stay valid
      // until the next refill, which happens only after they have all been consumed.
      embedding_.clear();
      target_ = &embedding_;
      emit(name);
      for (const record& r : embedding_)
        current_.push_back(&r);
      return;
    }
    for (cached_entry& c : cache_)
      if (c.name.data() == name.data() || c.name == name) {  // names are literals: usually the same pointer
        forward_ = c.forward_after;
        backward_ = c.backward_after;
        for (const record& r : c.records)
          current_.push_back(&r);
        return;
      }
    cache_.push_back({name, {}, 0, 0});
    cached_entry& c = cache_.back();
    target_ = &c.records;
    emit(name);
    c.forward_after = forward_;
    c.backward_after = backward_;
    for (const record& r : c.records)
      current_.push_back(&r);
  }

  // Appends a record to the current target; the group of each collective is the one SimAI reads
  // for its column and suffix: TP in the forward and input-gradient columns, DP in the
  // weight-gradient column, EP for *_EP, DP-within-EP for *_DP_EP.
  void push(std::string_view name, cell fwd, cell ig, cell wg, comm_group fwd_group = comm_group::tp,
            comm_group ig_group = comm_group::tp, comm_group wg_group = comm_group::dp) {
    // AIOB path post-processing: a NONE forward or input-gradient collective carries no size.
    if (w_.a_.aiob_enable) {
      if (fwd.kind == col::none) fwd.size = 0;
      if (ig.kind == col::none) ig.size = 0;
    }
    record r;
    r.name.assign(name);
    r.forward = {nanoseconds{fwd.compute}, {fwd.kind, fwd_group, bytes{fwd.size}}};
    r.input_grad = {nanoseconds{ig.compute}, {ig.kind, ig_group, bytes{ig.size}}};
    r.weight_grad = {nanoseconds{wg.compute}, {wg.kind, wg_group, bytes{wg.size}}};
    r.update = nanoseconds{100};
    target_->push_back(std::move(r));
  }

  void build_prologue() {
    const aicb_args& a = w_.a_;
    const std::uint64_t T = w_.total_, M = w_.moe_, tpc = 2 * a.micro_batch * a.seq_length * a.hidden_size;
    const bool sp = a.enable_sequence_parallel, dp_ep = a.expert_model_parallel_size != w_.d_.dp;
    if (!a.aiob_enable) {
      push("grad_norm", {1, col::all_gather, 2 * T}, {1, col::none, 0}, {1, col::reduce_scatter, 4 * T});
      if (!sp) push("layernorm", {1, col::none, 0}, {1, col::all_reduce, 2 * T}, {1, col::none, 0});
    } else {
      push("grad_gather", {1, col::none, 0}, {1, col::none, 0}, {1, col::all_gather, 2 * (T - M)});
      push("grad_param_comm", {1, col::none, 0}, {1, col::none, 0}, {1, col::reduce_scatter, 4 * (T - M)});
      push("grad_param_compute", {1, col::none, 0},
           {lookup("forward", "grad") + lookup("backward", "grad"), col::none, 0}, {1, col::none, 0});
      if (!sp) push("layernorm", {1, col::none, 0}, {1, col::all_reduce, 2 * T}, {1, col::none, 0});
      const col tp_comm = a.tensor_model_parallel_size == 1 ? col::none : col::all_reduce;
      push("embedding_grads", {1, col::none, 0}, {1, tp_comm, tpc}, {1, col::none, 0});
    }
    if (dp_ep) {
      push("moe_grad_norm1", {1, col::none, 0}, {1, col::none, 0}, {1, col::all_gather, 2 * M},
           comm_group::tp, comm_group::tp, comm_group::dp_ep);
      push("moe_grad_norm2", {1, col::none, 0}, {1, col::none, 0}, {1, col::reduce_scatter, 4 * M},
           comm_group::tp, comm_group::tp, comm_group::dp_ep);
    }
  }

  // aicb's _get_aiob_compute_time: the stage's own key, else a derived key, else 1.
  [[nodiscard]] std::int64_t lookup(std::string_view fb, std::string_view stage) const {
    const aicb_compute_cache& cache = *w_.cache_;
    if (const auto v = cache.find(stage)) return *v;
    std::string key;
    if (stage == "grad")
      key = "grad_" + std::string(fb);
    else if (stage == "embedding")
      key = "Emb";
    else if (stage == "final")
      key = "attention_" + std::string(fb);
    else
      key = std::string(stage) + "_" + std::string(fb);
    if (const auto v = cache.find(key)) return *v;
    return 1;
  }
  // `lct` and its fallback: a layer's own time if profiled (a value of 1 counts as absent, aicb
  // BUG-11), else forward/backward of the name's first word.
  void layer_times(std::string_view name) {
    const std::int64_t own = lookup("", name);
    if (own != 1) {
      forward_ = backward_ = own;
      return;
    }
    const std::string_view word = name.substr(0, name.find('_'));
    forward_ = lookup("forward", word);
    backward_ = lookup("backward", word);
  }

  void emit(std::string_view name) {
    const aicb_args& a = w_.a_;
    const auto has = [&](std::string_view s) { return name.find(s) != std::string_view::npos; };
    const std::uint64_t t = a.tensor_model_parallel_size;
    const std::uint64_t tpc = 2 * a.micro_batch * a.seq_length * a.hidden_size;
    const bool sp = a.enable_sequence_parallel, aiob = a.aiob_enable, recompute = a.recompute_activations;
    const bool attention = has("attention");

    if (!aiob) {
      const std::uint64_t fs = tpc * (recompute && attention ? 2 : 1);
      if (!sp) {
        push(name, {1, col::all_reduce, fs}, {1, col::all_reduce, tpc}, {1, col::none, 0});
        return;
      }
      if (has("embedding")) push(name, {1, col::none, tpc}, {1, col::none, tpc}, {1, col::none, 0});
      if (has("row"))
        push(name, {1, col::reduce_scatter, fs}, {1, col::none, tpc}, {1, col::none, 0});
      else if (has("column"))
        push(name, {1, col::all_gather, fs}, {1, col::none, 0}, {1, col::none, 0});
      else if (has("moelayer"))
        moe_items(name, 1, 1);
      return;
    }

    if (!sp) {
      const col fc = t == 1 ? col::none : col::all_reduce;
      if (has("embedding")) {
        push(name, {lookup("", "embedding"), fc, tpc}, {1, col::none, 0}, {backward_, col::none, 0});
        return;
      }
      layer_times(name);  // recompute changes nothing here (aicb BUG-07)
      push(name, {forward_, fc, tpc}, {backward_, col::none, 0}, {backward_, col::none, 0});
      return;
    }
    if (has("embedding")) {
      push(name, {lookup("", "embedding"), t == 1 ? col::none : col::all_reduce, tpc}, {1, col::none, 0},
           {backward_, col::none, 0});  // the weight-gradient time is a stale variable (aicb BUG-05)
    }
    if (has("attention_linear")) {
      layer_times(name);
      if (recompute) forward_ *= 2;
      push(name, {forward_, col::none, 0}, {backward_, col::none, 0}, {backward_, col::none, 0});
    }
    if (has("row") || has("column")) {
      layer_times(name);
      if (recompute && attention) forward_ *= 2;
      forward_ = forward_ / 2;  // int(x / 2) of a non-negative integer
      backward_ = backward_ / 2;
      if (has("row"))
        push(name, {forward_, t == 1 ? col::none : col::reduce_scatter, tpc},
             {backward_, t == 1 ? col::none : col::all_gather, tpc}, {backward_, col::none, 0});
      else  // the backward reduce-scatter carries size 0 (aicb BUG-06)
        push(name, {forward_, t == 1 ? col::none : col::all_gather, tpc},
             {backward_, t == 1 ? col::none : col::reduce_scatter, 0}, {backward_, col::none, 0});
    } else if (has("moelayer")) {
      layer_times(name);
      moe_items(name, forward_, backward_);
    }
  }

  // The five records of an MoE layer (spec 5.3).
  void moe_items(std::string_view name, std::int64_t first_forward, std::int64_t first_backward) {
    const aicb_args& a = w_.a_;
    const std::uint64_t t = a.tensor_model_parallel_size, e = a.expert_model_parallel_size,
                        k = a.moe_router_topk;
    const std::uint64_t tpc = 2 * a.micro_batch * a.seq_length * a.hidden_size, tpck = tpc * k;
    const std::uint64_t ag = 2 * e * a.num_experts * t, disp = tpck / t;
    const std::uint64_t disp_f =
        a.frame == "DeepSeek" ? static_cast<std::uint64_t>(static_cast<double>(disp) * 0.515625) : disp;
    col c1 = col::all_gather, c2 = col::all_to_all, c3 = col::all_gather, c4 = col::reduce_scatter;
    if (a.aiob_enable) {
      if (e == 1) c2 = col::none;
      if (t == 1) {
        c3 = c4 = col::none;
        if (e == 1) c1 = col::none;
      }
    }
    const comm_group ep = comm_group::ep, dp = comm_group::dp;
    push(name, {first_forward, c1, ag}, {first_backward, col::none, 0}, {1, col::none, 0});
    push(name, {1, c2, disp_f}, {1, c2, disp}, {1, col::none, 0}, ep, ep, dp);
    push(name, {1, c3, tpck}, {1, c4, tpck}, {1, col::none, 0});
    push(name, {1, c4, tpck}, {1, c3, tpck}, {1, col::none, 0});
    push(name, {1, c2, disp}, {1, c2, disp}, {1, col::none, 0}, ep, ep, dp);
  }

  const aicb_workload& w_;
  std::vector<record> prologue_, embedding_norm_, epilogue_, embedding_;
  std::vector<record>* target_ = nullptr;
  std::vector<cached_entry> cache_;     // one per distinct entry name
  std::vector<const record*> current_;  // the records of the current list position
  std::size_t position_in_current_ = 0;
  std::uint64_t microbatch_ = 0, position_ = 0;
  bool epilogue_done_ = false;
  std::int64_t forward_ = 1, backward_ = 1;  // aicb's variables carried between entries (BUG-05)
};

template <class F>
void aicb_workload::for_each_run(F&& f) const {
  aicb_source source(*this);
  const auto take = [&](std::uint64_t n) {
    std::vector<record> out;
    out.reserve(n);
    for (std::uint64_t i = 0; i < n; ++i)
      if (const record* r = source.next()) out.push_back(*r);
    return out;
  };
  if (a_.aiob_enable || d_.microbatches == 0) {
    for (const record* r = source.next(); r != nullptr; r = source.next())
      f(record_run{std::span<const record>(r, 1), 1});
    return;
  }
  const std::uint64_t prologue = prologue_size();
  const std::uint64_t per_microbatch = (size() - prologue - 7) / d_.microbatches;
  const std::vector<record> head = take(prologue), microbatch = take(per_microbatch);
  source.skip_microbatches(d_.microbatches - 1);
  const std::vector<record> tail = take(7);
  if (!head.empty()) f(record_run{head, 1});
  f(record_run{microbatch, d_.microbatches});
  f(record_run{tail, 1});
}

inline record_stream<aicb_source> aicb_workload::records() const& {
  return record_stream<aicb_source>(aicb_source(*this));
}

AICB_END_NAMESPACE
