// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// The aicb command-line program: thin — it parses flags and calls the library.
// Exit status: 0 success, 1 runtime failure, 2 usage or configuration error.
#include "aiob_command.hpp"
#include "exit_status.hpp"
#include "generate_command.hpp"
#include "job_flags.hpp"
#include "lint_command.hpp"
#include "micro_command.hpp"
#include "profile_command.hpp"
#include "schedule_command.hpp"

#include <aicb/calc/params.hpp>
#include <aicb/calc/report.hpp>
#include <aicb/error.hpp>
#include <aicb/model/presets.hpp>
#include <aicb/version.hpp>

#include <aicb/io/atomic_file.hpp>
#include <aicb/io/json_writer.hpp>
#include <aicb/model/reflect.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

namespace {

// `aicb models`: every preset with its dimensions and exact parameter counts.
int run_models(bool json) {
  aicb::json_writer w;
  w.begin_array();
  if (!json)
    std::printf("%-20s %6s %6s %5s %4s %6s %7s %7s %16s %16s  %s\n", "preset", "layers", "hidden", "heads",
                "kv", "ffn", "vocab", "experts", "total params", "active params", "source / note");
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
    std::printf(
        "%-20s %6llu %6llu %5llu %4llu %6llu %7llu %7s %16llu %16llu  %s%s%s\n", std::string(p.key).c_str(),
        static_cast<unsigned long long>(m.num_layers), static_cast<unsigned long long>(m.hidden_size),
        static_cast<unsigned long long>(m.num_attention_heads),
        static_cast<unsigned long long>(m.num_kv_heads), static_cast<unsigned long long>(m.ffn_hidden_size),
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

int run_describe(const aicb_tool::job_flags& flags, bool json) {
  const auto report = aicb::describe_job(flags.job());
  if (json)
    std::cout << aicb::to_json(report);
  else
    std::cout << aicb::format_description(report);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  aicb::remove_temporaries_on_signals();  // an interrupt leaves no half-written temporary behind
  CLI::App app{"aicb: describe LLM training jobs and generate the workloads simulators consume", "aicb"};
  app.set_version_flag("--version", std::string("aicb ") + AICB_VERSION_STRING);
  app.require_subcommand(1);

  bool models_json = false;
  auto* models =
      app.add_subcommand("models", "List the model presets with their dimensions and parameter counts");
  models->add_flag("--json", models_json, "print JSON");

  bool describe_json = false;
  aicb_tool::job_flags describe_flags;
  auto* describe =
      app.add_subcommand("describe", "Show parameters, FLOPs, memory and communication of a job");
  describe->add_flag("--json", describe_json, "print JSON");
  describe_flags.add_to(*describe);

  aicb_tool::generate_options generate;
  CLI::App* generate_command = nullptr;
  aicb_tool::add_generate_command(app, generate, generate_command);

  aicb_tool::deepspeed_options deepspeed;
  CLI::App* deepspeed_command = nullptr;
  aicb_tool::add_deepspeed_command(app, deepspeed, deepspeed_command);

  aicb_tool::micro_options micro;
  CLI::App* micro_command = nullptr;
  aicb_tool::add_micro_command(app, micro, micro_command);

  // `aicb profile` is the separate program aicb-profile (CUDA builds): listed here, run by forwarding.
  app.add_subcommand("profile", std::string(aicb_tool::profile_description) + " (see aicb profile --help)")
      ->allow_extras();
  if (argc >= 2 && std::string(argv[1]) == "profile") return aicb_tool::forward_to_profiler(argc, argv);

  aicb_tool::schedule_options schedule;
  CLI::App* schedule_command = nullptr;
  aicb_tool::add_schedule_command(app, schedule, schedule_command);

  aicb_tool::check_options check;
  CLI::App* check_command = nullptr;
  aicb_tool::add_check_command(app, check, check_command);

  aicb_tool::lint_options lint;
  CLI::App* lint_command = nullptr;
  aicb_tool::add_lint_command(app, lint, lint_command);

  aicb_tool::aiob_options aiob;
  CLI::App *aiob_show = nullptr, *aiob_check = nullptr, *aiob_convert = nullptr;
  aicb_tool::add_aiob_commands(app, aiob, aiob_show, aiob_check, aiob_convert);

  if (const auto status = aicb_tool::parse_arguments(app, argc, argv)) return *status;
  return aicb_tool::run_reporting_errors([&] {
    if (*generate_command) return aicb_tool::run_generate(generate);
    if (*deepspeed_command) return aicb_tool::run_deepspeed(deepspeed);
    if (*micro_command) return aicb_tool::run_micro(micro);
    if (*lint_command) return aicb_tool::run_lint(lint);
    if (*schedule_command) return aicb_tool::run_schedule(schedule);
    if (*check_command) return aicb_tool::run_check(check);
    if (*models) return run_models(models_json);
    if (*describe) return run_describe(describe_flags, describe_json);
    if (*aiob_show) return aicb_tool::run_aiob_show(aiob);
    if (*aiob_check) return aicb_tool::run_aiob_check(aiob);
    if (*aiob_convert) return aicb_tool::run_aiob_convert(aiob);
    return 0;
  });
}
