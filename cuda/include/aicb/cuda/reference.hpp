// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Float64 CPU references for every kernel of the CUDA profiler: the definitions the kernels are
/// checked against (check_kernels()), written for clarity, not speed. Row-major matrices in
/// std::vector<double>. Plain C++: tested on machines without a GPU.

#include <aicb/config.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

AICB_BEGIN_NAMESPACE

namespace cuda::reference {

using matrix = std::vector<double>;

/// C (M×N) = op(A) · op(B); op(A) is M×K (A stored K×M when `trans_a`), op(B) K×N (B stored N×K
/// when `trans_b`).
[[nodiscard]] inline matrix gemm(bool trans_a, bool trans_b, std::size_t M, std::size_t N, std::size_t K,
                                 const matrix& A, const matrix& B) {
  matrix C(M * N, 0.0);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double sum = 0;
      for (std::size_t p = 0; p < K; ++p)
        sum += (trans_a ? A[p * M + i] : A[i * K + p]) * (trans_b ? B[j * K + p] : B[p * N + j]);
      C[i * N + j] = sum;
    }
  return C;
}

/// LayerNorm (or RMSNorm when `rms`) of `rows` rows of `cols` features, ε = 1e-5.
/// What a norm subtracts from a row (its mean; 0 for RMSNorm) and 1/√(variance + ε) (mean square for
/// RMSNorm).
struct row_statistics {
  double center, rstd;
};
[[nodiscard]] inline row_statistics norm_statistics(bool rms, const double* in, std::size_t cols) {
  double mean = 0, square = 0;
  for (std::size_t c = 0; c < cols; ++c) {
    mean += in[c];
    square += in[c] * in[c];
  }
  mean /= static_cast<double>(cols);
  square /= static_cast<double>(cols);
  return {rms ? 0.0 : mean, 1.0 / std::sqrt((rms ? square : square - mean * mean) + 1e-5)};
}

[[nodiscard]] inline matrix norm_forward(bool rms, std::size_t rows, std::size_t cols, const matrix& x,
                                         const matrix& gamma, const matrix& beta) {
  matrix y(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const double* in = &x[r * cols];
    const auto [center, rstd] = norm_statistics(rms, in, cols);
    for (std::size_t c = 0; c < cols; ++c)
      y[r * cols + c] = (in[c] - center) * rstd * gamma[c] + (rms ? 0.0 : beta[c]);
  }
  return y;
}

/// The input gradient of norm_forward for output gradient `dy`.
[[nodiscard]] inline matrix norm_backward(bool rms, std::size_t rows, std::size_t cols, const matrix& x,
                                          const matrix& gamma, const matrix& dy) {
  matrix dx(rows * cols);
  const double n = static_cast<double>(cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const double* in = &x[r * cols];
    const auto [center, rstd] = norm_statistics(rms, in, cols);
    double mean_g = 0, mean_gx = 0;
    for (std::size_t c = 0; c < cols; ++c) {
      const double g = dy[r * cols + c] * gamma[c], xhat = (in[c] - center) * rstd;
      mean_g += g;
      mean_gx += g * xhat;
    }
    mean_g /= n;
    mean_gx /= n;
    for (std::size_t c = 0; c < cols; ++c) {
      const double g = dy[r * cols + c] * gamma[c], xhat = (in[c] - center) * rstd;
      dx[r * cols + c] = rstd * (g - (rms ? 0.0 : mean_g) - xhat * mean_gx);
    }
  }
  return dx;
}

/// GeLU, tanh approximation (Megatron's).
[[nodiscard]] inline double gelu(double x) {
  const double c = std::sqrt(2.0 / 3.14159265358979323846);
  return 0.5 * x * (1 + std::tanh(c * (x + 0.044715 * x * x * x)));
}
[[nodiscard]] inline double gelu_grad(double x) {
  const double c = std::sqrt(2.0 / 3.14159265358979323846);
  const double t = std::tanh(c * (x + 0.044715 * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x);
}

/// SwiGLU of `rows` rows of 2·`cols` inputs (gate, then up): silu(gate) · up.
[[nodiscard]] inline matrix swiglu_forward(std::size_t rows, std::size_t cols, const matrix& x) {
  matrix y(rows * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const double a = x[r * 2 * cols + c], b = x[r * 2 * cols + cols + c];
      y[r * cols + c] = a / (1 + std::exp(-a)) * b;
    }
  return y;
}
/// The input gradient of swiglu_forward: rows × 2·cols.
[[nodiscard]] inline matrix swiglu_backward(std::size_t rows, std::size_t cols, const matrix& x,
                                            const matrix& dy) {
  matrix dx(rows * 2 * cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const double a = x[r * 2 * cols + c], b = x[r * 2 * cols + cols + c], g = dy[r * cols + c];
      const double s = 1 / (1 + std::exp(-a));
      dx[r * 2 * cols + c] = g * b * s * (1 + a * (1 - s));
      dx[r * 2 * cols + cols + c] = g * a * s;
    }
  return dx;
}

/// Causal attention of `batch` independent heads: Q (m×d), K and V (n×d) per head; query i sees keys
/// j ≤ i + n − m; scale 1/√d. Gives O (m×d per head) and the rows' log-sum-exp.
struct attention_forward_result {
  matrix o, lse;
};
[[nodiscard]] inline attention_forward_result attention_forward(std::size_t batch, std::size_t m,
                                                                std::size_t n, std::size_t d, const matrix& q,
                                                                const matrix& k, const matrix& v) {
  attention_forward_result r{matrix(batch * m * d, 0.0), matrix(batch * m, 0.0)};
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> s(n);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t last = i + (n - m);  // the last key this query sees
      double top = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j <= last; ++j) {
        double dot = 0;
        for (std::size_t c = 0; c < d; ++c)
          dot += q[(b * m + i) * d + c] * k[(b * n + j) * d + c];
        s[j] = dot * scale;
        top = std::max(top, s[j]);
      }
      double sum = 0;
      for (std::size_t j = 0; j <= last; ++j)
        sum += std::exp(s[j] - top);
      for (std::size_t j = 0; j <= last; ++j) {
        const double p = std::exp(s[j] - top) / sum;
        for (std::size_t c = 0; c < d; ++c)
          r.o[(b * m + i) * d + c] += p * v[(b * n + j) * d + c];
      }
      r.lse[b * m + i] = top + std::log(sum);
    }
  return r;
}

/// The gradients of attention_forward for output gradient `dout`.
struct attention_backward_result {
  matrix dq, dk, dv;
};
[[nodiscard]] inline attention_backward_result attention_backward(std::size_t batch, std::size_t m,
                                                                  std::size_t n, std::size_t d,
                                                                  const matrix& q, const matrix& k,
                                                                  const matrix& v, const matrix& dout) {
  attention_backward_result g{matrix(batch * m * d, 0.0), matrix(batch * n * d, 0.0),
                              matrix(batch * n * d, 0.0)};
  const attention_forward_result f = attention_forward(batch, m, n, d, q, k, v);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t last = i + (n - m);
      double delta = 0;  // Σ_c dO·O = Σ_j P·dP
      for (std::size_t c = 0; c < d; ++c)
        delta += dout[(b * m + i) * d + c] * f.o[(b * m + i) * d + c];
      for (std::size_t j = 0; j <= last; ++j) {
        double dot = 0, dp = 0;
        for (std::size_t c = 0; c < d; ++c) {
          dot += q[(b * m + i) * d + c] * k[(b * n + j) * d + c];
          dp += dout[(b * m + i) * d + c] * v[(b * n + j) * d + c];
        }
        const double p = std::exp(dot * scale - f.lse[b * m + i]);
        const double ds = p * (dp - delta);
        for (std::size_t c = 0; c < d; ++c) {
          g.dv[(b * n + j) * d + c] += p * dout[(b * m + i) * d + c];
          g.dq[(b * m + i) * d + c] += ds * k[(b * n + j) * d + c] * scale;
          g.dk[(b * n + j) * d + c] += ds * q[(b * m + i) * d + c] * scale;
        }
      }
    }
  return g;
}

/// One AdamW step (step number `t` ≥ 1) on fp32 master weights `w` with moments `m`, `v`.
struct adam_config {
  double lr = 1e-4, beta1 = 0.9, beta2 = 0.95, eps = 1e-8, weight_decay = 0.1;
};
inline void adam_step(matrix& w, matrix& m, matrix& v, const matrix& grad, std::uint32_t t,
                      adam_config c = {}) {
  const double correction1 = 1 - std::pow(c.beta1, t), correction2 = 1 - std::pow(c.beta2, t);
  for (std::size_t i = 0; i < w.size(); ++i) {
    m[i] = c.beta1 * m[i] + (1 - c.beta1) * grad[i];
    v[i] = c.beta2 * v[i] + (1 - c.beta2) * grad[i] * grad[i];
    w[i] -= c.lr * (m[i] / correction1 / (std::sqrt(v[i] / correction2) + c.eps) + c.weight_decay * w[i]);
  }
}

/// √(Σ g²).
[[nodiscard]] inline double grad_norm(const matrix& g) {
  double sum = 0;
  for (double x : g)
    sum += x * x;
  return std::sqrt(sum);
}

/// Rows `ids` of a table of `cols` features.
[[nodiscard]] inline matrix embedding_forward(std::size_t cols, const std::vector<std::int32_t>& ids,
                                              const matrix& table) {
  matrix y(ids.size() * cols);
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t c = 0; c < cols; ++c)
      y[i * cols + c] = table[static_cast<std::size_t>(ids[i]) * cols + c];
  return y;
}
/// The table gradient: each output row's gradient added to its id's row.
[[nodiscard]] inline matrix embedding_backward(std::size_t rows, std::size_t cols,
                                               const std::vector<std::int32_t>& ids, const matrix& dy) {
  matrix dtable(rows * cols, 0.0);
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t c = 0; c < cols; ++c)
      dtable[static_cast<std::size_t>(ids[i]) * cols + c] += dy[i * cols + c];
  return dtable;
}

/// max |got − want| / (|want| + 1).
[[nodiscard]] inline double max_error(const matrix& got, const matrix& want) {
  double worst = got.size() == want.size() ? 0.0 : std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) {
    const double e = std::abs(got[i] - want[i]) / (std::abs(want[i]) + 1);
    if (!(e <= worst)) worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
  }
  return worst;
}

}  // namespace cuda::reference

AICB_END_NAMESPACE
