// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// aicb::serving_request and aicb::traffic_spec — the requests a serving deployment receives: each
/// one's arrival, prompt and output length, read from a trace (aicb/io/request_trace.hpp) or drawn
/// from a synthetic traffic by aicb::synthetic_requests.
///
/// ```cpp
/// aicb::traffic_spec t{.requests = 10000, .rate = 20, .prompt = {1000, 3000}, .output = {200, 200}};
/// const std::vector<aicb::serving_request> requests = aicb::synthetic_requests(t);
/// ```
///
/// Synthetic arrivals: a renewal process of `rate` requests per second whose gaps have the
/// coefficient of variation `cv` — 1 is Poisson (exponential gaps), other values gamma gaps of shape
/// 1/cv² (burstier above 1, more regular below), 0 evenly spaced; a rate of 0 puts every request at
/// time 0 (an offline batch). Lengths: uniform integers in [low, high]. The draws come from the
/// project's own generator (SplitMix64) and its own transforms, so a seed gives the same requests on
/// every platform and standard library. Shared prefixes (`prefix_groups`, `prefix_tokens`) are drawn
/// from a generator of their own, so adding them leaves the arrivals and lengths of a seed as they were.

#include <aicb/config.hpp>
#include <aicb/error.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

AICB_BEGIN_NAMESPACE

/// One request: when it arrives (seconds from the trace's start), its prompt tokens and the tokens
/// it generates (the first of which ends its prefill). A prompt may begin with a shared prefix: its
/// first `prefix_tokens` tokens are the same as every request's of the same `prefix_id` (a system
/// prompt, an earlier turn of a conversation), which an engine with prefix caching computes once.
struct serving_request {
  std::uint64_t id = 0;
  double arrival_s = 0;
  std::uint64_t prompt = 0;
  std::uint64_t output = 0;
  std::uint64_t prefix_id = 0;
  std::uint64_t prefix_tokens = 0;  ///< 0: no shared prefix; at most `prompt`
};

/// Uniform integers in [low, high] (low == high: fixed).
struct length_range {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
};

/// A synthetic traffic (see the file comment).
struct traffic_spec {
  std::uint64_t requests = 1000;
  double rate = 0;  ///< requests per second; 0: all at time 0
  double cv = 1;    ///< coefficient of variation of the gaps: 1 Poisson, 0 evenly spaced
  length_range prompt{1024, 1024};
  length_range output{256, 256};
  std::uint64_t seed = 1;
  /// Shared prefixes: each prompt begins with one of `prefix_groups` prefixes of `prefix_tokens`
  /// tokens, drawn uniformly (0 groups: none). The prompt lengths include the prefix.
  std::uint64_t prefix_groups = 0;
  std::uint64_t prefix_tokens = 0;
};

/// The most requests a synthetic traffic or a trace may hold (their outcomes are kept per request).
inline constexpr std::uint64_t max_serving_requests = 10'000'000;
/// The latest arrival a request may have, seconds (about 31 years).
inline constexpr double max_arrival_s = 1e9;

/// Refuses, naming the field, the value and the rule, a traffic that cannot be drawn.
inline void validate(const traffic_spec& t) {
  const auto refuse = [](const char* field, const std::string& value, const std::string& rule) {
    AICB_THROW(config_error(field, value, rule));
  };
  if (t.requests == 0 || t.requests > max_serving_requests)
    refuse("requests", std::to_string(t.requests), "expected 1 to 10,000,000 requests");
  if (!(t.rate >= 0) || !std::isfinite(t.rate))
    refuse("rate", std::to_string(t.rate), "expected requests per second >= 0 (0: all at once)");
  if (t.rate > 0 && static_cast<double>(t.requests) / t.rate > max_arrival_s / 10)
    refuse("rate", std::to_string(t.rate), "the requests would arrive over more than 10^8 s: a higher rate");
  if (!(t.cv >= 0 && t.cv <= 100) || !std::isfinite(t.cv))
    refuse("cv", std::to_string(t.cv), "expected a coefficient of variation in [0, 100] (1: Poisson)");
  for (const auto& [field, r] : {std::pair{"prompt", t.prompt}, std::pair{"output", t.output}}) {
    const std::string value = std::to_string(r.low) + ":" + std::to_string(r.high);
    if (r.low == 0 || r.low > r.high) refuse(field, value, "expected 1 <= low <= high tokens");
    if (r.high > (std::uint64_t{1} << 24))
      refuse(field, value, "expected at most 16,777,216 tokens a request");
  }
  if ((t.prefix_groups > 0) != (t.prefix_tokens > 0))
    refuse("prefix_groups", std::to_string(t.prefix_groups) + " groups of " + std::to_string(t.prefix_tokens),
           "shared prefixes need both a number of groups and their tokens");
  if (t.prefix_groups > max_serving_requests)
    refuse("prefix_groups", std::to_string(t.prefix_groups), "expected at most 10,000,000 prefixes");
  if (t.prefix_tokens > 0 && t.prefix_tokens > t.prompt.low)
    refuse("prefix_tokens", std::to_string(t.prefix_tokens),
           "a shared prefix is part of the prompt: expected at most the shortest prompt (" +
               std::to_string(t.prompt.low) + " tokens)");
}

namespace detail {

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014): a
/// 64-bit state stepped by a constant and mixed; uniform doubles in (0, 1) from its top 53 bits.
class splitmix64 {
 public:
  explicit splitmix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() noexcept { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  /// A standard normal (Box–Muller; one of the pair).
  double normal() noexcept {
    const double u = uniform(), v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
  /// A gamma variate of `shape` and unit scale (Marsaglia and Tsang, 2000; shape < 1 by
  /// gamma(shape + 1) · U^(1/shape)).
  double gamma(double shape) noexcept {
    if (shape < 1) return gamma(shape + 1) * std::pow(uniform(), 1 / shape);
    const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
    for (;;) {
      double x = 0, v = 0;
      do {
        x = normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const double u = uniform();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
    }
  }
  std::uint64_t between(std::uint64_t low, std::uint64_t high) noexcept {
    return low + static_cast<std::uint64_t>(uniform() * static_cast<double>(high - low + 1));
  }

 private:
  std::uint64_t state_;
};

}  // namespace detail

/// The requests of `t`, in arrival order, ids 0, 1, … (see the file comment).
[[nodiscard]] inline std::vector<serving_request> synthetic_requests(const traffic_spec& t) {
  validate(t);
  detail::splitmix64 arrivals(t.seed), lengths(t.seed ^ 0x5DEECE66DULL),
      prefixes(t.seed ^ 0xA0761D6478BD642FULL);
  std::vector<serving_request> out;
  out.reserve(t.requests);
  double clock = 0;
  const double shape = t.cv > 0 ? 1 / (t.cv * t.cv) : 0;
  for (std::uint64_t i = 0; i < t.requests; ++i) {
    if (i > 0 && t.rate > 0) {
      const double mean_gap = 1 / t.rate;
      if (t.cv == 0)
        clock += mean_gap;
      else if (t.cv == 1)
        clock += -std::log(arrivals.uniform()) * mean_gap;
      else
        clock += arrivals.gamma(shape) * mean_gap / shape;
    }
    serving_request r;
    r.id = i;
    r.arrival_s = clock;
    r.prompt = lengths.between(t.prompt.low, t.prompt.high);
    r.output = lengths.between(t.output.low, t.output.high);
    if (t.prefix_groups > 0) {
      r.prefix_id = prefixes.between(0, t.prefix_groups - 1);
      r.prefix_tokens = t.prefix_tokens;
    }
    out.push_back(r);
  }
  return out;
}

AICB_END_NAMESPACE
