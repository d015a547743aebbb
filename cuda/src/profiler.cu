// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The CUDA profiler (interface: <aicb/cuda/profiler.hpp>; method: docs/profiler.md).
#include <aicb/cuda/check.hpp>
#include <aicb/cuda/kernels.cuh>
#include <aicb/cuda/profiler.hpp>
#include <aicb/cuda/reference.hpp>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

AICB_BEGIN_NAMESPACE

namespace cuda {

namespace {

namespace k = kernels;

// ---- device memory -----------------------------------------------------------------------------------

// One device allocation, freed on scope exit.
template <class T>
class buffer {
 public:
  explicit buffer(std::size_t n) : n_(n) {
    if (n_ > 0) AICB_CHECK_CUDA(cudaMalloc(&p_, n_ * sizeof(T)));
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  ~buffer() {
    if (p_) cudaFree(p_);
  }
  [[nodiscard]] T* get() const noexcept { return p_; }
  [[nodiscard]] std::size_t size() const noexcept { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

constexpr int threads = 256;
int blocks_for(std::size_t n) {
  return static_cast<int>(std::min<std::size_t>((n + threads - 1) / threads, 65535));
}

template <class T>
void fill(const buffer<T>& b, std::uint64_t seed, float scale = 1.0f) {
  k::fill_random<<<blocks_for(b.size()), threads>>>(b.get(), b.size(), seed, scale);
  AICB_CHECK_CUDA(cudaGetLastError());
}
template <class T>
void poison(const buffer<T>& b) {
  k::poison<<<blocks_for(b.size()), threads>>>(b.get(), b.size());
  AICB_CHECK_CUDA(cudaGetLastError());
}
template <class T>
std::uint64_t nonfinite(const buffer<T>& b) {
  buffer<unsigned long long> count(1);
  AICB_CHECK_CUDA(cudaMemset(count.get(), 0, sizeof(unsigned long long)));
  k::count_nonfinite<<<blocks_for(b.size()), threads>>>(b.get(), b.size(), count.get());
  AICB_CHECK_CUDA(cudaGetLastError());
  unsigned long long host = 0;
  AICB_CHECK_CUDA(cudaMemcpy(&host, count.get(), sizeof host, cudaMemcpyDeviceToHost));
  return host;
}
template <class T>
reference::matrix download(const buffer<T>& b) {
  std::vector<float> host(b.size());
  if constexpr (std::is_same_v<T, float>) {
    AICB_CHECK_CUDA(cudaMemcpy(host.data(), b.get(), b.size() * sizeof(float), cudaMemcpyDeviceToHost));
  } else {
    buffer<float> converted(b.size());
    k::convert_to_float<<<blocks_for(b.size()), threads>>>(b.get(), converted.get(), b.size());
    AICB_CHECK_CUDA(cudaGetLastError());
    AICB_CHECK_CUDA(
        cudaMemcpy(host.data(), converted.get(), b.size() * sizeof(float), cudaMemcpyDeviceToHost));
  }
  return reference::matrix(host.begin(), host.end());
}

// ---- cuBLAS ------------------------------------------------------------------------------------------

class cublas {
 public:
  cublas() { AICB_CHECK_CUBLAS(cublasCreate(&handle_)); }
  cublas(const cublas&) = delete;
  cublas& operator=(const cublas&) = delete;
  ~cublas() { cublasDestroy(handle_); }
  [[nodiscard]] cublasHandle_t get() const noexcept { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

template <class T>
constexpr cudaDataType_t cuda_type() {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return CUDA_R_16BF;
  else if constexpr (std::is_same_v<T, __half>)
    return CUDA_R_16F;
  else
    return CUDA_R_32F;
}

// Row-major C (M×N) = op(A) · op(B) for `batch` independent problems (strided). op(A) is M×K; A is
// stored K×M when trans_a. op(B) is K×N; B is stored N×K when trans_b. cuBLAS is column-major: it
// computes Cᵀ = op(B)ᵀ · op(A)ᵀ, whose operands are the stored matrices as they lie.
template <class T>
void gemm(const cublas& h, bool trans_a, bool trans_b, int M, int N, int K, int batch, const T* A, const T* B,
          T* C) {
  const float one = 1.0f, zero = 0.0f;
  const int lda = trans_a ? M : K, ldb = trans_b ? K : N;
  AICB_CHECK_CUBLAS(cublasGemmStridedBatchedEx(
      h.get(), trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, &one, B,
      cuda_type<T>(), ldb, static_cast<long long>(K) * N, A, cuda_type<T>(), lda,
      static_cast<long long>(M) * K, &zero, C, cuda_type<T>(), N, static_cast<long long>(M) * N, batch,
      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// The GEMM of one pass of a forward product C (m×n) = A (m×k) · B (k×n): forward; input gradient
// dA (m×k) = dC · Bᵀ; weight gradient dB (k×n) = Aᵀ · dC.
struct gemm_shape {
  bool trans_a, trans_b;
  int M, N, K;
};
gemm_shape pass_shape(const compute_op& op) {
  const int m = static_cast<int>(op.m), n = static_cast<int>(op.n), kk = static_cast<int>(op.k);
  switch (op.pass) {
    case pass_kind::forward:
      return {false, false, m, n, kk};
    case pass_kind::input_grad:
      return {false, true, m, kk, n};
    case pass_kind::weight_grad:
      return {true, false, kk, n, m};
  }
  return {false, false, m, n, kk};
}

// ---- attention dispatch --------------------------------------------------------------------------------

template <class T, int D>
bool try_attention_tc(int head_dim, const T* q, const T* kk, const T* v, T* o, float* lse, int heads, int m,
                      int n, float scale, int device) {
  if (head_dim != D) return false;
  int major = 0;
  AICB_CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major < 8) return false;  // 16-bit tensor-core fragments as used here need sm_80 or later
  const std::size_t bytes = k::attention_forward_tc_shared_bytes(D);
  int optin = 0;
  AICB_CHECK_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (bytes > static_cast<std::size_t>(optin)) return false;
  AICB_CHECK_CUDA(cudaFuncSetAttribute(k::attention_forward_tc<T, D>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  const dim3 grid((m + k::attention_rows - 1) / k::attention_rows, heads);
  k::attention_forward_tc<T, D><<<grid, 128, bytes>>>(q, kk, v, o, lse, m, n, scale);
  AICB_CHECK_CUDA(cudaGetLastError());
  return true;
}

// Forward attention: the tensor-core kernel for 16-bit types and the head sizes it is built for,
// otherwise the simple kernel. Returns whether tensor cores were used.
template <class T>
bool attention_forward(const T* q, const T* kk, const T* v, T* o, float* lse, int heads, int m, int n, int d,
                       int device, bool allow_tensor_cores = true) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  if constexpr (!std::is_same_v<T, float>) {
    if (allow_tensor_cores && (try_attention_tc<T, 64>(d, q, kk, v, o, lse, heads, m, n, scale, device) ||
                               try_attention_tc<T, 96>(d, q, kk, v, o, lse, heads, m, n, scale, device) ||
                               try_attention_tc<T, 128>(d, q, kk, v, o, lse, heads, m, n, scale, device) ||
                               try_attention_tc<T, 160>(d, q, kk, v, o, lse, heads, m, n, scale, device) ||
                               try_attention_tc<T, 192>(d, q, kk, v, o, lse, heads, m, n, scale, device) ||
                               try_attention_tc<T, 256>(d, q, kk, v, o, lse, heads, m, n, scale, device)))
      return true;
  }
  if (d > 256) AICB_THROW(error("attention head size " + std::to_string(d) + " > 256 is not supported"));
  const dim3 grid((m + 63) / 64, heads);
  k::attention_forward_simple<T><<<grid, 64>>>(q, kk, v, o, lse, m, n, d, scale);
  AICB_CHECK_CUDA(cudaGetLastError());
  return false;
}

template <class T>
void attention_backward(const T* q, const T* kk, const T* v, const T* o, const T* dout, const float* lse,
                        float* dq, float* dk, float* dv, int heads, int m, int n, int d) {
  const dim3 grid((m + 63) / 64, heads);
  k::attention_backward_simple<T>
      <<<grid, 64>>>(q, kk, v, o, dout, lse, dq, dk, dv, m, n, d, 1.0f / std::sqrt(static_cast<float>(d)));
  AICB_CHECK_CUDA(cudaGetLastError());
}

// ---- timing ------------------------------------------------------------------------------------------

class event {
 public:
  event() { AICB_CHECK_CUDA(cudaEventCreate(&e_)); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  ~event() { cudaEventDestroy(e_); }
  [[nodiscard]] cudaEvent_t get() const noexcept { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// Runs `call` options.warmup times, then options.iterations times between CUDA events, each after an
// L2 flush (a memset of twice the L2 size, outside the timed span). `output` is poisoned before the
// first call and must hold no NaN or infinity after it.
template <class Output>
timing_stats time_calls(const std::function<void()>& call, const Output& output, const run_options& options,
                        const device_info& device) {
  poison(output);
  call();
  AICB_CHECK_CUDA(cudaDeviceSynchronize());
  if (const std::uint64_t bad = nonfinite(output))
    AICB_THROW(error("the kernel left " + std::to_string(bad) + " of " + std::to_string(output.size()) +
                     " outputs not finite (poisoned or overflowed)"));
  for (std::uint32_t i = 1; i < options.warmup; ++i)
    call();
  buffer<unsigned char> flush(options.l2_flush ? std::max<std::size_t>(2 * device.l2_bytes, 1 << 20) : 0);
  event start, stop;
  std::vector<double> samples;
  samples.reserve(options.iterations);
  for (std::uint32_t i = 0; i < options.iterations; ++i) {
    if (options.l2_flush)
      AICB_CHECK_CUDA(cudaMemsetAsync(flush.get(), static_cast<int>(i & 0xff), flush.size()));
    AICB_CHECK_CUDA(cudaEventRecord(start.get()));
    call();
    AICB_CHECK_CUDA(cudaEventRecord(stop.get()));
    AICB_CHECK_CUDA(cudaEventSynchronize(stop.get()));
    float ms = 0;
    AICB_CHECK_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    samples.push_back(static_cast<double>(ms) * 1000.0);
  }
  return summarize(std::move(samples));
}

template <class T>
timing_stats time_typed(const compute_op& op, const run_options& options, const device_info& device) {
  const std::uint64_t seed = options.seed;
  const auto m = static_cast<std::size_t>(op.m), n = static_cast<std::size_t>(op.n),
             kk = static_cast<std::size_t>(op.k);
  const auto batch = static_cast<std::size_t>(op.batch);
  const bool forward = op.pass == pass_kind::forward;
  switch (op.kind) {
    case op_kind::gemm: {
      const cublas handle;
      const gemm_shape s = pass_shape(op);
      const auto M = static_cast<std::size_t>(s.M), N = static_cast<std::size_t>(s.N),
                 K = static_cast<std::size_t>(s.K);
      buffer<T> a(batch * M * K), b(batch * K * N), c(batch * M * N);
      fill(a, seed, 1.0f);
      fill(b, seed + 1, 1.0f / std::sqrt(static_cast<float>(K)));
      return time_calls(
          [&] {
            gemm(handle, s.trans_a, s.trans_b, s.M, s.N, s.K, static_cast<int>(batch), a.get(), b.get(),
                 c.get());
          },
          c, options, device);
    }
    case op_kind::attention: {
      // batch = micro batch × heads; m queries, n keys, head size k.
      buffer<T> q(batch * m * kk), key(batch * n * kk), v(batch * n * kk), o(batch * m * kk);
      buffer<float> lse(batch * m);
      fill(q, seed);
      fill(key, seed + 1);
      fill(v, seed + 2);
      const int heads = static_cast<int>(batch), M = static_cast<int>(m), N = static_cast<int>(n),
                D = static_cast<int>(kk);
      if (forward)
        return time_calls(
            [&] {
              attention_forward(q.get(), key.get(), v.get(), o.get(), lse.get(), heads, M, N, D,
                                options.device);
            },
            o, options, device);
      attention_forward(q.get(), key.get(), v.get(), o.get(), lse.get(), heads, M, N, D, options.device);
      buffer<T> dout(batch * m * kk);
      buffer<float> dq(batch * m * kk), dk(batch * n * kk), dv(batch * n * kk);
      fill(dout, seed + 3);
      return time_calls(
          [&] {
            AICB_CHECK_CUDA(cudaMemsetAsync(dq.get(), 0, dq.size() * sizeof(float)));
            AICB_CHECK_CUDA(cudaMemsetAsync(dk.get(), 0, dk.size() * sizeof(float)));
            AICB_CHECK_CUDA(cudaMemsetAsync(dv.get(), 0, dv.size() * sizeof(float)));
            attention_backward(q.get(), key.get(), v.get(), o.get(), dout.get(), lse.get(), dq.get(),
                               dk.get(), dv.get(), heads, M, N, D);
          },
          dq, options, device);
    }
    case op_kind::norm: {
      // m rows of n features; LayerNorm or RMSNorm cost the same: time RMSNorm (LLaMA-style models).
      buffer<T> x(batch * m * n), gamma(n), beta(n), y(batch * m * n);
      fill(x, seed);
      fill(gamma, seed + 1);
      fill(beta, seed + 2);
      const int rows = static_cast<int>(batch * m), cols = static_cast<int>(n);
      if (forward)
        return time_calls(
            [&] {
              k::norm_forward<<<rows, threads>>>(x.get(), gamma.get(), beta.get(), y.get(), cols, true);
            },
            y, options, device);
      buffer<T> dy(batch * m * n);
      buffer<float> dgamma(n);
      fill(dy, seed + 3);
      return time_calls(
          [&] {
            AICB_CHECK_CUDA(cudaMemsetAsync(dgamma.get(), 0, dgamma.size() * sizeof(float)));
            k::norm_backward<<<rows, threads>>>(x.get(), gamma.get(), dy.get(), y.get(), dgamma.get(), cols,
                                                true);
          },
          y, options, device);
    }
    case op_kind::elementwise: {
      // The MLP activation over m × n outputs: SwiGLU reads 2n inputs per row, GeLU n.
      const std::size_t outputs = batch * m * n, inputs = options.swiglu ? 2 * outputs : outputs;
      buffer<T> x(inputs), y(outputs), dx(inputs);
      fill(x, seed);
      if (forward)
        return time_calls(
            [&] {
              if (options.swiglu)
                k::swiglu_forward<<<blocks_for(outputs), threads>>>(x.get(), y.get(), batch * m, n);
              else
                k::gelu_forward<<<blocks_for(outputs), threads>>>(x.get(), y.get(), outputs);
            },
            y, options, device);
      fill(y, seed + 1);  // the output gradient
      return time_calls(
          [&] {
            if (options.swiglu)
              k::swiglu_backward<<<blocks_for(outputs), threads>>>(x.get(), y.get(), dx.get(), batch * m, n);
            else
              k::gelu_backward<<<blocks_for(outputs), threads>>>(x.get(), y.get(), dx.get(), outputs);
          },
          dx, options, device);
    }
    case op_kind::embedding: {
      // m tokens of n features from a table of 32768 rows (the lookup's cost does not depend on its size).
      constexpr std::uint32_t rows = 32768;
      buffer<std::int32_t> ids(batch * m);
      buffer<T> table(static_cast<std::size_t>(rows) * n), y(batch * m * n);
      k::fill_ids<<<blocks_for(ids.size()), threads>>>(ids.get(), ids.size(), rows, seed);
      fill(table, seed + 1);
      if (forward)
        return time_calls(
            [&] {
              k::embedding_forward<<<blocks_for(y.size()), threads>>>(ids.get(), table.get(), y.get(),
                                                                      batch * m, n);
            },
            y, options, device);
      buffer<float> dtable(static_cast<std::size_t>(rows) * n);
      fill(y, seed + 2);
      return time_calls(
          [&] {
            AICB_CHECK_CUDA(cudaMemsetAsync(dtable.get(), 0, dtable.size() * sizeof(float)));
            k::embedding_backward<<<blocks_for(y.size()), threads>>>(ids.get(), y.get(), dtable.get(),
                                                                     batch * m, n);
          },
          dtable, options, device);
    }
    case op_kind::optimizer: {
      // The step over m parameters of this GPU: the gradient norm, then AdamW on fp32 master weights.
      const std::size_t params = batch * m;
      buffer<float> w(params), mom(params), var(params), g(params), norm(1);
      buffer<T> w_out(params);
      fill(w, seed);
      fill(g, seed + 1, 1e-3f);
      AICB_CHECK_CUDA(cudaMemset(mom.get(), 0, params * sizeof(float)));
      AICB_CHECK_CUDA(cudaMemset(var.get(), 0, params * sizeof(float)));
      return time_calls(
          [&] {
            AICB_CHECK_CUDA(cudaMemsetAsync(norm.get(), 0, sizeof(float)));
            k::sum_of_squares<<<blocks_for(params), threads>>>(g.get(), params, norm.get());
            k::adam_step<<<blocks_for(params), threads>>>(w.get(), mom.get(), var.get(), g.get(), w_out.get(),
                                                          params, 1e-4f, 0.9f, 0.95f, 1e-8f, 0.1f, 0.1f,
                                                          0.05f);
          },
          w_out, options, device);
    }
    case op_kind::softmax:
      break;  // only inside unfused attention, which the profiler does not time
  }
  AICB_THROW(error("the profiler does not time " + std::string(to_string(op.kind)) + " operations"));
}

// ---- correctness ---------------------------------------------------------------------------------------

template <class T>
std::vector<check_result> check_typed(dtype type, std::uint64_t seed, int device) {
  std::vector<check_result> results;
  const double tol = tolerance(type);
  const auto record = [&](const std::string& kernel, const reference::matrix& got,
                          const reference::matrix& want, double scale_tolerance = 1.0) {
    results.push_back({kernel, type, reference::max_error(got, want), tol * scale_tolerance});
  };

  {  // GEMM, all three passes, batched, sizes that are not multiples of the tile sizes.
    const cublas handle;
    const int batch = 2, m = 72, n = 88, kk = 56;
    for (const pass_kind pass : {pass_kind::forward, pass_kind::input_grad, pass_kind::weight_grad}) {
      compute_op op;
      op.m = m, op.n = n, op.k = kk, op.pass = pass;
      const gemm_shape s = pass_shape(op);
      buffer<T> a(batch * s.M * s.K), b(batch * s.K * s.N), c(batch * s.M * s.N);
      fill(a, seed);
      fill(b, seed + 1);
      gemm(handle, s.trans_a, s.trans_b, s.M, s.N, s.K, batch, a.get(), b.get(), c.get());
      const auto A = download(a), B = download(b), C = download(c);
      reference::matrix want;
      for (int i = 0; i < batch; ++i) {
        const reference::matrix Ai(A.begin() + i * s.M * s.K, A.begin() + (i + 1) * s.M * s.K);
        const reference::matrix Bi(B.begin() + i * s.K * s.N, B.begin() + (i + 1) * s.K * s.N);
        const reference::matrix Ci = reference::gemm(s.trans_a, s.trans_b, s.M, s.N, s.K, Ai, Bi);
        want.insert(want.end(), Ci.begin(), Ci.end());
      }
      record(std::string("GEMM ") + std::string(to_string(pass)), C, want);
    }
  }

  {  // Attention: tensor-core and simple forward, square and with fewer queries than keys; backward.
    struct shape {
      int heads, m, n, d;
    };
    for (const shape sh : {shape{2, 80, 80, 64}, shape{1, 48, 112, 128}, shape{1, 70, 70, 160}}) {
      const std::size_t qs = static_cast<std::size_t>(sh.heads) * sh.m * sh.d,
                        ks = static_cast<std::size_t>(sh.heads) * sh.n * sh.d;
      buffer<T> q(qs), key(ks), v(ks), o(qs), dout(qs);
      buffer<float> lse(static_cast<std::size_t>(sh.heads) * sh.m), dq(qs), dk(ks), dv(ks);
      fill(q, seed + 2);
      fill(key, seed + 3);
      fill(v, seed + 4);
      fill(dout, seed + 5);
      const auto Q = download(q), K = download(key), V = download(v), dO = download(dout);
      const auto want = reference::attention_forward(sh.heads, sh.m, sh.n, sh.d, Q, K, V);
      const std::string label =
          " (" + std::to_string(sh.m) + "x" + std::to_string(sh.n) + ", d " + std::to_string(sh.d) + ")";
      for (const bool tensor_cores : {true, false}) {
        poison(o);
        const bool used = attention_forward(q.get(), key.get(), v.get(), o.get(), lse.get(), sh.heads, sh.m,
                                            sh.n, sh.d, device, tensor_cores);
        AICB_CHECK_CUDA(cudaDeviceSynchronize());
        if (tensor_cores && !used) continue;  // fp32: the simple kernel only
        const std::string kind = used ? "attention forward, tensor cores" : "attention forward, simple";
        record(kind + label, download(o), want.o);
        record(kind + " log-sum-exp" + label, download(lse), want.lse);
      }
      // The backward reads the simple kernel's output and log-sum-exp (the last forward run).
      AICB_CHECK_CUDA(cudaMemset(dq.get(), 0, qs * sizeof(float)));
      AICB_CHECK_CUDA(cudaMemset(dk.get(), 0, ks * sizeof(float)));
      AICB_CHECK_CUDA(cudaMemset(dv.get(), 0, ks * sizeof(float)));
      attention_backward(q.get(), key.get(), v.get(), o.get(), dout.get(), lse.get(), dq.get(), dk.get(),
                         dv.get(), sh.heads, sh.m, sh.n, sh.d);
      const auto grads = reference::attention_backward(sh.heads, sh.m, sh.n, sh.d, Q, K, V, dO);
      // The backward sums over up to n keys of rounded inputs: twice the forward's tolerance.
      record("attention backward dQ" + label, download(dq), grads.dq, 2);
      record("attention backward dK" + label, download(dk), grads.dk, 2);
      record("attention backward dV" + label, download(dv), grads.dv, 2);
    }
  }

  {  // Norms, forward and backward.
    const int rows = 5, cols = 300;
    buffer<T> x(rows * cols), gamma(cols), beta(cols), y(rows * cols), dy(rows * cols), dx(rows * cols);
    buffer<float> dgamma(cols);
    fill(x, seed + 6);
    fill(gamma, seed + 7);
    fill(beta, seed + 8);
    fill(dy, seed + 9);
    const auto X = download(x), G = download(gamma), B = download(beta), DY = download(dy);
    for (const bool rms : {false, true}) {
      const std::string name = rms ? "RMSNorm" : "LayerNorm";
      k::norm_forward<<<rows, threads>>>(x.get(), gamma.get(), beta.get(), y.get(), cols, rms);
      AICB_CHECK_CUDA(cudaGetLastError());
      record(name + " forward", download(y), reference::norm_forward(rms, rows, cols, X, G, B));
      AICB_CHECK_CUDA(cudaMemset(dgamma.get(), 0, cols * sizeof(float)));
      k::norm_backward<<<rows, threads>>>(x.get(), gamma.get(), dy.get(), dx.get(), dgamma.get(), cols, rms);
      AICB_CHECK_CUDA(cudaGetLastError());
      record(name + " backward", download(dx), reference::norm_backward(rms, rows, cols, X, G, DY), 2);
    }
  }

  {  // Activations.
    const std::size_t rows = 7, cols = 130;
    buffer<T> x(rows * 2 * cols), y(rows * cols), dy(rows * cols), dx(rows * 2 * cols);
    fill(x, seed + 10, 3.0f);
    fill(dy, seed + 11);
    const auto X = download(x), DY = download(dy);
    k::swiglu_forward<<<blocks_for(rows * cols), threads>>>(x.get(), y.get(), rows, cols);
    record("SwiGLU forward", download(y), reference::swiglu_forward(rows, cols, X));
    k::swiglu_backward<<<blocks_for(rows * cols), threads>>>(x.get(), dy.get(), dx.get(), rows, cols);
    record("SwiGLU backward", download(dx), reference::swiglu_backward(rows, cols, X, DY));
    k::gelu_forward<<<blocks_for(rows * cols), threads>>>(x.get(), y.get(), rows * cols);
    k::gelu_backward<<<blocks_for(rows * cols), threads>>>(x.get(), dy.get(), dx.get(), rows * cols);
    AICB_CHECK_CUDA(cudaGetLastError());
    reference::matrix gelu_y(rows * cols), gelu_dx(rows * cols);
    for (std::size_t i = 0; i < rows * cols; ++i) {
      gelu_y[i] = reference::gelu(X[i]);
      gelu_dx[i] = DY[i] * reference::gelu_grad(X[i]);
    }
    record("GeLU forward", download(y), gelu_y);
    auto DX = download(dx);
    DX.resize(rows * cols);
    record("GeLU backward", DX, gelu_dx);
  }

  {  // Embedding, with repeated ids.
    const std::size_t tokens = 200, cols = 96;
    const std::uint32_t rows = 50;
    buffer<std::int32_t> ids(tokens);
    buffer<T> table(rows * cols), y(tokens * cols), dy(tokens * cols);
    buffer<float> dtable(rows * cols);
    k::fill_ids<<<blocks_for(tokens), threads>>>(ids.get(), tokens, rows, seed + 12);
    fill(table, seed + 13);
    fill(dy, seed + 14);
    std::vector<std::int32_t> host_ids(tokens);
    AICB_CHECK_CUDA(
        cudaMemcpy(host_ids.data(), ids.get(), tokens * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
    k::embedding_forward<<<blocks_for(tokens * cols), threads>>>(ids.get(), table.get(), y.get(), tokens,
                                                                 cols);
    record("embedding forward", download(y), reference::embedding_forward(cols, host_ids, download(table)));
    AICB_CHECK_CUDA(cudaMemset(dtable.get(), 0, rows * cols * sizeof(float)));
    k::embedding_backward<<<blocks_for(tokens * cols), threads>>>(ids.get(), dy.get(), dtable.get(), tokens,
                                                                  cols);
    record("embedding backward", download(dtable),
           reference::embedding_backward(rows, cols, host_ids, download(dy)), 2);
  }

  {  // AdamW (fp32 state; the bf16/fp16 copy of the weights rounds) and the gradient norm.
    const std::size_t params = 10000;
    buffer<float> w(params), mom(params), var(params), g(params), norm(1);
    buffer<T> w_out(params);
    fill(w, seed + 15);
    fill(g, seed + 16, 1e-2f);
    AICB_CHECK_CUDA(cudaMemset(mom.get(), 0, params * sizeof(float)));
    AICB_CHECK_CUDA(cudaMemset(var.get(), 0, params * sizeof(float)));
    AICB_CHECK_CUDA(cudaMemset(norm.get(), 0, sizeof(float)));
    auto W = download(w), M = download(mom), Vv = download(var);
    const auto G = download(g);
    k::sum_of_squares<<<blocks_for(params), threads>>>(g.get(), params, norm.get());
    k::adam_step<<<blocks_for(params), threads>>>(w.get(), mom.get(), var.get(), g.get(), w_out.get(), params,
                                                  1e-2f, 0.9f, 0.95f, 1e-8f, 0.1f, 0.1f, 0.05f);
    AICB_CHECK_CUDA(cudaGetLastError());
    reference::adam_step(W, M, Vv, G, 1,
                         {.lr = 1e-2, .beta1 = 0.9, .beta2 = 0.95, .eps = 1e-8, .weight_decay = 0.1});
    record("AdamW master weights", download(w), W);
    record("AdamW moments", download(var), Vv);
    record("AdamW weights in the training dtype", download(w_out), W);
    record("gradient norm", {std::sqrt(download(norm)[0])}, {reference::grad_norm(G)});
  }
  return results;
}

}  // namespace

bool device_available(std::string& why, int device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    why = std::string("no usable CUDA device: ") + cudaGetErrorName(status) + " (" +
          cudaGetErrorString(status) + ")";
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return false;
  }
  if (device < 0 || device >= count) {
    why = "CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " found)";
    return false;
  }
  return true;
}

device_info query_device(int device) {
  AICB_CHECK_CUDA(cudaSetDevice(device));
  cudaDeviceProp p{};
  AICB_CHECK_CUDA(cudaGetDeviceProperties(&p, device));
  device_info d;
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.memory_bytes = p.totalGlobalMem;
  d.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  d.memory_bus_bits = p.memoryBusWidth;
  AICB_CHECK_CUDA(cudaDriverGetVersion(&d.driver_version));
  AICB_CHECK_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  int khz = 0;
  AICB_CHECK_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  d.sm_clock_mhz = khz / 1000;
  AICB_CHECK_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
  d.memory_clock_mhz = khz / 1000;
  return d;
}

timing_stats time_operation(const compute_op& op, const run_options& options) {
  AICB_CHECK_CUDA(cudaSetDevice(options.device));
  cudaGetLastError();  // an error a caller left unread must not be blamed on the first kernel here
  const device_info device = query_device(options.device);
  switch (op.type) {
    case dtype::bf16:
      return time_typed<__nv_bfloat16>(op, options, device);
    case dtype::fp16:
      return time_typed<__half>(op, options, device);
    case dtype::fp32:
      return time_typed<float>(op, options, device);
    case dtype::fp8:
      break;
  }
  AICB_THROW(error("the profiler does not time fp8 operations yet (cuBLASLt FP8 GEMMs are not wired in)"));
}

std::vector<check_result> check_kernels(dtype type, std::uint64_t seed, int device) {
  AICB_CHECK_CUDA(cudaSetDevice(device));
  cudaGetLastError();  // as in time_operation
  switch (type) {
    case dtype::bf16:
      return check_typed<__nv_bfloat16>(type, seed, device);
    case dtype::fp16:
      return check_typed<__half>(type, seed, device);
    case dtype::fp32:
      return check_typed<float>(type, seed, device);
    case dtype::fp8:
      break;
  }
  AICB_THROW(error("the profiler has no fp8 kernels to check"));
}

}  // namespace cuda

AICB_END_NAMESPACE
