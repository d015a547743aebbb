// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// A standard shape for a parameter count: "give me a 15B model".
///
/// The rule (docs/models.md), applied to a family template (`gpt` = GPT-3 style, `llama` =
/// Llama-3 style):
/// 1. heads of 128: hidden = 128 · heads, for every head count from 8 to 256 that is a multiple of 8
///    (so tensor parallelism up to 8 divides the heads);
/// 2. FFN from hidden: 4h (GeLU) or 8h/3 rounded up to a multiple of 256 (SwiGLU, as LLaMA);
///    llama uses 8 key/value heads (grouped-query attention, as Llama 3);
/// 3. for each hidden size, the even layer count whose exact parameter count is closest to the
///    target (even, so common pipeline sizes divide it);
/// 4. among the candidates within 2% of the target, the one whose aspect ratio hidden/layers is
///    closest to 128 (GPT-3 6.7B-175B, Llama 7B/13B and Llama 3.1 405B have 128-130); if none is
///    within 2%, the closest count.
/// The result is an ordinary model_spec: its count is exact, and every field can still be changed.

#include <aicb/calc/params.hpp>
#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/model/spec.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// A model family a shape can be proposed for.
enum class model_family : std::uint8_t { gpt, llama };

template <>
struct enum_names<model_family> {
  static constexpr std::array<std::string_view, 2> value{"gpt", "llama"};
};

/// The shape of `family` closest to `target_params` by the rule of the file comment.
[[nodiscard]] inline model_spec shape_for_size(model_family family, std::uint64_t target_params) {
  if (target_params < 100'000'000ULL || target_params > 10'000'000'000'000ULL)
    AICB_THROW(
        config_error("size", std::to_string(target_params), "a size between 0.1B and 10000B parameters"));
  model_spec best;
  double best_error = 1e300, best_aspect = 1e300;
  const double target = static_cast<double>(target_params);
  for (std::uint64_t heads = 8; heads <= 256; heads += 8) {
    model_spec m;
    if (family == model_family::gpt) {
      m = presets::gpt3_template;
      m.hidden_size = 128 * heads;
      m.num_attention_heads = heads;
      m.ffn_hidden_size = 4 * m.hidden_size;
    } else {
      m = presets::llama3_8b;
      m.hidden_size = 128 * heads;
      m.num_attention_heads = heads;
      m.num_kv_heads = 8;
      m.ffn_hidden_size = (8 * m.hidden_size / 3 + 255) / 256 * 256;
    }
    m.head_dim = 0;
    m.num_layers = 1;
    const std::uint64_t one = count_params(m).total();
    m.num_layers = 2;
    const std::uint64_t per_layer = count_params(m).total() - one;
    const double fixed = static_cast<double>(one - per_layer);
    const double layers = 2 * std::round((target - fixed) / static_cast<double>(per_layer) / 2);
    if (layers < 2) continue;
    m.num_layers = static_cast<std::uint64_t>(layers);
    const double error = std::abs(static_cast<double>(count_params(m).total()) - target) / target;
    const double aspect = std::abs(std::log(static_cast<double>(m.hidden_size) / layers / 128.0));
    const bool within = error <= 0.02, best_within = best_error <= 0.02;
    if ((within && (!best_within || aspect < best_aspect)) ||
        (!within && !best_within && error < best_error)) {
      best = m;
      best_error = error;
      best_aspect = aspect;
    }
  }
  char name[32];
  std::snprintf(name, sizeof name, "%s-%.1fB", std::string(to_string(family)).c_str(),
                static_cast<double>(count_params(best).total()) / 1e9);
  best.name = spec_name::from(name);
  return best;
}

/// Parses a size such as "15B", "1.3b", "350M", "7e9" into a parameter count.
[[nodiscard]] inline std::uint64_t parse_param_count(std::string_view text) {
  const std::string s(text);
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(s, &used);
  } catch (...) {
    AICB_THROW(config_error("size", s, "expected a parameter count such as 15B, 1.3B or 350M"));
  }
  double scale = 1;
  const std::string suffix = s.substr(used);
  if (suffix == "B" || suffix == "b")
    scale = 1e9;
  else if (suffix == "M" || suffix == "m")
    scale = 1e6;
  else if (suffix == "T" || suffix == "t")
    scale = 1e12;
  else if (!suffix.empty())
    AICB_THROW(config_error("size", s, "expected a parameter count such as 15B, 1.3B or 350M"));
  if (!(value > 0)) AICB_THROW(config_error("size", s, "the size must be positive"));
  return static_cast<std::uint64_t>(std::llround(value * scale));
}

AICB_END_NAMESPACE
