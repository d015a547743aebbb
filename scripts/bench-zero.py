#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Measures `aicb deepspeed` on a Llama-2-70B-shaped model (80 layers, hidden 8192, 64 heads, FFN 28672,
vocabulary 32000) on 1024 GPUs: ZeRO-3 as aicb's CSV (the stage-3 prefetch state machine, corrected mode)
and as SimAI text, with 1 and 16 micro batches per iteration, and ZeRO-1/2 for comparison. Wall time is the
best of N runs of the whole command (process start, generation, writing the file); peak memory is the
process's own high-water mark (VmHWM). Prints a Markdown table (the one in docs/performance.md).

  scripts/bench-zero.py [--aicb build/test/bin/aicb] [--runs 5]
"""
import argparse
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LLAMA_70B = ["--world_size", "1024", "--num_layers", "80", "--hidden_size", "8192", "--num_attention_heads", "64",
             "--ffn_hidden_size", "28672", "--vocab_size", "32000", "--seq_length", "4096", "--model_name",
             "llama2_70b"]


def run(command, runs, cwd):
    best, peak, size = None, 0.0, 0
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        match = re.search(r"peak memory: ([0-9.]+) MiB", result.stdout)
        if match:
            peak = max(peak, float(match.group(1)))
        best = elapsed if best is None else min(best, elapsed)
    size = (Path(cwd) / "out").stat().st_size
    return best, peak, size


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--aicb", default=str(ROOT / "build/test/bin/aicb"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    aicb = str(Path(args.aicb).resolve())
    print("| case | micro batches | output | time (best of %d) | peak RSS |" % args.runs)
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as work:
        for stage, fmt, ga in [(3, "csv", 1), (3, "csv", 16), (3, "simai", 1), (3, "simai", 16), (2, "simai", 16),
                               (1, "simai", 16), (2, "csv", 16), (1, "csv", 16)]:
            command = [aicb, "deepspeed", "--format", fmt, "--stage", str(stage), *LLAMA_70B, "--global_batch",
                       str(1024 * ga), "-o", "out"]
            best, peak, size = run(command, args.runs, work)
            print(f"| ZeRO-{stage} {fmt} | {ga} | {size / 1e6:.2f} MB | {best * 1000:.0f} ms | {peak:.1f} MiB |")


if __name__ == "__main__":
    main()
