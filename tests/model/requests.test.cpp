// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/model/requests.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

namespace {

// Mean and coefficient of variation of the gaps between arrivals.
std::pair<double, double> gap_statistics(const std::vector<aicb::serving_request>& r) {
  std::vector<double> gaps;
  for (std::size_t i = 1; i < r.size(); ++i)
    gaps.push_back(r[i].arrival_s - r[i - 1].arrival_s);
  const double mean = std::accumulate(gaps.begin(), gaps.end(), 0.0) / static_cast<double>(gaps.size());
  double var = 0;
  for (const double g : gaps)
    var += (g - mean) * (g - mean);
  var /= static_cast<double>(gaps.size() - 1);
  return {mean, std::sqrt(var) / mean};
}

}  // namespace

TEST_CASE("requests: synthetic arrivals have the rate and variability asked, the same for a seed",
          "[serving][requests]") {
  aicb::traffic_spec t{.requests = 20000, .rate = 50, .cv = 1, .prompt = {100, 300}, .output = {7, 7}};
  const auto poisson = aicb::synthetic_requests(t);
  REQUIRE(poisson.size() == 20000u);
  const auto [mean, cv] = gap_statistics(poisson);
  CHECK(mean == Approx(0.02).epsilon(0.03));
  CHECK(cv == Approx(1).epsilon(0.05));
  std::uint64_t low = 1000, high = 0;
  for (const auto& r : poisson) {
    low = std::min(low, r.prompt);
    high = std::max(high, r.prompt);
    CHECK(r.output == 7u);
  }
  CHECK(low == 100u);
  CHECK(high == 300u);
  // Gamma gaps of CV 2 are burstier at the same rate; CV 0 is evenly spaced.
  t.cv = 2;
  const auto bursty = aicb::synthetic_requests(t);
  CHECK(gap_statistics(bursty).first == Approx(0.02).epsilon(0.06));
  CHECK(gap_statistics(bursty).second == Approx(2).epsilon(0.1));
  t.cv = 0;
  t.requests = 5;
  const auto even = aicb::synthetic_requests(t);
  CHECK(even[4].arrival_s == Approx(0.08));
  // A seed gives the same requests; another seed others.
  t.cv = 1;
  t.requests = 100;
  const auto a = aicb::synthetic_requests(t), b = aicb::synthetic_requests(t);
  t.seed = 2;
  const auto c = aicb::synthetic_requests(t);
  CHECK(a[99].arrival_s == b[99].arrival_s);
  CHECK(a[99].prompt == b[99].prompt);
  CHECK(a[99].arrival_s != c[99].arrival_s);
  // Rate 0: an offline batch, every request at time 0.
  t.rate = 0;
  for (const auto& r : aicb::synthetic_requests(t))
    CHECK(r.arrival_s == 0);
}

TEST_CASE("requests: a traffic that cannot be drawn is refused naming the field", "[serving][requests]") {
  CHECK_THROWS_WITH(aicb::synthetic_requests({.requests = 0}), Catch::Contains("requests"));
  CHECK_THROWS_WITH(aicb::synthetic_requests({.rate = -1}), Catch::Contains("rate"));
  CHECK_THROWS_WITH(aicb::synthetic_requests({.prompt = {10, 5}}),
                    Catch::Contains("prompt") && Catch::Contains("10:5"));
  CHECK_THROWS_WITH(aicb::synthetic_requests({.output = {0, 0}}), Catch::Contains("output"));
}

TEST_CASE("requests: shared prefixes are drawn over their groups without changing the rest",
          "[serving][requests]") {
  const aicb::traffic_spec plain{.requests = 2000, .rate = 5, .prompt = {1000, 3000}};
  aicb::traffic_spec shared = plain;
  shared.prefix_groups = 4;
  shared.prefix_tokens = 800;
  const auto a = aicb::synthetic_requests(plain), b = aicb::synthetic_requests(shared);
  std::vector<std::uint64_t> per_group(4, 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(b[i].arrival_s == a[i].arrival_s);  // the same arrivals and lengths for the seed
    CHECK(b[i].prompt == a[i].prompt);
    CHECK(a[i].prefix_tokens == 0u);
    CHECK(b[i].prefix_tokens == 800u);
    REQUIRE(b[i].prefix_id < 4u);
    ++per_group[b[i].prefix_id];
  }
  for (const std::uint64_t n : per_group)  // uniform: 500 each, give or take
    CHECK(n > 400u);
  shared.prefix_tokens = 1001;  // longer than the shortest prompt
  CHECK_THROWS_WITH(aicb::synthetic_requests(shared),
                    Catch::Contains("prefix_tokens = 1001") && Catch::Contains("shortest prompt"));
  shared.prefix_tokens = 0;
  CHECK_THROWS_WITH(aicb::synthetic_requests(shared), Catch::Contains("prefix_groups"));
}
