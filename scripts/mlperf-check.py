#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""The outside check of docs/fidelity.md's "An outside check: MLPerf Training (GPT-3 175B, Llama 3.1 405B)".

The GPT-3 175B submissions of MLPerf Training v3.0, v3.1, v4.0 and v4.1 that ran NeMo on H100 clusters
(NVIDIA's, CoreWeave's, Azure's and Oracle's; 256 to 11,616 GPUs) and on 64 B200s (NVIDIA's v4.1 preview),
NVIDIA's Llama 3.1 405B submissions of v5.0 on H100 (512 to 8,192 GPUs) and the University of Florida's of
v5.1 on DGX B200 (256 and 448 GPUs), each described with its submission's
configuration and priced twice, as scripts/fidelity.py prices the published-runs table: the iteration
estimate of `aicb describe`, and the default-mode SimAI workload of `aicb generate` under
SimAI-Analytical's documented cost model (fidelity.py's simai_analytical_us with the cluster preset's flags).
Prints a Markdown table beside the measured step time, then the median errors per round.

    scripts/mlperf-check.py [--aicb build/tool/bin/aicb] [--host-us US]

Measured step time: the median over a submission's result logs of each log's median logged step time —
NeMo's `train_step_timing` after the first three steps (v3.0, v3.1) or, where the logs time no step
(v4.0 and v4.1 ran with LOG_METRICS=OFF), the training blocks' duration over their steps, which on v3.1's logs,
where both exist, reads 0.2% (11 s steps) to 2.3-3.7% (0.93 s steps) above the step timer: the logging
between steps. scripts/mlperf-step-times.py prints both from a checkout of mlcommons/training_results_v3.0,
v3.1, v4.0, v4.1, v5.0 and v5.1 (whose logs name the timer `train_step_time`).

Llama 3.1 405B in v5.0 and v5.1 (benchmarks/llama31_405b/implementations/*/config_DGX*.sh, config_common*.sh,
conf/custom.yaml): TP 8 (H100) or 4 (B200) × PP 8 × VPP 8 with CP 2 and sequence parallelism, micro batch 1,
sequences of 8192,
FP8 (delayed scaling) with FP8 weight gathers, the distributed optimizer with overlapped reduction and gathers,
TP overlap, the fused cross-entropy, and the embedding and the loss counted as pipeline layers (ASYM_PP_EMBED,
ASYM_PP_LOSS: 126 layers over 64 chunks).

Every submission's configuration (benchmarks/gpt3/implementations/*/config_DGXH100_*.sh, config_common.sh,
config_fp8.sh, conf/custom.yaml): GPT-3 175B (96 layers, hidden 12288, 96 heads, sequence 2048), TP 4 with
sequence parallelism and Transformer Engine's TP overlap (TP_COMM_OVERLAP), FP8 (the hybrid E4M3/E5M2
recipe), the distributed optimizer with overlapped gradient reduction and weight gathers
(distributed_fused_adam: overlap_grad_sync, overlap_param_sync, grad_sync_dtype bf16), the interleaved
pipeline with overlapped transfers (overlap_p2p_comm), no recomputation, no dropout. What these flags cannot
state: from v4.0 on the runs gather FP8 weights (FP8_PARAMS: half the all-gather's bytes, priced here in
BF16) and reduce with SHARP where the group allows (NCCL_SHARP_GROUP_SIZE_THRESH), and v4.0's 1344- and
1452-node runs and the B200 preview replay each layer as a CUDA graph (LAYER_CUDA_GRAPH); every round tunes the multiprocessors NCCL and the TP overlap take
(MEGATRON_CORE_*_MAX_CTAS, NVTE_*_SM_MARGIN). Nothing is tuned per row.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fidelity  # noqa: E402  (SimAI-Analytical's cost model, shared with the published-runs table)

MODEL = ["--model", "gpt3-175b", "--tp", "4", "--sp", "--seq", "2048", "--dtype", "fp8",
         "--distributed-optimizer", "--overlap-grad-reduce", "--grad-dtype", "bf16"]
OVERLAPS = ["--overlap-param-gather", "--tp-comm-overlap"]  # the estimate's; SimAI's format has neither
CLUSTER = {"H100": "dgx-h100", "B200": "dgx-b200"}

# round, submission, GPUs, global batch, micro batch, PP, VPP, measured step s (GPU: H100 unless named)
ROWS = [
    ("v3.0", "NVIDIA dgxh100_n64", 512, 2048, 1, 8, 12, 12.0743),
    ("v3.0", "NVIDIA dgxh100_n96", 768, 3072, 1, 8, 12, 12.1274),
    ("v3.0", "CoreWeave hgxh100_n96", 768, 3072, 1, 8, 12, 12.3051),
    ("v3.0", "CoreWeave hgxh100_n192", 1536, 3072, 1, 8, 12, 6.3397),
    ("v3.0", "CoreWeave hgxh100_n448", 3584, 2688, 1, 8, 12, 2.6006),
    ("v3.1", "NVIDIA eos_n64", 512, 2048, 1, 8, 12, 11.0539),
    ("v3.1", "NVIDIA eos_n96", 768, 3072, 1, 8, 12, 11.0755),
    ("v3.1", "NVIDIA eos-dfw_n512", 4096, 2048, 1, 8, 12, 1.6084),
    ("v3.1", "NVIDIA eos-dfw_n768", 6144, 3072, 1, 8, 12, 1.6152),
    ("v3.1", "NVIDIA eos-dfw_n1024", 8192, 4096, 1, 8, 12, 1.6192),
    ("v3.1", "NVIDIA eos-dfw_n1280", 10240, 2560, 1, 8, 12, 0.9256),
    ("v3.1", "NVIDIA eos-dfw_n1344", 10752, 2688, 1, 8, 12, 0.9296),
    ("v3.1", "Azure ND_H100_v5_n1344", 10752, 2688, 1, 8, 12, 0.9449),
    ("v4.0", "NVIDIA eos_n64 (block-derived)", 512, 2304, 2, 8, 4, 10.9822),
    ("v4.0", "NVIDIA eos-dfw_n1344 (block-derived)", 10752, 2688, 1, 6, 8, 0.9207),
    ("v4.0", "NVIDIA eos-dfw_n1452 (block-derived)", 11616, 2904, 1, 6, 8, 0.9214),
    ("v4.1", "NVIDIA eos_n32 (block-derived)", 256, 2048, 2, 8, 6, 18.4073),
    ("v4.1", "NVIDIA eos_n64 (block-derived)", 512, 2048, 2, 8, 6, 9.5403),
    ("v4.1", "Oracle 1536xBM.GPU.H100.8 (block-derived)", 1536, 3072, 2, 8, 4, 5.2367),
    ("v4.1", "Oracle 3072xBM.GPU.H100.8 (block-derived)", 3072, 3072, 2, 8, 4, 3.3261),
    ("v4.1", "NVIDIA b200_n8_preview, B200 (block-derived)", 64, 2048, 2, 8, 6, 36.2548),
]
LLAMA = ["--model", "llama3.1-405b", "--cp", "2", "--sp", "--seq", "8192", "--dtype", "fp8",
         "--distributed-optimizer", "--overlap-grad-reduce", "--grad-dtype", "bf16",
         "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split",
         "--cross-entropy-loss-fusion"]
# round, submission, GPUs, global batch, TP, measured step s: Llama 3.1 405B at PP 8, VPP 8, CP 2, micro batch 1
LLAMA_ROWS = [
    ("v5.0", "NVIDIA eos-dfw_n64, Llama 3.1 405B", 512, 1152, 8, 55.1433),
    ("v5.0", "NVIDIA eos-dfw_n256, Llama 3.1 405B", 2048, 1152, 8, 14.2216),
    ("v5.0", "NVIDIA eos-dfw_n304, Llama 3.1 405B", 2432, 1216, 8, 12.7116),
    ("v5.0", "NVIDIA eos-dfw_n320, Llama 3.1 405B", 2560, 1120, 8, 11.1730),
    ("v5.0", "NVIDIA eos-dfw_n1024, Llama 3.1 405B", 8192, 1536, 8, 5.1790),
    ("v5.1", "University of Florida hpg.dgxb200x8.n32, Llama 3.1 405B, B200", 256, 576, 4, 27.6453),
    ("v5.1", "University of Florida hpg.dgxb200x8.n56, Llama 3.1 405B, B200", 448, 1008, 4, 27.9768),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aicb", default=os.path.join(fidelity.ROOT, "build", "tool", "bin", "aicb"))
    parser.add_argument("--host-us", type=float, help="price every row with this host time per launch")
    args = parser.parse_args()
    if not os.access(args.aicb, os.X_OK):
        sys.exit("mlperf-check: no aicb program at %s (build it, or pass --aicb)" % args.aicb)
    host = ["--host-overhead-us", str(args.host_us)] if args.host_us is not None else []
    folder = tempfile.mkdtemp(prefix="aicb-mlperf-")
    print("| round | submission | GPUs | global batch | micro batches | measured s | estimate s | error | "
          "SimAI-Analytical s | error | MFU est. / meas. |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    errors = {}  # round → ([estimate errors], [SimAI errors])
    times = {}  # round → [(estimate s, measured s)]
    jobs = [(r[0], r[1], r[2], r[3], r[4], r[5], r[6], 4, 1, r[7], MODEL) for r in ROWS]
    jobs += [(r[0], r[1], r[2], r[3], 1, 8, 8, r[4], 2, r[5], LLAMA + ["--tp", str(r[4])]) for r in LLAMA_ROWS]
    for index, (round_, name, gpus, batch, mbs, pp, vpp, tp, cp, measured, model) in enumerate(jobs, 1):
        gpu = "B200" if "B200" in name else "H100"
        layout = ["--world-size", str(gpus), "--global-batch", str(batch), "--mbs", str(mbs), "--pp", str(pp),
                  "--vpp", str(vpp)]
        try:
            described = fidelity.run([args.aicb, "describe", "--json", "--gpu", gpu, "--cluster", CLUSTER[gpu]] +
                                     OVERLAPS + host + model + layout)
            estimate = json.loads(described)["estimate"]
            simai = None  # SimAI's format has no context-parallel group
            if cp == 1:
                workload = os.path.join(folder, "run%02d.txt" % index)
                simai = fidelity.simai_seconds(args.aicb, gpu, CLUSTER[gpu], model + layout, gpus, workload)
        except RuntimeError as e:
            sys.exit("mlperf-check: %s: %s" % (name, e))
        est = estimate["iteration_s"]
        e_err = est / measured - 1
        errors.setdefault(round_, ([], []))
        errors[round_][0].append(e_err)
        if simai is not None:
            errors[round_][1].append(simai / measured - 1)
        if gpu == "H100":
            times.setdefault(round_, []).append((est, measured))
        micro = batch // (gpus // (tp * pp * cp) * mbs)
        sim = "%.3f | %+.1f%%" % (simai, 100 * (simai / measured - 1)) if simai is not None else "– | –"
        print("| %s | %s | %d | %d | %d | %.3f | %.3f | %+.1f%% | %s | %.1f%% / %.1f%% |" % (
            round_, name, gpus, batch, micro, measured, est, 100 * e_err, sim,
            100 * estimate["mfu"], 100 * estimate["mfu"] * est / measured))
    print()

    def summary(label, values):
        return fidelity.median_line(label, values, "no file (context parallelism)")

    every = ([], [])
    for round_, (est, sim) in sorted(errors.items()):
        every[0].extend(est)
        every[1].extend(sim)
        print("- %s: %s; %s" % (round_, summary("estimate", est), summary("SimAI-Analytical", sim)))
    print("- every round: %s; %s" % (summary("estimate", every[0]), summary("SimAI-Analytical", every[1])))
    # How the gap scales: the least-squares line of the measured step against the estimate, per round
    # (its H100 runs: one machine).
    for round_, pairs in sorted(times.items()):
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        spread = sum((x - mx) ** 2 for x in xs)
        if len(pairs) < 3 or spread <= 0:
            continue
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / spread
        print("- %s: measured = %.3f x estimate %+.0f ms (least squares over its %d H100 runs)" % (
            round_, slope, 1000 * (my - slope * mx), len(pairs)))


if __name__ == "__main__":
    main()
