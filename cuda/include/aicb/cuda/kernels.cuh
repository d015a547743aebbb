// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The CUDA profiler's own kernels (docs/profiler.md): input generation and output checks, LayerNorm
/// and RMSNorm, GeLU and SwiGLU, embedding lookup, AdamW and the gradient norm, and causal attention —
/// forward on tensor cores (FlashAttention-2's algorithm: query tiles, an online softmax over key
/// tiles, nothing of size s×s in memory) and a direct backward. Element types: float, __half,
/// __nv_bfloat16; arithmetic in float. GEMMs are cuBLAS's (cuda/src/profiler.cu).
///
/// Every kernel is checked against the float64 references of <aicb/cuda/reference.hpp>.

#include <aicb/config.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstddef>
#include <cstdint>

AICB_BEGIN_NAMESPACE

namespace cuda::kernels {

// ---- element types --------------------------------------------------------------------------------

AICB_HOST_DEVICE inline float to_float(float x) { return x; }
__device__ inline float to_float(__half x) { return __half2float(x); }
__device__ inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__device__ inline T from_float(float x);
template <>
__device__ inline float from_float<float>(float x) {
  return x;
}
template <>
__device__ inline __half from_float<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// splitmix64: a counter-based hash, so every element's value depends only on (seed, index).
AICB_HOST_DEVICE inline std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Pseudo-random values of magnitude in [0.25, 1] × scale, random sign: never zero.
template <class T>
__global__ void fill_random(T* p, std::size_t n, std::uint64_t seed, float scale) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const std::uint64_t h = mix(seed * 0x100000001B3ull + i);
    const float u = static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
    p[i] = from_float<T>(((h & 1) ? -1.0f : 1.0f) * (0.25f + 0.75f * u) * scale);
  }
}

/// Token ids in [0, rows).
__global__ void fill_ids(std::int32_t* ids, std::size_t n, std::uint32_t rows, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    ids[i] = static_cast<std::int32_t>(mix(seed + i) % rows);
}

/// NaN everywhere: an output a kernel fails to write stays NaN, which count_nonfinite() finds.
template <class T>
__global__ void poison(T* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = from_float<T>(__int_as_float(0x7fc00000));
}

template <class T>
__global__ void count_nonfinite(const T* p, std::size_t n, unsigned long long* count) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (!isfinite(to_float(p[i]))) atomicAdd(count, 1ull);
}

template <class T>
__global__ void convert_to_float(const T* in, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = to_float(in[i]);
}

// ---- reductions -----------------------------------------------------------------------------------

// The sums of a and b over the block (blockDim.x a multiple of 32, at most 1024), in every thread.
__device__ inline void block_sum2(float& a, float& b) {
  __shared__ float shared[2][32];
  for (int offset = 16; offset > 0; offset /= 2) {
    a += __shfl_xor_sync(0xffffffffu, a, offset);
    b += __shfl_xor_sync(0xffffffffu, b, offset);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  __syncthreads();  // shared may still be read by a previous call
  if (lane == 0) {
    shared[0][warp] = a;
    shared[1][warp] = b;
  }
  __syncthreads();
  a = lane < warps ? shared[0][lane] : 0.0f;
  b = lane < warps ? shared[1][lane] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) {
    a += __shfl_xor_sync(0xffffffffu, a, offset);
    b += __shfl_xor_sync(0xffffffffu, b, offset);
  }
}

// ---- norms: one block per row -------------------------------------------------------------------------

// A row's centre (its mean; 0 for RMSNorm) and 1/√(variance + ε) (mean square for RMSNorm), ε = 1e-5,
// computed by the whole block.
template <class T>
__device__ inline void norm_statistics(const T* in, int cols, bool rms, float& center, float& rstd) {
  float sum = 0, square = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = to_float(in[c]);
    sum += v;
    square += v * v;
  }
  block_sum2(sum, square);
  const float mean = sum / cols;
  center = rms ? 0.0f : mean;
  rstd = rsqrtf((rms ? square / cols : square / cols - mean * mean) + 1e-5f);
}

/// y = (x − mean) / √(var + ε) · γ + β, or with `rms` x / √(mean(x²) + ε) · γ. ε = 1e-5.
template <class T>
__global__ void norm_forward(const T* x, const T* gamma, const T* beta, T* y, int cols, bool rms) {
  const T* in = x + static_cast<std::size_t>(blockIdx.x) * cols;
  T* out = y + static_cast<std::size_t>(blockIdx.x) * cols;
  float center = 0, rstd = 0;
  norm_statistics(in, cols, rms, center, rstd);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[c] = from_float<T>((to_float(in[c]) - center) * rstd * to_float(gamma[c]) +
                           (rms ? 0.0f : to_float(beta[c])));
}

/// dx of norm_forward; dγ accumulated into `dgamma` (float, zeroed by the caller).
template <class T>
__global__ void norm_backward(const T* x, const T* gamma, const T* dy, T* dx, float* dgamma, int cols,
                              bool rms) {
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * cols;
  float center = 0, rstd = 0;
  norm_statistics(x + row, cols, rms, center, rstd);
  float mean_g = 0, mean_gx = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float g = to_float(dy[row + c]) * to_float(gamma[c]), xhat = (to_float(x[row + c]) - center) * rstd;
    mean_g += g;
    mean_gx += g * xhat;
  }
  block_sum2(mean_g, mean_gx);
  mean_g /= cols;
  mean_gx /= cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = to_float(dy[row + c]), xhat = (to_float(x[row + c]) - center) * rstd;
    const float g = d * to_float(gamma[c]);
    dx[row + c] = from_float<T>(rstd * (g - (rms ? 0.0f : mean_g) - xhat * mean_gx));
    atomicAdd(&dgamma[c], d * xhat);
  }
}

// ---- activations -------------------------------------------------------------------------------------

__device__ inline float gelu(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}
__device__ inline float gelu_grad(float x) {
  const float t = tanhf(0.7978845608f * (x + 0.044715f * x * x * x));
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * 0.7978845608f * (1.0f + 3.0f * 0.044715f * x * x);
}

template <class T>
__global__ void gelu_forward(const T* x, T* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = from_float<T>(gelu(to_float(x[i])));
}
template <class T>
__global__ void gelu_backward(const T* x, const T* dy, T* dx, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    dx[i] = from_float<T>(to_float(dy[i]) * gelu_grad(to_float(x[i])));
}

/// y[r, c] = silu(x[r, c]) · x[r, cols + c]: gate and up halves of each row of 2·cols.
template <class T>
__global__ void swiglu_forward(const T* x, T* y, std::size_t rows, std::size_t cols) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += gridDim.x * blockDim.x) {
    const std::size_t r = i / cols, c = i % cols;
    const float a = to_float(x[r * 2 * cols + c]), b = to_float(x[r * 2 * cols + cols + c]);
    y[i] = from_float<T>(a / (1.0f + __expf(-a)) * b);
  }
}
template <class T>
__global__ void swiglu_backward(const T* x, const T* dy, T* dx, std::size_t rows, std::size_t cols) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += gridDim.x * blockDim.x) {
    const std::size_t r = i / cols, c = i % cols;
    const float a = to_float(x[r * 2 * cols + c]), b = to_float(x[r * 2 * cols + cols + c]),
                g = to_float(dy[i]);
    const float s = 1.0f / (1.0f + __expf(-a));
    dx[r * 2 * cols + c] = from_float<T>(g * b * s * (1.0f + a * (1.0f - s)));
    dx[r * 2 * cols + cols + c] = from_float<T>(g * a * s);
  }
}

// ---- embedding ---------------------------------------------------------------------------------------

template <class T>
__global__ void embedding_forward(const std::int32_t* ids, const T* table, T* y, std::size_t tokens,
                                  std::size_t cols) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < tokens * cols; i += gridDim.x * blockDim.x)
    y[i] = table[static_cast<std::size_t>(ids[i / cols]) * cols + i % cols];
}
/// The table's gradient (float, zeroed by the caller): each token's row added to its id's row.
template <class T>
__global__ void embedding_backward(const std::int32_t* ids, const T* dy, float* dtable, std::size_t tokens,
                                   std::size_t cols) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < tokens * cols; i += gridDim.x * blockDim.x)
    atomicAdd(&dtable[static_cast<std::size_t>(ids[i / cols]) * cols + i % cols], to_float(dy[i]));
}

// ---- optimizer ---------------------------------------------------------------------------------------

/// Σ g² into `out` (float, zeroed by the caller); the norm is its square root.
__global__ void sum_of_squares(const float* g, std::size_t n, float* out) {
  float s = 0, unused = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += g[i] * g[i];
  block_sum2(s, unused);
  if (threadIdx.x == 0) atomicAdd(out, s);
}

/// AdamW on fp32 master weights and moments; the updated weights also written in the training dtype.
/// `correction1/2` = 1 − β^t.
template <class T>
__global__ void adam_step(float* w, float* m, float* v, const float* g, T* w_out, std::size_t n, float lr,
                          float beta1, float beta2, float eps, float weight_decay, float correction1,
                          float correction2) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float grad = g[i];
    const float mi = beta1 * m[i] + (1 - beta1) * grad, vi = beta2 * v[i] + (1 - beta2) * grad * grad;
    m[i] = mi;
    v[i] = vi;
    const float wi = w[i] - lr * (mi / correction1 / (sqrtf(vi / correction2) + eps) + weight_decay * w[i]);
    w[i] = wi;
    w_out[i] = from_float<T>(wi);
  }
}

// ---- causal attention --------------------------------------------------------------------------------
// Layout: Q, O [heads][m][d]; K, V [heads][n][d]; lse [heads][m]. Query i sees keys j ≤ i + n − m.

/// Forward on tensor cores (bf16 / fp16, head size D a multiple of 16): a block of 4 warps takes 64
/// queries (16 per warp) and walks the key tiles of 64 its queries can see. Per tile each warp forms
/// S = Q·Kᵀ (WMMA, float accumulation), updates its rows' running maximum and sum (online softmax),
/// rescales its output accumulator and adds P·V (WMMA). O and the log-sum-exp are written at the end.
/// Shared memory: attention_forward_tc_shared_bytes(D).
constexpr int attention_rows = 64, attention_cols = 64;
constexpr std::size_t attention_forward_tc_shared_bytes(int d) {
  return static_cast<std::size_t>(attention_rows + 2 * attention_cols) * d * 2  // Q, K, V tiles
         + 4 * 16 * attention_cols * 2                                          // P (per warp)
         + 4 * 16 * attention_cols * 4                                          // S (per warp)
         + 4 * 16 * static_cast<std::size_t>(d) * 4                             // O accumulators
         + 2 * 4 * 16 * 4;                                                      // running max and sum
}

template <class T, int D>
__global__ void __launch_bounds__(128)
    attention_forward_tc(const T* q, const T* k, const T* v, T* o, float* lse, int m, int n, float scale) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // bf16 tensor cores need sm_80; the host dispatch never launches this there
#else
  namespace wmma = nvcuda::wmma;
  constexpr int BR = attention_rows, BC = attention_cols;
  extern __shared__ __align__(128) unsigned char shared_raw[];
  T* sQ = reinterpret_cast<T*>(shared_raw);
  T* sK = sQ + BR * D;
  T* sV = sK + BC * D;
  T* sP = sV + BC * D;
  float* sS = reinterpret_cast<float*>(sP + 4 * 16 * BC);
  float* sO = sS + 4 * 16 * BC;
  float* sMax = sO + 4 * 16 * D;
  float* sSum = sMax + 4 * 16;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::size_t head = blockIdx.y;
  const int q0 = blockIdx.x * BR, offset = n - m;
  const T* Q = q + head * m * D;
  const T* K = k + head * n * D;
  const T* V = v + head * n * D;

  for (int i = threadIdx.x; i < BR * D; i += blockDim.x) {
    const int r = i / D, c = i % D;
    sQ[i] = q0 + r < m ? Q[static_cast<std::size_t>(q0 + r) * D + c] : from_float<T>(0.0f);
  }
  for (int i = threadIdx.x; i < 4 * 16 * D; i += blockDim.x)
    sO[i] = 0.0f;
  for (int i = threadIdx.x; i < 4 * 16; i += blockDim.x) {
    sMax[i] = -INFINITY;
    sSum[i] = 0.0f;
  }

  float* S = sS + warp * 16 * BC;
  T* P = sP + warp * 16 * BC;
  float* O = sO + warp * 16 * D;
  const int row = lane / 2, half = lane % 2, query = q0 + warp * 16 + row;
  const int last_query = min(q0 + BR, m) - 1;
  const int key_end = min(n, last_query + offset + 1);

  for (int k0 = 0; k0 < key_end; k0 += BC) {
    __syncthreads();  // every warp is done with the previous tiles (and the Q tile is loaded)
    for (int i = threadIdx.x; i < BC * D; i += blockDim.x) {
      const int r = i / D, c = i % D;
      const bool inside = k0 + r < n;
      sK[i] = inside ? K[static_cast<std::size_t>(k0 + r) * D + c] : from_float<T>(0.0f);
      sV[i] = inside ? V[static_cast<std::size_t>(k0 + r) * D + c] : from_float<T>(0.0f);
    }
    __syncthreads();

    // S (16 × BC) = Q_warp (16 × D) · Kᵀ (D × BC).
    for (int j = 0; j < BC / 16; ++j) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
      for (int kk = 0; kk < D; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b;
        wmma::load_matrix_sync(a, sQ + warp * 16 * D + kk, D);
        wmma::load_matrix_sync(b, sK + j * 16 * D + kk, D);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(S + j * 16, acc, BC, wmma::mem_row_major);
    }
    __syncwarp();

    // Online softmax: two lanes per row, 32 columns each.
    float tile_max = -INFINITY;
    for (int c = half * 32; c < half * 32 + 32; ++c) {
      const int key = k0 + c;
      const bool visible = query < m && key < n && key <= query + offset;
      const float s = visible ? S[row * BC + c] * scale : -INFINITY;
      S[row * BC + c] = s;
      tile_max = fmaxf(tile_max, s);
    }
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    const float old_max = sMax[warp * 16 + row];
    const float new_max = fmaxf(old_max, tile_max);
    float tile_sum = 0.0f;
    for (int c = half * 32; c < half * 32 + 32; ++c) {
      const float p = new_max == -INFINITY ? 0.0f : __expf(S[row * BC + c] - new_max);
      P[row * BC + c] = from_float<T>(p);
      tile_sum += p;
    }
    tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, 1);
    const float alpha = old_max == -INFINITY ? 0.0f : __expf(old_max - new_max);
    for (int c = half * (D / 2); c < half * (D / 2) + D / 2; ++c)
      O[row * D + c] *= alpha;
    if (half == 0) {
      sMax[warp * 16 + row] = new_max;
      sSum[warp * 16 + row] = sSum[warp * 16 + row] * alpha + tile_sum;
    }
    __syncwarp();

    // O_warp (16 × D) += P (16 × BC) · V (BC × D).
    for (int j = 0; j < D / 16; ++j) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, O + j * 16, D, wmma::mem_row_major);
      for (int kk = 0; kk < BC; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b;
        wmma::load_matrix_sync(a, P + kk, BC);
        wmma::load_matrix_sync(b, sV + kk * D + j * 16, D);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(O + j * 16, acc, D, wmma::mem_row_major);
    }
    __syncwarp();
  }

  if (query < m) {
    const float sum = sSum[warp * 16 + row], inverse = sum > 0 ? 1.0f / sum : 0.0f;
    for (int c = half * (D / 2); c < half * (D / 2) + D / 2; ++c)
      o[(head * m + query) * D + c] = from_float<T>(O[row * D + c] * inverse);
    if (half == 0) lse[head * m + query] = sMax[warp * 16 + row] + logf(sum);
  }
#endif
}

/// Forward for any head size and dtype (fp32, or sizes the tensor-core kernel does not take): one
/// thread per query, keys streamed through shared memory in tiles of 16, online softmax in registers
/// and local memory. Correct everywhere, far from FlashAttention's speed. d ≤ 256.
template <class T>
__global__ void attention_forward_simple(const T* q, const T* k, const T* v, T* o, float* lse, int m, int n,
                                         int d, float scale) {
  constexpr int tile = 16, max_d = 256;  // 2 × 16 × 257 floats of static shared memory
  __shared__ float sK[tile][max_d + 1], sV[tile][max_d + 1];
  const std::size_t head = blockIdx.y;
  const int query = blockIdx.x * blockDim.x + threadIdx.x, offset = n - m;
  float qv[max_d], acc[max_d];
  for (int c = 0; c < d; ++c) {
    qv[c] = query < m ? to_float(q[(head * m + query) * d + c]) : 0.0f;
    acc[c] = 0.0f;
  }
  float running_max = -INFINITY, running_sum = 0.0f;
  const int last = min(m, static_cast<int>(blockIdx.x + 1) * static_cast<int>(blockDim.x)) - 1 + offset;
  for (int k0 = 0; k0 <= last && k0 < n; k0 += tile) {
    __syncthreads();
    for (int i = threadIdx.x; i < tile * d; i += blockDim.x) {
      const int r = i / d, c = i % d;
      const bool inside = k0 + r < n;
      sK[r][c] = inside ? to_float(k[(head * n + k0 + r) * d + c]) : 0.0f;
      sV[r][c] = inside ? to_float(v[(head * n + k0 + r) * d + c]) : 0.0f;
    }
    __syncthreads();
    if (query >= m) continue;
    for (int r = 0; r < tile; ++r) {
      const int key = k0 + r;
      if (key >= n || key > query + offset) break;
      float s = 0.0f;
      for (int c = 0; c < d; ++c)
        s += qv[c] * sK[r][c];
      s *= scale;
      const float new_max = fmaxf(running_max, s);
      const float alpha = running_max == -INFINITY ? 0.0f : __expf(running_max - new_max),
                  p = __expf(s - new_max);
      running_sum = running_sum * alpha + p;
      for (int c = 0; c < d; ++c)
        acc[c] = acc[c] * alpha + p * sV[r][c];
      running_max = new_max;
    }
  }
  if (query >= m) return;
  for (int c = 0; c < d; ++c)
    o[(head * m + query) * d + c] = from_float<T>(acc[c] / running_sum);
  lse[head * m + query] = running_max + logf(running_sum);
}

/// Backward, directly from the definition: one thread per query recomputes its probabilities from
/// the saved log-sum-exp (P = exp(S − lse)), forms dS = P ∘ (dP − Σ dO∘O), writes dQ and adds its
/// contributions to dK and dV (float, zeroed by the caller) with atomics. Correct; slow — the
/// profiler does not time it (docs/profiler.md). d ≤ 256.
template <class T>
__global__ void attention_backward_simple(const T* q, const T* k, const T* v, const T* o, const T* dout,
                                          const float* lse, float* dq, float* dk, float* dv, int m, int n,
                                          int d, float scale) {
  const std::size_t head = blockIdx.y;
  const int query = blockIdx.x * blockDim.x + threadIdx.x, offset = n - m;
  if (query >= m) return;
  const std::size_t qrow = (head * m + query) * d;
  float delta = 0.0f;
  for (int c = 0; c < d; ++c)
    delta += to_float(dout[qrow + c]) * to_float(o[qrow + c]);
  const float row_lse = lse[head * m + query];
  for (int key = 0; key <= query + offset && key < n; ++key) {
    const std::size_t krow = (head * n + key) * d;
    float s = 0.0f, dp = 0.0f;
    for (int c = 0; c < d; ++c) {
      s += to_float(q[qrow + c]) * to_float(k[krow + c]);
      dp += to_float(dout[qrow + c]) * to_float(v[krow + c]);
    }
    const float p = __expf(s * scale - row_lse), ds = p * (dp - delta);
    for (int c = 0; c < d; ++c) {
      dq[qrow + c] += ds * to_float(k[krow + c]) * scale;
      atomicAdd(&dk[krow + c], ds * to_float(q[qrow + c]) * scale);
      atomicAdd(&dv[krow + c], p * to_float(dout[qrow + c]));
    }
  }
}

}  // namespace cuda::kernels

AICB_END_NAMESPACE
