#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""The serving fidelity benchmark: `aicb serve` against published, measured serving benchmarks.

For every row of docs/data/published-serving.csv it
  1. derives the engine's settings the way the row's benchmark derives them (below: trtllm-bench's
     rule for its maximum batch and token budget), from the deployment's own weight and KV-cache bytes
     as `aicb serve` reports them;
  2. serves the row's requests (their lengths; all at once for an offline benchmark, else at the
     row's rate or from the row's closed loop of clients) with `aicb serve --json` and reads the
     predicted figure;
  3. prints one Markdown table — published, predicted, error — then the median error and the median
     absolute error per source, per model family and overall.

Nothing is tuned per row: every row runs through the same model and its source's documented rule.

  scripts/serving-fidelity.py [--aicb build/tool/bin/aicb] [--points docs/data/published-serving.csv]
                              [--trtllm-moe-attention-dp] [--step-overhead-us US] [--source NAME]
"""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# GPU memory (bytes) of the machines in the table, as the GPU catalogue has them (gpu_spec::memory_bytes:
# the total the driver reports, which the engines' memory fractions multiply).
MEMORY = {"H100": 81559 * 2**20, "H200": 143771 * 2**20, "B200": 183359 * 2**20}


def trtllm_bench_settings(kv_max_requests, isl, osl):
    """trtllm-bench's engine settings for a dataset of ISL/OSL (tensorrt_llm/bench/build/tuning.py,
    finetune_setting with optimistic tuning): the batch the KV cache holds at ISL+OSL tokens a request,
    at most 4096, rounded up; the token budget that batch needs for its prompts, at most 32768, rounded up,
    at least 2048."""
    raw_bs = min(kv_max_requests, 4096)
    raw_token = min(raw_bs * (1 + isl / osl), 32768)
    if raw_bs < 256:
        max_bs = max(64, 32 * math.ceil(raw_bs / 32))
    elif raw_bs < 1024:
        max_bs = 128 * math.ceil(raw_bs / 128)
    else:
        max_bs = 256 * math.ceil(raw_bs / 256)
    if raw_token < 4096:
        max_token = max(2048, 256 * math.ceil(raw_token / 256))
    elif raw_token < 8192:
        max_token = 512 * math.ceil(raw_token / 512)
    else:
        max_token = 1024 * math.ceil(raw_token / 1024)
    return max_bs, max_token


def family(model):
    if model.startswith(("qwen3-235b", "llama4", "deepseek", "mixtral")):
        return "MoE"
    return "dense"


STEP_OVERHEAD = []  # --step-overhead-us X, passed to every run (an experiment; empty: the engine's default)


def arrivals(row):
    """The row's arrival process: a rate (0: every request at once) or cN, a closed loop of N clients."""
    if row["rate"].startswith("c"):
        return ["--concurrency", row["rate"][1:]]
    return ["--rate", row["rate"]]


def serve(aicb, row, extra):
    command = [aicb, "serve", "--model", row["model"], "--gpu", row["gpu"], "--tp", row["tp"],
               "--dp-attention", row["dp_attention"], "--ep", row["ep"], "--weights", row["weights"],
               "--kv-cache", row["kv_cache"], "--prompt", row["prompt"], "--output", row["output"],
               "--json"] + arrivals(row) + STEP_OVERHEAD + extra
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "exit %d" % done.returncode
    return json.loads(done.stdout), None


def predict(aicb, row):
    """The row's predicted figure and the engine settings used; (None, reason) if it cannot be served."""
    gpus = int(row["tp"]) * int(row["dp_attention"])
    memory = MEMORY[row["gpu"]]
    # The deployment's weight and KV bytes, from a one-request run.
    probe, error = serve(aicb, row, ["--count", "1", "--memory-fraction", "0.95"])
    if probe is None:
        return None, error
    totals = probe["engine_totals"]
    weights, kv = totals["weight_bytes_per_gpu"], totals["kv_bytes_per_token_per_gpu"]
    if row["source"] == "trtllm-0.14-online":
        # TensorRT-LLM's engine defaults behind Triton: batches of at most 2048 requests, 8192 tokens a
        # step, prompts admitted whole (chunked context off), 90% of the memory the weights leave for KV.
        free = 0.90 * (memory - weights)
        engine = ["--max-running", "2048", "--token-budget", "8192", "--no-chunked-prefill",
                  "--memory-fraction", "%.6f" % ((weights + free) / memory)]
    elif row["source"] == "sglang-h200":
        # SGLang 0.4's server defaults: its scheduler (a step prefills or decodes, prompts first), prefill
        # steps of at most chunked_prefill_size = 8192 tokens, pages of one token, the radix cache off
        # (the runs' --disable-radix-cache), mem_fraction_static of the whole memory for weights and KV
        # (0.85 at TP 4, the 405B run's 0.87), max_running_requests from its request pool:
        # max(KV tokens / context length x 512, 2048), at most 4096 (Llama 3.x: 131072 tokens), and its
        # overlap scheduler (each step formed while the previous one runs; on by default since 0.4).
        fraction = 0.87 if row["model"] == "llama3.1-405b" else 0.85
        kv_tokens = (fraction * memory - weights) / kv
        max_running = min(max(int(kv_tokens / 131072 * 512), 2048), 4096)
        # Its front end, a single Python process (the tokenizer manager), sends every streamed chunk in
        # turn: about 175 us a chunk, from SGLang's own report of client-side against engine-side
        # inter-token latency at a batch of 1024 (180 ms against 39 ms; sgl-project/sglang issue 23393).
        engine = ["--scheduler", "sglang", "--overlap-schedule", "--token-budget", "8192", "--max-running",
                  str(max_running), "--block-tokens", "1", "--no-prefix-caching", "--stream-message-us", "175",
                  "--memory-fraction", "%.2f" % fraction]
    elif row["source"] == "inferencex-sglang":
        # InferenceX's SGLang launch scripts for DeepSeek-R1 FP8 (benchmarks/single_node/fixed_seq_len/
        # dsr1_fp8_h200.sh, dsr1_fp8_b200.sh): radix cache off, pages of one token, the overlap scheduler
        # (SGLang's default), prefill chunks of 32768 tokens, mem_fraction_static 0.82 and at most 512
        # running requests (H200 at 1k/1k; 256 otherwise) or 128 (B200); on four B200s 8192-token chunks,
        # 0.95 and 32. On B200 its scheduler polls for new requests every 10 decode steps (30 from 16
        # clients up; 10 on four GPUs): --scheduler-recv-interval.
        clients = int(row["rate"][1:])
        receive = 1
        if row["gpu"] == "B200" and int(row["tp"]) * int(row["dp_attention"]) == 4:
            budget, fraction, max_running, receive = 8192, 0.95, 32, 10
        elif row["gpu"] == "B200":
            budget, fraction, max_running = 32768, 0.82, 128
            receive = 30 if clients >= 16 else 10
        else:
            budget, fraction = 32768, 0.82
            max_running = 512 if row["prompt"].endswith(":1024") and row["output"].endswith(":1024") else 256
        engine = ["--scheduler", "sglang", "--overlap-schedule", "--token-budget", str(budget), "--max-running",
                  str(max_running), "--block-tokens", "1", "--no-prefix-caching", "--receive-interval",
                  str(receive), "--memory-fraction", "%.2f" % fraction]
    elif row["source"] == "inferencex-trtllm":
        # InferenceX's trtllm-serve scripts (dsr1_fp8_h200_trt.sh, dsr1_fp8_b200_trt.sh): the PyTorch
        # back end (its overlap scheduler on, chunked prefill off), an FP8 KV cache in 75% (H200; B200 80%,
        # 75% on four GPUs) of the memory the weights leave, max_num_tokens = the clients plus the longest
        # prompt plus 64, rounded up to 64, at least 8192.
        longest = int(row["prompt"].split(":")[-1])
        clients = int(row["rate"][1:])
        budget = max(8192, (clients + longest + 64 + 63) // 64 * 64)
        if row["gpu"] == "B200":
            share = 0.75 if int(row["tp"]) * int(row["dp_attention"]) == 4 else 0.80
        else:
            share = 0.75
        free = share * (memory - weights)
        engine = ["--overlap-schedule", "--no-chunked-prefill", "--token-budget", str(budget),
                  "--memory-fraction", "%.6f" % ((weights + free) / memory)]
    elif row["source"].startswith("trtllm"):
        # trtllm-bench: 95% of the memory the weights leave holds KV cache; a request's KV at ISL+OSL
        # lives on the TP GPUs of its attention group.
        isl, osl = int(row["prompt"]), int(row["output"])
        fraction = 0.95
        free = fraction * (memory - weights)
        kv_max_requests = free * gpus / (kv * int(row["tp"]) * (isl + osl))
        max_bs, max_tokens = trtllm_bench_settings(kv_max_requests, isl, osl)
        engine = ["--max-running", str(max_bs), "--token-budget", str(max_tokens),
                  "--memory-fraction", "%.6f" % ((weights + free) / memory)]
    else:
        engine = []
    report, error = serve(aicb, row, ["--count", row["requests"]] + engine)
    if report is None:
        return None, error
    metric = row["metric"]
    if metric == "output_tokens_per_s":
        value = report["throughput"]["output_tokens_per_s"]
    elif metric == "tpot_ms":
        value = report["tpot_s"]["mean"] * 1e3
    elif metric == "ttft_ms":
        value = report["ttft_s"]["mean"] * 1e3
    elif metric == "tpot_p50_ms":
        value = report["tpot_s"]["p50"] * 1e3
    elif metric == "ttft_p50_ms":
        value = report["ttft_s"]["p50"] * 1e3
    elif metric == "itl_p50_ms":
        value = report["itl_s"]["p50"] * 1e3
    else:
        return None, "unknown metric " + metric
    return (value, " ".join(engine[:-2])), None  # the settings shown without the memory fraction (last)


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--aicb", default=os.path.join(ROOT, "build", "tool", "bin", "aicb"))
    parser.add_argument("--points", default=os.path.join(ROOT, "docs", "data", "published-serving.csv"))
    parser.add_argument("--trtllm-moe-attention-dp", action="store_true",
                        help="the other reading of TensorRT-LLM 1.0's MoE rows: attention data parallelism "
                             "over the GPUs (TP 1, DP-attention N, EP N) instead of attention over TP")
    parser.add_argument("--step-overhead-us", type=float,
                        help="an experiment: the host's time per step exposed before each step, in every run")
    parser.add_argument("--source", help="only the points of this source")
    args = parser.parse_args()
    if args.step_overhead_us is not None:
        STEP_OVERHEAD.extend(["--step-overhead-us", repr(args.step_overhead_us)])
    with open(args.points) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    if args.source:
        rows = [row for row in rows if row["source"] == args.source]
    if args.trtllm_moe_attention_dp:
        for row in rows:
            if row["source"] == "trtllm-1.0" and family(row["model"]) == "MoE":
                row["dp_attention"], row["tp"] = row["tp"], "1"
    print("| source | model | GPUs | layout | ISL/OSL | requests | metric | published | predicted | error | engine |")
    print("|---|---|---|---|---|---|---|---:|---:|---:|---|")
    errors, refused = [], []
    for row in rows:
        result, reason = predict(args.aicb, row)
        layout = "TP%s" % row["tp"] + (" DP%s" % row["dp_attention"] if row["dp_attention"] != "1" else "") + \
            (" EP%s" % row["ep"] if row["ep"] != "1" else "")
        gpus = int(row["tp"]) * int(row["dp_attention"])
        if row["rate"].startswith("c"):
            sent = "%s, %s clients" % (row["requests"], row["rate"][1:])
        elif float(row["rate"]) == 0:
            sent = "%s, all at once" % row["requests"]
        else:
            sent = "%s at %s/s" % (row["requests"], row["rate"])
        head = "| %s | %s | %d %s | %s | %s/%s | %s | %s | %s" % (
            row["source"], row["model"], gpus, row["gpu"], layout, row["prompt"], row["output"],
            sent, row["metric"], row["published"])
        if result is None:
            refused.append((row, reason))
            print(head + " | — | cannot: %s | |" % reason)
            continue
        value, engine = result
        error = value / float(row["published"]) - 1
        errors.append((row, error))
        print(head + " | %s | %+.1f%% | %s |" % ("%.0f" % value if value >= 100 else "%.3g" % value, 100 * error,
                                              engine))
        sys.stdout.flush()
    print()
    print("| group | rows | median error | median abs. error |")
    print("|---|---:|---:|---:|")
    groups = {}
    for row, error in errors:
        for key in ("all", "source " + row["source"], "source " + row["source"] + ", " + row["metric"],
                    "source " + row["source"] + ", " + family(row["model"]), "family " + family(row["model"]),
                    "GPU " + row["gpu"], "model " + row["model"]):
            groups.setdefault(key, []).append(error)
    for key in sorted(groups, key=lambda k: (k != "all", k)):
        values = groups[key]
        print("| %s | %d | %+.1f%% | %.1f%% |" % (key, len(values), 100 * median(values),
                                                  100 * median([abs(v) for v in values])))
    if refused:
        print("\n%d rows cannot be served:" % len(refused))
        for row, reason in refused:
            print("- %s %s %s: %s" % (row["source"], row["model"], row["gpu"], reason))


if __name__ == "__main__":
    main()
