// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The float64 references the CUDA kernels are checked against, checked themselves on the CPU: by
// hand-computed values and by finite differences of their forward functions.
#include <aicb/cuda/reference.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>

namespace ref = aicb::cuda::reference;

namespace {
ref::matrix random_matrix(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  ref::matrix m(n);
  for (double& x : m)
    x = d(gen);
  return m;
}
// d/dx_i of Σ weight·f(x), numerically (central differences).
ref::matrix numeric_gradient(const std::function<ref::matrix(const ref::matrix&)>& f, ref::matrix x,
                             const ref::matrix& weight) {
  ref::matrix g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i], h = 1e-6;
    x[i] = keep + h;
    const ref::matrix up = f(x);
    x[i] = keep - h;
    const ref::matrix down = f(x);
    x[i] = keep;
    double sum = 0;
    for (std::size_t j = 0; j < up.size(); ++j)
      sum += weight[j] * (up[j] - down[j]) / (2 * h);
    g[i] = sum;
  }
  return g;
}
}  // namespace

TEST_CASE("cuda reference: GEMM with and without transposed operands", "[cuda][reference]") {
  const ref::matrix A{1, 2, 3, 4, 5, 6};  // 2×3
  const ref::matrix B{1, 0, 0, 1, 1, 1};  // 3×2
  CHECK(ref::gemm(false, false, 2, 2, 3, A, B) == ref::matrix{4, 5, 10, 11});
  const ref::matrix At{1, 4, 2, 5, 3, 6};  // A stored transposed (3×2)
  const ref::matrix Bt{1, 0, 1, 0, 1, 1};  // B stored transposed (2×3)
  CHECK(ref::gemm(true, true, 2, 2, 3, At, Bt) == ref::matrix{4, 5, 10, 11});
}

TEST_CASE("cuda reference: norms normalise, and their backward is the derivative", "[cuda][reference]") {
  const std::size_t rows = 3, cols = 8;
  const ref::matrix x = random_matrix(rows * cols, 1), gamma = random_matrix(cols, 2),
                    beta = random_matrix(cols, 3);
  const ref::matrix ones(cols, 1.0), zeros(cols, 0.0);
  const ref::matrix y = ref::norm_forward(false, rows, cols, x, ones, zeros);
  double mean = 0, square = 0;
  for (std::size_t c = 0; c < cols; ++c) {
    mean += y[c];
    square += y[c] * y[c];
  }
  CHECK(mean / cols == Approx(0).margin(1e-12));
  CHECK(square / cols == Approx(1).epsilon(1e-4));  // ε = 1e-5 in the variance
  const ref::matrix dy = random_matrix(rows * cols, 4);
  for (bool rms : {false, true}) {
    const auto f = [&](const ref::matrix& in) { return ref::norm_forward(rms, rows, cols, in, gamma, beta); };
    CHECK(ref::max_error(ref::norm_backward(rms, rows, cols, x, gamma, dy), numeric_gradient(f, x, dy)) <
          1e-6);
  }
}

TEST_CASE("cuda reference: activations and their derivatives", "[cuda][reference]") {
  CHECK(ref::gelu(0) == 0);
  CHECK(ref::gelu(3) == Approx(2.9964).epsilon(1e-4));
  for (double x : {-2.0, -0.3, 0.0, 0.7, 2.5})
    CHECK(ref::gelu_grad(x) == Approx((ref::gelu(x + 1e-6) - ref::gelu(x - 1e-6)) / 2e-6).epsilon(1e-6));
  const std::size_t rows = 2, cols = 3;
  const ref::matrix x = random_matrix(rows * 2 * cols, 5), dy = random_matrix(rows * cols, 6);
  const auto f = [&](const ref::matrix& in) { return ref::swiglu_forward(rows, cols, in); };
  CHECK(ref::max_error(ref::swiglu_backward(rows, cols, x, dy), numeric_gradient(f, x, dy)) < 1e-6);
}

TEST_CASE("cuda reference: causal attention and its gradients", "[cuda][reference]") {
  // The first query sees only the first key: its output is the first value row.
  const std::size_t m = 4, n = 4, d = 3;
  const ref::matrix q = random_matrix(m * d, 7), k = random_matrix(n * d, 8), v = random_matrix(n * d, 9);
  const auto f = ref::attention_forward(1, m, n, d, q, k, v);
  for (std::size_t c = 0; c < d; ++c)
    CHECK(f.o[c] == Approx(v[c]));
  CHECK(f.lse[0] == Approx((q[0] * k[0] + q[1] * k[1] + q[2] * k[2]) / std::sqrt(3.0)));
  // Gradients by finite differences of Σ dO·O.
  const ref::matrix dout = random_matrix(m * d, 10);
  const auto g = ref::attention_backward(1, m, n, d, q, k, v, dout);
  CHECK(ref::max_error(
            g.dq, numeric_gradient(
                      [&](const ref::matrix& x) { return ref::attention_forward(1, m, n, d, x, k, v).o; }, q,
                      dout)) < 1e-6);
  CHECK(ref::max_error(
            g.dk, numeric_gradient(
                      [&](const ref::matrix& x) { return ref::attention_forward(1, m, n, d, q, x, v).o; }, k,
                      dout)) < 1e-6);
  CHECK(ref::max_error(
            g.dv, numeric_gradient(
                      [&](const ref::matrix& x) { return ref::attention_forward(1, m, n, d, q, k, x).o; }, v,
                      dout)) < 1e-6);
  // Fewer queries than keys (the queries are the last ones): the last query sees every key.
  const auto tail = ref::attention_forward(1, 2, 4, d, ref::matrix(q.begin() + 2 * d, q.end()), k, v);
  for (std::size_t c = 0; c < 2 * d; ++c)
    CHECK(tail.o[c] == Approx(f.o[2 * d + c]));
}

TEST_CASE("cuda reference: AdamW, gradient norm and embedding", "[cuda][reference]") {
  ref::matrix w{1.0, -2.0}, m{0, 0}, v{0, 0};
  ref::adam_step(w, m, v, {0.5, -3.0}, 1, {.lr = 0.01, .weight_decay = 0});
  // First step: m̂/√v̂ = sign(g).
  CHECK(w[0] == Approx(1.0 - 0.01).epsilon(1e-6));
  CHECK(w[1] == Approx(-2.0 + 0.01).epsilon(1e-6));
  CHECK(ref::grad_norm({3, 4}) == 5);
  const std::vector<std::int32_t> ids{2, 0, 2};
  const ref::matrix table{1, 2, 3, 4, 5, 6};  // 3 rows of 2
  CHECK(ref::embedding_forward(2, ids, table) == ref::matrix{5, 6, 1, 2, 5, 6});
  CHECK(ref::embedding_backward(3, 2, ids, {1, 1, 2, 2, 3, 3}) == ref::matrix{2, 2, 0, 0, 4, 4});
  CHECK(ref::max_error({1, 2}, {1, 2}) == 0);
  CHECK(std::isinf(ref::max_error({1}, {1, 2})));
}
