// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
// `aicb serve`: a stream of requests — a trace file (--requests) or a synthetic traffic (--rate,
// --count, --prompt, --output) — served by one deployment (--model, --tp, --dp-attention, --ep and
// the formats) with a continuous-batching engine; prints the latencies, throughput and goodput
// (aicb::serve, aicb/commands/serve.hpp), or their JSON (aicb.serving_run/1).
#include "commands.hpp"
#include "serving_flags.hpp"

#include <aicb/commands/serve.hpp>
#include <aicb/dtype.hpp>

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

namespace aicb_tool {
namespace {

struct serve_options {
  aicb::serve_request request;
  std::uint64_t prefill_tp = 0, prefill_dp_attention = 0, prefill_ep = 0;  // 0: the decode layout's
  std::string weights = "bf16", kv_cache = "bf16", dispatch = "fp8", prompt = "1024", output = "256";
  std::string recurrent_state;  // empty: the model's
  std::string scheduler = "vllm";
  std::string html, steps_format = "simai", timeline_window;
  double slo_ttft_ms = 0, slo_tpot_ms = 0;
  bool no_chunked_prefill = false, no_prefix_caching = false, json = false, plan = false;
  std::uint64_t max_gpus = 64;
  double attainment = 90;
  std::size_t top = 10;
};

// "N" or "LOW:HIGH" tokens.
aicb::length_range parse_lengths(const std::string& field, const std::string& text) {
  const auto number = [&](std::string_view s) {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty())
      throw aicb::config_error(field, text, "expected N or LOW:HIGH tokens");
    return v;
  };
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) return {number(text), number(text)};
  return {number(std::string_view(text).substr(0, colon)), number(std::string_view(text).substr(colon + 1))};
}

// "FROM:TO" or "FROM:" seconds of the run.
aicb::serving_window parse_window(const std::string& text) {
  const auto seconds = [&](const std::string& s) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (s.empty() || used != s.size() || !std::isfinite(v))
      throw aicb::config_error("timeline_window", text, "expected FROM:TO or FROM: seconds of the run");
    return v;
  };
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos)
    throw aicb::config_error("timeline_window", text, "expected FROM:TO or FROM: seconds of the run");
  aicb::serving_window w;
  w.from_s = seconds(text.substr(0, colon));
  if (colon + 1 < text.size()) w.to_s = seconds(text.substr(colon + 1));
  if (!(w.from_s >= 0) || !(w.to_s > w.from_s))
    throw aicb::config_error("timeline_window", text, "expected 0 <= FROM < TO seconds");
  return w;
}

int run_serve(serve_options& o) {
  aicb::serve_request& r = o.request;
  r.layout.weights = parse_serving_format("weights", o.weights);
  r.layout.kv_cache = parse_serving_format("kv_cache", o.kv_cache);
  set_recurrent_state(r.layout, o.recurrent_state);
  r.layout.fp8_dispatch = o.dispatch == "fp8";
  if (r.prefill_instances == 0 && (o.prefill_tp || o.prefill_dp_attention || o.prefill_ep))
    throw aicb::config_error("prefill_instances", "0",
                             "a prefill layout (--prefill-tp, --prefill-dp-attention, --prefill-ep) needs "
                             "--prefill-instances");
  r.prefill_layout = r.layout;
  if (o.prefill_tp) r.prefill_layout.tensor_parallel = o.prefill_tp;
  if (o.prefill_dp_attention) r.prefill_layout.attention_data_parallel = o.prefill_dp_attention;
  if (o.prefill_ep) r.prefill_layout.expert_parallel = o.prefill_ep;
  r.traffic.prompt = parse_lengths("prompt", o.prompt);
  r.traffic.output = parse_lengths("output", o.output);
  r.engine.policy = o.scheduler == "sglang" ? aicb::serving_policy::sglang : aicb::serving_policy::vllm;
  r.engine.chunked_prefill = !o.no_chunked_prefill;
  r.engine.prefix_caching = !o.no_prefix_caching;
  r.slo_ttft_s = o.slo_ttft_ms / 1e3;
  r.slo_tpot_s = o.slo_tpot_ms / 1e3;
  if (!o.timeline_window.empty()) {
    if (r.timeline.empty())
      throw aicb::config_error("timeline_window", o.timeline_window, "a window needs --timeline FILE");
    r.timeline_window = parse_window(o.timeline_window);
  }
  if (o.plan)
    for (const auto& [field, path] : {std::pair<const char*, const std::string*>{"html", &o.html},
                                      {"steps", &r.steps},
                                      {"timeline", &r.timeline}})
      if (!path->empty()) throw aicb::config_error(field, *path, "a serving plan writes no files");
  if (o.plan) {  // aicb plan --serving
    if (o.json)
      throw aicb::config_error("json", "true", "a serving plan is printed as text only; drop --json");
    if (r.prefill_instances > 0)
      throw aicb::config_error("prefill_instances", std::to_string(r.prefill_instances),
                               "a serving plan searches the instances itself");
    aicb::serving_plan_request p;
    p.base = r;
    p.max_gpus = o.max_gpus;
    p.attainment = o.attainment / 100;
    const aicb::serving_plan plan = aicb::plan_serving(p);
    std::cout << aicb::format_serving_plan(plan, o.top);
    if (plan.candidates.empty() || !plan.candidates.front().meets) {
      std::cout.flush();
      std::fprintf(stderr, "aicb: plan --serving: no deployment of at most %llu GPUs meets the objective\n",
                   static_cast<unsigned long long>(o.max_gpus));
      return 1;
    }
    return 0;
  }
  r.steps_format = o.steps_format == "chakra" ? aicb::workload_format::chakra : aicb::workload_format::simai;
  if (!r.steps_ranks.empty() && r.steps.empty())
    throw aicb::config_error("steps_ranks", r.steps_ranks, "give --steps DIR to write steps");
  const aicb::serve_report report = aicb::serve(r);
  if (!o.html.empty()) {
    aicb::atomic_file page(o.html);
    page.write(aicb::format_serve_html(report));
    page.commit();
  }
  std::cout << (o.json ? aicb::to_json(report) : aicb::format_serve(report));
  if (!o.html.empty() && !o.json) std::cout << "wrote " << o.html << ": the report with its latency plots\n";
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, action& chosen) {
  add_command<serve_options>(
      app, chosen,
      [](CLI::App& parent, serve_options& o, CLI::App*& command) {
        command = parent.add_subcommand(
            "serve", "Serve a stream of requests on one deployment: latencies, throughput, goodput");
        aicb::serve_request& r = o.request;
        const char* deployment = "deployment";
        command->add_option("--model", r.model, "a preset (aicb models), e.g. deepseek-v3")
            ->group(deployment);
        command->add_option("--hf-config", r.hf_config, "a Hugging Face config.json")->group(deployment);
        command->add_option("--tp", r.layout.tensor_parallel, "attention tensor parallelism")
            ->capture_default_str()
            ->group(deployment);
        command
            ->add_option("--dp-attention", r.layout.attention_data_parallel,
                         "data-parallel attention groups (GPUs = TP x this)")
            ->capture_default_str()
            ->group(deployment);
        command->add_option("--ep", r.layout.expert_parallel, "expert parallelism: 1, or every GPU")
            ->capture_default_str()
            ->group(deployment);
        command->add_option("--weights", o.weights, "weight format: bf16 | fp8")
            ->capture_default_str()
            ->group(deployment);
        command->add_option("--kv-cache", o.kv_cache, "KV cache format: bf16 | fp8")
            ->capture_default_str()
            ->group(deployment);
        command->add_option("--recurrent-state", o.recurrent_state, recurrent_state_help)
            ->check(CLI::IsMember({"bf16", "fp32"}))
            ->group(deployment);
        command->add_option("--dispatch", o.dispatch, "expert-parallel dispatch format: fp8 | bf16")
            ->check(CLI::IsMember({"fp8", "bf16"}))
            ->capture_default_str()
            ->group(deployment);
        command
            ->add_option("--mtp-drafts", r.layout.mtp_drafts,
                         "speculative tokens a decoding request verifies a step, drafted by the model's MTP "
                         "module (0: none)")
            ->capture_default_str()
            ->group(deployment);
        command->add_option("--gpu", r.gpu, "GPU (catalogue name; default: the cluster's, or H100)")
            ->group(deployment);
        command->add_option("--cluster", r.cluster, "cluster preset or cluster file (.json)")
            ->group(deployment);
        const char* split = "disaggregated prefill and decode";
        command
            ->add_option("--prefill-instances", r.prefill_instances,
                         "instances that run the prompts (0: one deployment does both)")
            ->capture_default_str()
            ->group(split);
        command
            ->add_option("--decode-instances", r.decode_instances,
                         "instances of the deployment above that decode, with --prefill-instances")
            ->capture_default_str()
            ->group(split);
        command->add_option("--prefill-tp", o.prefill_tp, "a prefill instance's TP (default: --tp)")
            ->group(split);
        command
            ->add_option("--prefill-dp-attention", o.prefill_dp_attention,
                         "a prefill instance's DP-attention groups (default: --dp-attention)")
            ->group(split);
        command->add_option("--prefill-ep", o.prefill_ep, "a prefill instance's EP (default: --ep)")
            ->group(split);
        const char* traffic = "requests";
        command->add_option("--requests", r.trace, "a request trace, CSV or JSON Lines (aicb.requests/1)")
            ->group(traffic);
        command->add_option("--count", r.traffic.requests, "synthetic: requests")
            ->capture_default_str()
            ->group(traffic);
        command->add_option("--rate", r.traffic.rate, "synthetic: requests per second (0: all at once)")
            ->capture_default_str()
            ->group(traffic);
        command
            ->add_option("--cv", r.traffic.cv, "synthetic: the gaps' coefficient of variation (1: Poisson)")
            ->capture_default_str()
            ->group(traffic);
        command->add_option("--prompt", o.prompt, "synthetic: prompt tokens, N or LOW:HIGH (uniform)")
            ->capture_default_str()
            ->group(traffic);
        command->add_option("--output", o.output, "synthetic: output tokens, N or LOW:HIGH (uniform)")
            ->capture_default_str()
            ->group(traffic);
        command->add_option("--seed", r.traffic.seed, "synthetic: the generator's seed")
            ->capture_default_str()
            ->group(traffic);
        command
            ->add_option("--prefix-groups", r.traffic.prefix_groups,
                         "synthetic: each prompt begins with one of this many shared prefixes (0: none)")
            ->capture_default_str()
            ->group(traffic);
        command
            ->add_option("--prefix-tokens", r.traffic.prefix_tokens,
                         "synthetic: the shared prefixes' tokens (part of the prompt)")
            ->capture_default_str()
            ->group(traffic);
        command
            ->add_option("--concurrency", r.engine.concurrency,
                         "clients keep at most this many requests outstanding, each next sent as one "
                         "finishes (0: no bound; --max-concurrency of vLLM's and SGLang's benchmarks)")
            ->capture_default_str()
            ->group(traffic);
        command->add_option("--write-requests", r.write_trace, "also write the requests as a CSV trace")
            ->group(traffic);
        const char* engine = "engine";
        command
            ->add_option("--scheduler", o.scheduler,
                         "whose scheduler forms the steps: vllm (prefill and decode share each step's token "
                         "budget) | sglang (a step prefills or decodes, prompts first; its admission "
                         "reserves the outputs ahead)")
            ->check(CLI::IsMember({"vllm", "sglang"}))
            ->capture_default_str()
            ->group(engine);
        command
            ->add_option("--token-budget", r.engine.token_budget,
                         "tokens a step per group (vLLM's max_num_batched_tokens; SGLang's "
                         "chunked_prefill_size, a prefill step's)")
            ->capture_default_str()
            ->group(engine);
        command
            ->add_option("--max-running", r.engine.max_running,
                         "requests running at once per group (max_num_seqs, max_running_requests)")
            ->capture_default_str()
            ->group(engine);
        command->add_option("--block-tokens", r.engine.block_tokens, "tokens per KV-cache block")
            ->capture_default_str()
            ->group(engine);
        command
            ->add_option("--memory-fraction", r.engine.memory_fraction,
                         "share of GPU memory for weights and KV cache")
            ->capture_default_str()
            ->group(engine);
        command->add_flag("--no-chunked-prefill", o.no_chunked_prefill, "admit a prompt only whole")
            ->group(engine);
        command
            ->add_flag("--no-prefix-caching", o.no_prefix_caching,
                       "compute every prompt whole, shared prefixes included")
            ->group(engine);
        command
            ->add_option("--step-overhead-us", r.engine.step_overhead_us,
                         "the host's time per step the GPUs wait through (scheduling, inputs, sampling); "
                         "0: hidden by the engine (docs/inference.md)")
            ->capture_default_str()
            ->group(engine);
        command
            ->add_flag("--overlap-schedule", r.engine.overlap_schedule,
                       "form each step while the previous one runs (SGLang's overlap scheduler, vLLM's async "
                       "scheduling): a request arriving meanwhile waits a step longer")
            ->group(engine);
        command
            ->add_option("--receive-interval", r.engine.receive_interval,
                         "take in new requests every N decode steps, and after a step with prompt tokens "
                         "(SGLang's --scheduler-recv-interval); 1: every step")
            ->capture_default_str()
            ->group(engine);
        command
            ->add_option("--stream-message-us", r.engine.stream_message_us,
                         "the front end's time to send one streamed message to a client; it sends them one "
                         "at a time, and the clients' latencies count from there (0: no front end)")
            ->capture_default_str()
            ->group(engine);
        command
            ->add_option("--stream-token-us", r.engine.stream_token_us,
                         "the front end's time per token of text a streamed message carries")
            ->capture_default_str()
            ->group(engine);
        command
            ->add_flag(
                "--stream-cumulative", r.engine.stream_cumulative,
                "with --stream-token-us: each streamed message carries the request's whole output so far "
                "(SGLang's /generate before incremental streaming), not only its new tokens")
            ->group(engine);
        command
            ->add_option("--draft-acceptance", r.engine.draft_acceptance,
                         "with --mtp-drafts: the chance a draft is accepted once those before it were "
                         "(DeepSeek-V3's report: 0.85-0.90)")
            ->capture_default_str()
            ->group(engine);
        command->add_option("--slo-ttft-ms", o.slo_ttft_ms, "objective: time to first token, ms (goodput)");
        command->add_option("--slo-tpot-ms", o.slo_tpot_ms, "objective: time per output token, ms (goodput)");
        command->add_flag("--json", o.json, "print the report as JSON (aicb.serving_run/1)");
        const char* outputs = "outputs";
        command->add_option("--html", o.html, "also write the report as an HTML page with latency plots")
            ->group(outputs);
        command
            ->add_option("--steps", r.steps,
                         "also write every kind of step of the run once into this folder, with the mix "
                         "(steps.csv)")
            ->group(outputs);
        command->add_option("--steps-format", o.steps_format, "the steps as simai (rank 0's) or chakra")
            ->check(CLI::IsMember({"simai", "chakra"}))
            ->capture_default_str()
            ->group(outputs);
        command
            ->add_option("--steps-ranks", r.steps_ranks, "--steps-format chakra: the GPUs to write, e.g. 0-7")
            ->group(outputs);
        command
            ->add_option("--timeline", r.timeline,
                         "also write a window of the run as a timeline (Perfetto / chrome://tracing JSON)")
            ->group(outputs);
        command
            ->add_option("--timeline-window", o.timeline_window,
                         "the timeline's window, FROM:TO seconds of the run (FROM: to the end; default all, "
                         "at most 20000 steps)")
            ->group(outputs);
        // `aicb plan --serving` arrives here as --plan (main.cpp); hidden: one spelling is shown.
        command->add_flag("--plan", o.plan, "rank deployments (aicb plan --serving)")->group("");
        const char* planning = "aicb plan --serving";
        command->add_option("--max-gpus", o.max_gpus, "the most GPUs a deployment may use")
            ->capture_default_str()
            ->group(planning);
        command->add_option("--attainment", o.attainment, "percent of requests that must meet the objective")
            ->capture_default_str()
            ->group(planning);
        command->add_option("--top", o.top, "deployments to print")->capture_default_str()->group(planning);
        // A trace or a synthetic traffic, not both.
        for (const char* synthetic : {"--count", "--rate", "--cv", "--prompt", "--output", "--seed",
                                      "--prefix-groups", "--prefix-tokens"})
          command->get_option("--requests")->excludes(command->get_option(synthetic));
      },
      run_serve);
}

}  // namespace aicb_tool
