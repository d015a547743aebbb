// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// A standard shape for a parameter count: "give me a 15B model".
///
/// The shape is chosen for the model the job actually has: its activation, attention (heads of
/// 128, key/value heads), vocabulary, embedding tying, norms, biases and — with learned positions —
/// a position table as long as the sequence. The count that comes out is the job's real count.
///
/// The rule (docs/models.md), starting from a base model whose dimensions left at 0 are free:
/// 1. heads of 128: hidden = 128 · heads, for every head count from 8 to 256 that is a multiple of 8
///    (so tensor parallelism up to 8 divides the heads) and of the key/value heads;
/// 2. FFN from hidden: 4h (GeLU) or 8h/3 rounded up to a multiple of 256 (SwiGLU, as LLaMA);
/// 3. for each hidden size, the even layer count whose exact parameter count is closest to the
///    target (even, so common pipeline sizes divide it);
/// 4. among the candidates within 2% of the target, the one whose aspect ratio hidden/layers is
///    closest to 128 (GPT-3 6.7B-175B, Llama 7B/13B and Llama 3.1 405B have 128-130); if none is
///    within 2%, the closest count.
/// Dimensions the base gives (hidden size, layers, heads, FFN) stay as they are. The family
/// templates: `gpt` (GPT-3: GeLU, LayerNorm, biases, learned positions) and `llama` (Llama 3:
/// SwiGLU, RMSNorm, 8 key/value heads, RoPE).
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

/// The head size a model of hidden size `hidden` gets when its heads are not given: 128 when it
/// divides the hidden size, else 64 (so heads = hidden / standard_head_size(hidden)).
[[nodiscard]] constexpr std::uint64_t standard_head_size(std::uint64_t hidden) noexcept {
  return hidden % 128 == 0 ? 128 : 64;
}

/// A model family a shape can be proposed for.
enum class model_family : std::uint8_t { gpt, llama };

template <>
struct enum_names<model_family> {
  static constexpr std::array<std::string_view, 2> value{"gpt", "llama"};
};

/// The template of a family, with its dimensions (hidden size, layers, heads, FFN) left free.
[[nodiscard]] constexpr model_spec family_template(model_family family) noexcept {
  model_spec m = family == model_family::gpt ? presets::gpt3_template : presets::llama3_8b;
  m.name = {};
  m.hidden_size = m.num_layers = m.num_attention_heads = m.head_dim = m.ffn_hidden_size = 0;
  m.max_position_embeddings = 0;  // learned positions: a table as long as the sequence
  return m;
}

/// The shape closest to `target_params` for `base` by the rule of the file comment: the dimensions
/// `base` leaves at 0 (hidden size, layers, heads, FFN) are chosen, the rest of `base` is kept.
/// `seq_length` sizes a learned position table that `base` leaves at 0.
[[nodiscard]] inline model_spec shape_for_size(const model_spec& base, std::uint64_t target_params,
                                               std::uint64_t seq_length = 2048) {
  if (target_params < 100'000'000ULL || target_params > 10'000'000'000'000ULL)
    AICB_THROW(
        config_error("size", std::to_string(target_params), "a size between 0.1B and 10000B parameters"));
  const bool gated = base.activation == activation_kind::swiglu;
  const std::uint64_t kv = base.num_kv_heads;
  model_spec best;
  bool found = false;
  double best_error = 1e300, best_aspect = 1e300;
  const double target = static_cast<double>(target_params);
  for (std::uint64_t heads = 8; heads <= 256; heads += 8) {
    model_spec m = base;
    if (m.num_attention_heads == 0) {
      if (m.hidden_size != 0) {
        if (heads != 8) break;  // hidden fixed: its heads of 128 (or 64), one candidate
        m.num_attention_heads = m.hidden_size / standard_head_size(m.hidden_size);
      } else {
        m.num_attention_heads = heads;
      }
    } else if (heads != 8) {
      break;  // heads fixed: one candidate
    }
    if (m.hidden_size == 0) m.hidden_size = 128 * m.num_attention_heads;
    if (m.num_attention_heads == 0 || (kv != 0 && m.num_attention_heads % kv != 0)) continue;
    if (m.ffn_hidden_size == 0)
      m.ffn_hidden_size = gated ? (8 * m.hidden_size / 3 + 255) / 256 * 256 : 4 * m.hidden_size;
    if (m.num_layers == 0) {
      m.num_layers = 1;
      const std::uint64_t one = count_params(m, seq_length).total();
      m.num_layers = 2;
      const std::uint64_t per_layer = count_params(m, seq_length).total() - one;
      const double fixed = static_cast<double>(one - per_layer);
      const double layers = 2 * std::round((target - fixed) / static_cast<double>(per_layer) / 2);
      if (layers < 2 || layers > static_cast<double>(max_layers)) continue;
      m.num_layers = static_cast<std::uint64_t>(layers);
    }
    const double error = std::abs(static_cast<double>(count_params(m, seq_length).total()) - target) / target;
    const double aspect =
        std::abs(std::log(static_cast<double>(m.hidden_size) / static_cast<double>(m.num_layers) / 128.0));
    const bool within = error <= 0.02, best_within = best_error <= 0.02;
    if ((within && (!best_within || aspect < best_aspect)) ||
        (!within && !best_within && error < best_error)) {
      best = m;
      best_error = error;
      best_aspect = aspect;
      found = true;
    }
  }
  if (!found)
    AICB_THROW(
        config_error("size", std::to_string(target_params),
                     "no shape with the given dimensions reaches this size (key/value heads must divide "
                     "the heads; at least two layers)"));
  return best;
}

/// A name for a shape: family and exact size, e.g. "gpt-15.0B".
[[nodiscard]] inline spec_name shape_name(std::string_view family, std::uint64_t params) {
  char name[48];
  std::snprintf(name, sizeof name, "%.20s-%.1fB", std::string(family).c_str(),
                static_cast<double>(params) / 1e9);
  return spec_name::from(name);
}

/// The shape of `family` closest to `target_params` (its template, dimensions chosen), named for
/// its exact size. A learned position table gets `seq_length` rows, so the model stands alone.
[[nodiscard]] inline model_spec shape_for_size(model_family family, std::uint64_t target_params,
                                               std::uint64_t seq_length = 2048) {
  model_spec m = shape_for_size(family_template(family), target_params, seq_length);
  if (m.position == position_kind::learned) m.max_position_embeddings = seq_length;
  m.name = shape_name(to_string(family), count_params(m, seq_length).total());
  return m;
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
  if (!(value > 0) || !(value * scale < 1e18))
    AICB_THROW(config_error("size", s, "the size must be positive and below 10^18 parameters"));
  return static_cast<std::uint64_t>(std::llround(value * scale));
}

AICB_END_NAMESPACE
