#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""The fidelity benchmark: aicb's predictions against published, measured training runs.

For every run of the published-runs table it
  1. describes the job to `aicb describe --json` on the run's machines and reads the iteration estimate
     (and the estimated MFU/HFU);
  2. generates the default-mode SimAI workload with `aicb generate` and prices it with SimAI-Analytical's
     documented cost model (simai_analytical_us below: the reference's simai-format.md, sections 2 and 3)
     run with the flags SimAI is checked with here (A100: -g_p_s 8 -nv 240 -nic 23.5 -n_p_s 8 -g_type
     A100; H100: -nv 360 -nic 48.5; the other machines: their cluster preset's figures);
  3. prints one Markdown table: measured, estimated, SimAI, their errors, MFU/HFU against the published
     ones, and the rows it cannot express with the reason. Then the medians.

Nothing is tuned per row: every row runs through the same model. Usage:

  scripts/fidelity.py [--aicb build/test/bin/aicb] [--runs PATH/published-runs.csv] [--keep DIR] [--no-recipe-overlaps]
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# SimAI's flags for the machines of the table (the preset of aicb's cluster descriptor, which uses the same
# figures for A100 and H100).
SIMAI = {
    "dgx-a100": {"gps": 8, "nv": 240.0, "nic": 23.5, "nps": 8, "gtype": "A100"},
    "dgx-a100-40gb": {"gps": 8, "nv": 240.0, "nic": 23.5, "nps": 8, "gtype": "A100"},
    "dgx-h100": {"gps": 8, "nv": 360.0, "nic": 48.5, "nps": 8, "gtype": "H100"},
    "dgx2h": {"gps": 16, "nv": 130.0, "nic": 11.7, "nps": 8, "gtype": ""},
    "hgx-h20": {"gps": 8, "nv": 360.0, "nic": 48.5, "nps": 8, "gtype": "H20"},
    "dgx-b200": {"gps": 8, "nv": 720.0, "nic": 48.5, "nps": 8, "gtype": ""},
    "gb200-nvl72": {"gps": 72, "nv": 720.0, "nic": 48.5, "nps": 72, "gtype": ""},
}
# SimAI's fixed latency for collectives under 1 MiB, by group size (µs).
SMALL_LATENCY_US = {2: 10, 4: 12, 8: 15, 16: 66, 32: 135, 64: 200, 128: 320}
NVLS = {"H100": 475.0, "H20": 475.0, "H800": 215.0}


def machine(gpu_type):
    g = gpu_type.upper()
    if "V100" in g:
        return "V100", "dgx2h"
    if "B200" in g:
        return "B200", "dgx-b200"
    if "H100" in g:
        return "H100", "dgx-h100"
    if "A100" in g:
        # The 2020 DGX A100 had 40 GB GPUs; the later tables name the 80 GB ones.
        return ("A100", "dgx-a100") if "80" in g else ("A100-40GB", "dgx-a100-40gb")
    return None, None


def number(text):
    text = (text or "").strip().rstrip("?")
    return int(text) if text else None


def derived_time(row):
    """The measured iteration time in seconds, and how it was obtained."""
    value = float(row["measured_value"])
    metric = row["measured_metric"]
    if metric == "iteration_time_s":
        return value, "measured"
    gpus = int(row["gpus"])
    if metric == "tokens_per_s_per_GPU":
        return int(row["global_batch"]) * int(row["seq"]) / (value * gpus), "from tokens/s"
    match = re.search(r"(?:~=|=)\s*([0-9.]+)\s*s\b", row["notes"])
    if match:
        return float(match.group(1)), "from TFLOP/s (source's formula)"
    return None, "no iteration time derivable"


def published_utilisation(notes):
    mfu = re.search(r"MFU\s*([0-9.]+)%", notes)
    hfu = re.search(r"HFU\s*([0-9.]+)%", notes)
    return (float(mfu.group(1)) / 100 if mfu else None), (float(hfu.group(1)) / 100 if hfu else None)


def job_flags(row, recipe_overlaps=True):
    """aicb's flags for the row, the cluster preset, and notes on what was assumed. `recipe_overlaps`: give
    the NeMo 24.07 rows the overlaps of NeMo's performance configurations of that release (NeMo-Framework-
    Launcher's conf/training/gpt3/*_fp8_performance.yaml and llama/llama3_70b.yaml: the distributed optimizer
    with overlap_grad_sync and overlap_param_sync, ub_tp_comm_overlap, overlap_p2p_comm), which the table
    itself does not state per row; rows whose notes say they follow NeMo's performance scripts get them
    always."""
    notes = []
    gpu, cluster = machine(row["gpu_type"])
    if gpu is None:
        raise ValueError("GPU not in the catalogue: " + row["gpu_type"])
    name = row["model"].upper()
    llama = name.startswith("LLAMA")
    # NeMo's Nemotron-4 family (NemotronConfig in NeMo's gpt/model/nemotron.py): squared-ReLU MLP,
    # LayerNorm, rotary positions, no linear biases.
    nemotron = name.startswith("NEMOTRON")
    deepseek = re.match(r"DEEPSEEKV([23])", name)
    layers, hidden, heads = int(row["layers"]), int(row["hidden"]), int(row["heads"])
    kv = number(row["kv_heads"]) or heads
    vocab = number(row["vocab"])
    if row["vocab"].strip().endswith("?"):
        notes.append("vocabulary as listed (tokenizer-dependent)")
    tp, pp, cp, ep = (number(row[k]) or 1 for k in ("tp", "pp", "cp", "ep"))
    vpp = number(row["vpp"]) or 1
    micro = number(row["micro_batch"])
    if micro is None:
        micro = 1
        notes.append("micro batch not published: 1")
    precision = row["precision"].lower()
    dtype = "fp8" if "fp8" in precision else ("bf16" if precision.startswith("bf16") else "fp16")
    recompute_text = row["recompute"].lower()
    recompute = "full" if recompute_text.startswith("full") else (
        "selective" if recompute_text.startswith("selective") else "none")
    if recompute_text.startswith("not stated"):
        notes.append("recomputation not published: none")
    sp_text = row["sequence_parallel"].strip().lower()
    sp = sp_text.startswith("true") or (sp_text.startswith("not stated") and tp > 1)
    if sp_text.startswith("not stated") and tp > 1:
        notes.append("sequence parallelism not published: on (TP > 1)")
    if deepseek:
        # The preset's MLA and experts (the row's notes list the same); the first layer dense, no MTP.
        # The dispatcher is not in the row: every MoE recipe of these code bases runs the all-to-all one.
        flags = ["--model", "deepseek-v" + deepseek.group(1), "--num-layers", layers, "--first-dense-layers", 1,
                 "--num-mtp-layers", 0, "--moe-grouped-gemm", "--moe-dispatcher", "alltoall"]
        notes.append("preset's MLA and experts; 1 dense layer; grouped GEMM; all-to-all dispatcher (not "
                     "published)")
        capacity = re.search(r"capacity factor ([0-9.]+)( w/ pad)?", row["notes"])
        if capacity:
            flags += ["--moe-capacity-factor", capacity.group(1)] + (
                ["--moe-pad-to-capacity"] if capacity.group(2) else [])
            notes.append("capacity factor %s%s (row's notes)" % (capacity.group(1),
                                                                  " padded" if capacity.group(2) else ""))
    else:
        flags = ["--num-layers", layers, "--hidden-size", hidden, "--num-attention-heads", heads, "--num-kv-heads", kv,
                 "--ffn-hidden-size", int(row["ffn"]), "--vocab-size", vocab]
        if llama:
            flags += ["--activation", "swiglu", "--norm", "rmsnorm", "--position", "rope"]
        elif nemotron:
            flags += ["--activation", "squared_relu", "--norm", "layernorm", "--position", "rope"]
        else:
            flags += ["--activation", "gelu", "--norm", "layernorm", "--position", "learned", "--linear-bias"]
    flags += ["--seq-length", int(row["seq"]), "--global-batch", int(row["global_batch"]), "--micro-batch", micro,
              "--world-size", int(row["gpus"]), "--tp", tp, "--pp", pp, "--vpp", vpp, "--cp", cp, "--ep", ep,
              "--dtype", dtype, "--attention", "unfused" if row["attention"].strip() == "unfused" else "flash",
              "--recompute", recompute]
    if pp > 1 and vpp > 1 and layers % (pp * vpp) and (layers + 2) % (pp * vpp) == 0:
        # Megatron's split for such layouts: the embedding and the loss count as one layer each.
        flags += ["--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split"]
        notes.append("embedding and loss counted as pipeline layers (%d + 2 over %d chunks)" % (layers, pp * vpp))
    elif pp > 1 and layers % pp:
        # Megatron's uneven split: the first and last stages hold the remainder's shortfall.
        per = -(-layers // pp)
        edge = (layers - per * (pp - 2)) // 2
        flags += ["--first-stage-layers", edge, "--last-stage-layers", layers - per * (pp - 2) - edge]
        notes.append("uneven pipeline: %d layers on the first and last stages, %d elsewhere" % (edge, per))
    if "distributed optimizer" in row["notes"] or "--overlap-param-gather" in row["notes"]:
        flags.append("--distributed-optimizer")  # the weight gather is the distributed optimizer's
    if sp:
        flags.append("--sp")
    overlaps = []
    if "--overlap-grad-reduce" in row["notes"]:
        flags.append("--overlap-grad-reduce")
        overlaps.append("--overlap-param-gather" if "--overlap-param-gather" in row["notes"] else None)
        overlaps.append("--tp-comm-overlap" if "--tp-comm-overlap" in row["notes"] else None)
    # Rows whose notes say their configurations follow NeMo's performance scripts run NeMo's overlaps;
    # `recipe_overlaps` gives them to the NeMo 24.07 table too, whose rows do not say but whose configs do.
    follows_nemo = "follow NeMo scripts/performance" in row["notes"]
    if follows_nemo or (recipe_overlaps and row["source"].startswith("NeMo_24.07")):
        flags += ["--distributed-optimizer", "--overlap-grad-reduce"]
        overlaps += ["--overlap-param-gather"] + (["--tp-comm-overlap"] if tp > 1 else [])
        notes.append("NeMo's overlaps (" + ("the row's configs follow NeMo's performance scripts)" if follows_nemo
                                           else "NeMo's performance configs of the release)"))
    # The fused cross-entropy: where the row's notes say so, and in the NeMo 24.07 configs that set it
    # (NeMo-Framework-Launcher 24.07, conf/training/llama/llama3_*.yaml and nemotron/nemotron_{4,8,15,22}b.yaml:
    # cross_entropy_loss_fusion: true; its GPT-3, Llama-2 and Nemotron-340B configs do not), which the
    # rows that follow NeMo's performance scripts share.
    nemo_fused_loss = re.match(r"LLAMA3-|NEMOTRON-(4|8|15|22)B$", name) is not None
    if "cross-entropy fusion" in row["notes"]:
        flags.append("--cross-entropy-loss-fusion")
        notes.append("fused cross-entropy (row's notes)")
    elif nemo_fused_loss and (follows_nemo or (recipe_overlaps and row["source"].startswith("NeMo_24.07"))):
        flags.append("--cross-entropy-loss-fusion")
        notes.append("fused cross-entropy (NeMo's configs of the release)")
    if "PP overlap" in row["notes"]:
        overlaps.append("--overlap-p2p")
    return [str(f) for f in flags], [o for o in overlaps if o], gpu, cluster, notes


def family(row):
    """The row's family for the per-family summary: MoE, long context (sequence of 16k or more, or
    context parallelism) or dense."""
    name = row["model"].lower()
    if (number(row["ep"]) or 1) > 1 or "deepseek" in name or "moe" in name or "mixtral" in name:
        return "MoE"
    if int(row["seq"]) >= 16384 or (number(row["cp"]) or 1) > 1:
        return "long context"
    return "dense"


# The 2020-22 sources (A100/V100, unfused attention); the others are 2023 and later.
EARLY_SOURCES = ("Korthikanti2022", "Narayanan2021", "MegatronLM_README_2020")


def era(source):
    return "2020-22" if source.startswith(EARLY_SOURCES) else "2023-26"


# aicb generate takes describe's names too, except where aicb's own flag has the name: its --recompute is
# a switch (selective recomputation).
GENERATE_SPELLING = {"--recompute": "--recompute-granularity"}
GENERATE_DTYPE = {"bf16": "bfloat16", "fp16": "float16", "fp8": "fp8"}


def generate_flags(flags):
    out, previous = [], None
    for f in flags:
        out.append(GENERATE_DTYPE.get(f, f) if previous == "--dtype" else GENERATE_SPELLING.get(f, f))
        previous = f
    return out


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError((done.stderr or done.stdout).strip().splitlines()[-1] if (done.stderr or done.stdout)
                           else "exit %d" % done.returncode)
    return done.stdout


# ---- SimAI-Analytical's cost model (simai-format.md §2-3) ---------------------------------------------------

def ring_busbw(m, nodes, nics_per_gpu_group):
    return m["nv"] if nodes <= 1 else min(m["nv"], m["nic"] * nics_per_gpu_group)


def collective_ns(kind, group, size, header, dp, m):
    """SimAI's time for one collective (ns); group: 'TP', 'EP', 'DP', 'DP_EP' or None."""
    if kind is None or group is None or size <= 0:
        return 0.0
    tp, ep = header["tp"], header["ep"]
    gps, nps = m["gps"], m["nps"]
    if group == "TP":
        n = tp
        nodes, gpn, nics = (1, tp, nps) if tp <= gps else (tp // gps, gps, nps)
    elif group == "EP":
        n = ep
        nodes, gpn, nics = (1, gps // tp, nps) if tp * ep <= gps else ((tp * ep) // gps, gps // tp, nps // tp)
    elif group == "DP":
        n = dp
        nodes, gpn, nics = (dp, gps // tp, nps // tp) if tp <= gps else (dp, 1, 1)
    else:  # DP_EP
        n = dp // ep if ep else 0
        nodes, gpn, nics = (n, gps // (tp * ep), nps // (tp * ep)) if tp * ep <= gps else (n, 1, 1)
    if n <= 1:
        return 0.0
    if 1 < size < 1024 * 1024:
        return SMALL_LATENCY_US.get(n, 0) * 1000.0
    if kind == "ALLTOALL" and nodes > 1:
        busbw = m["nic"] * nics / gpn * (n - 1) / ((nodes - 1) * gpn)
    else:
        busbw = ring_busbw(m, nodes, max(nics, 0))
        if kind == "ALLREDUCE" and nodes <= 1 and m["gtype"] in NVLS and gps == 8:
            busbw = max(busbw, NVLS[m["gtype"]])
    if busbw <= 0:
        return 0.0
    time = size / 2**30 / busbw * 1e9 * (n - 1) / n
    return 2 * time if kind == "ALLREDUCE" else time


def comm(token, column):
    if token in ("NONE", "", None):
        return None, None
    for kind in ("ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL"):
        if token == kind:
            return kind, ("DP" if column == "wg" else "TP")
        if token == kind + "_EP":
            return kind, "EP"
        if token == kind + "_DP_EP":
            return kind, "DP_EP"
    return None, None


def simai_analytical_us(path, gpus, m):
    """SimAI-Analytical's total time for a workload file (µs), without its efficiency-ratio tables."""
    with open(path) as f:
        header = f.readline().split()
        values = {}
        for key, name in (("model_parallel_NPU_group:", "tp"), ("ep:", "ep"), ("pp:", "pp"), ("vpp:", "vpp"),
                          ("ga:", "ga")):
            if key in header:
                values[name] = int(float(header[header.index(key) + 1]))
        count = int(f.readline().split()[0])
        tokens = f.read().split()
    values.setdefault("ep", 1)
    dp = gpus // (values["tp"] * values["pp"])
    compute = exposed = pre_bubble = 0.0
    for i in range(count):
        r = tokens[12 * i:12 * i + 12]
        name, fwd, ig, wg = r[0], float(r[2]), float(r[5]), float(r[8])
        f_ns = collective_ns(*comm(r[3], "fwd"), float(r[4]), values, dp, m)
        i_ns = collective_ns(*comm(r[6], "ig"), float(r[7]), values, dp, m)
        w_ns = collective_ns(*comm(r[9], "wg"), float(r[10]), values, dp, m)
        compute += (fwd + ig + wg) / 1000
        exposed += (f_ns + i_ns + w_ns) / 1000
        if name != "embedding_layer":
            pre_bubble += (fwd + wg + ig + f_ns + i_ns) / 1000
    bubble = pre_bubble * (values["pp"] - 1) / (values.get("ga", 1) * values.get("vpp", 1))
    return compute + exposed + bubble


def simai_seconds(aicb, gpu, cluster, flags, gpus, path):
    """Writes the default-mode SimAI workload of `flags` to `path` and prices it by SimAI-Analytical's model (s)."""
    run([aicb, "generate", "-q", "--no-sidecar", "--no-space-check", "--gpu_type", gpu, "-o", path] +
        generate_flags(flags))
    return simai_analytical_us(path, gpus, SIMAI[cluster]) * 1e-6


def median_line(label, errors, empty):
    """`label: median error ±x%, median absolute y% (n runs)`, or `label: empty` without errors (fractions)."""
    if not errors:
        return "%s: %s" % (label, empty)
    return "%s: median error %+.1f%%, median absolute %.1f%% (%d runs)" % (
        label, 100 * statistics.median(errors), 100 * statistics.median(abs(e) for e in errors), len(errors))


# ---- the table -------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aicb", default=os.path.join(ROOT, "build", "test", "bin", "aicb"))
    parser.add_argument("--runs", default=os.environ.get("AICB_PUBLISHED_RUNS", os.path.join(
        os.path.dirname(ROOT), "shared", "reference", "published-runs.csv")))
    parser.add_argument("--keep", help="keep the generated workload files in this folder")
    parser.add_argument("--no-recipe-overlaps", dest="recipe_overlaps", action="store_false",
                        help="an experiment, not the reported table: run the NeMo 24.07 rows without the DP and TP "
                             "overlaps of NeMo's performance configs (the table itself does not state them)")
    args = parser.parse_args()
    if not os.access(args.aicb, os.X_OK):
        sys.exit("fidelity: no aicb program at %s (build it, or pass --aicb)" % args.aicb)
    rows = list(csv.DictReader(open(args.runs)))
    folder = args.keep or tempfile.mkdtemp(prefix="aicb-fidelity-")
    os.makedirs(folder, exist_ok=True)

    print("| # | run | GPUs | GPU | measured s | aicb estimate s | error | SimAI-Analytical s | error | "
          "MFU est. / pub. | HFU est. / pub. | assumptions |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    estimate_errors, simai_errors, mfu_gaps, skipped = [], [], [], []
    by_source = {}  # source → (estimate errors, SimAI errors, GPUs)
    by_family, by_era = {}, {}  # → (estimate errors, SimAI errors)
    for index, row in enumerate(rows, 1):
        label = "%s %s" % (row["source"].split(" [")[0], row["model"])
        measured, how = derived_time(row)
        try:
            flags, overlaps, gpu, cluster, notes = job_flags(row, args.recipe_overlaps)
            if measured is None:
                raise ValueError(how)
            described = run([args.aicb, "describe", "--json", "--gpu", gpu, "--cluster", cluster] + overlaps + flags)
            estimate = json.loads(described)["estimate"]
            workload = os.path.join(folder, "run%02d.txt" % index)
            try:
                simai_s = simai_seconds(args.aicb, gpu, cluster, flags, int(row["gpus"]), workload)
            except RuntimeError as e:
                if "context-parallel" not in str(e):
                    raise
                simai_s = None
                notes.append("no SimAI file: SimAI has no context-parallel group")
        except (ValueError, RuntimeError, KeyError) as e:
            skipped.append((index, label, str(e)))
            continue
        est = estimate["iteration_s"]
        e_err = est / measured - 1
        estimate_errors.append(e_err)
        source = row["source"].split(" [")[0]
        entry = by_source.setdefault(source, ([], [], []))
        entry[0].append(e_err)
        if gpu not in entry[2]:
            entry[2].append(gpu)
        groups = [by_family.setdefault(family(row), ([], [])), by_era.setdefault(era(source), ([], []))]
        for g in groups:
            g[0].append(e_err)
        if simai_s is not None:
            simai_errors.append(simai_s / measured - 1)
            by_source[source][1].append(simai_s / measured - 1)
            for g in groups:
                g[1].append(simai_s / measured - 1)
        pub_mfu, pub_hfu = published_utilisation(row["notes"])
        if pub_mfu is not None:
            mfu_gaps.append(estimate["mfu"] - pub_mfu)
        mfu = "%.1f%% / %s" % (100 * estimate["mfu"], "%.1f%%" % (100 * pub_mfu) if pub_mfu else "–")
        hfu = "%.1f%% / %s" % (100 * estimate["hfu"], "%.1f%%" % (100 * pub_hfu) if pub_hfu else "–")
        assumptions = "; ".join(notes + ([how] if how != "measured" else []) + overlaps)
        simai = "%.3f | %+.1f%%" % (simai_s, 100 * (simai_s / measured - 1)) if simai_s is not None else "– | –"
        print("| %d | %s | %s | %s | %.3f | %.3f | %+.1f%% | %s | %s | %s | %s |" % (
            index, label, row["gpus"], gpu, measured, est, 100 * e_err, simai, mfu, hfu, assumptions))

    def summary(name, errors):
        if not errors:
            return
        print("- %s: median error %+.1f%%, median absolute error %.1f%%, over %d runs" % (
            name, 100 * statistics.median(errors), 100 * statistics.median(abs(e) for e in errors), len(errors)))

    print()
    summary("aicb estimate", estimate_errors)
    summary("SimAI-Analytical on the generated files", simai_errors)
    print()
    def cell(errors):
        if not errors:
            return "– | –"
        return "%+.1f%% | %.1f%%" % (100 * statistics.median(errors),
                                    100 * statistics.median(abs(x) for x in errors))

    print("| source | GPU | runs | aicb estimate: median error | median absolute | SimAI-Analytical: median error "
          "| median absolute |")
    print("|---|---|---|---|---|---|---|")
    for source, (e, m, gpus) in by_source.items():
        print("| %s | %s | %d | %s | %s |" % (source, ", ".join(gpus), len(e), cell(e), cell(m)))
    for title, groups in (("family", by_family), ("era", by_era)):
        print()
        print("| %s | runs (SimAI) | aicb estimate: median error | median absolute | SimAI-Analytical: median "
              "error | median absolute |" % title)
        print("|---|---|---|---|---|---|")
        for name in sorted(groups):
            e, m = groups[name]
            print("| %s | %d (%d) | %s | %s |" % (name, len(e), len(m), cell(e), cell(m)))
    if mfu_gaps:
        print("- estimated MFU minus published MFU: median %+.1f points, largest %.1f points, over %d runs" % (
            100 * statistics.median(mfu_gaps), 100 * max(abs(g) for g in mfu_gaps), len(mfu_gaps)))
    if skipped:
        print("\nRuns not expressed:\n")
        for index, label, why in skipped:
            print("- %d %s: %s" % (index, label, why))


if __name__ == "__main__":
    main()
