// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::simulate_serving — a stream of requests (aicb/model/requests.hpp) served by one deployment:
/// a continuous-batching engine forms steps, the step model (aicb::inference_step, priced by a
/// compute model and the cluster) times them, and every request gets its time to first token, time
/// per output token and end-to-end latency.
///
/// ```cpp
/// aicb::serving_spec layout{.tensor_parallel = 1, .attention_data_parallel = 8, .expert_parallel = 8,
///                           .weights = aicb::dtype::fp8};
/// const aicb::serving_stream_report r = aicb::simulate_serving(
///     aicb::presets::deepseek_v3, layout, aicb::synthetic_requests({.requests = 10000, .rate = 40}),
///     aicb::roofline_model("H200"), aicb::cluster_preset("dgx-h200"));
/// ```
///
/// The engine (aicb::serving_engine) follows vLLM's V1 scheduler (vllm/v1/core/sched/scheduler.py;
/// its options are vLLM's `max_num_batched_tokens`, `max_num_seqs`, `block_size`,
/// `gpu_memory_utilization`): one token budget per step; the running requests first — each decoding
/// request one token, a partly prefilled prompt its next chunk — then the waiting requests first come
/// first served, each admitted with the chunk of its prompt the budget leaves (chunked prefill) while
/// the running requests stay under the limit and the KV cache has blocks for the chunk. A running
/// request that needs a block when none is free preempts the latest admitted one (recomputation: its
/// blocks are freed, and it returns to the head of the queue with its prompt and the tokens it has
/// generated as a new prompt). The step that completes a prompt emits its first output token.
///
/// With DP-attention each group is an engine of its own (requests dealt round-robin in arrival
/// order, as SGLang's data-parallel controller does by default); the groups step together, since the
/// experts' dispatch and combine join them, and a step takes the time of the group with the most
/// work.
///
/// Pricing a step: each group's step is the step model's operations for its tokens — the
/// computations and collectives that grow with the tokens (projections, experts, norms, TP and EP
/// collectives) as a prefill step of that many tokens prices them when the step holds a prompt chunk
/// (engines run such steps with the prefill kernels: DeepEP's normal mode, MLA's decompressed heads),
/// as a decode step does when it holds only decoding requests, the output layer for one row per
/// scheduled request, and the attention cores for what each request attends: a decoding request over
/// its context, a prompt chunk over its own tokens (causal) and the tokens before it. The
/// token-proportional part is evaluated exactly at 1 to 64 tokens and at steps of 2^(1/8) above,
/// and interpolated between; the attention cores are priced for each step's shapes exactly.
///
/// Local layers (a sliding window, attention chunks) hold the span's last tokens only, as vLLM's
/// hybrid allocator frees the blocks out of the window: a request's cache is its tokens' blocks for
/// the other layers and the span's for the local ones. Recurrent layers (Gated DeltaNet, Mamba-2)
/// hold a state per running request whatever its length, and their scans are priced per step's
/// shapes like the attention cores: a decoding request's state update, a prompt chunk's scan from
/// the state its earlier chunks left.
///
/// Speculative decoding with a model's MTP module (serving_spec::mtp_drafts): a decoding request
/// verifies its token and its drafts in one step (the decoder over 1 + drafts positions, the module
/// once per draft) and yields 1 + a + … + a^drafts tokens on average (serving_engine::
/// draft_acceptance); a prompt chunk also runs the module over its tokens.

#include <aicb/compute/cluster.hpp>
#include <aicb/compute/gpu.hpp>
#include <aicb/compute/iteration_estimate.hpp>
#include <aicb/compute/model.hpp>
#include <aicb/compute/serving_estimate.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/python_float.hpp>
#include <aicb/enum_names.hpp>
#include <aicb/error.hpp>
#include <aicb/model/requests.hpp>
#include <aicb/model/serving.hpp>
#include <aicb/schedule/inference_step.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// Whose scheduler forms an engine's steps.
enum class serving_policy : std::uint8_t {
  /// vLLM's V1 scheduler (the file comment): each step shares one token budget among the running
  /// requests and the prompts admitted — decoding and prefilling in the same step.
  vllm,
  /// SGLang's scheduler (python/sglang/srt/managers/scheduler.py and schedule_policy.py, server
  /// defaults of SGLang 0.4): a step either prefills or decodes, prompts first. While requests wait
  /// and fewer than max_running run, the step takes the prompt being chunked, then waiting prompts
  /// first come first served up to the token budget (SGLang's chunked_prefill_size; a prompt longer
  /// than what is left is cut there and continued by the next prefill step), each admitted only
  /// while the KV cache, less what the running requests are expected to still need, holds its whole
  /// prompt and output (outputs clipped at 4096 tokens): a running request's remaining output is
  /// counted at new_token_ratio, 0.7 decaying to 0.098 over 600 decode steps (global_config's
  /// defaults) and back to 0.7 when the engine is idle. Otherwise the step decodes every running
  /// request; when the cache cannot take their next tokens the latest admitted are retracted (their
  /// prompt and output so far recomputed later, as vLLM's preemption) and the ratio rises to what the
  /// remaining requests have generated plus 20 steps of each, over their whole outputs. A decode
  /// instance of a disaggregated deployment admits the requests whose prompt has arrived in its cache
  /// under the same rule, at the start of a decode step (SGLang's decode server preallocates against
  /// the same reservation).
  sglang,
};

template <>
struct enum_names<serving_policy> {
  static constexpr std::array<std::string_view, 2> value{"vllm", "sglang"};
};

/// The engine's options (vLLM's names in the file comment).
struct serving_engine {
  /// Whose scheduler forms the steps (serving_policy); the options below keep their meaning, the
  /// token budget bounding a prefill step's prompt tokens under SGLang's.
  serving_policy policy = serving_policy::vllm;
  std::uint64_t token_budget = 8192;  ///< tokens a step processes per DP-attention group
  std::uint64_t max_running = 256;    ///< requests running at once per group
  std::uint64_t block_tokens = 16;    ///< tokens per KV-cache block
  double memory_fraction = 0.9;       ///< share of GPU memory for weights and KV cache
  bool chunked_prefill = true;        ///< false: a prompt is admitted only whole
  /// A decode instance of a disaggregated deployment: each request's prompt arrives in the KV cache
  /// (sent by a prefill instance) with its first token, and is admitted straight into decoding (a
  /// request preempted there recomputes its prompt as usual).
  bool prompts_arrive_cached = false;
  /// The clients' side: at most this many requests outstanding (0: no bound). A request is sent at
  /// its arrival time or, when that many are in flight, as soon as one finishes — a closed loop of
  /// that many users when every arrival is 0, as `vllm bench serve` and `sglang.bench_serving` run
  /// with `--max-concurrency`. A request's arrival is then when it was sent (its TTFT counts from there).
  std::uint64_t concurrency = 0;
  /// Speculative decoding (serving_spec::mtp_drafts > 0): the chance that a draft token is accepted
  /// once the drafts before it were — each decode step then yields 1 + a + a² + … + a^drafts tokens a
  /// request on average. DeepSeek-V3's report measures 0.85–0.90 for its MTP module's draft (arXiv
  /// 2412.19437, §5.4.3); the lower end is the default.
  double draft_acceptance = 0.85;
  /// Prefix caching (vLLM's automatic prefix caching, SGLang's radix cache; both on by default): the
  /// full blocks of a request's shared prefix (serving_request::prefix_id, prefix_tokens), once
  /// computed, are kept and shared by every later request of that prefix, which computes only the
  /// rest of its prompt; kept after their last request leaves, evicted least recently used when a
  /// request needs blocks. For models whose every layer keeps every token's KV (no local or
  /// recurrent layers).
  bool prefix_caching = true;
  /// The host's time per step that the GPUs wait through, µs: scheduling the step, preparing its
  /// inputs, and the sampling and bookkeeping that an engine without a hidden (overlap) scheduler
  /// runs between two steps. Each step starts that much after the engine takes it up; its requests'
  /// latencies include it, the GPUs' busy time does not. 0 (the default): hidden entirely. For scale:
  /// TensorRT-LLM's PyTorch executor, with its overlap scheduler, still leaves about 580 µs a step
  /// exposed decoding Llama-3.1-8B on a B200 at concurrency 64 (NVIDIA/TensorRT-LLM issue 13957).
  double step_overhead_us = 0;
  /// The engine forms each step while the one before it runs on the GPUs (SGLang's overlap scheduler,
  /// on by default since SGLang 0.4; vLLM's async scheduling): the host's work between steps hides
  /// behind the GPUs, but a request that arrives while a step runs misses the next step, already
  /// formed, and waits for the one after it. An idle engine takes an arrival at once.
  bool overlap_schedule = false;
  /// The engine takes in newly arrived requests only every this many decode steps (SGLang's
  /// --scheduler-recv-interval: its scheduler polls its input after a step when a counter, raised by
  /// 1 for each decode step and past the interval by a step that computed prompt tokens, reaches the
  /// interval, then restarts; sglang/srt/managers/scheduler_recv_skipper.py). An idle engine takes an
  /// arrival at once (its idle loop turns the counter in microseconds). 1 (the default): every step.
  std::uint64_t receive_interval = 1;
  /// The front end between the engine and its clients: one process that hands each step's new tokens
  /// of a request to its client as one message, one message after another (SGLang's tokenizer
  /// manager, a single Python process that detokenizes nothing itself but builds and sends every
  /// streamed chunk; an HTTP server's event loop). A message costs `stream_message_us`, plus
  /// `stream_token_us` for each token of text it carries: the request's whole output so far when the
  /// server streams cumulative text (`stream_cumulative`: SGLang's native /generate endpoint, whose
  /// chunks each hold all the text, until its incremental streaming option), else the new tokens.
  /// A request's tokens reach its client when their message is sent: its TTFT, inter-token gaps and
  /// end count from there, and a closed loop of clients (concurrency) sends the next request then.
  /// The engine does not wait for the front end (its outputs queue). 0 (the default): no front end.
  /// For scale: SGLang's client-side inter-token latency at a batch of 1024 is 180 ms against 39 ms
  /// on the engine's side (sgl-project/sglang issue 23393), about 175 µs a message.
  double stream_message_us = 0;
  double stream_token_us = 0;      ///< see stream_message_us
  bool stream_cumulative = false;  ///< see stream_message_us
  /// Whether a front end delivers the tokens (stream_message_us or stream_token_us above 0).
  [[nodiscard]] bool has_front_end() const noexcept { return stream_message_us > 0 || stream_token_us > 0; }
  /// Tokens a decoding request yields a step on average (1 without drafts).
  [[nodiscard]] double tokens_per_decode_step(std::uint64_t drafts) const noexcept {
    double yield = 1, accepted = 1;
    for (std::uint64_t d = 0; d < drafts; ++d)
      yield += accepted *= draft_acceptance;
    return yield;
  }
};

/// What one group's step does: its scheduled tokens, one row of logits per scheduled request, the
/// decoding requests with their summed context, and each prompt chunk with the tokens before it.
struct serving_step_shape {
  struct chunk {
    std::uint64_t tokens = 0, before = 0;
  };
  std::uint64_t decoding = 0;
  std::uint64_t drafts = 0;   ///< speculative tokens each decoding request has verified beside its own
  double decode_context = 0;  ///< keys the decoding requests attend over, summed
  std::vector<chunk> chunks;
  /// Tokens through the model: each decoding request's 1 + drafts, each chunk's.
  [[nodiscard]] std::uint64_t tokens() const noexcept {
    std::uint64_t n = decoding * (1 + drafts);
    for (const chunk& c : chunks)
      n += c.tokens;
    return n;
  }
  /// Rows of logits: every verified position of a decoding request, the last of each chunk.
  [[nodiscard]] std::uint64_t rows() const noexcept { return decoding * (1 + drafts) + chunks.size(); }
};

/// Prices serving steps of one deployment (see the file comment).
class serving_step_pricer {
 public:
  serving_step_pricer(const model_spec& model, const serving_spec& layout, const compute_model& compute,
                      const cluster_spec& cluster)
      : model_(model), layout_(layout), compute_(compute), cluster_(cluster) {
    if (layout.mtp_drafts > 0 && model.num_mtp_layers == 0)
      AICB_THROW(config_error("mtp_drafts", std::to_string(layout.mtp_drafts),
                              "the model has no multi-token-prediction module to draft with "
                              "(num_mtp_layers 0)"));
    // The attention cores' shapes: one request per group, from a decode step (over a context; with
    // drafts: the decoder's over its 1 + drafts positions and the draft module's, once per draft)
    // and a prefill step (over a prompt; with drafts, the draft module's over it too).
    serving_spec one = layout_;
    one.batch = layout_.attention_data_parallel;
    one.phase = inference_phase::decode;
    one.context = 2;
    one.prompt = 0;
    const inference_step decode(model_, one, 0);
    one.phase = inference_phase::prefill;
    one.prompt = core_prompt_tokens;
    one.context = 0;
    one.mtp_drafts = layout_.mtp_drafts > 0 ? 1 : 0;
    const inference_step prefill(model_, one, 0);
    for (const operation& op : decode.operations())
      if (attention_core(op)) decode_cores_.push_back(op.compute);
    for (const operation& op : prefill.operations())
      if (attention_core(op))
        (op.layer >= model_.num_layers ? prompt_draft_cores_ : prefill_cores_).push_back(op.compute);
    drafts_ = layout_.mtp_drafts;
    weight_bytes_ = decode.weight_bytes();
    kv_bytes_per_token_ = decode.kv_bytes_per_token();
    local_kv_bytes_per_token_ = decode.local_kv_bytes_per_token();
    state_bytes_per_request_ = decode.state_bytes_per_request();
    model_state_bytes_per_request_ = decode.model_state_bytes_per_request();
  }

  /// A group's step, microseconds.
  [[nodiscard]] double step_us(const serving_step_shape& s) {
    if (s.tokens() == 0) return 0;
    // A step with a prompt chunk runs the prefill form of the layers (DeepEP's normal kernels, MLA's
    // decompressed heads), a decode-only step the decode form (low-latency kernels, absorbed MLA).
    double us = token_part_us(s.tokens(), s.chunks.empty() ? part::decode_layers : part::prefill_layers) +
                token_part_us(s.rows(), part::output);
    // The draft module: once per draft on each decoding request's token, and once over the step's
    // prompt chunks (its input and its layer over their tokens, its own KV cache filled as the
    // decoder's is, and its head on each chunk's last token).
    if (drafts_ > 0) {
      if (s.decoding > 0) us += static_cast<double>(drafts_) * token_part_us(s.decoding, part::draft);
      if (!s.chunks.empty()) {
        std::uint64_t prompt_tokens = 0;
        for (const serving_step_shape::chunk& c : s.chunks) {
          prompt_tokens += c.tokens;
          us += chunk_cores_us(prompt_draft_cores_, c);
        }
        us += token_part_us(prompt_tokens, part::prompt_draft) + token_part_us(s.chunks.size(), part::output);
      }
    }
    if (s.decoding > 0) {
      const auto context = static_cast<std::uint64_t>(
          std::max(1.0, std::round(s.decode_context / static_cast<double>(s.decoding))));
      for (compute_op op : decode_cores_) {
        op.batch *= s.decoding;
        if (op.kind != op_kind::linear_attention) op.n = context;  // a recurrent state is its own size
        us += duration_us(op);
      }
    }
    for (const serving_step_shape::chunk& c : s.chunks)
      us += chunk_cores_us(prefill_cores_, c);
    return us;
  }

  /// Bytes of weights each GPU holds, and of KV cache per token of context.
  [[nodiscard]] double weight_bytes() const noexcept { return weight_bytes_; }
  [[nodiscard]] double kv_bytes_per_token() const noexcept { return kv_bytes_per_token_; }
  /// The local layers' part of it (a sliding window's or a chunk's: it stops growing past the span).
  [[nodiscard]] double local_kv_bytes_per_token() const noexcept { return local_kv_bytes_per_token_; }
  /// Bytes of recurrent state (Gated DeltaNet, Mamba-2) a request holds on each GPU whatever its
  /// length, and in the whole model (one copy).
  [[nodiscard]] double state_bytes_per_request() const noexcept { return state_bytes_per_request_; }
  [[nodiscard]] double model_state_bytes_per_request() const noexcept {
    return model_state_bytes_per_request_;
  }
  /// Steps the step model has played so far (the token-proportional parts' grid points).
  [[nodiscard]] std::size_t evaluated_steps() const noexcept {
    return decode_grid_.size() + prefill_grid_.size() + draft_grid_.size();
  }
  /// Speculative tokens a decoding request verifies a step (the layout's drafts).
  [[nodiscard]] std::uint64_t drafts() const noexcept { return drafts_; }

 private:
  // Computations whose work follows what each request attends: attention cores, the sparse
  // indexer's scores, and the recurrent layers' scans (each request's state read and written).
  static bool attention_core(const operation& op) noexcept {
    return op.type == op_type::compute &&
           (op.compute.kind == op_kind::attention || op.compute.kind == op_kind::attention_index ||
            op.compute.kind == op_kind::linear_attention);
  }
  double duration_us(const compute_op& op) const {
    return static_cast<double>(compute_.duration(op).count()) / 1000;
  }
  // A prompt chunk's attention cores (a prefill step's, `cores`): its own tokens (causal) and, after
  // earlier chunks, every chunk token over every earlier token; a recurrent scan over its tokens from
  // the state the earlier chunks left. A core's rows are its query tokens times the query heads it
  // folds into one problem (a KV group's, with grouped-query attention): the captured core's rows
  // per prompt token scale with the chunk.
  double chunk_cores_us(const std::vector<compute_op>& cores, const serving_step_shape::chunk& c) const {
    double us = 0;
    for (const compute_op& core : cores) {
      const std::uint64_t rows = c.tokens * (core.m / core_prompt_tokens);
      if (core.kind == op_kind::linear_attention) {
        compute_op scan = core;
        scan.m = rows;
        us += duration_us(scan);
        continue;
      }
      compute_op own = core;
      own.m = rows;
      own.n = c.tokens;
      us += duration_us(own);
      if (c.before > 0) {
        compute_op earlier = core;
        earlier.causal = false;
        earlier.m = rows;
        earlier.n = c.before;
        us += duration_us(earlier);
      }
    }
    return us;
  }

  // The token-proportional parts: the embedding and the layers without their attention cores, as a
  // decode step or a prefill step runs them, and the output layer after the last layer (for as many
  // rows as tokens, from the decode step, which computes logits for every token).
  // With drafts: one pass of the draft module at that many requests (draft; from a decode step of
  // one draft, its head included), and its pass over that many prompt tokens without its head
  // (prompt_draft; from a prefill step with drafts).
  enum class part { decode_layers, prefill_layers, output, draft, prompt_draft };
  struct token_parts {
    double layers_us = 0;
    double output_us = 0;
    double draft_us = 0;       // the draft module's input and layer
    double draft_head_us = 0;  // the draft module's head (its norm, logits and their gather)
  };
  // A part at `tokens` per group.
  double token_part_us(std::uint64_t tokens, part which) {
    const auto value = [&](std::uint64_t n) {
      if (which == part::draft) {
        const token_parts& p = at(draft_grid_, n, inference_phase::decode, 1);
        return p.draft_us + p.draft_head_us;
      }
      if (which == part::prefill_layers || which == part::prompt_draft) {
        const token_parts& p = at(prefill_grid_, n, inference_phase::prefill, drafts_ > 0 ? 1 : 0);
        return which == part::prompt_draft ? p.draft_us : p.layers_us;
      }
      const token_parts& p = at(decode_grid_, n, inference_phase::decode);
      return which == part::output ? p.output_us : p.layers_us;
    };
    if (tokens <= 64) return value(tokens);
    // Grid points at 64 · 2^(k/8), rounded: interpolate between the two around `tokens`.
    const double k = std::floor(8 * std::log2(static_cast<double>(tokens) / 64));
    auto low = static_cast<std::uint64_t>(std::llround(64 * std::exp2(k / 8)));
    auto high = static_cast<std::uint64_t>(std::llround(64 * std::exp2((k + 1) / 8)));
    low = std::min(low, tokens);
    high = std::max(high, tokens);
    if (low == high) return value(low);
    const double a = value(low), b = value(high);
    return a + (b - a) * static_cast<double>(tokens - low) / static_cast<double>(high - low);
  }
  // The parts at `tokens` per group: a decode step of that many requests at a context of 1 (with
  // `drafts` drafts each), or a prefill step of one request of that many tokens per group.
  const token_parts& at(std::map<std::uint64_t, token_parts>& grid, std::uint64_t tokens,
                        inference_phase phase, std::uint64_t drafts = 0) {
    auto it = grid.find(tokens);
    if (it != grid.end()) return it->second;
    serving_spec s = layout_;
    s.phase = phase;
    s.mtp_drafts = drafts;
    if (phase == inference_phase::decode) {
      s.batch = tokens * layout_.attention_data_parallel;
      s.context = 1;
      s.prompt = 0;
    } else {
      s.batch = layout_.attention_data_parallel;
      s.prompt = tokens;
      s.context = 0;
    }
    const inference_step step(model_, s, 0);
    token_parts parts;
    bool in_layers = false;
    static_cast<void>(play_serving_step(step, compute_, cluster_, [&](const serving_interval& i) {
      const operation& op = *i.op;
      if (op.layer != no_layer) in_layers = true;
      if (attention_core(op)) return;
      const double us = i.end_us - i.start_us;
      if (op.layer != no_layer && op.layer >= model_.num_layers) {  // the draft module: its head apart
        const bool head = op.type == op_type::compute
                              ? op.compute.role == op_role::final_norm || op.compute.role == op_role::logits
                              : op.name == "logits_gather";
        (head ? parts.draft_head_us : parts.draft_us) += us;
        return;
      }
      (in_layers && op.layer == no_layer ? parts.output_us : parts.layers_us) += us;
    }));
    return grid.emplace(tokens, parts).first->second;
  }

  model_spec model_;
  serving_spec layout_;
  const compute_model& compute_;
  cluster_spec cluster_;
  // The prompt of the prefill step the prefill cores are captured from (rows per token: m / this).
  static constexpr std::uint64_t core_prompt_tokens = 2;
  std::vector<compute_op> decode_cores_, prefill_cores_, prompt_draft_cores_;
  std::map<std::uint64_t, token_parts> decode_grid_, prefill_grid_, draft_grid_;
  std::uint64_t drafts_ = 0;
  double weight_bytes_ = 0, kv_bytes_per_token_ = 0, local_kv_bytes_per_token_ = 0;
  double state_bytes_per_request_ = 0, model_state_bytes_per_request_ = 0;
};

/// One request's fate: when its first token came and when it finished (seconds from the stream's
/// start), and how often it was preempted.
struct served_request {
  serving_request request;
  double admitted_s = 0;  ///< when its first step began (after queueing; a disaggregated run: on prefill)
  double first_token_s = 0, finish_s = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t cached_tokens = 0;  ///< prompt tokens found in the prefix cache (every admission's)
  [[nodiscard]] double ttft_s() const noexcept { return first_token_s - request.arrival_s; }
  [[nodiscard]] double e2e_s() const noexcept { return finish_s - request.arrival_s; }
  /// Time per output token after the first (0 for a request of one output token).
  [[nodiscard]] double tpot_s() const noexcept {
    return request.output > 1 ? (finish_s - first_token_s) / static_cast<double>(request.output - 1) : 0;
  }
};

/// A kind of step the stream ran, and how often: the steps of one form (prefill: a step holding a
/// prompt chunk, run with the prefill kernels; decode: decoding requests only) whose busiest group
/// scheduled about `tokens` tokens — rounded to the pricer's grid (exact to 64, then steps of
/// 2^(1/8)) — and, for decode, attended over about `context` keys per request (rounded to steps of
/// 2^(1/4)). The mix of a run: what a simulator needs to replay it as distinct steps with counts.
struct serving_step_kind {
  inference_phase form = inference_phase::decode;
  std::uint64_t tokens = 0;   ///< per DP-attention group (the busiest group's)
  std::uint64_t context = 0;  ///< decode: keys attended per request; prefill: 0
  std::uint64_t count = 0;    ///< steps of this kind
  double busy_s = 0;          ///< their time
  std::uint64_t drafts = 0;   ///< decode: speculative tokens each request verified (tokens counts them)
};

/// The nearest point of a grid exact to 64 and in steps of 2^(1/`per_octave`) above (at least 1).
[[nodiscard]] inline std::uint64_t serving_grid_point(double value, int per_octave) noexcept {
  if (!(value > 1)) return 1;
  if (value <= 64) return static_cast<std::uint64_t>(std::llround(value));
  const double k = std::round(per_octave * std::log2(value / 64));
  return static_cast<std::uint64_t>(std::llround(64 * std::exp2(k / per_octave)));
}

/// Many durations in flat memory: counts in bins 2^(1/32) wide (2.2%) from 1 µs up, with the exact
/// count, sum and largest. A quantile is its bin's geometric middle: within 1.1% of the exact one.
/// The inter-token latencies of a run (a gap per token after the first of every request) number
/// its output tokens, too many to keep one by one.
struct duration_histogram {
  static constexpr double bins_per_octave = 32;
  static constexpr double floor_s = 1e-6;  ///< durations up to this share the first bin
  std::vector<std::uint64_t> bins;
  std::uint64_t count = 0;
  double sum_s = 0, max_s = 0;

  void add(double seconds) {
    const double s = std::max(seconds, 0.0);
    const auto bin = s <= floor_s
                         ? std::size_t{0}
                         : 1 + static_cast<std::size_t>(std::floor(std::log2(s / floor_s) * bins_per_octave));
    if (bin >= bins.size()) bins.resize(bin + 1, 0);
    ++bins[bin];
    ++count;
    sum_s += s;
    max_s = std::max(max_s, s);
  }
  void merge(const duration_histogram& other) {
    if (other.bins.size() > bins.size()) bins.resize(other.bins.size(), 0);
    for (std::size_t b = 0; b < other.bins.size(); ++b)
      bins[b] += other.bins[b];
    count += other.count;
    sum_s += other.sum_s;
    max_s = std::max(max_s, other.max_s);
  }
  [[nodiscard]] double mean_s() const noexcept { return count > 0 ? sum_s / static_cast<double>(count) : 0; }
  /// The duration of rank ceil(q · count) (at least the first), as its bin's middle, never above the
  /// largest; 0 when empty.
  [[nodiscard]] double quantile(double q) const noexcept {
    if (count == 0) return 0;
    const auto rank =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count))));
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < bins.size(); ++b) {
      seen += bins[b];
      if (seen >= rank) {
        if (b == 0) return std::min(floor_s, max_s);
        const double middle = floor_s * std::exp2((static_cast<double>(b) - 0.5) / bins_per_octave);
        return std::min(middle, max_s);
      }
    }
    return max_s;
  }
};

/// The stream served: every request, and the engine's totals.
struct serving_stream_report {
  serving_engine engine;
  std::vector<served_request> requests;  ///< in the order given
  std::uint64_t steps = 0, preemptions = 0;
  std::uint64_t prefix_cached_tokens = 0;  ///< prompt tokens found in the prefix cache, over the run
  std::uint64_t prefix_evictions = 0;      ///< cached prefixes evicted to make room
  double busy_s = 0;                       ///< time the deployment spent in steps
  double end_s = 0;                        ///< when the last request finished
  std::uint64_t kv_capacity_tokens = 0;    ///< per DP-attention group, with no recurrent state held
  double peak_kv_share = 0;                ///< the fullest group's largest share of its cache in use
  double weight_bytes = 0, kv_bytes_per_token = 0;
  double state_bytes_per_request = 0;         ///< recurrent layers' state a running request holds, per GPU
  std::vector<serving_step_kind> step_kinds;  ///< the mix, most time first
  /// The gaps between consecutive tokens of each request (inter-token latency, as serving benchmarks
  /// measure it), one per step that gives a request tokens after its first; a request whose prompt
  /// arrived cached counts from its first step here.
  duration_histogram inter_token;
};

/// One step as a stream ran it, for a timeline: when it began and ended (seconds from the stream's
/// start), and what each DP-attention group scheduled with its own time — the step lasts as long as
/// the busiest group's. `instance` numbers the engine within its deployment; `prefill_instance` marks a
/// disaggregated deployment's prefill side.
struct serving_step_record {
  double start_s = 0, end_s = 0;
  std::vector<serving_step_shape> groups;
  std::vector<double> group_s;
  std::uint64_t instance = 0;
  bool prefill_instance = false;
};

/// The observer simulate_serving calls by default: none (no record is built).
struct no_step_observer {
  void operator()(const serving_step_record&) const noexcept {}
};

/// The indices of `requests` in arrival order (stable: equal arrivals keep their given order).
[[nodiscard]] inline std::vector<std::size_t> arrival_order(const std::vector<serving_request>& requests) {
  std::vector<std::size_t> order(requests.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return requests[a].arrival_s < requests[b].arrival_s;
  });
  return order;
}

namespace detail {

// One engine of a deployment (a whole aggregated deployment, or one prefill or decode instance of a
// disaggregated one), stepped by its driver: the driver sends it requests (send), asks when its next
// step begins (next_start) and takes that step (step), which reports each request that finishes.
// The drivers below run one instance alone (simulate_serving) or several side by side in time
// order (simulate_disaggregated_serving). `requests` is the whole stream, indexed as the driver
// sends it; the instance serves those it is sent.
template <class OnStep>
class serving_instance {
 public:
  static constexpr bool observed = !std::is_same_v<std::decay_t<OnStep>, no_step_observer>;

  serving_instance(const model_spec& model, const serving_spec& layout,
                   const std::vector<serving_request>& requests, const compute_model& compute,
                   const cluster_spec& cluster, const serving_engine& engine, OnStep& on_step)
      : requests_(requests),
        engine_(validated(engine, requests)),
        pricer_(model, layout, compute, cluster),
        on_step_(on_step) {
    const gpu_spec& gpu = require_gpu(cluster.gpu);
    // Speculative decoding: each decoding request verifies 1 + drafts positions a step (their KV
    // slots held ahead, as vLLM's lookahead slots) and yields `yield` tokens on average — whole
    // tokens a step, the fraction carried to the next (deterministic).
    drafts_ = pricer_.drafts();
    yield_ = engine.tokens_per_decode_step(drafts_);
    out_.engine = engine;
    out_.weight_bytes = pricer_.weight_bytes();
    out_.kv_bytes_per_token = pricer_.kv_bytes_per_token();
    free_bytes_ = gpu.memory_bytes() * engine.memory_fraction - out_.weight_bytes;
    if (!(free_bytes_ > 0))
      AICB_THROW(config_error("memory_fraction", std::to_string(engine.memory_fraction),
                              "the weights (" + std::to_string(out_.weight_bytes / 1e9) +
                                  " GB a GPU) leave no memory for a KV cache: more GPUs, or FP8 weights"));
    out_.state_bytes_per_request = pricer_.state_bytes_per_request();
    const auto blocks_total =
        out_.kv_bytes_per_token > 0
            ? static_cast<std::uint64_t>(free_bytes_ /
                                         (out_.kv_bytes_per_token * static_cast<double>(engine.block_tokens)))
            : 0;
    out_.kv_capacity_tokens = blocks_total * engine.block_tokens;
    // The cache a request holds, in units: blocks of every layer's KV — or, with local layers (a
    // sliding window, chunks) or recurrent layers, bytes: the other layers' blocks for every token,
    // the local layers' blocks for the span's last tokens only (vLLM's hybrid allocator frees those
    // out of the window), and the recurrent layers' state, one per running request whatever its
    // length (as vLLM's hybrid allocator and SGLang's state pool hold it).
    const double local_per_token = pricer_.local_kv_bytes_per_token();
    span_ = model.local_attention_span();
    local_ = local_per_token > 0 && span_ > 0;
    const bool in_bytes = local_ || out_.state_bytes_per_request > 0;
    const double block = static_cast<double>(engine.block_tokens);
    full_unit_ =
        in_bytes ? static_cast<std::uint64_t>(std::ceil((out_.kv_bytes_per_token - local_per_token) * block))
                 : 1;
    local_unit_ = local_ ? static_cast<std::uint64_t>(std::ceil(local_per_token * block)) : 0;
    state_unit_ = static_cast<std::uint64_t>(std::ceil(out_.state_bytes_per_request));
    cache_total_ = in_bytes ? static_cast<std::uint64_t>(free_bytes_) : blocks_total;
    prefixes_ = engine.prefix_caching && !engine.prompts_arrive_cached &&
                std::any_of(requests.begin(), requests.end(),
                            [](const serving_request& r) { return r.prefix_tokens > 0; });
    if (prefixes_ && in_bytes)
      AICB_THROW(
          config_error("prefix_caching", "true",
                       "prefix caching is simulated for models whose every layer keeps every token's KV "
                       "(no sliding-window, chunked or recurrent layers): serve without it (aicb serve "
                       "--no-prefix-caching)"));
    out_.requests.resize(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i)
      out_.requests[i].request = requests[i];
    groups_.resize(layout.attention_data_parallel);
    for (group& g : groups_)
      g.free_cache = cache_total_;
    shapes_.resize(groups_.size());
    scheduled_.resize(groups_.size());
  }

  // The engine's options and the stream, checked before anything is priced.
  static const serving_engine& validated(const serving_engine& engine,
                                         const std::vector<serving_request>& requests) {
    const auto refuse = [](const char* field, const std::string& value, const char* rule) {
      AICB_THROW(config_error(field, value, rule));
    };
    if (engine.token_budget == 0) refuse("token_budget", "0", "expected at least 1 token a step");
    if (engine.max_running == 0) refuse("max_running", "0", "expected at least 1 running request");
    if (engine.block_tokens == 0) refuse("block_tokens", "0", "expected at least 1 token a block");
    if (engine.receive_interval == 0 || engine.receive_interval > 1000000)
      refuse("receive_interval", std::to_string(engine.receive_interval),
             "expected 1 to 1,000,000 decode steps (1: every step takes in what arrived)");
    if (!(engine.memory_fraction > 0 && engine.memory_fraction <= 1))
      refuse("memory_fraction", std::to_string(engine.memory_fraction), "expected a fraction in (0, 1]");
    if (requests.empty()) refuse("requests", "0", "expected at least one request");
    if (requests.size() > max_serving_requests)
      refuse("requests", std::to_string(requests.size()), "expected at most 10,000,000 requests");
    for (const serving_request& r : requests)
      if (!(r.arrival_s >= 0 && r.arrival_s <= max_arrival_s) || r.prompt == 0 || r.output == 0)
        refuse("request", std::to_string(r.id),
               "expected an arrival in [0, 1e9] s, a prompt and an output of at least 1 token");
    if (!(engine.step_overhead_us >= 0 && engine.step_overhead_us <= 1e6))
      refuse("step_overhead_us", detail::python_float_repr(engine.step_overhead_us),
             "expected a time in [0, 1e6] us");
    if (!(engine.stream_message_us >= 0 && engine.stream_message_us <= 1e6))
      refuse("stream_message_us", detail::python_float_repr(engine.stream_message_us),
             "expected a time in [0, 1e6] us");
    if (!(engine.stream_token_us >= 0 && engine.stream_token_us <= 1e6))
      refuse("stream_token_us", detail::python_float_repr(engine.stream_token_us),
             "expected a time in [0, 1e6] us");
    if (engine.stream_cumulative && !(engine.stream_token_us > 0))
      refuse("stream_cumulative", "true",
             "cumulative messages cost more only through stream_token_us: give it a time above 0 us");
    if (!(engine.draft_acceptance >= 0 && engine.draft_acceptance <= 1))
      refuse("draft_acceptance", detail::python_float_repr(engine.draft_acceptance),
             "expected a probability in [0, 1]");
    return engine;
  }

  // Refuses request i if this engine cannot serve it at all (before anything is simulated).
  void check(std::size_t i) const {
    const serving_request& r = requests_[i];
    if (engine_.prompts_arrive_cached && r.output < 2)
      AICB_THROW(config_error("request", std::to_string(r.id),
                              "a request whose prompt arrives cached needs at least 2 output tokens (its "
                              "first came with the prompt)"));
    if (!engine_.chunked_prefill && r.prompt > engine_.token_budget)
      AICB_THROW(config_error("request", std::to_string(r.id),
                              "its prompt of " + std::to_string(r.prompt) +
                                  " tokens exceeds the token budget (" +
                                  std::to_string(engine_.token_budget) + ") without chunked prefill"));
    if (cache_for(r.prompt + r.output + drafts_) > cache_total_)
      AICB_THROW(config_error(
          "request", std::to_string(r.id),
          "its " + std::to_string(r.prompt + r.output) + " tokens need more KV cache than a group holds (" +
              (out_.state_bytes_per_request > 0
                   ? std::to_string(free_bytes_ / 1e9) + " GB for the KV cache and recurrent states"
                   : std::to_string(out_.kv_capacity_tokens) + " tokens") +
              ")"));
  }

  // Request i reaches the engine at `at` (its arrival from the engine's side: the report's arrival
  // becomes `at`); the requests sent are dealt to the DP-attention groups round-robin in the order
  // sent, as SGLang's data-parallel controller deals them.
  void send(std::size_t i, double at) {
    group& g = groups_[dealt_++ % groups_.size()];
    out_.requests[i].request.arrival_s = at;
    const auto later =
        std::upper_bound(g.arriving.begin(), g.arriving.end(), at,
                         [](double t, const std::pair<double, std::size_t>& a) { return t < a.first; });
    g.arriving.insert(later, {at, i});
  }

  // When the next step begins: now when a group has a request waiting or running, else at the
  // earliest request sent and not yet arrived (INFINITY: nothing to do until more is sent).
  [[nodiscard]] double next_start() const noexcept {
    double next = INFINITY;
    for (const group& g : groups_) {
      if (!g.waiting.empty() || !g.running.empty()) return clock_;
      if (!g.arriving.empty()) next = std::min(next, g.arriving.front().first);
    }
    return std::isfinite(next) ? std::max(clock_, next) : INFINITY;
  }

  // Takes the step at next_start() (nothing if that is INFINITY); `finished(i, s)` is called for each
  // request i that finishes with it, at s, in the order of the groups and their running requests.
  template <class OnFinish>
  void step(OnFinish&& finished) {
    const double start = next_start();
    if (!std::isfinite(start)) return;
    // The requests this step can see: those arrived by now — or, when the engine formed this step
    // while the previous one ran (overlap_schedule, steps back to back with work in hand), those
    // arrived by the time the previous step began.
    const bool in_hand = std::any_of(groups_.begin(), groups_.end(),
                                     [](const group& g) { return !g.running.empty() || !g.waiting.empty(); });
    horizon_ =
        engine_.overlap_schedule && in_hand && out_.steps > 0 && last_end_ == start ? last_start_ : start;
    if (engine_.receive_interval > 1 && in_hand && out_.steps > 0) {
      receive_counter_ += last_computed_prompt_ ? engine_.receive_interval : 1;
      if (receive_counter_ >= engine_.receive_interval)
        receive_counter_ = 0;
      else
        horizon_ = -INFINITY;  // not polled this step: arrivals wait in the input
    } else {
      receive_counter_ = 0;
    }
    clock_ = start;
    bool any = false;
    for (std::size_t gi = 0; gi < groups_.size(); ++gi)
      any = schedule(gi) || any;
    if (!any)  // a request waiting or arrived can always be scheduled (each fits: see check)
      AICB_THROW(config_error("request", "stream", "no request can be scheduled"));
    double step_us = -1;
    const serving_step_shape* busiest = nullptr;
    if constexpr (observed) record_.group_s.clear();
    for (const serving_step_shape& s : shapes_) {
      const double us = pricer_.step_us(s);
      if constexpr (observed) record_.group_s.push_back(us * 1e-6);
      if (us > step_us) {
        step_us = us;
        busiest = &s;
      }
    }
    clock_ += engine_.step_overhead_us * 1e-6;  // the host prepares the step; the GPUs wait
    // Requests scheduled for the first time begin now.
    for (std::size_t gi = 0; gi < groups_.size(); ++gi)
      for (const auto& planned : scheduled_[gi]) {
        live& r = groups_[gi].running[planned.first];
        if (!r.started) out_.requests[r.index].admitted_s = clock_;
        r.started = true;
      }
    if constexpr (observed) {
      record_.start_s = clock_;
      record_.end_s = clock_ + step_us * 1e-6;
      record_.groups = shapes_;
      on_step_(std::as_const(record_));
    }
    last_start_ = clock_;
    clock_ += step_us * 1e-6;
    last_end_ = clock_;
    out_.busy_s += step_us * 1e-6;
    ++out_.steps;
    last_computed_prompt_ = std::any_of(shapes_.begin(), shapes_.end(),
                                        [](const serving_step_shape& s) { return !s.chunks.empty(); });
    {  // the step's kind
      const bool prefill = !busiest->chunks.empty();
      const std::uint64_t tokens = serving_grid_point(static_cast<double>(busiest->tokens()), 8);
      const std::uint64_t context =
          prefill ? 0
                  : serving_grid_point(busiest->decode_context / static_cast<double>(busiest->decoding), 4);
      serving_step_kind& k = kinds_[{prefill, tokens, context}];
      k.form = prefill ? inference_phase::prefill : inference_phase::decode;
      k.drafts = prefill ? 0 : drafts_;
      k.tokens = tokens;
      k.context = context;
      ++k.count;
      k.busy_s += step_us * 1e-6;
    }
    for (std::size_t gi = 0; gi < groups_.size(); ++gi)
      advance(gi, finished);
  }

  // The report as it stands (the step mix is filled in by report()).
  [[nodiscard]] const serving_stream_report& report_view() const noexcept { return out_; }

  // The report so far, with the mix of steps most time first and the end at the last step's.
  [[nodiscard]] serving_stream_report& report() {
    out_.end_s = std::max(clock_, front_free_);
    out_.step_kinds.clear();
    for (const auto& [key, kind] : kinds_)
      out_.step_kinds.push_back(kind);
    std::stable_sort(
        out_.step_kinds.begin(), out_.step_kinds.end(),
        [](const serving_step_kind& a, const serving_step_kind& b) { return a.busy_s > b.busy_s; });
    return out_;
  }

 private:
  // A request in the engine: its prompt (with the tokens generated before a preemption), how much of
  // it is in the cache, the tokens generated, the cache it holds (units of cache_for).
  struct live {
    std::size_t index = 0;
    std::uint64_t prompt = 0, prefilled = 0, generated = 0, cache = 0;
    bool cached = false;       // its prompt arrives in the cache (prompts_arrive_cached), until a preemption
    bool started = false;      // scheduled at least once (its admission time is recorded)
    double credit = 0;         // drafts: the accepted tokens' fraction not yet yielded
    double last_token_s = -1;  // when its latest token came (-1: none in this instance yet)
    std::uint64_t folded = 0;  // generated tokens a preemption made part of `prompt` (recomputed with it)
    std::uint64_t shared =
        0;  // tokens of its prefix it reads from a cached prefix (its own cache excludes them)
  };
  // A cached prefix: its blocks, the running requests reading them, when it was last used (a step).
  struct cached_prefix {
    std::uint64_t blocks = 0, readers = 0, last_used = 0;
  };
  struct group {
    std::deque<std::pair<double, std::size_t>> arriving;  // sent, not yet arrived: (time, request), by time
    std::deque<live> waiting;                             // arrived, not running: preempted ones at the front
    std::vector<live> running;                            // in admission order
    std::uint64_t free_cache = 0;
    std::map<std::uint64_t, cached_prefix> prefixes;  // by prefix_id
    double new_token_ratio = sglang_init_ratio;       // SGLang's admission estimate (serving_policy)
  };
  // SGLang's admission constants (serving_policy::sglang; global_config and schedule_policy.py).
  static constexpr double sglang_init_ratio = 0.7;
  static constexpr double sglang_min_ratio = 0.7 * 0.14;
  static constexpr double sglang_ratio_decay = (sglang_init_ratio - sglang_min_ratio) / 600;
  static constexpr std::uint64_t sglang_clip_output = 4096;
  static constexpr std::uint64_t sglang_retract_steps = 20;
  static constexpr std::uint64_t no_prefix = UINT64_MAX;

  // The tokens a decoding request's cache holds once its latest token is in: its prompt and every
  // token generated (those a preemption folded into its prompt counted once).
  static std::uint64_t context_of(const live& r) noexcept { return r.prompt + r.generated - r.folded; }

  std::uint64_t blocks_for(std::uint64_t tokens) const noexcept {
    return (tokens + engine_.block_tokens - 1) / engine_.block_tokens;
  }
  // A running request's cache for `tokens` of context (at least 1: a request in the cache).
  std::uint64_t cache_for(std::uint64_t tokens) const noexcept {
    return blocks_for(tokens) * full_unit_ +
           (local_ ? blocks_for(std::min(tokens, span_)) * local_unit_ : 0) + state_unit_;
  }
  // The tokens of request i's shared prefix an engine can take from the cache: its whole blocks,
  // leaving at least one prompt token to compute (the step that emits the first token).
  std::uint64_t shareable(std::size_t i) const noexcept {
    const serving_request& r = requests_[i];
    if (!prefixes_ || r.prefix_tokens == 0) return 0;
    return std::min(r.prefix_tokens, r.prompt - 1) / engine_.block_tokens * engine_.block_tokens;
  }
  // Frees cached prefixes no running request reads, least recently used first (never `keep`), until
  // `need` units are free; false if that is not enough.
  bool reclaim(group& g, std::uint64_t need, std::uint64_t keep) {
    while (g.free_cache < need) {
      auto oldest = g.prefixes.end();
      for (auto it = g.prefixes.begin(); it != g.prefixes.end(); ++it)
        if (it->second.readers == 0 && it->first != keep &&
            (oldest == g.prefixes.end() || it->second.last_used < oldest->second.last_used))
          oldest = it;
      if (oldest == g.prefixes.end()) return false;
      g.free_cache += oldest->second.blocks;
      g.prefixes.erase(oldest);
      ++out_.prefix_evictions;
    }
    return true;
  }
  // A request leaves the running set (finished or preempted): its own cache back, its prefix read no more.
  void release(group& g, const live& r) {
    g.free_cache += r.cache;
    if (r.shared > 0) --g.prefixes[requests_[r.index].prefix_id].readers;
  }
  // Preempts the latest admitted running request (recomputation); false if none is left to preempt
  // but `keep`.
  bool preempt_last(group& g, std::size_t keep) {
    if (g.running.size() <= keep + 1) return false;
    live victim = g.running.back();
    g.running.pop_back();
    release(g, victim);
    ++out_.requests[victim.index].preemptions;
    ++out_.preemptions;
    victim.prompt = requests_[victim.index].prompt + victim.generated;
    victim.folded = victim.generated;
    victim.prefilled = victim.cache = victim.shared = 0;
    victim.credit = 0;
    victim.cached = false;
    g.waiting.push_front(victim);
    return true;
  }

  // Gives running request ri `need` more units of cache: free ones, then those of cached prefixes no
  // one reads, then those of the latest admitted requests after it, preempted (`preempted` set);
  // false if even that is not enough.
  bool grow(group& g, std::size_t ri, std::uint64_t need, bool& preempted) {
    bool fits = need <= g.free_cache || reclaim(g, need, no_prefix);
    while (!fits && preempt_last(g, ri)) {
      preempted = true;
      fits = need <= g.free_cache;
    }
    if (!fits) return false;
    g.free_cache -= need;
    g.running[ri].cache += need;
    return true;
  }

  // Group gi's share of the step at clock_: its arrivals join the queue, then the running requests
  // in admission order and the waiting ones first come first served take the token budget (SGLang's
  // policy: schedule_prefill_first). True if it scheduled anything.
  bool schedule(std::size_t gi) {
    group& g = groups_[gi];
    while (!g.arriving.empty() && g.arriving.front().first <= horizon_) {
      const std::size_t i = g.arriving.front().second;
      g.arriving.pop_front();
      g.waiting.push_back({i, requests_[i].prompt, 0, 0, 0, engine_.prompts_arrive_cached});
    }
    serving_step_shape& shape = shapes_[gi];
    shape = {};
    shape.drafts = drafts_;
    auto& plan = scheduled_[gi];
    plan.clear();
    if (engine_.policy == serving_policy::sglang) return schedule_prefill_first(g, shape, plan);
    std::uint64_t budget = engine_.token_budget;
    // 1. The running requests, in admission order.
    for (std::size_t ri = 0; ri < g.running.size() && budget > 0; ++ri) {
      live& r = g.running[ri];
      const bool decoding = r.prefilled == r.prompt;
      const std::uint64_t tokens = decoding ? 1 + drafts_ : std::min(r.prompt - r.prefilled, budget);
      if (decoding && tokens > budget) break;
      if (!decoding && !engine_.chunked_prefill && tokens < r.prompt - r.prefilled) break;
      // A decoding request appends the KV of its last generated token (and of its drafts): its
      // prompt and every generated token are then in the cache, and it attends over all of them.
      const std::uint64_t after = decoding ? context_of(r) + drafts_ : r.prefilled + tokens;
      const std::uint64_t need = cache_for(after) - r.shared / engine_.block_tokens - r.cache;
      bool preempted = false;
      if (!grow(g, ri, need, preempted)) break;
      budget -= tokens;
      plan.emplace_back(ri, tokens);
      if (decoding) {
        ++shape.decoding;
        shape.decode_context += static_cast<double>(after);
      } else {
        shape.chunks.push_back({tokens, r.prefilled});
      }
    }
    // 2. Waiting requests, first come first served.
    while (budget > 0 && !g.waiting.empty() && g.running.size() < engine_.max_running) {
      live& w = g.waiting.front();
      if (w.cached) {  // its prompt and first token are in: it decodes its second token now
        const std::uint64_t need = cache_for(w.prompt + 1 + drafts_);
        if (need > g.free_cache || 1 + drafts_ > budget) break;
        g.free_cache -= need;
        w.cache = need;
        w.prefilled = w.prompt;
        w.generated = 1;
        budget -= 1 + drafts_;
        g.running.push_back(w);
        g.waiting.pop_front();
        plan.emplace_back(g.running.size() - 1, 1 + drafts_);
        ++shape.decoding;
        shape.decode_context += static_cast<double>(g.running.back().prompt + 1 + drafts_);
        continue;
      }
      // A cached prefix of its own: its blocks are read, the rest of the prompt computed.
      const std::uint64_t prefix_id = requests_[w.index].prefix_id;
      const auto hit = g.prefixes.find(prefix_id);
      const std::uint64_t cached = hit != g.prefixes.end() ? shareable(w.index) : 0;
      const std::uint64_t tokens = std::min(w.prompt - cached, budget);
      if (!engine_.chunked_prefill && tokens < w.prompt - cached) break;
      const std::uint64_t need = cache_for(cached + tokens) - cached / engine_.block_tokens;
      if (need > g.free_cache && !reclaim(g, need, cached > 0 ? prefix_id : no_prefix)) break;
      budget -= tokens;
      admit_prompt(g, cached, tokens, need, plan, shape);
    }
    note_peak(g);
    return !plan.empty();
  }

  // SGLang's policy (serving_policy::sglang) for group g: a prefill step if a prompt can be
  // prefilled, else a decode step of every running request.
  bool schedule_prefill_first(group& g, serving_step_shape& shape,
                              std::vector<std::pair<std::size_t, std::uint64_t>>& plan) {
    if (g.running.empty() && g.waiting.empty()) {
      g.new_token_ratio = sglang_init_ratio;  // idle: the estimate starts over
      return false;
    }
    const auto output_left = [&](const live& r) { return requests_[r.index].output - r.generated; };
    // 1. Prefill: the prompt being chunked first, then waiting prompts while the cache, less what
    // the running requests are expected to need, holds each whole.
    std::uint64_t budget = engine_.token_budget;
    bool retracted = false;  // requests retracted this step (the ratio then rises: below)
    for (std::size_t ri = 0; ri < g.running.size() && budget > 0; ++ri) {
      live& r = g.running[ri];
      if (r.prefilled == r.prompt) continue;
      const std::uint64_t tokens = std::min(r.prompt - r.prefilled, budget);
      const std::uint64_t need = cache_for(r.prefilled + tokens) - r.shared / engine_.block_tokens - r.cache;
      if (!grow(g, ri, need, retracted)) break;
      budget -= tokens;
      plan.emplace_back(ri, tokens);
      shape.chunks.push_back({tokens, r.prefilled});
    }
    // The cache a new request may take: what is free or evictable, less the running requests' remaining
    // outputs at the ratio.
    const auto admissible = [&] {
      double available = static_cast<double>(g.free_cache);
      for (const auto& [id, prefix] : g.prefixes)
        if (prefix.readers == 0) available += static_cast<double>(prefix.blocks);
      for (const live& r : g.running) {
        const std::uint64_t context = r.prefilled == r.prompt ? context_of(r) : r.prompt;
        const std::uint64_t ahead = std::min(output_left(r), sglang_clip_output);
        const std::uint64_t expected = cache_for(context + ahead) - r.shared / engine_.block_tokens;
        if (expected > r.cache) available -= g.new_token_ratio * static_cast<double>(expected - r.cache);
      }
      return available;
    };
    const auto whole_of = [&](const live& w, std::uint64_t cached) {
      return cache_for(w.prompt + std::min(output_left(w), sglang_clip_output)) -
             cached / engine_.block_tokens;
    };
    if (budget > 0 && !g.waiting.empty() && !g.waiting.front().cached &&
        g.running.size() < engine_.max_running) {
      double available = admissible();
      while (budget > 0 && !g.waiting.empty() && !g.waiting.front().cached &&
             g.running.size() < engine_.max_running) {
        live& w = g.waiting.front();
        const std::uint64_t prefix_id = requests_[w.index].prefix_id;
        const auto hit = g.prefixes.find(prefix_id);
        const std::uint64_t cached = hit != g.prefixes.end() ? shareable(w.index) : 0;
        const std::uint64_t whole = whole_of(w, cached);
        if (static_cast<double>(whole) > available) break;
        const std::uint64_t tokens = std::min(w.prompt - cached, budget);
        if (!engine_.chunked_prefill && tokens < w.prompt - cached) break;
        const std::uint64_t need = cache_for(cached + tokens) - cached / engine_.block_tokens;
        if (need > g.free_cache && !reclaim(g, need, cached > 0 ? prefix_id : no_prefix)) break;
        available -= static_cast<double>(whole);
        budget -= tokens;
        admit_prompt(g, cached, tokens, need, plan, shape);
      }
    }
    if (!plan.empty()) {
      if (retracted) g.new_token_ratio = retracted_ratio(g);
      note_peak(g);
      return true;
    }
    // 2. Decode every running request; retract the latest admitted while their next tokens do not fit.
    // A decode instance of a disaggregated deployment first takes the requests whose prompt has
    // arrived in its cache, under the same admission, and they decode their second token now.
    if (!g.waiting.empty() && g.waiting.front().cached && g.running.size() < engine_.max_running) {
      double available = admissible();
      while (!g.waiting.empty() && g.waiting.front().cached && g.running.size() < engine_.max_running) {
        live& w = g.waiting.front();
        const std::uint64_t whole = whole_of(w, 0);
        if (static_cast<double>(whole) > available) break;
        available -= static_cast<double>(whole);
        w.prefilled = w.prompt;
        w.generated = 1;
        w.cache = 0;  // its blocks are taken below, as every decoding request's
        g.running.push_back(w);
        g.waiting.pop_front();
      }
    }
    for (std::size_t ri = 0; ri < g.running.size(); ++ri) {
      live& r = g.running[ri];
      if (r.prefilled < r.prompt) continue;  // a chunk that did not fit waits for the cache
      const std::uint64_t after = context_of(r) + drafts_;
      const std::uint64_t need = cache_for(after) - r.shared / engine_.block_tokens - r.cache;
      if (!grow(g, ri, need, retracted)) break;
      plan.emplace_back(ri, 1 + drafts_);
      ++shape.decoding;
      shape.decode_context += static_cast<double>(after);
    }
    g.new_token_ratio =
        retracted ? retracted_ratio(g) : std::max(g.new_token_ratio - sglang_ratio_decay, sglang_min_ratio);
    note_peak(g);
    return !plan.empty();
  }

  // SGLang's estimate after a retraction: what the requests left running have generated plus 20
  // steps of each, over their whole outputs (at most 1).
  double retracted_ratio(const group& g) const {
    double generated = 0, outputs = 0;
    for (const live& r : g.running) {
      generated += static_cast<double>(r.generated);
      outputs += static_cast<double>(requests_[r.index].output);
    }
    return outputs > 0
               ? std::min(1.0, (generated + static_cast<double>(sglang_retract_steps * g.running.size())) /
                                   outputs)
               : sglang_init_ratio;
  }

  // Admits g's first waiting request with `tokens` of its prompt after the `cached` it reads from its
  // prefix's blocks (which reclaim kept), taking `need` units of cache: it runs from this step.
  void admit_prompt(group& g, std::uint64_t cached, std::uint64_t tokens, std::uint64_t need,
                    std::vector<std::pair<std::size_t, std::uint64_t>>& plan, serving_step_shape& shape) {
    live& w = g.waiting.front();
    g.free_cache -= need;
    w.cache = need;
    w.prefilled = cached;
    w.shared = cached;
    if (cached > 0) {
      cached_prefix& prefix = g.prefixes.at(requests_[w.index].prefix_id);
      ++prefix.readers;
      prefix.last_used = out_.steps;
      out_.requests[w.index].cached_tokens += cached;
      out_.prefix_cached_tokens += cached;
    }
    g.running.push_back(w);
    g.waiting.pop_front();
    plan.emplace_back(g.running.size() - 1, tokens);
    shape.chunks.push_back({tokens, cached});
  }

  void note_peak(const group& g) {
    out_.peak_kv_share = std::max(out_.peak_kv_share,
                                  1 - static_cast<double>(g.free_cache) / static_cast<double>(cache_total_));
  }

  // The tokens of the step in group gi: prefill progress, a token for each decoding request and each
  // completed prompt; finished requests leave.
  template <class OnFinish>
  void advance(std::size_t gi, OnFinish& finished) {
    group& g = groups_[gi];
    for (const auto& [ri, tokens] : scheduled_[gi]) {
      live& r = g.running[ri];
      bool decoded = true;
      if (r.prefilled < r.prompt) {
        decoded = false;
        r.prefilled += tokens;
        // Its prefix's blocks computed: cached for later requests (or, if another request cached
        // them meanwhile, read from there and its own copy given back).
        const std::uint64_t share = shareable(r.index);
        if (share > 0 && r.shared == 0 && r.prefilled >= share) {
          cached_prefix& p = g.prefixes[requests_[r.index].prefix_id];
          const std::uint64_t blocks = share / engine_.block_tokens;
          if (p.blocks == 0) {
            p.blocks = blocks;
          } else {
            g.free_cache += blocks;
          }
          r.cache -= blocks;
          r.shared = share;
          ++p.readers;
          p.last_used = out_.steps;
        }
        if (r.prefilled < r.prompt) continue;  // more chunks to come
      }
      served_request& s = out_.requests[r.index];
      std::uint64_t yielded = 1;  // a completed prompt's first token, or a decode step's
      if (decoded && drafts_ > 0) {
        r.credit += yield_;
        yielded = static_cast<std::uint64_t>(r.credit);
        r.credit -= static_cast<double>(yielded);
      }
      const std::uint64_t before = r.generated;
      r.generated = std::min(r.generated + yielded, requests_[r.index].output);
      const double at = delivered(r.generated - before, r.generated);
      if (before == 0) s.first_token_s = at;
      if (before > 0 && r.last_token_s >= 0) out_.inter_token.add(at - r.last_token_s);
      r.last_token_s = at;
      if (r.generated >= requests_[r.index].output) {
        s.finish_s = at;
        release(g, r);
        finished_now_.emplace_back(r.index, at);
        r.index = SIZE_MAX;  // leaves below
      }
    }
    g.running.erase(
        std::remove_if(g.running.begin(), g.running.end(), [](const live& r) { return r.index == SIZE_MAX; }),
        g.running.end());
    // The finished requests, in running order, once the group is consistent again.
    for (const auto& [i, at] : finished_now_)
      finished(i, at);
    finished_now_.clear();
  }

  // When a message of `tokens` new tokens (`total` of the request's so far) reaches its client: at
  // the step's end without a front end, else when the front end, taking messages in turn, sends it.
  [[nodiscard]] double delivered(std::uint64_t tokens, std::uint64_t total) {
    if (!engine_.has_front_end()) return clock_;
    const auto text = static_cast<double>(engine_.stream_cumulative ? total : tokens);
    front_free_ =
        std::max(front_free_, clock_) + (engine_.stream_message_us + engine_.stream_token_us * text) * 1e-6;
    return front_free_;
  }

  const std::vector<serving_request>& requests_;
  serving_engine engine_;
  serving_step_pricer pricer_;
  OnStep& on_step_;
  std::uint64_t drafts_ = 0;
  double yield_ = 1;
  double free_bytes_ = 0;
  std::uint64_t span_ = 0, full_unit_ = 1, local_unit_ = 0, state_unit_ = 0, cache_total_ = 0;
  bool local_ = false, prefixes_ = false;
  serving_stream_report out_;
  std::vector<group> groups_;
  std::size_t dealt_ = 0;
  double clock_ = 0;
  double horizon_ = 0;                    // arrivals up to this time join the step being formed
  double last_start_ = 0, last_end_ = 0;  // the previous step's (overlap_schedule)
  std::uint64_t receive_counter_ = 0;     // decode steps since the input was last polled (receive_interval)
  bool last_computed_prompt_ = false;     // the previous step computed prompt tokens (receive_interval)
  serving_step_record record_;            // built only when observed
  std::map<std::tuple<bool, std::uint64_t, std::uint64_t>, serving_step_kind> kinds_;
  std::vector<serving_step_shape> shapes_;
  // What each group scheduled: index into running, tokens.
  std::vector<std::vector<std::pair<std::size_t, std::uint64_t>>> scheduled_;
  std::vector<std::pair<std::size_t, double>> finished_now_;  // (request, when its client sees its end)
  double front_free_ = 0;  // when the front end has sent every message so far
};

}  // namespace detail

/// Serves `requests` (any order; arrival times ≥ 0) on `layout` (its phase, batch, prompt and context
/// are the engine's to choose: ignored). See the file comment. `on_step(const serving_step_record&)`
/// sees every step as it is taken (aicb::write_serving_timeline draws a window of them).
template <class OnStep = no_step_observer>
[[nodiscard]] serving_stream_report simulate_serving(const model_spec& model, const serving_spec& layout,
                                                     const std::vector<serving_request>& requests,
                                                     const compute_model& compute,
                                                     const cluster_spec& cluster,
                                                     const serving_engine& engine = {},
                                                     OnStep&& on_step = {}) {
  using observer = std::remove_reference_t<OnStep>;
  detail::serving_instance<observer> instance(model, layout, requests, compute, cluster, engine, on_step);
  for (std::size_t i = 0; i < requests.size(); ++i)
    instance.check(i);
  // Requests in arrival order (stable: equal arrivals keep their given order), each sent at its
  // arrival — or, with a concurrency bound, the first `concurrency` of them, then each next one as a
  // request finishes (not before its own arrival).
  const std::vector<std::size_t> order = arrival_order(requests);
  std::size_t released = order.size();
  if (engine.concurrency > 0 && engine.concurrency < order.size())
    released = static_cast<std::size_t>(engine.concurrency);
  for (std::size_t k = 0; k < released; ++k)
    instance.send(order[k], requests[order[k]].arrival_s);
  std::size_t finished = 0;
  const auto on_finish = [&](std::size_t, double at) {
    ++finished;
    if (released < order.size()) {
      const std::size_t next = order[released++];
      instance.send(next, std::max(requests[next].arrival_s, at));
    }
  };
  while (std::isfinite(instance.next_start()))
    instance.step(on_finish);
  if (finished < requests.size())  // every request fits (checked above): cannot happen
    AICB_THROW(config_error("request", "stream", "no request can be scheduled"));
  return std::move(instance.report());
}

/// A disaggregated deployment: `prefill_instances` instances of the `prefill` layout run the prompts;
/// each request's KV cache then goes over the network to one of `decode_instances` instances of the
/// `decode` layout, which generate the rest of its tokens.
struct disaggregated_deployment {
  serving_spec prefill{}, decode{};
  std::uint64_t prefill_instances = 1, decode_instances = 1;
  serving_engine prefill_engine{}, decode_engine{};
};

/// A stream served by a disaggregated deployment. A request's first token reaches its client from
/// the decode instance, with the KV cache: its time to first token is its prefill and its transfer.
struct disaggregated_stream_report {
  std::vector<served_request> requests;  ///< in the order given
  std::vector<double> prefill_done_s;    ///< when each request's prompt finished on its prefill instance
  std::vector<double> kv_transfer_s;     ///< each request's KV transfer, queueing included (0: one token)
  double kv_bytes = 0;                   ///< every transfer's bytes
  std::uint64_t prefill_steps = 0, decode_steps = 0, preemptions = 0;
  std::uint64_t prefix_cached_tokens = 0, prefix_evictions = 0;  ///< the prefill instances' prefix caches
  double prefill_busy_s = 0, decode_busy_s = 0;                  ///< summed over the instances
  double end_s = 0;
  std::uint64_t prefill_kv_capacity_tokens = 0, decode_kv_capacity_tokens = 0;  ///< per group
  double peak_kv_share = 0;  ///< the decode instances' fullest group
  std::vector<serving_step_kind> prefill_step_kinds,
      decode_step_kinds;           ///< every instance's, most time first
  duration_histogram inter_token;  ///< the decode instances' (serving_stream_report::inter_token)
};

/// Adds `more` into the mix `into` (kinds of equal form, tokens and context merged), most time first.
inline void merge_step_kinds(std::vector<serving_step_kind>& into,
                             const std::vector<serving_step_kind>& more) {
  for (const serving_step_kind& k : more) {
    const auto same = std::find_if(into.begin(), into.end(), [&](const serving_step_kind& o) {
      return o.form == k.form && o.tokens == k.tokens && o.context == k.context;
    });
    if (same == into.end()) {
      into.push_back(k);
    } else {
      same->count += k.count;
      same->busy_s += k.busy_s;
    }
  }
  std::stable_sort(into.begin(), into.end(), [](const serving_step_kind& a, const serving_step_kind& b) {
    return a.busy_s > b.busy_s;
  });
}

namespace detail {
// An instance's observer in a disaggregated deployment: its steps reach the caller's `on_step`
// tagged with the instance and its side.
template <class OnStep>
struct tagged_step_observer {
  OnStep* on_step = nullptr;
  std::uint64_t instance = 0;
  bool prefill = false;
  void operator()(const serving_step_record& r) const {
    serving_step_record tagged = r;
    tagged.instance = instance;
    tagged.prefill_instance = prefill;
    (*on_step)(std::as_const(tagged));
  }
};
}  // namespace detail

/// Serves `requests` on `d` (see disaggregated_deployment), every instance stepped side by side in
/// time: requests dealt round-robin in the order they are sent to the prefill instances, which run
/// them to their first token; each request's KV cache (the whole model's, one copy: aicb::
/// inference_step::model_kv_bytes_per_token per token — a local layer's for the span's last tokens
/// only — and the recurrent layers' state, model_state_bytes_per_request) is then sent from the TP
/// GPUs of its prefill group to another node, each GPU its share over its own NIC (aicb::
/// transfer_us), a transfer waiting while the group's link is busy (one transfer at a time per
/// DP-attention group); on arrival, requests are dealt round-robin to the decode instances, which
/// admit them straight into decoding. With a bound on outstanding requests (the prefill engine's
/// serving_engine::concurrency; the decode engine's must be 0 or the same), the first that many
/// requests are sent at their arrival and each next one as a request finishes — on its decode
/// instance, or on its prefill instance when its one token is all — not before its own arrival.
/// `on_step` sees every instance's steps in the order they begin (aicb::serving_step_record: the
/// instance and its side).
template <class OnStep = no_step_observer>
[[nodiscard]] disaggregated_stream_report simulate_disaggregated_serving(
    const model_spec& model, const disaggregated_deployment& d, const std::vector<serving_request>& requests,
    const compute_model& compute, const cluster_spec& cluster, OnStep&& on_step = {}) {
  constexpr bool observed = !std::is_same_v<std::decay_t<OnStep>, no_step_observer>;
  using observer = std::conditional_t<observed, detail::tagged_step_observer<std::remove_reference_t<OnStep>>,
                                      no_step_observer>;
  using instance = detail::serving_instance<observer>;
  if (d.prefill_instances == 0 || d.decode_instances == 0)
    AICB_THROW(config_error("instances",
                            std::to_string(d.prefill_instances) + ":" + std::to_string(d.decode_instances),
                            "expected at least one prefill and one decode instance"));
  for (const serving_engine* e : {&d.prefill_engine, &d.decode_engine})
    if (e->has_front_end())
      AICB_THROW(config_error(
          e->stream_message_us > 0 ? "stream_message_us" : "stream_token_us",
          detail::python_float_repr(e->stream_message_us > 0 ? e->stream_message_us : e->stream_token_us),
          "a front end streaming tokens is simulated for an aggregated deployment only, not for prefill and "
          "decode instances"));
  if (d.prefill_engine.prompts_arrive_cached)
    AICB_THROW(config_error("prompts_arrive_cached", "true", "a prefill instance computes its prompts"));
  const std::uint64_t concurrency = d.prefill_engine.concurrency;
  if (d.decode_engine.concurrency != 0 && d.decode_engine.concurrency != concurrency)
    AICB_THROW(
        config_error("concurrency", std::to_string(d.decode_engine.concurrency),
                     "the bound on outstanding requests is the clients': give it to the prefill engine "
                     "(the decode engine's must be 0 or the same, " +
                         std::to_string(concurrency) + ")"));
  if (requests.empty()) AICB_THROW(config_error("requests", "0", "expected at least one request"));
  disaggregated_stream_report out;
  const std::size_t n = requests.size();
  out.requests.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    out.requests[i].request = requests[i];
  out.prefill_done_s.assign(n, 0);
  out.kv_transfer_s.assign(n, 0);

  // The instances. Prefill instances run each prompt to its first token: their requests end there.
  std::vector<serving_request> prompts = requests;
  for (serving_request& r : prompts)
    r.output = 1;
  serving_engine decode_engine = d.decode_engine;
  decode_engine.prompts_arrive_cached = true;
  const bool decoding =
      std::any_of(requests.begin(), requests.end(), [](const serving_request& r) { return r.output >= 2; });
  std::vector<observer> observers(d.prefill_instances + d.decode_instances);
  if constexpr (observed)
    for (std::size_t k = 0; k < observers.size(); ++k)
      observers[k] = {&on_step, k < d.prefill_instances ? k : k - d.prefill_instances,
                      k < d.prefill_instances};
  std::vector<std::unique_ptr<instance>> prefill, decode;
  for (std::uint64_t p = 0; p < d.prefill_instances; ++p)
    prefill.push_back(std::make_unique<instance>(model, d.prefill, prompts, compute, cluster,
                                                 d.prefill_engine, observers[p]));
  for (std::size_t i = 0; i < n; ++i)
    prefill.front()->check(i);
  if (decoding) {  // (a stream of one-token requests never reaches the decode side)
    for (std::uint64_t q = 0; q < d.decode_instances; ++q)
      decode.push_back(std::make_unique<instance>(model, d.decode, requests, compute, cluster, decode_engine,
                                                  observers[d.prefill_instances + q]));
    for (std::size_t i = 0; i < n; ++i)
      if (requests[i].output >= 2) decode.front()->check(i);
  }

  // The KV cache's bytes per token (one copy), and a transfer of `bytes` from a group's TP GPUs.
  serving_spec one = d.decode;
  one.phase = inference_phase::decode;
  one.batch = one.attention_data_parallel;
  one.context = 1;
  one.prompt = 0;
  const inference_step probe(model, one, 0);
  const double kv_per_token = probe.model_kv_bytes_per_token();
  const double state_per_request = probe.model_state_bytes_per_request();
  // Local layers (a sliding window, attention chunks) keep the span's last tokens only: those are sent.
  const std::uint64_t span = model.local_attention_span();
  const double local_share = probe.kv_bytes_per_token() > 0 && span > 0
                                 ? probe.local_kv_bytes_per_token() / probe.kv_bytes_per_token()
                                 : 0;
  const auto transfer_bytes = [&](std::uint64_t prompt) {
    const auto p = static_cast<double>(prompt), kept = static_cast<double>(std::min(prompt, span));
    return kv_per_token * ((1 - local_share) * p + local_share * kept) + state_per_request;
  };
  const double tp = static_cast<double>(d.prefill.tensor_parallel);
  const std::uint64_t other_node = std::max<std::uint64_t>(cluster.gpus_per_node, 1);
  // Each prefill instance's links, one per DP-attention group: when each is free.
  std::vector<std::vector<double>> link_free(d.prefill_instances,
                                             std::vector<double>(d.prefill.attention_data_parallel, 0));

  // Sending: requests in arrival order, to the prefill instances round-robin.
  const std::vector<std::size_t> order = arrival_order(requests);
  std::vector<std::size_t> rank(n);  // each request's place in arrival order
  for (std::size_t k = 0; k < n; ++k)
    rank[order[k]] = k;
  std::size_t sent = 0, finished = 0;
  const auto send = [&](double at) {
    const std::size_t i = order[sent];
    out.requests[i].request.arrival_s = at;
    prefill[sent % prefill.size()]->send(i, at);
    ++sent;
  };
  const std::size_t bound = concurrency > 0 && concurrency < n ? static_cast<std::size_t>(concurrency) : n;
  while (sent < bound)
    send(requests[order[sent]].arrival_s);
  const auto finish = [&](std::size_t i, double at) {
    out.requests[i].finish_s = at;
    ++finished;
    if (sent < n) send(std::max(requests[order[sent]].arrival_s, at));
  };
  // KV caches on their way to the decode side: (arrival, request), the earliest first; dealt to the
  // decode instances round-robin in that order.
  std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>,
                      std::greater<>>
      in_flight;
  std::size_t delivered = 0;
  std::vector<std::size_t> done;  // a prefill step's finished prompts
  for (;;) {
    // The next step to begin (prefill instances first at equal times), unless a KV cache arrives first.
    double start = INFINITY;
    instance* next = nullptr;
    std::uint64_t next_index = 0;
    bool next_prefill = false;
    for (std::size_t k = 0; k < prefill.size() + decode.size(); ++k) {
      instance& e = k < prefill.size() ? *prefill[k] : *decode[k - prefill.size()];
      const double t = e.next_start();
      if (t < start) {
        start = t;
        next = &e;
        next_prefill = k < prefill.size();
        next_index = next_prefill ? k : k - prefill.size();
      }
    }
    if (!in_flight.empty() && in_flight.top().first <= start) {
      const auto [at, i] = in_flight.top();
      in_flight.pop();
      decode[delivered++ % decode.size()]->send(i, at);
      continue;
    }
    if (next == nullptr) break;
    if (!next_prefill) {
      next->step([&](std::size_t i, double at) { finish(i, at); });
      continue;
    }
    // A prefill step: its finished prompts' transfers, in arrival order, each on its group's link free
    // first.
    done.clear();
    next->step([&](std::size_t i, double) { done.push_back(i); });
    std::sort(done.begin(), done.end(), [&](std::size_t a, std::size_t b) { return rank[a] < rank[b]; });
    const serving_stream_report& run = next->report_view();
    for (const std::size_t i : done) {
      const served_request& s = run.requests[i];
      out.prefill_done_s[i] = s.finish_s;
      out.requests[i].admitted_s = s.admitted_s;
      out.requests[i].preemptions = s.preemptions;
      out.requests[i].cached_tokens = s.cached_tokens;
      if (requests[i].output < 2) {  // its one token is all: no transfer
        out.requests[i].first_token_s = s.finish_s;
        finish(i, s.finish_s);
        continue;
      }
      const double bytes = transfer_bytes(requests[i].prompt);
      out.kv_bytes += bytes;
      std::vector<double>& links = link_free[next_index];
      auto link = std::min_element(links.begin(), links.end());
      const double begin = std::max(*link, s.finish_s);
      *link = begin + transfer_us(bytes / tp, 0, other_node, cluster) * 1e-6;
      out.kv_transfer_s[i] = *link - s.finish_s;
      out.requests[i].first_token_s = *link;
      in_flight.emplace(*link, i);
    }
  }
  if (finished < n)  // every request fits (checked above): cannot happen
    AICB_THROW(config_error("request", "stream", "no request can be scheduled"));

  // The engines' totals.
  for (const auto& p : prefill) {
    const serving_stream_report& run = p->report();
    out.prefill_steps += run.steps;
    out.preemptions += run.preemptions;
    out.prefix_cached_tokens += run.prefix_cached_tokens;
    out.prefix_evictions += run.prefix_evictions;
    out.prefill_busy_s += run.busy_s;
    out.prefill_kv_capacity_tokens = run.kv_capacity_tokens;
    merge_step_kinds(out.prefill_step_kinds, run.step_kinds);
  }
  for (const auto& q : decode) {
    const serving_stream_report& run = q->report();
    out.decode_steps += run.steps;
    out.preemptions += run.preemptions;
    out.decode_busy_s += run.busy_s;
    out.decode_kv_capacity_tokens = run.kv_capacity_tokens;
    merge_step_kinds(out.decode_step_kinds, run.step_kinds);
    out.peak_kv_share = std::max(out.peak_kv_share, run.peak_kv_share);
    out.inter_token.merge(run.inter_token);
    for (std::size_t i = 0; i < n; ++i)  // zero for the requests it did not serve
      out.requests[i].preemptions += run.requests[i].preemptions;
  }
  for (const served_request& r : out.requests)
    out.end_s = std::max(out.end_s, r.finish_s);
  return out;
}

AICB_END_NAMESPACE
