#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Measures `aicb generate` as users run it: whole processes writing a file on the same disk as `cat`
copying that file (`cat out > copy`; each replaces its file of the previous pair), runs paired (generator, cat, generator, cat …); reports the median of
the pairs' wall-time ratios (the target) and of their CPU-time ratios (user + system) beside it, and the
generator's peak resident memory.

  scripts/bench-generate.py [--aicb build/test/bin/aicb] [--pairs 7] [--cases ga32768]

Cases: the README's seed command (Llama-2-7B-sized job on 4096 GPUs, roofline), and a 7B job with
gradient accumulation 32768 (--world_size 8 --tensor_model_parallel_size 8 --global_batch 32768) in
aicb compatibility and corrected modes, at GA 8192, 16384 and 32768 to show time grows linearly and
memory stays flat. Prints a Markdown table (the one in docs/performance.md).
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEVEN_B = ["--world_size", "8", "--tensor_model_parallel_size", "8", "--num_layers", "32", "--hidden_size", "4096",
           "--num_attention_heads", "32", "--ffn_hidden_size", "11008", "--swiglu"]


def timed(command, cwd):
    """Wall and CPU (user + system of the child) seconds of one run, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True,
                            shell=isinstance(command, str))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--aicb", default=str(ROOT / "build/release/bin/aicb"))
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--cases", default="", help="only cases whose label contains this text")
    args = parser.parse_args()
    aicb = str(Path(args.aicb).resolve())
    print("| case | output | aicb generate (median) | cat (median) | wall ratio (median of pairs) | "
          "CPU ratio | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    # The files live beside the project (the same disk users write workloads to), not in a RAM /tmp.
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", str(ROOT))) as work:
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
            if args.cases and args.cases not in label.replace(" ", "").lower():
                continue
            out = Path(work) / "out.txt"
            copy = Path(work) / "copy.txt"
            walls, cpus, gen_walls, cat_walls, peak = [], [], [], [], 0.0
            for _ in range(args.pairs):
                g_wall, g_cpu, stdout = timed([aicb, *argv, "-o", str(out)], work)
                match = re.search(r"peak memory: ([0-9.]+) MiB", stdout)
                if match:
                    peak = max(peak, float(match.group(1)))
                # Both replace their file of the previous pair, as a user rerunning a command does.
                c_wall, c_cpu, _ = timed(f"cat '{out}' > '{copy}'", work)
                walls.append(g_wall / c_wall)
                cpus.append(g_cpu / max(c_cpu, 1e-3))
                gen_walls.append(g_wall)
                cat_walls.append(c_wall)
            copy.unlink()
            size = out.stat().st_size
            print(f"| {label} | {size / 1e6:.1f} MB | {statistics.median(gen_walls):.3f} s | "
                  f"{statistics.median(cat_walls):.3f} s | {statistics.median(walls):.2f} | "
                  f"{statistics.median(cpus):.2f} | {peak:.1f} MiB |")
            out.unlink()


if __name__ == "__main__":
    main()
