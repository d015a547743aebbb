#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Measures `aicb generate`: wall time (best of N runs) and peak resident memory of each run, against
`cat` writing the same bytes through a pipe (so it copies every byte, as a generator must).

  scripts/bench-generate.py [--aicb build/release/bin/aicb] [--runs 3]

Cases: the README's seed command (Llama-2-7B-sized job on 4096 GPUs, roofline), and a 7B job with
gradient accumulation 32768 (--world_size 8 --tensor_model_parallel_size 8 --global_batch 32768) in
aicb compatibility and corrected modes, at GA 8192, 16384 and 32768 to show time grows linearly and
memory stays flat. Prints a Markdown table (the one in docs/performance.md).
"""
import argparse
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEVEN_B = ["--world_size", "8", "--tensor_model_parallel_size", "8", "--num_layers", "32", "--hidden_size", "4096",
           "--num_attention_heads", "32", "--ffn_hidden_size", "11008", "--swiglu"]


def run(command, runs, cwd):
    """Best wall time of `runs` runs, and the peak memory the command reports ("peak memory: X MiB",
    which aicb generate reads from /proc/self/status: the process's own high-water mark)."""
    best, peak = None, 0.0
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True,
                                shell=isinstance(command, str))
        elapsed = time.perf_counter() - start
        match = re.search(r"peak memory: ([0-9.]+) MiB", result.stdout)
        if match:
            peak = max(peak, float(match.group(1)))
        best = elapsed if best is None else min(best, elapsed)
    return best, peak


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--aicb", default=str(ROOT / "build/release/bin/aicb"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    aicb = str(Path(args.aicb).resolve())
    print("| case | output | aicb generate (best of %d) | cat through a pipe | ratio | peak RSS |" % args.runs)
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as work:
        cases = [("seed command, corrected (roofline H100)",
                  ["generate", "--no-sidecar", "-m", "7", "--world_size", "4096", "--tensor_model_parallel_size",
                   "2", "--pipeline_model_parallel", "1", "--frame", "Megatron", "--global_batch", "8192",
                   "--micro_batch", "1", "--seq_length", "4096", "--swiglu", "--use_flash_attn"]),
                 ("seed command, --compat aicb",
                  ["generate", "--no-sidecar", "--compat", "aicb", "-m", "7", "--world_size", "4096",
                   "--tensor_model_parallel_size", "2", "--pipeline_model_parallel", "1", "--frame", "Megatron",
                   "--global_batch", "8192", "--micro_batch", "1", "--seq_length", "4096", "--swiglu",
                   "--use_flash_attn"])]
        for mode in ("aicb", "none"):
            for ga in (8192, 16384, 32768):
                label = f"7B, GA {ga}, " + ("--compat aicb" if mode == "aicb" else "corrected")
                cases.append((label, ["generate", "--no-sidecar", "--compat", mode, *SEVEN_B,
                                      "--global_batch", str(ga)]))
        for label, argv in cases:
            out = Path(work) / "out.txt"
            seconds, peak = run([aicb, *argv, "-o", str(out)], args.runs, work)
            size = out.stat().st_size
            copy = Path(work) / "copy.txt"
            cat_seconds, _ = run(f"cat '{out}' | cat > '{copy}'", args.runs, work)
            print(f"| {label} | {size / 1e6:.1f} MB | {seconds:.3f} s | {cat_seconds:.3f} s | "
                  f"{seconds / cat_seconds:.2f} | {peak:.1f} MiB |")
            out.unlink()
            copy.unlink()


if __name__ == "__main__":
    main()
