// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// The CONFIG.json aicb's inference generator takes (`MODEL CONFIG.json --phase …`): the Hugging Face
/// config keys it reads into aicb::aicb_inference_model — `hidden_size`, `num_hidden_layers`,
/// `moe_router_topk` (else `num_experts_per_tok`), `first_k_dense_replace`, `n_shared_experts`,
/// `full_attention_interval`. It reads JSON (nlohmann-json), so it is apart from
/// aicb/compat/aicb_inference.hpp.
///
/// ```cpp
/// const aicb::aicb_inference_model m = aicb::read_aicb_inference_config("deepseek_default.json");
/// ```

#include <aicb/compat/aicb_inference.hpp>
#include <aicb/config.hpp>
#include <aicb/detail/input_file.hpp>
#include <aicb/error.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

AICB_BEGIN_NAMESPACE

/// The values of a config's text (`name` names it in errors). Absent keys stay 0: the workload refuses
/// what it needs and lacks.
[[nodiscard]] inline aicb_inference_model parse_aicb_inference_config(std::string_view text,
                                                                      const std::string& name) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    AICB_THROW(parse_error(name, 1, 1, std::string("not JSON: ") + e.what()));
  }
  if (!j.is_object()) AICB_THROW(parse_error(name, 1, 1, "a config is a JSON object"));
  aicb_inference_model m;
  const auto number = [&](std::string_view key) -> std::uint64_t {
    const auto it = j.find(std::string(key));
    if (it == j.end() || it->is_null()) return 0;
    if (!it->is_number_unsigned())
      AICB_THROW(config_error(std::string(key), it->dump(), name + ": expected a whole number"));
    return it->get<std::uint64_t>();
  };
  m.hidden_size = number("hidden_size");
  m.num_layers = number("num_hidden_layers");
  m.top_k = j.contains("moe_router_topk") ? number("moe_router_topk") : number("num_experts_per_tok");
  m.first_dense_layers = number("first_k_dense_replace");
  m.shared_experts = number("n_shared_experts");
  m.full_attention_interval = number("full_attention_interval");
  return m;
}

/// The values of the config file at `path`.
[[nodiscard]] inline aicb_inference_model read_aicb_inference_config(const std::string& path) {
  const detail::file_prefix in = detail::read_file_prefix(path, 16 << 20, "a model config.json");
  if (!in.whole) AICB_THROW(io_error(path, "is larger than 16 MiB: not a model config.json"));
  return parse_aicb_inference_config(in.text, path);
}

AICB_END_NAMESPACE
