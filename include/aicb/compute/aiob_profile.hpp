// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// AIOB computation profiles: the data, the writer, and aicb's arithmetic on them.
///
/// A profile lists, per timed operation ("section"), statistics of its GPU time in **microseconds**:
///
/// ```text
/// train_iter:10            <- aicb: how many forward iterations were profiled (not simulated)
/// Emb:
///     time_gpu_max: 857
///     time_gpu_min: 782
///     time_gpu_avg: 799
/// ```
///
/// Version 2 (docs/aiob.md) is a superset that aicb's own reader reads the same: provenance as
/// `# key: value` lines before the body (GPU, dtype, shapes, tool, iterations, …) and per-section
/// `# key: value` lines (shapes, backward timings). aicb's reader finds sections with `^(\w+):`
/// and values with `time_gpu_avg:` / `time_gpu_min:`; a line starting with `#` is invisible to it,
/// and no v2 key contains those two strings.
///
/// Reading is in aicb/io/aiob_reader.hpp (Spirit X3); this header has no parser dependency.

#include <aicb/config.hpp>
#include <aicb/error.hpp>
#include <aicb/units/duration.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

AICB_BEGIN_NAMESPACE

/// The longest time a profile may give for one operation: 10^12 µs (11.6 days). A larger value is
/// no measurement, and refusing it keeps every duration derived from a profile exact.
inline constexpr double max_profile_us = 1e12;

/// One line inside a section: a statistic (`time_gpu_avg: 799`) or a `#` comment.
struct aiob_line {
  bool comment = false;  ///< a `#` line (v2 metadata or a remark)
  std::string key;       ///< statistic name, or for a comment the text after `#`
  std::string value;     ///< the number exactly as written (microseconds); empty for comments

  [[nodiscard]] friend bool operator==(const aiob_line&, const aiob_line&) = default;
};

/// Splits a comment's text `" key: value"` into (key, value); nothing when it has no `key:` form.
[[nodiscard]] inline std::optional<std::pair<std::string_view, std::string_view>> split_note(
    std::string_view text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view key = text.substr(0, colon), value = text.substr(colon + 1);
  while (!value.empty() && value.front() == ' ')
    value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\r'))
    value.remove_suffix(1);
  return std::pair{key, value};
}

/// One timed operation.
struct aiob_section {
  std::string name;
  std::vector<aiob_line> lines;
  std::size_t source_line = 0;  ///< 1-based line of the header in the file it was read from (0 if built)

  /// A statistic in microseconds ("time_gpu_avg", "time_gpu_min", "time_gpu_max").
  [[nodiscard]] std::optional<double> stat(std::string_view key) const {
    for (const aiob_line& l : lines) {
      if (l.comment || l.key != key) continue;
      double value = 0;
      const auto [end, error] = std::from_chars(l.value.data(), l.value.data() + l.value.size(), value);
      if (error != std::errc{} || end != l.value.data() + l.value.size()) return std::nullopt;
      return value;
    }
    return std::nullopt;
  }
  /// The value of a `# key: value` line of this section.
  [[nodiscard]] std::optional<std::string_view> note(std::string_view key) const {
    for (const aiob_line& l : lines)
      if (auto kv = l.comment ? split_note(l.key) : std::nullopt; kv && kv->first == key) return kv->second;
    return std::nullopt;
  }

  [[nodiscard]] friend bool operator==(const aiob_section& a, const aiob_section& b) {
    return a.name == b.name && a.lines == b.lines;  // where it was read from does not matter
  }
};

/// A whole profile, version 1 (aicb's) or 2 (with provenance).
struct aiob_profile {
  std::vector<std::string> header;          ///< `#` lines before the body, text after `#`
  std::optional<std::uint64_t> train_iter;  ///< aicb: profiled forward iterations
  std::vector<aiob_section> sections;

  /// 2 when the header declares `# aicb-profile: 2`, else 1.
  [[nodiscard]] int version() const {
    const auto v = provenance("aicb-profile");
    return v && *v == "2" ? 2 : 1;
  }
  /// A provenance entry (`# key: value` before the body), e.g. "gpu", "dtype", "tensor_parallel".
  [[nodiscard]] std::optional<std::string_view> provenance(std::string_view key) const {
    for (const std::string& line : header)
      if (auto kv = split_note(line); kv && kv->first == key) return kv->second;
    return std::nullopt;
  }
  [[nodiscard]] const aiob_section* find(std::string_view name) const {
    for (const aiob_section& s : sections)
      if (s.name == name) return &s;
    return nullptr;
  }

  [[nodiscard]] friend bool operator==(const aiob_profile&, const aiob_profile&) = default;
};

/// The version 2 provenance keys, in the order they are written (docs/aiob.md says what each means).
inline constexpr std::string_view aiob_provenance_keys[] = {"gpu",
                                                            "compute_capability",
                                                            "sm_count",
                                                            "memory",
                                                            "driver",
                                                            "cuda",
                                                            "clocks",
                                                            "dtype",
                                                            "tool",
                                                            "date",
                                                            "model",
                                                            "hidden_size",
                                                            "seq_length",
                                                            "micro_batch",
                                                            "tensor_parallel",
                                                            "sequence_parallel",
                                                            "expert_parallel",
                                                            "warmup",
                                                            "iterations",
                                                            "statistics",
                                                            "units"};

/// `p` as a version 2 profile with the given provenance entries (key, value) replacing any it had;
/// `units` and `statistics` are stated when not given. Sections are kept as they are.
namespace detail {
// `text` with its line breaks shown as \n and \r, for a message of one line.
inline std::string escaped_line(std::string_view text) {
  std::string out;
  for (const char c : text)
    out += c == '\n' ? std::string("\\n") : c == '\r' ? std::string("\\r") : std::string(1, c);
  return out;
}
}  // namespace detail

[[nodiscard]] inline aiob_profile with_provenance(
    aiob_profile p, const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<std::pair<std::string, std::string>> all;
  for (const std::string& line : p.header)
    if (auto kv = split_note(line); kv && kv->first != "aicb-profile")
      all.emplace_back(kv->first, kv->second);
  for (const auto& entry : entries) {
    // An entry is one comment line `# key: value`: a line break would end the comment and start a
    // line of the profile's body (which aicb's reader then rejects, or worse, reads).
    for (const std::string* text : {&entry.first, &entry.second})
      if (text->find_first_of("\r\n") != std::string::npos || (text == &entry.first && text->empty()))
        AICB_THROW(config_error(text == &entry.first ? "provenance key" : entry.first.substr(0, 40),
                                detail::escaped_line(text->substr(0, 40)) + (text->size() > 40 ? "..." : ""),
                                text->empty() ? "a provenance entry needs a key"
                                              : "a provenance entry is one line: no line breaks"));
    if (entry.first.find(':') != std::string::npos)
      AICB_THROW(config_error("provenance key", entry.first, "a key has no ':' (it ends the key)"));
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& e) { return e.first == entry.first; });
    if (it != all.end())
      it->second = entry.second;
    else
      all.push_back(entry);
  }
  const auto has = [&](std::string_view key) {
    return std::any_of(all.begin(), all.end(), [&](const auto& e) { return e.first == key; });
  };
  if (!has("units")) all.emplace_back("units", "time_gpu_* in microseconds of GPU time per call");
  if (!has("statistics"))
    all.emplace_back(
        "statistics",
        "as aicb computes them: samples above 3 x the minimum dropped, then avg = mean, max = maximum, "
        "min = minimum");
  p.header.assign(1, " aicb-profile: 2");
  for (const auto& [key, value] : all)
    p.header.push_back(" " + key + ": " + value);
  return p;
}

/// The profile as text, in the layout aicb writes (4-space indent, one statistic per line). A profile
/// read from such a file is written back byte for byte.
[[nodiscard]] inline std::string write_aiob(const aiob_profile& p) {
  std::string out;
  for (const std::string& line : p.header)
    out.append("#").append(line).append("\n");
  if (p.train_iter) out.append("train_iter:").append(std::to_string(*p.train_iter)).append("\n");
  for (const aiob_section& s : p.sections) {
    out.append(s.name).append(":\n");
    for (const aiob_line& l : s.lines) {
      if (l.comment)
        out.append("    #").append(l.key).append("\n");
      else
        out.append("    ").append(l.key).append(": ").append(l.value).append("\n");
    }
  }
  return out;
}

/// aicb's compute cache: what aicb's `extract_averages` derives from a profile, in nanoseconds, in
/// aicb's key order. Keys absent from a profile are absent here (aicb's lookups then answer 1 ns).
struct aicb_compute_cache {
  std::vector<std::pair<std::string, std::int64_t>> entries;

  [[nodiscard]] std::optional<std::int64_t> find(std::string_view key) const {
    for (const auto& [k, v] : entries)
      if (k == key) return v;
    return std::nullopt;
  }
};

/// The five DeepSeek MLA keys aicb reads per layer (0 when a profile lacks them).
inline constexpr std::string_view aicb_mla_keys[] = {"attention_linear_q_lora", "attention_q_column",
                                                     "attention_linear_kv_lora", "attention_kv_column",
                                                     "attention_o_row"};

/// Reproduces aicb's `extract_averages` exactly: each value × 1000 (µs → ns); averages of sections
/// whose name contains "atten" (and `layernorm`) summed into attention_forward/backward, "mlp" (and
/// `layernorm2`) into mlp_forward/backward; `param_time` gives grad_forward (its min) and
/// grad_backward (its avg); every other section keeps its own name; `*flash*` doubled under
/// recomputation; sums rounded half to even (Python's round). Sections without an average are
/// skipped, as aicb's regex search skips them.
[[nodiscard]] inline aicb_compute_cache aicb_cache_from_profile(const aiob_profile& p,
                                                                bool recompute_activations) {
  // Python's round(): to nearest, ties to even — what std::nearbyint does in the default mode. A sum
  // beyond the durations aicb represents is refused (Python would carry on with a huge integer).
  const auto py_round = [](double x) {
    if (!(x >= 0 && x <= max_duration_ns))
      AICB_THROW(config_error("profile", std::to_string(x) + " ns",
                              "a time derived from the profile must be between 0 and 2^62 ns"));
    return static_cast<std::int64_t>(std::nearbyint(x));
  };
  double attention = 0, mlp = 0;
  std::optional<double> grad_forward, grad_backward;
  std::vector<std::pair<std::string, double>> other;
  std::vector<std::pair<std::string_view, std::int64_t>> mla;
  for (const aiob_section& s : p.sections) {
    const std::optional<double> avg = s.stat("time_gpu_avg");
    if (s.name == "param_time") {
      if (const auto min = s.stat("time_gpu_min")) grad_forward = *min * 1000;
      if (avg) grad_backward = *avg * 1000;
      continue;
    }
    if (!avg) continue;
    const double value = *avg * 1000;
    if (s.name.find("atten") != std::string::npos || s.name == "layernorm") {
      attention += recompute_activations && s.name.find("flash") != std::string::npos ? 2 * value : value;
    } else if (s.name.find("mlp") != std::string::npos || s.name == "layernorm2") {
      mlp += value;
    } else {
      auto it = std::find_if(other.begin(), other.end(), [&](const auto& e) { return e.first == s.name; });
      if (it != other.end())
        it->second = value;
      else
        other.emplace_back(s.name, value);
    }
    for (std::string_view key : aicb_mla_keys)
      if (s.name == key) mla.emplace_back(key, py_round(value));
  }
  aicb_compute_cache cache;
  cache.entries.emplace_back("attention_forward", py_round(attention));
  cache.entries.emplace_back("attention_backward", py_round(attention));
  cache.entries.emplace_back("mlp_forward", py_round(mlp));
  cache.entries.emplace_back("mlp_backward", py_round(mlp));
  if (grad_forward) cache.entries.emplace_back("grad_forward", py_round(*grad_forward));
  if (grad_backward) cache.entries.emplace_back("grad_backward", py_round(*grad_backward));
  for (const auto& [name, value] : other)
    cache.entries.emplace_back(name, py_round(value));
  for (std::string_view key : aicb_mla_keys) {
    std::int64_t value = 0;
    for (const auto& [k, v] : mla)
      if (k == key) value = v;
    cache.entries.emplace_back(std::string(key), value);
  }
  return cache;
}

AICB_END_NAMESPACE
