// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::compute_op — one GPU operation a generator needs a duration for: what it is (its role in a
/// layer and its kind), its shape, its dtype and which pass (forward, input gradient, weight
/// gradient). Compute models (aicb/compute/model.hpp) answer for it; they never see the
/// communication, which depends on the job alone.

#include <aicb/config.hpp>
#include <aicb/dtype.hpp>
#include <aicb/model/options.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The kind of computation, which decides how FLOPs and bytes follow from the shape.
enum class op_kind : std::uint8_t {
  gemm,         ///< batch × (m×k)·(k×n)
  attention,    ///< core attention: batch = b·heads, m = query tokens, n = key tokens, k = head size
  norm,         ///< LayerNorm / RMSNorm over m rows of n features
  elementwise,  ///< activation functions, dropout, additions: m × n elements
  embedding,    ///< table lookup of m rows of n features
  optimizer,    ///< Adam step over m parameters
  softmax,      ///< softmax over m rows of n scores (unfused attention's scale-mask-softmax)
  /// Gated DeltaNet's gated delta rule (linear attention): batch = sequences × value heads, m = tokens
  /// per sequence, n = value head size, k = key head size; each head carries a k × n state.
  linear_attention,
  /// DeepSeek sparse attention's lightning indexer: batch = sequences, m = query tokens, n = key
  /// tokens, k = the indexer's head size, `index_heads` query heads sharing one key head. Forward: a
  /// score per query-key pair (each head's ReLU'd product, weighted and summed over heads) and the
  /// top-k selection over the scores; backward (its KL loss in training): the products' gradients over
  /// the selected pairs only (`window` = the top-k).
  attention_index,
};

/// Tokens per chunk of the chunked gated-delta-rule kernels (flash-linear-attention's 64): within
/// a chunk tokens attend causally to each other, across chunks through the state.
inline constexpr std::uint64_t linear_attention_chunk = 64;

/// Which pass of training.
enum class pass_kind : std::uint8_t { forward, input_grad, weight_grad };

/// The role of an operation in a transformer layer (what profiles name).
enum class op_role : std::uint8_t {
  embedding,
  input_norm,
  attention_qkv,
  attention_core,
  attention_out,
  mla_q_down,   ///< MLA: query down-projection and its norm
  mla_q_up,     ///< MLA: query up-projection
  mla_kv_down,  ///< MLA: key/value down-projection and its norm
  mla_kv_up,    ///< MLA: key/value up-projection
  post_attention_norm,
  mlp_fc1,
  mlp_activation,
  mlp_fc2,
  moe_router,
  moe_fc1,  ///< grouped expert GEMM, up (and gate)
  moe_activation,
  moe_fc2,  ///< grouped expert GEMM, down
  final_norm,
  logits,
  optimizer,
  mtp_projection,   ///< multi-token prediction: the 2h → h projection of embedding and hidden state
  residual,         ///< the residual connection after attention and after the MLP: bias, dropout, add
  moe_permute,      ///< MoE token bookkeeping: the per-expert histogram, permute, chunk sort, unpermute
  attention_index,  ///< DeepSeek sparse attention's lightning indexer: its projections, norm and scores
  /// Rotary position embedding: the queries and keys rotated (and, for MLA, the rotated key part
  /// joined to each head's key) — a memory-bound pass of its own between the projections and the
  /// attention core.
  rotary,
};

template <>
struct enum_names<op_role> {
  static constexpr std::array<std::string_view, 25> value{
      "embedding",      "input_norm",     "attention_qkv", "attention_core",  "attention_out",
      "mla_q_down",     "mla_q_up",       "mla_kv_down",   "mla_kv_up",       "post_attention_norm",
      "mlp_fc1",        "mlp_activation", "mlp_fc2",       "moe_router",      "moe_fc1",
      "moe_activation", "moe_fc2",        "final_norm",    "logits",          "optimizer",
      "mtp_projection", "residual",       "moe_permute",   "attention_index", "rotary"};
};
template <>
struct enum_names<pass_kind> {
  static constexpr std::array<std::string_view, 3> value{"forward", "input_grad", "weight_grad"};
};
template <>
struct enum_names<op_kind> {
  static constexpr std::array<std::string_view, 9> value{
      "gemm",    "attention",        "norm",           "elementwise", "embedding", "optimizer",
      "softmax", "linear_attention", "attention_index"};
};

/// Whose kernels run the cross-entropy loss (compute_op::loss_bytes_per_logit): Megatron's unfused
/// operations, Megatron's fused ones (--cross-entropy-loss-fusion) or Transformer Engine's
/// (--cross-entropy-loss-fusion --cross-entropy-fusion-impl te).
enum class loss_kernel : std::uint8_t { unfused, fused, te };

template <>
struct enum_names<loss_kernel> {
  static constexpr std::array<std::string_view, 3> value{"unfused", "fused", "te"};
};

/// One operation on one GPU (its TP/EP shard), for one micro batch.
struct compute_op {
  op_role role = op_role::attention_qkv;
  op_kind kind = op_kind::gemm;
  pass_kind pass = pass_kind::forward;
  dtype type = dtype::bf16;
  std::uint64_t batch = 1;  ///< independent problems (grouped GEMM groups, b·heads for attention)
  /// GEMM: m × k by k × n. Optimizer: `m` parameters the step updates (the rank's shard with the
  /// distributed optimizer), `n` parameters of the rank's whole gradient buffer (zeroed for the next
  /// iteration: 4 bytes each) and `k` further 4-byte accesses to that buffer — Megatron reads each
  /// gradient once to check for NaN (on by default) and, with data parallelism, reads and writes each
  /// to scale it by 1/DP before the reduction. Embedding: `m` tokens looked up, `n` the hidden size;
  /// in its weight-gradient pass `k` the rank's vocabulary rows, whose dense gradient is written.
  std::uint64_t m = 0, n = 0, k = 0;
  bool causal = true;  ///< attention only: a causal mask (a fused kernel skips its zero half)
  /// Attention only: one fused kernel (FlashAttention class) — or, when false, Megatron's unfused
  /// path: the full score matrix written by a batched GEMM, scale-mask-softmax, dropout and a second
  /// batched GEMM, each a kernel of its own (aicb::unfused_attention_kernels). Rotary only: false
  /// for Megatron-Core's unfused PyTorch rotation, its passes in `kernels_per_problem` kernels.
  bool fused = true;
  /// The loss only (op_role::logits, element-wise): whose cross-entropy kernels run
  /// (loss_bytes_per_logit).
  loss_kernel loss = loss_kernel::unfused;
  /// Element-wise only: tensors read per output element (SwiGLU reads the gate and the up projection: 2).
  /// A rotary pass (op_role::rotary) instead writes `n` and reads `k` elements per row (0: `n`) in
  /// either pass — its backward rotates the gradients back and needs no saved input.
  std::uint8_t inputs = 1;
  /// The batch runs as one kernel (a batched or grouped GEMM); false: one kernel per problem, one after
  /// another (Megatron's SequentialMLP without --moe-grouped-gemm). FLOPs and bytes are the same.
  bool one_kernel = true;
  /// A loop only (one_kernel false): the kernels each problem runs one after another — PyTorch's eager
  /// operations, a product then its reduction — each with its launch; the bytes are theirs together.
  std::uint8_t kernels_per_problem = 1;
  /// Attention only: the value head size when it differs from the query/key size `k` (0: `k`), and
  /// whether keys and values are one tensor read once — multi-head latent attention absorbed for
  /// decode attends over one latent (k = 576 for scores, v_dim = 512 of it as values).
  std::uint64_t v_dim = 0;
  bool shared_kv = false;
  /// Attention only: sliding-window attention — each query attends to at most `window` keys, itself
  /// included (0: every key of `n`). DeepSeek sparse attention gives its top-k here: each query
  /// attends to min(position, k) keys, as many pairs as a window of k (attention index: the pairs
  /// its backward differentiates).
  std::uint64_t window = 0;
  /// Attention only: chunked attention — each query attends to the keys of its own block of
  /// `attention_chunk` positions, itself included (Llama 4's local layers; 0: no chunks).
  std::uint64_t attention_chunk = 0;
  /// Attention only: a learned sink logit per head joins each query's softmax (GPT-OSS): 2 FLOPs
  /// per query row forward (its exponential and its share of the sum), 4 backward (its probability's
  /// gradient and the sink's).
  bool sinks = false;
  /// Linear attention only: the state products per token and head (Gated DeltaNet: 3 — read by the
  /// key, updated, read by the query; Mamba-2's SSD: 2 — updated by B·x, read by C), and the chunk
  /// the kernel's causal blocks span (0: linear_attention_chunk).
  std::uint8_t state_products = 3;
  /// Linear attention only: bytes per element of the recurrent state each sequence reads and writes
  /// (a serving engine's state cache: FP32 in SGLang by default); 0: the activations' format.
  std::uint8_t state_bytes = 0;
  std::uint64_t chunk = 0;
  /// Linear attention only: the heads that share one key (Mamba-2: one B/C group), whose causal
  /// scores within a chunk are computed once for all of them (Mamba-2's C·Bᵀ per group; 1: per head,
  /// as Gated DeltaNet's query-key scores are).
  std::uint64_t heads_per_key = 1;
  /// Attention index only: the lightning indexer's query heads.
  std::uint64_t index_heads = 0;
  /// FP8 GEMMs only: the scaling work this pass does before its GEMM — casts of 16-bit operands to FP8
  /// and transposes of FP8 copies — as bytes moved per element of the input (m × k) and per element of
  /// the output gradient (m × n), in `quantize_kernels` kernels. The layer writer counts them as
  /// Transformer Engine runs them in training and as one cast of the input in serving
  /// (aicb/schedule/layer.hpp, fp8_scaling); 0: none.
  double quantize_input_bytes = 0, quantize_output_bytes = 0;
  std::uint32_t quantize_kernels = 0;

  /// Query-key pairs a fused kernel computes per problem: the causal triangle (m queries spread over
  /// the n positions; m·n/2) or, with a window w < n, m·w·(1 − w/2n) — each query sees min(position,
  /// w) keys; with chunks of c < n, a triangle per chunk: (m/n)·(⌊n/c⌋·c²/2 + r²/2), r = n mod c.
  /// Without the causal mask (decode: the queries at position n) m·min(n, w), or m times the keys of
  /// the last chunk, n − c·⌊(n − 1)/c⌋.
  [[nodiscard]] constexpr double attended_pairs() const noexcept {
    const double M = static_cast<double>(m), N = static_cast<double>(n);
    if (!causal) return M * decode_keys();
    if (attention_chunk > 0 && attention_chunk < n) {
      const double C = static_cast<double>(attention_chunk);
      const double full = static_cast<double>(n / attention_chunk),
                   r = static_cast<double>(n % attention_chunk);
      return M / N * (full * C * C + r * r) * 0.5;
    }
    const double W = static_cast<double>(window);
    return window > 0 && window < n ? M * W * (1 - W / (2 * N)) : M * N * 0.5;
  }
  /// Keys a decode step reads per problem: the window's, the last chunk's, or all n.
  [[nodiscard]] constexpr double decode_keys() const noexcept {
    if (attention_chunk > 0 && attention_chunk < n)
      return static_cast<double>(n - attention_chunk * ((n - 1) / attention_chunk));
    return static_cast<double>(window > 0 && window < n ? window : n);
  }

  /// Floating-point operations (2 per multiply-add). Fused attention computes the attended pairs
  /// (attended_pairs: the causal triangle, or the band of a sliding window) and its backward recomputes the
  /// scores and computes four products (FlashAttention-2): 2.5 × forward. Unfused attention computes the full
  /// score matrix and its backward the four products from the stored probabilities: 2 × forward. A GEMM's
  /// input- and weight-gradient passes are one product each, as the forward.
  [[nodiscard]] constexpr double flops() const noexcept {
    const double b = static_cast<double>(batch), M = static_cast<double>(m), N = static_cast<double>(n),
                 K = static_cast<double>(k);
    switch (kind) {
      case op_kind::gemm:
        return 2 * b * M * N * K;
      case op_kind::attention: {
        const double QKV = K + (v_dim ? static_cast<double>(v_dim) : K);  // scores and weighted values
        const bool forward_pass = pass == pass_kind::forward;
        const double sink = sinks ? b * M * (forward_pass ? 2 : 4) : 0;
        if (!fused) {  // the full score matrix (a window counts its keys: the convention of FLOP formulas)
          const double keys = window > 0 && window < n ? static_cast<double>(window) : N;
          return 2 * b * M * keys * QKV * (forward_pass ? 1 : 2) + sink;
        }
        const double forward = 2 * b * attended_pairs() * QKV;
        return (forward_pass ? forward : 2.5 * forward) + sink;
      }
      case op_kind::norm:
        return 5 * b * M * N;
      case op_kind::elementwise:
        return b * M * N;
      case op_kind::embedding:
        return 0;
      case op_kind::optimizer:
        return 12 * b * M;
      case op_kind::softmax:
        return 5 * b * M * N;
      case op_kind::attention_index:  // a multiply-add per head and dimension of each pair scored:
        // every causal pair forward, the selected ones twice backward (query and key gradients)
        return (pass == pass_kind::forward ? 2 : 4) * b * attended_pairs() *
               static_cast<double>(index_heads) * K;
      case op_kind::linear_attention: {
        // Per token and head: the state's three products — read by the key, updated by the key ×
        // the corrected value, read by the query (3 · 2·k·n) — and, within a chunk of c tokens, the
        // causal query-key scores, once per key the heads share, and their weighted values
        // (c/2 · 2·(k / heads_per_key + n)).
        const double c =
            static_cast<double>(std::min<std::uint64_t>(m, chunk ? chunk : linear_attention_chunk));
        const double shared = static_cast<double>(heads_per_key ? heads_per_key : 1);
        return b * M * (2.0 * state_products * K * N + c * (K / shared + N)) *
               (pass == pass_kind::forward ? 1 : 2);
      }
    }
    return 0;
  }

  /// Bytes read and written in device memory (each operand once; unfused attention: the sum over
  /// its kernels, the score matrix included).
  [[nodiscard]] constexpr double bytes() const noexcept {
    const double b = static_cast<double>(batch), M = static_cast<double>(m), N = static_cast<double>(n),
                 K = static_cast<double>(k), e = size_of(type);
    const bool forward = pass == pass_kind::forward;
    switch (kind) {
      case op_kind::gemm:
        return b * (M * K + K * N + M * N) * e;
      case op_kind::attention:
        if (!fused) {  // the sum over unfused_attention_kernels(): Q, K, V and outputs, and the scores S
          const double S = b * M * N, D = (K + (v_dim ? static_cast<double>(v_dim) : K)) / 2;
          return forward ? 2 * b * (M + N) * D * e + S * (6 * e + 1)
                         : 4 * b * (M + N) * D * e + S * (9 * e + 1);
        }
        {
          // Decode reads only the window's (or the last chunk's) keys and values of a local layer's cache.
          const double keys = causal ? N : decode_keys();
          if (v_dim || shared_kv) {  // Q in, O out; K and V read (once when they are one tensor)
            const double V = v_dim ? static_cast<double>(v_dim) : K;
            return b * (M * K + M * V + keys * K + (shared_kv ? 0 : keys * V)) * e * (forward ? 1 : 2);
          }
          return b * (2 * M * K + 2 * keys * K) * e * (forward ? 1 : 2);
        }
      case op_kind::norm:
        return b * 2 * M * N * e * (forward ? 1 : 1.5);
      case op_kind::elementwise:
        switch (role) {
          case op_role::residual:  // bias + dropout + add: x and the residual in, the sum and a 1-byte mask
                                   // out
            return b * M * N * (forward ? 3 * e + 1 : 2 * e + 1);
          case op_role::attention_core:  // unfused attention's dropout on the probabilities
            return b * M * N * (2 * e + 1);
          case op_role::rotary:  // n elements written, k (or n) read per row
            // Unfused (Megatron-Core's PyTorch path, schedule/layer.hpp): forward the rows times the
            // cosines (read and written: 2), the rotated half (a negation, 1, and a join, 2), times the
            // sines (2), the sum (3) and the final join (2); backward the gradient times the sines (2)
            // and rotated back (a negation, 1, and a join, 2), times the cosines (2), the two summed
            // (3) and scattered into the unsliced input's gradient (zeros written, then copied: 3).
            if (!fused) return b * M * N * e * (forward ? 12 : 13);
            return b * M * (N + (k ? K : N)) * e;
          case op_role::logits:  // the loss: its passes over the logits (loss_bytes_per_logit)
            return b * M * N * loss_bytes_per_logit();
          case op_role::moe_fc2:  // the experts' output bias, Megatron's eager loop over the local experts:
            // forward the bias scaled by each row's probability written (1), added to the rows (2 in,
            // 1 out) and the experts' rows joined into one tensor (1 in, 1 out); backward the bias's and
            // the probabilities' gradients, each a product written and reduced (3 each), and the rows'
            // gradients joined back (2)
            return b * M * N * e * (forward ? 6 : 8);
          default: {  // forward: the inputs in, the output out; backward: the gradient and the inputs in,
                      // a gradient per input out
            const double in = inputs;
            return b * M * N * e * (forward ? in + 1 : 2 * in + 1);
          }
        }
      case op_kind::softmax:  // forward reads the scores and writes the probabilities; backward also
        return b * M * N * e * (forward ? 2 : 3);  // reads the probabilities' gradient
      case op_kind::embedding:  // the rows in and out; the weight gradient is a dense table (PyTorch's
        // embedding backward), written zeroed, then read and added into the FP32 main gradient
        return 2 * b * M * N * e + (pass == pass_kind::weight_grad ? b * K * N * (2 * e + 8) : 0);
      case op_kind::optimizer:  // Adam over the owned shard; zeroing and the checks over the whole buffer
        return b * (M * optimizer_bytes_per_parameter + (N + K) * 4);
      case op_kind::attention_index: {  // queries and keys in (backward: and their gradients out), and
        // a 4-byte score per pair written and read by the top-k (backward: the scores' gradients read)
        const double H = static_cast<double>(index_heads);
        return b * (M * H * K + N * K) * e * (forward ? 1 : 2) + b * attended_pairs() * (forward ? 8 : 4);
      }
      case op_kind::linear_attention:  // q, k, v in and the output out per token; the state read and written
        return b * (M * (2 * K + 2 * N) * e + 2 * K * N * (state_bytes ? state_bytes : e)) *
               (forward ? 1 : 2);
    }
    return 0;
  }

  /// The loss only (op_role::logits, element-wise; `n` the vocabulary shard): bytes the cross-entropy
  /// moves per logit of e bytes.
  /// - Megatron's, unfused (tensor_parallel/cross_entropy.py), over an FP32 working copy: forward the
  ///   cast to FP32 (e + 4; none when the logits are FP32), the row maximum (4), the maximum subtracted
  ///   in place (8), the exponential in place (8), the row sum (4), the division into probabilities (8);
  ///   backward the probabilities less the target, scaled by the loss gradient in place (8), and the
  ///   cast back to the logits' type (4 + e; none for FP32).
  /// - Megatron's fused (fusions/fused_cross_entropy.py, --cross-entropy-loss-fusion): forward the cast
  ///   and the maximum in one kernel (e + 4), the exponential (8), the sum (4), the division (8);
  ///   backward as unfused.
  /// - Transformer Engine's (--cross-entropy-fusion-impl te): forward one online-softmax pass reading
  ///   the logits (e) — the loss follows from each row's maximum and sum; backward one pass that reads
  ///   the logits and writes the gradient over them (2e).
  /// The target's gather and scatter touch one logit per token and are not counted.
  [[nodiscard]] constexpr double loss_bytes_per_logit() const noexcept {
    const double e = size_of(type), cast = e < 4 ? e + 4 : 0;
    if (loss == loss_kernel::te) return pass == pass_kind::forward ? e : 2 * e;
    if (pass != pass_kind::forward) return 8 + cast;  // Megatron's backward, fused or not
    return loss == loss_kernel::fused ? (e < 4 ? e + 4 : 4) + 20 : cast + 32;
  }
  /// The loss only: the kernels over the logits of loss_bytes_per_logit's passes — forward 6 unfused
  /// (5 without the cast), 4 fused, 1 Transformer Engine's; backward 2 (1 without the cast), 1
  /// Transformer Engine's.
  [[nodiscard]] constexpr std::uint64_t loss_kernels() const noexcept {
    const std::uint64_t cast = size_of(type) < 4 ? 1 : 0;
    if (loss == loss_kernel::te) return 1;
    if (pass != pass_kind::forward) return 1 + cast;
    return loss == loss_kernel::fused ? 4 : 5 + cast;
  }

  /// Bytes Megatron's mixed-precision Adam moves per owned parameter in one step: the fused Adam
  /// kernel reads the FP32 main gradient, main weight and two moments (16) and writes the main weight
  /// and the moments (12); a pass of its own then copies the main weight into the 16-bit model weight
  /// (read 4, write 2: the distributed optimizer's copy of main parameters to model parameters); the
  /// gradient-norm pass for clipping reads the main gradients again (4). The passes over the rank's
  /// whole FP32 gradient buffer — which the distributed optimizer does not shard — are counted by `n`
  /// and `k` (see the optimizer's fields above).
  static constexpr double optimizer_bytes_per_parameter = 38;
};

/// The kernels of unfused attention (`fused` false) in the order they run — forward: QKᵀ (a batched
/// GEMM writing the b·heads × m × n scores), scale-mask-softmax, dropout, P·V; backward: dP = dO·Vᵀ,
/// dV = Pᵀ·dO, dropout and softmax backward, dQ = dS·K, dK = dSᵀ·Q. Empty for any other operation.
struct attention_kernels {
  std::array<compute_op, 6> kernels{};
  std::size_t count = 0;
  [[nodiscard]] constexpr const compute_op* begin() const noexcept { return kernels.data(); }
  [[nodiscard]] constexpr const compute_op* end() const noexcept { return kernels.data() + count; }
};
[[nodiscard]] constexpr attention_kernels unfused_attention_kernels(const compute_op& op) noexcept {
  attention_kernels list;
  if (op.kind != op_kind::attention || op.fused) return list;
  const auto add = [&](op_kind kind, std::uint64_t rows, std::uint64_t cols, std::uint64_t inner) {
    compute_op kernel = op;
    kernel.kind = kind;
    kernel.m = rows;
    kernel.n = cols;
    kernel.k = inner;
    list.kernels[list.count++] = kernel;
  };
  // k: the query/key head size; v: the value head size (MLA's differ).
  const std::uint64_t m = op.m, n = op.n, k = op.k, v = op.v_dim ? op.v_dim : op.k;
  if (op.pass == pass_kind::forward) {
    add(op_kind::gemm, m, n, k);  // scores
    add(op_kind::softmax, m, n, 0);
    add(op_kind::elementwise, m, n, 0);  // dropout
    add(op_kind::gemm, m, v, n);         // context
  } else {
    add(op_kind::gemm, m, n, v);  // dP
    add(op_kind::gemm, n, v, m);  // dV
    add(op_kind::elementwise, m, n, 0);
    add(op_kind::softmax, m, n, 0);
    add(op_kind::gemm, m, k, n);  // dQ
    add(op_kind::gemm, n, k, m);  // dK
  }
  return list;
}

AICB_END_NAMESPACE
