// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb's DeepSpeed ZeRO stages 1, 2 and 3 CSV, emulated byte for byte (docs/zero.md), and the job
/// aicb's DeepSpeed flags describe.
///
/// The emulator walks the parameter list of the LLaMA-shaped model aicb mocks for DeepSpeed
/// (embedding, per layer two norms, q/k/v/o, gate/down/up, the final norm and an untied head — no
/// tensor or pipeline parallelism, so the data-parallel group is every GPU) the way DeepSpeed's
/// engine does:
///
/// - stages 1 and 2 reduce gradients in buckets of `reduce_bucket_size` elements as backward
///   produces them (all-reduce; stage 2 with contiguous gradients: one reduce per owner rank's run
///   of the flat gradient buffer), then all-gather the updated parameters in shards of
///   `allgather_bucket_size`;
/// - stage 3 all-gathers parameters just in time, prefetching along the recorded parameter order,
///   releases them unless they are persistent (small) or needed again soon, and reduce-scatters
///   gradients in buckets.
///
/// `compat_mode::aicb` reproduces aicb's CSV; `compat_mode::corrected` keeps the emulator's walk but
/// drops the zero-byte collectives aicb emits when one parameter is larger than a bucket, and gives
/// an `--amp_enabled` stage 1/2 run its barrier (aicb crashes there). The corrected workload itself
/// — what `aicb deepspeed` writes without `--compat aicb`, CSV or SimAI — is not this emulator but
/// the per-rank model of deepspeed_job() (aicb::rank_schedule with ZeRO, projected by
/// aicb::csv_projection or aicb::simai_projection), so both formats carry the same operations.
/// Items go to a sink one at a time; nothing but the parameter list is stored.

#include <aicb/calc/sizing.hpp>
#include <aicb/compat/aicb_args.hpp>
#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/error.hpp>
#include <aicb/model/job.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/workload/csv_item.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// One parameter tensor of the mocked DeepSpeed model: its 2-D shape (norms are (h, 1)).
struct deepspeed_param {
  std::uint64_t rows = 0, cols = 0;
  [[nodiscard]] constexpr std::uint64_t numel() const noexcept { return rows * cols; }
  [[nodiscard]] constexpr std::uint64_t bytes() const noexcept { return 2 * numel(); }  ///< 16-bit elements
};

/// The parameters in module order: embed; per layer input norm, q, k, v, o, post-attention norm,
/// gate, down, up; final norm; lm_head. The vocabulary is not padded (there is no TP).
[[nodiscard]] inline std::vector<deepspeed_param> deepspeed_params(const aicb_args& a) {
  const aicb_derived d = derive(a);
  const std::uint64_t h = a.hidden_size, heads = d.heads, head_dim = h / heads, v = a.vocab_size;
  const std::uint64_t f = d.ffn;
  std::vector<deepspeed_param> params;
  params.reserve(9 * a.num_layers + 3);
  params.push_back({v, h});
  for (std::uint64_t layer = 0; layer < a.num_layers; ++layer) {
    params.push_back({h, 1});
    for (int i = 0; i < 3; ++i)
      params.push_back({h, heads * head_dim});
    params.push_back({heads * head_dim, h});
    params.push_back({h, 1});
    params.push_back({h, f});
    params.push_back({f, h});
    params.push_back({h, f});
  }
  params.push_back({h, 1});
  params.push_back({h, v});
  return params;
}

/// The file aicb writes: `deepspeed_stage{S}_{model}_sp_{SP}_iteration_{epochs}_computationEnable_{CE}_{W}n`,
/// cut at its first '.', plus `_workload.csv` (aicb writes it under results/mocked_workload/).
[[nodiscard]] inline std::string deepspeed_csv_file_name(const aicb_args& a) {
  return aicb_csv_file_name("deepspeed_stage" + std::to_string(a.stage), a);
}

/// The same job as a job_spec, for the corrected per-rank model (and its SimAI form, which aicb cannot
/// write): a LLaMA-shaped model (rotary positions, RMSNorm, SwiGLU of aicb's width) on data parallelism
/// only, with ZeRO stage `a.stage`; heads of 128 (or 64) when not given, gradients reduced in bf16 as
/// DeepSpeed does in the training dtype.
[[nodiscard]] inline job_spec deepspeed_job(const aicb_args& a) {
  const aicb_derived d = derive(a);
  job_spec job;
  job.model = presets::llama2_7b;
  job.model.name = spec_name::from(a.model_name.value_or("deepspeed-model"));
  job.model.num_layers = a.num_layers;
  job.model.hidden_size = a.hidden_size;
  job.model.num_attention_heads =
      a.num_attention_heads.value_or(a.hidden_size / standard_head_size(a.hidden_size));
  job.model.num_kv_heads = job.model.num_attention_heads;
  job.model.ffn_hidden_size = d.ffn;
  job.model.vocab_size = a.vocab_size;
  job.parallel.world_size = a.world_size;
  job.parallel.zero_stage = a.stage;
  job.batch.global_batch = a.global_batch;
  job.batch.micro_batch = a.micro_batch;
  job.batch.seq_length = a.seq_length;
  job.batch.grad_dtype = dtype::bf16;
  return job;
}

/// The SimAI form's file name: `deepspeed_stage{S}_{model}_{W}n.txt` (aicb has none).
[[nodiscard]] inline std::string deepspeed_simai_file_name(const aicb_args& a) {
  return "deepspeed_stage" + std::to_string(a.stage) + "_" + a.model_name.value_or("None") + "_" +
         std::to_string(a.world_size) + "n.txt";
}

namespace detail {

/// What the ZeRO generators share: the arguments, the parameters and the item sink.
template <class Sink>
class deepspeed_base {
 protected:
  deepspeed_base(const aicb_args& a, compat_mode mode, Sink& sink)
      : a_(a), d_(derive(a)), mode_(mode), sink_(sink), params_(deepspeed_params(a)) {
    if (a.frame != "DeepSpeed")
      AICB_THROW(config_error("frame", a.frame, "the ZeRO generators need --frame DeepSpeed"));
    if (a.tensor_model_parallel_size != 1 || a.pipeline_model_parallel != 1)
      AICB_THROW(config_error("tensor_model_parallel_size", std::to_string(a.tensor_model_parallel_size),
                              "the DeepSpeed model has no tensor or pipeline parallelism (both must be 1)"));
    if (a.hidden_size == 0 || a.num_layers == 0 || a.vocab_size == 0)
      AICB_THROW(config_error("hidden_size", std::to_string(a.hidden_size),
                              "hidden_size, num_layers and vocab_size must be positive"));
  }

  [[nodiscard]] csv_item dp_item(csv_op op, std::uint64_t bytes, std::string_view stage) const {
    csv_item item;
    item.op = op;
    item.group = csv_group::dp_group;
    item.group_size = d_.dp;
    item.msg_size = bytes;
    item.stage = stage;
    return item;
  }
  void emit(const csv_item& item) { sink_(item); }
  void epoch_end() { sink_(csv_item{}); }
  /// Whether a collective of `bytes` is written: aicb writes zero-byte ones too (BUG-20).
  [[nodiscard]] bool keep(std::uint64_t bytes) const noexcept {
    return bytes != 0 || mode_ == compat_mode::aicb;
  }

  void computation(const deepspeed_param& p, std::string_view stage, bool weight_grad) {
    csv_item item;
    item.op = csv_op::computation;
    item.stage = stage;
    const std::uint64_t b = a_.micro_batch, s = a_.seq_length;
    if (!weight_grad) {
      item.shapes = {csv_shape{{b, s, p.rows}, 3}, csv_shape{{p.rows, p.cols, 0}, 2}};
    } else {
      item.shapes = {csv_shape{{p.rows, b * s, 0}, 2}, csv_shape{{b * s, p.cols, 0}, 2}};
    }
    emit(item);
  }

  /// aicb's driver: init; epoch end; per epoch the micro-batches' forward and backward, the step
  /// and an epoch end.
  template <class Derived>
  void drive(Derived& self) {
    self.init();
    epoch_end();
    for (std::uint64_t epoch = 0; epoch < a_.epoch_num; ++epoch) {
      for (std::uint64_t m = 0; m < d_.microbatches; ++m) {
        self.forward();
        self.backward();
      }
      self.step();
      epoch_end();
    }
  }

  const aicb_args& a_;
  aicb_derived d_;
  compat_mode mode_;
  Sink& sink_;
  std::vector<deepspeed_param> params_;
};

/// ZeRO stages 1 and 2.
template <class Sink>
class zero12_generator : deepspeed_base<Sink> {
  using base = deepspeed_base<Sink>;
  using base::a_, base::d_, base::mode_, base::params_;

 public:
  zero12_generator(const aicb_args& a, compat_mode mode, Sink& sink) : base(a, mode, sink) {
    // Offsets of each parameter in the flat gradient buffer (module order), for contiguous gradients.
    offsets_.reserve(params_.size() + 1);
    offsets_.push_back(0);
    for (const deepspeed_param& p : params_)
      offsets_.push_back(offsets_.back() + p.numel());
  }
  void run() { base::drive(*this); }

  void init() {
    if (a_.amp_enabled && mode_ == compat_mode::aicb)
      AICB_THROW(
          config_error("amp_enabled", "true",
                       "aicb crashes here: its ZeRO-1/2 init() names an unbound parameter in the barrier "
                       "item when --amp_enabled skips the broadcasts (aicb BUG-29); no file is written"));
    if (!a_.amp_enabled)
      for (const deepspeed_param& p : params_)
        base::emit(base::dp_item(csv_op::broadcast, p.bytes(), "init"));
    // aicb sizes the barrier by the last parameter broadcast; a barrier carries no data.
    csv_item barrier = base::dp_item(csv_op::barrier, mode_ == compat_mode::aicb ? params_.back().bytes() : 0,
                                     "init.__init__");
    barrier.group = csv_group::all;
    base::emit(barrier);
  }

  void forward() {
    if (!a_.computation_enable) return;
    for (const deepspeed_param& p : params_)
      if (p.cols != 1) base::computation(p, "forward.computation", false);
  }

  void backward() {
    for (std::size_t i = params_.size(); i-- > 0;) {
      const deepspeed_param& p = params_[i];
      if (p.numel() + bucket_elements_ > a_.reduce_bucket_size) flush("backward.allreduce_bucket");
      bucket_.push_back(i);
      bucket_elements_ += p.numel();
      if (a_.computation_enable && p.cols != 1) {
        base::computation(p, "backward.computation", false);
        base::computation(p, "backward.computation", true);
      }
    }
  }

  void step() {
    flush("step.allreduce_bucket");
    base::emit(base::dp_item(csv_op::all_reduce, 1, "step.has_overflow"));
    // Parameters all-gathered in shards of allgather_bucket_size, each padded to a multiple of dp.
    const std::uint64_t total = offsets_.back();
    const std::uint64_t shards =
        std::max<std::uint64_t>(total / std::max<std::uint64_t>(a_.allgather_bucket_size, 1), 1);
    const std::uint64_t shard = total / shards;
    for (std::uint64_t i = 0; i < shards; ++i) {
      const std::uint64_t elements = i + 1 == shards ? total - shard * (shards - 1) : shard;
      const std::uint64_t padded = (elements + d_.dp - 1) / d_.dp * d_.dp;
      base::emit(base::dp_item(csv_op::all_gather, padded * 2, "step.all_gather_dp_groups"));
    }
  }

 private:
  // Flushes the gradient bucket: one all-reduce, or (stage 2, contiguous gradients) one reduce per
  // run of the flat buffer owned by one rank. `stage` is "backward.allreduce_bucket" or
  // "step.allreduce_bucket"; the contiguous form names it "….average_tensor".
  void flush(std::string_view stage) {
    const bool contiguous = a_.stage == 2 && a_.contiguous_gradients;
    if (!contiguous) {
      if (base::keep(bucket_elements_ * 2))
        base::emit(base::dp_item(csv_op::all_reduce, bucket_elements_ * 2, stage));
    } else {
      const std::string_view reduce_stage =
          stage.starts_with("step") ? "step.average_tensor" : "backward.average_tensor";
      const std::uint64_t partition = (offsets_.back() + d_.dp - 1) / d_.dp;
      std::uint64_t run_rank = 0, run_begin = 0, run_end = 0;
      bool open = false;
      const auto close = [&] {
        if (!open) return;
        csv_item item = base::dp_item(csv_op::reduce, (run_end - run_begin) * 2, reduce_stage);
        item.dst = static_cast<std::int64_t>(run_rank);
        base::emit(item);
        open = false;
      };
      // Forward order within the bucket: the bucket was filled walking the model backwards.
      for (std::size_t k = bucket_.size(); k-- > 0;) {
        std::uint64_t begin = offsets_[bucket_[k]];
        const std::uint64_t end = offsets_[bucket_[k] + 1];
        while (begin < end) {
          const std::uint64_t rank = begin / partition;
          const std::uint64_t piece_end = std::min(end, (rank + 1) * partition);
          if (open && rank == run_rank && begin == run_end) {
            run_end = piece_end;
          } else {
            close();
            run_rank = rank, run_begin = begin, run_end = piece_end, open = true;
          }
          begin = piece_end;
        }
      }
      close();
    }
    bucket_.clear();
    bucket_elements_ = 0;
  }

  std::vector<std::uint64_t> offsets_;
  std::vector<std::size_t> bucket_;  // parameter indices, in the order backward produced them
  std::uint64_t bucket_elements_ = 0;
};

/// ZeRO stage 3: DeepSpeed's parameter-fetch state machine, step by step.
template <class Sink>
class zero3_generator : deepspeed_base<Sink> {
  using base = deepspeed_base<Sink>;
  using base::a_, base::mode_, base::params_;

 public:
  zero3_generator(const aicb_args& a, compat_mode mode, Sink& sink)
      : base(a, mode, sink),
        persistent_(params_.size()),
        gathered_(params_.size()),
        most_recent_(params_.size(), -1) {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < params_.size(); ++i) {
      const std::uint64_t n = params_[i].numel();
      if (n + total > a.model_persistence_threshold) continue;
      if (n <= a.param_persistence_threshold) {
        persistent_[i] = true;
        total += n;
      }
    }
  }
  void run() { base::drive(*this); }

  void init() {
    if (!a_.amp_enabled)
      for (const deepspeed_param& p : params_) {
        csv_item item = base::dp_item(csv_op::broadcast, p.bytes(), "init._broadcast_model");
        item.src = 0;
        base::emit(item);
      }
    for (std::string_view stage : {"init._create_fp16_partitions_with_defragmentation",
                                   "init._setup_for_real_optimizer", "init._setup_for_real_optimizer"}) {
      csv_item barrier = base::dp_item(csv_op::barrier, 0, stage);
      barrier.group = csv_group::all;
      base::emit(barrier);
    }
    for (const deepspeed_param& p : params_)
      base::emit(base::dp_item(csv_op::all_gather, p.bytes(), "init._allgather_params"));
  }

  void forward() {
    forward_ = true;
    for (std::size_t i = 0; i < params_.size(); ++i) {
      fetch(i);
      release(i, static_cast<std::int64_t>(i));
    }
  }

  void backward() {
    forward_ = false;
    const std::size_t n = params_.size();
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = n - 1 - k;
      fetch(i);
      release(i, static_cast<std::int64_t>(k + n));
      const std::uint64_t numel = params_[i].numel();
      if (numel + reduce_bucket_ > a_.reduce_bucket_size) {
        if (base::keep(reduce_bucket_ * 2))
          base::emit(base::dp_item(csv_op::reduce_scatter, reduce_bucket_ * 2, "backward.reduce_scatter_fn"));
        reduce_bucket_ = numel;
      } else {
        reduce_bucket_ += numel;
      }
    }
    // The trace is recorded now: later passes prefetch along it (module order, then reversed).
    queue_.clear();
    for (std::size_t k = 0; k < 2 * n; ++k)
      queue_.push_back({k < n ? k : 2 * n - 1 - k, static_cast<std::int64_t>(k)});
    std::fill(most_recent_.begin(), most_recent_.end(), -1);
  }

  void step() {
    if (base::keep(reduce_bucket_ * 2))
      base::emit(base::dp_item(csv_op::reduce_scatter, reduce_bucket_ * 2, "step.reduce_scatter_fn"));
    reduce_bucket_ = 0;
    base::emit(base::dp_item(csv_op::all_reduce, 1, "step.has_overflow"));
    base::emit(base::dp_item(csv_op::all_reduce, 8, "step.get_grad_norm_direct"));
    std::fill(gathered_.begin(), gathered_.end(), false);
    live_ = 0;
    stage_ = "step.allgather_fn";
    for (std::size_t i = 0; i < params_.size(); ++i)
      if (persistent_[i]) gather_directly(i);
  }

 private:
  struct queued {
    std::size_t param;
    std::int64_t step_id;
  };

  void fetch(std::size_t i) {
    stage_ = forward_ ? "forward.allgather_fn" : "backward.allgather_fn";
    if (queue_.empty())
      gather_directly(i);
    else
      gather_prefetch(i);
  }

  void compute(std::size_t i) {
    if (!a_.computation_enable || params_[i].cols == 1) return;
    if (stage_.starts_with("forward")) {
      base::computation(params_[i], "forward.computation", false);
    } else if (stage_.starts_with("backward")) {
      base::computation(params_[i], "backward.computation", false);
      base::computation(params_[i], "", true);  // aicb gives the weight-gradient GEMM no stage
    }
  }

  void gather_directly(std::size_t i) {
    if (!gathered_[i]) {
      base::emit(base::dp_item(csv_op::all_gather, params_[i].bytes(), stage_));
      gathered_[i] = true;
      live_ += static_cast<std::int64_t>(params_[i].numel());
    }
    compute(i);
  }

  void gather_prefetch(std::size_t i) {
    bucket_.clear();
    std::uint64_t bucket_elements = 0;
    if (!gathered_[i]) {
      bucket_.push_back(i);
      bucket_elements += params_[i].numel();
      queue_.pop_front();  // DeepSpeed expects the trace's next entry to be this parameter
      gathered_[i] = true;
      live_ += static_cast<std::int64_t>(params_[i].numel());
    }
    while (!queue_.empty() && bucket_elements < a_.prefetch_bucket_size &&
           live_ < static_cast<std::int64_t>(a_.max_live_parameters)) {
      const queued next = queue_.front();
      queue_.pop_front();
      most_recent_[next.param] = std::max(most_recent_[next.param], next.step_id);
      if (gathered_[next.param]) continue;
      bucket_.push_back(next.param);
      gathered_[next.param] = true;
      live_ += static_cast<std::int64_t>(params_[next.param].numel());
      bucket_elements += params_[next.param].numel();
    }
    if (bucket_.empty()) return;
    std::uint64_t bytes = 0;
    for (std::size_t p : bucket_)
      bytes += params_[p].bytes();
    base::emit(base::dp_item(csv_op::all_gather, bytes, stage_));
    for (std::size_t p : bucket_)
      compute(p);
  }

  void release(std::size_t i, std::int64_t step_id) {
    if (!queue_.empty()) {
      if (persistent_[i]) return;
      if (most_recent_[i] > step_id) return;  // needed again soon
    }
    // With an empty trace DeepSpeed releases every parameter, persistent ones included.
    gathered_[i] = false;
    live_ -= static_cast<std::int64_t>(params_[i].numel());
  }

  std::vector<bool> persistent_, gathered_;
  std::vector<std::int64_t> most_recent_;  // the last trace step a parameter was prefetched for
  std::deque<queued> queue_;
  std::vector<std::size_t> bucket_;
  std::int64_t live_ = 0;  // parameters gathered now (elements); DeepSpeed's count can dip below 0
  std::uint64_t reduce_bucket_ = 0;
  bool forward_ = true;
  std::string_view stage_ = "forward.allgather_fn";
};

}  // namespace detail

/// Generates the ZeRO workload of `a.stage` (1, 2 or 3) as CSV items passed to `sink` in order.
template <class Sink>
void generate_deepspeed_csv(const aicb_args& a, compat_mode mode, Sink&& sink) {
  if (a.stage == 1 || a.stage == 2) {
    detail::zero12_generator<std::remove_reference_t<Sink>> g(a, mode, sink);
    g.run();
  } else if (a.stage == 3) {
    detail::zero3_generator<std::remove_reference_t<Sink>> g(a, mode, sink);
    g.run();
  } else {
    AICB_THROW(config_error("stage", std::to_string(a.stage), "ZeRO stages are 1, 2 and 3"));
  }
}

AICB_END_NAMESPACE
