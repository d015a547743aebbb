#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's time for the GEMM and attention shapes `aicb profile` measured, beside aicb's, as a Markdown
table: torch.matmul (cuBLAS through PyTorch) and torch.nn.functional.scaled_dot_product_attention
(FlashAttention-2 / cuDNN), bf16, CUDA events, the median of 50 calls after 10 warm-up calls.

  torch_reference.py PROFILE_LOG...     (the output of `aicb profile`)
"""
import re
import statistics
import sys

import torch

ROW = re.compile(r"^(\S+)\s+(?:b=(\d+) )?m=(\d+) n=(\d+) k=(\d+)\s+([0-9.]+)\s+([0-9.]+)")


def median_ms(fn, warmup=10, iterations=50):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iterations):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main():
    print("| operation | shape | aicb us | aicb TFLOP/s | PyTorch us | PyTorch TFLOP/s | aicb / PyTorch |")
    print("|---|---|---|---|---|---|---|")
    for log in sys.argv[1:]:
        for line in open(log):
            match = ROW.match(line)
            if not match:
                continue
            name, batch, m, n, k, aicb_us, _ = match.groups()
            batch, m, n, k, aicb_us = int(batch or 1), int(m), int(n), int(k), float(aicb_us)
            if "core" in name:  # attention: batch = heads, m queries, n keys, k head size
                q = torch.randn(1, batch, m, k, device="cuda", dtype=torch.bfloat16)
                kv = torch.randn(1, batch, n, k, device="cuda", dtype=torch.bfloat16)
                fn = lambda: torch.nn.functional.scaled_dot_product_attention(q, kv, kv, is_causal=True)
                flops = 4 * batch * m * n * k * 0.5
            elif name in ("attention_qkv", "attention_out", "mlp_fc1", "mlp_fc2", "logits", "moe_fc1", "moe_fc2",
                          "moe_router") or name.startswith("mla_"):
                a = torch.randn(batch, m, k, device="cuda", dtype=torch.bfloat16)
                b = torch.randn(batch, k, n, device="cuda", dtype=torch.bfloat16)
                fn = lambda: torch.matmul(a, b)
                flops = 2 * batch * m * n * k
            else:
                continue
            torch_us = median_ms(fn) * 1000
            print(f"| {name} | b={batch} m={m} n={n} k={k} | {aicb_us:.1f} | {flops / aicb_us / 1e6:.0f} | "
                  f"{torch_us:.1f} | {flops / torch_us / 1e6:.0f} | {aicb_us / torch_us:.2f} |")


if __name__ == "__main__":
    main()
