#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""The outside check of docs/fidelity.md's "An outside check: NeMo's long-sequence tables".

NeMo's long-sequence performance tables (docs/source/performance/performance_long_sequence.md in
NVIDIA/NeMo, as of May 2025): Llama-2 7B in FP8 on DGX H100 (the NeMo 24.03.01 container) and Llama-3 8B in
FP8 on DGX B200 (NeMo 25.04.rc2), sequences of 4K to 1024K tokens, context parallelism up to 32 — each row
priced by the iteration estimate of `aicb describe` and, where SimAI's format can hold the job (no context
parallelism), by SimAI-Analytical's documented cost model on the default-mode file (scripts/fidelity.py's).

    scripts/long-context-check.py [--aicb build/tool/bin/aicb]

The tables publish model TFLOP/s a GPU with their layout (TP, PP, DP, CP) and global batch. The step time is
the model FLOPs of a step over TFLOP/s x GPUs, with the FLOPs as NeMo counted them then
(nemo/utils/flops_formulas.py before its August 2025 causal discount, the same formula the 24.07 summary used:
its Llama-2 7B row, 780 TFLOP/s at 16,934 tokens/s a GPU, is 46.06 GFLOP a token, the formula's 46.09):
global batch x sequence x layers x hidden^2 x (12 + 12 groups/heads + 18 ffn/hidden + 12 sequence/hidden + 6
vocabulary/(layers x hidden)). The B200 table's GPU column repeats its sequence column; its layouts multiply to
a quarter of it, and its two longest rows (global batch 8 and 4 over DP 4) admit no other reading, so the GPUs
are taken as TP x PP x DP x CP. The tables state no other setting: every row runs here with the distributed
optimizer and overlapped gradient reduction and weight gathers, sequence parallelism and TP overlap where
TP > 1, micro batch 1, no recomputation (every row fits the memory this model counts). Nothing is tuned per row.
"""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fidelity  # noqa: E402  (SimAI-Analytical's cost model, shared with the published-runs table)

# model preset, (layers, hidden, heads, query groups, ffn, vocabulary) as NeMo's formula takes them
MODELS = {"llama2-7b": (32, 4096, 32, 32, 11008, 32000), "llama3-8b": (32, 4096, 32, 8, 14336, 128256)}
# table, model, GPU, cluster, sequence (K), global batch, TP, PP, DP, CP, TFLOP/s a GPU
ROWS = [
    ("H100 Llama-2 7B (NeMo 24.03.01)", "llama2-7b", "H100", "dgx-h100", 4, 1024, 1, 1, 4, 1, 768),
    ("H100 Llama-2 7B (NeMo 24.03.01)", "llama2-7b", "H100", "dgx-h100", 8, 512, 1, 2, 4, 1, 730),
    ("H100 Llama-2 7B (NeMo 24.03.01)", "llama2-7b", "H100", "dgx-h100", 16, 256, 2, 1, 8, 1, 660),
    ("H100 Llama-2 7B (NeMo 24.03.01)", "llama2-7b", "H100", "dgx-h100", 32, 128, 2, 1, 8, 2, 610),
    ("H100 Llama-2 7B (NeMo 24.03.01)", "llama2-7b", "H100", "dgx-h100", 64, 64, 4, 1, 8, 2, 574),
    ("H100 Llama-2 7B (NeMo 24.03.01)", "llama2-7b", "H100", "dgx-h100", 128, 32, 4, 1, 8, 4, 555),
    ("H100 Llama-2 7B (NeMo 24.03.01)", "llama2-7b", "H100", "dgx-h100", 256, 16, 4, 1, 8, 8, 549),
    ("H100 Llama-2 7B (NeMo 24.03.01)", "llama2-7b", "H100", "dgx-h100", 512, 8, 8, 1, 4, 16, 549),
    ("H100 Llama-2 7B (NeMo 24.03.01)", "llama2-7b", "H100", "dgx-h100", 1024, 4, 8, 1, 4, 32, 536),
    ("B200 Llama-3 8B (NeMo 25.04.rc2)", "llama3-8b", "B200", "dgx-b200", 8, 512, 1, 1, 2, 1, 1671),
    ("B200 Llama-3 8B (NeMo 25.04.rc2)", "llama3-8b", "B200", "dgx-b200", 16, 256, 1, 1, 4, 1, 1717),
    ("B200 Llama-3 8B (NeMo 25.04.rc2)", "llama3-8b", "B200", "dgx-b200", 32, 128, 1, 1, 4, 2, 1624),
    ("B200 Llama-3 8B (NeMo 25.04.rc2)", "llama3-8b", "B200", "dgx-b200", 64, 64, 1, 1, 4, 4, 1600),
    ("B200 Llama-3 8B (NeMo 25.04.rc2)", "llama3-8b", "B200", "dgx-b200", 128, 32, 2, 1, 4, 4, 1588),
    ("B200 Llama-3 8B (NeMo 25.04.rc2)", "llama3-8b", "B200", "dgx-b200", 256, 16, 4, 1, 4, 4, 1590),
    ("B200 Llama-3 8B (NeMo 25.04.rc2)", "llama3-8b", "B200", "dgx-b200", 512, 8, 4, 1, 4, 8, 1619),
    ("B200 Llama-3 8B (NeMo 25.04.rc2)", "llama3-8b", "B200", "dgx-b200", 1024, 4, 4, 1, 4, 16, 1608),
]


def nemo_flops(model, gbs, seq):
    layers, hidden, heads, groups, ffn, vocab = MODELS[model]
    return gbs * seq * layers * hidden * hidden * (
        12 + 12 * groups / heads + 18 * ffn / hidden + 12 * seq / hidden + 6 * vocab / (layers * hidden))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aicb", default=os.path.join(fidelity.ROOT, "build", "tool", "bin", "aicb"))
    args = parser.parse_args()
    if not os.access(args.aicb, os.X_OK):
        sys.exit("long-context-check: no aicb program at %s (build it, or pass --aicb)" % args.aicb)
    folder = tempfile.mkdtemp(prefix="aicb-long-context-")
    print("| table | sequence | GPUs | global batch | TP | PP | DP | CP | measured s | estimate s | error | "
          "SimAI-Analytical s | error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    errors = {}  # table → ([estimate errors], [SimAI errors])
    for index, (table, model, gpu, cluster, k, gbs, tp, pp, dp, cp, tflops) in enumerate(ROWS, 1):
        gpus, seq = tp * pp * dp * cp, k * 1024
        measured = nemo_flops(model, gbs, seq) / (tflops * 1e12 * gpus)
        flags = ["--model", model, "--world-size", str(gpus), "--global-batch", str(gbs), "--mbs", "1", "--seq",
                 str(seq), "--tp", str(tp), "--pp", str(pp), "--cp", str(cp), "--dtype", "fp8",
                 "--distributed-optimizer", "--overlap-grad-reduce"] + (["--sp"] if tp > 1 else [])
        overlaps = ["--overlap-param-gather"] + (["--tp-comm-overlap"] if tp > 1 else [])
        try:
            described = fidelity.run([args.aicb, "describe", "--json", "--gpu", gpu, "--cluster", cluster] +
                                     overlaps + flags)
            estimate = json.loads(described)["estimate"]["iteration_s"]
            simai = None
            if cp == 1:
                workload = os.path.join(folder, "run%02d.txt" % index)
                simai = fidelity.simai_seconds(args.aicb, gpu, cluster, flags, gpus, workload)
        except RuntimeError as e:
            sys.exit("long-context-check: %s %dK: %s" % (table, k, e))
        e_err = estimate / measured - 1
        entry = errors.setdefault(table, ([], []))
        entry[0].append(e_err)
        if simai is not None:
            entry[1].append(simai / measured - 1)
        sim = "%.3f | %+.1f%%" % (simai, 100 * (simai / measured - 1)) if simai is not None else \
            "– | – (context parallelism)"
        print("| %s | %dK | %d | %d | %d | %d | %d | %d | %.3f | %.3f | %+.1f%% | %s |" % (
            table, k, gpus, gbs, tp, pp, dp, cp, measured, estimate, 100 * e_err, sim))
    print()

    def summary(label, values):
        return fidelity.median_line(label, values, "no row")

    every = ([], [])
    for table, (est, sim) in errors.items():
        every[0].extend(est)
        every[1].extend(sim)
        print("- %s: %s; %s" % (table, summary("estimate", est), summary("SimAI-Analytical", sim)))
    print("- both tables: %s; %s" % (summary("estimate", every[0]), summary("SimAI-Analytical", every[1])))


if __name__ == "__main__":
    main()
