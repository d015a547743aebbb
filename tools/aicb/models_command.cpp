// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb models`: every preset with its dimensions and exact parameter counts (text, or JSON).
#include "commands.hpp"

#include <aicb/calc/params.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/model/reflect.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

namespace aicb_tool {
namespace {

// `aicb models`: every preset with its dimensions and exact parameter counts.
int run_models(bool json) {
  aicb::json_writer w;
  w.begin_array();
  int key_width = 6;  // the longest preset key, so that every row lines up
  for (const aicb::preset& p : aicb::all_presets)
    key_width = std::max(key_width, static_cast<int>(p.key.size()));
  if (!json)
    std::printf("%-*s %6s %6s %5s %4s %6s %7s %7s %16s %16s  %s\n", key_width, "preset", "layers", "hidden",
                "heads", "kv", "ffn", "vocab", "experts", "total params", "active params", "source / note");
  for (const aicb::preset& p : aicb::all_presets) {
    const aicb::model_spec m = aicb::resolve(p.model);
    const aicb::param_counts c = aicb::count_params(m, 4096);
    if (json) {
      w.begin_object().member("key", p.key).member("from_aicb", p.from_aicb).member("source", p.source);
      w.member("note", p.note).member("total_params", c.total()).member("active_params", c.active());
      w.key("model");
      aicb::write_json(w, m);
      w.end_object();
      continue;
    }
    const std::string experts =
        m.is_moe() ? std::to_string(m.num_experts) + "/" + std::to_string(m.moe_top_k) : std::string("-");
    std::printf("%-*s %6llu %6llu %5llu %4llu %6llu %7llu %7s %16llu %16llu  %s%s%s\n", key_width,
                std::string(p.key).c_str(), static_cast<unsigned long long>(m.num_layers),
                static_cast<unsigned long long>(m.hidden_size),
                static_cast<unsigned long long>(m.num_attention_heads),
                static_cast<unsigned long long>(m.num_kv_heads),
                static_cast<unsigned long long>(m.ffn_hidden_size),
                static_cast<unsigned long long>(m.vocab_size), experts.c_str(),
                static_cast<unsigned long long>(c.total()), static_cast<unsigned long long>(c.active()),
                p.from_aicb ? "[aicb] " : "", std::string(p.source).c_str(),
                p.note.empty() ? "" : ("; differs: " + std::string(p.note)).c_str());
  }
  if (json)
    std::cout << w.end_array().str() << '\n';
  else
    std::printf(
        "\nexperts = routed experts / top-k; counts with learned position tables use 4096 positions when "
        "the model does not fix them.\n");
  return 0;
}

}  // namespace

void add_models_command(CLI::App& app, action& chosen) {
  auto json = std::make_shared<bool>(false);
  auto* command =
      app.add_subcommand("models", "List the model presets with their dimensions and parameter counts");
  command->add_flag("--json", *json, "print JSON");
  on_chosen(command, chosen, json, run_models);
}

}  // namespace aicb_tool
