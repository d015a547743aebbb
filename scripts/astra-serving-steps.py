#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Plays every Chakra set of an `aicb serve --steps DIR --steps-format chakra` run through ASTRA-sim 2.0's
analytical backend and sets each kind's simulated time beside the step time aicb priced (steps.csv: its
busy time over its count; a KV-transfer row: one request's transfer).

  scripts/astra-serving-steps.py --astra BIN --examples ASTRA/examples DIR [--bandwidth GBPS]
                                  [--transfer-bandwidth GBPS] [--latency NS]

The network is one switch over every rank of a set (`--bandwidth` in ASTRA-sim's GB/s, default 450: an NVLink
switch; the KV-transfer set crosses nodes: `--transfer-bandwidth`, default 50, a 400 Gb/s NIC per GPU;
`--latency` ns, default 500), the system file examples/system/native_collectives/Ring_4chunks.json unless
`--system` names another. A set passes when every rank prints `sys[N] finished` and no line is critical
(ASTRA-sim exits 0 even on a bad trace). Exit 1 when any set fails.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--astra", required=True, help="AstraSim_Analytical_Congestion_Unaware")
    parser.add_argument("--examples", required=True, help="ASTRA-sim's examples/ folder")
    parser.add_argument("--bandwidth", type=float, default=450.0)
    parser.add_argument("--transfer-bandwidth", type=float, default=50.0)
    parser.add_argument("--latency", type=float, default=500.0)
    parser.add_argument("--system", default="Ring_4chunks.json",
                        help="a system file of examples/system/native_collectives/, or a path")
    parser.add_argument("steps", help="the folder `aicb serve --steps` wrote")
    args = parser.parse_args()
    # ASTRA-sim runs in a scratch folder (it writes log/ where it runs): every path absolute.
    args.astra, args.examples, args.steps = (os.path.abspath(p) for p in (args.astra, args.examples, args.steps))
    if os.path.sep in args.system:
        args.system = os.path.abspath(args.system)
    with open(os.path.join(args.steps, "steps.csv")) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    system = args.system if os.path.sep in args.system else \
        os.path.join(args.examples, "system", "native_collectives", args.system)
    memory = os.path.join(args.examples, "remote_memory", "analytical", "no_memory_expansion.json")
    failed = 0
    print("| set | ranks | aicb ms | ASTRA-sim ms | exposed communication ms | difference |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as scratch:
        for row in rows:
            name = row["file"]
            if not name or name == "-":
                continue
            folder = os.path.join(args.steps, name)
            with open(os.path.join(folder, "manifest.json")) as f:
                manifest = json.load(f)
            ranks = manifest["world_size"]
            bandwidth = args.transfer_bandwidth if row["kind"] == "transfer" or row["instance"] == "transfer" \
                else args.bandwidth
            network = os.path.join(scratch, "switch-%s.yml" % name)
            with open(network, "w") as f:
                f.write("topology: [ Switch ]\nnpus_count: [ %d ]\nbandwidth: [ %g ]\nlatency: [ %g ]\n"
                        % (ranks, bandwidth, args.latency))
            done = subprocess.run(
                [args.astra, "--workload-configuration=" + os.path.join(folder, manifest["workload"]),
                 "--comm-group-configuration=" + os.path.join(folder, manifest["comm_group_configuration"]),
                 "--system-configuration=" + system, "--remote-memory-configuration=" + memory,
                 "--network-configuration=" + network],
                capture_output=True, text=True, timeout=600, cwd=scratch)  # its log/ stays there
            text = done.stdout + done.stderr
            finished = re.findall(r"sys\[(\d+)\] finished, (\d+) cycles, exposed communication (\d+) cycles", text)
            critical = re.findall(r"\[critical\]|terminate called|Assertion|Segmentation", text)
            if len(finished) != ranks or critical:
                failed += 1
                print("| %s | %d | | FAILED: %d of %d ranks finished, %d critical lines | | |"
                      % (name, ranks, len(finished), ranks, len(critical)))
                continue
            cycles = max(int(c) for _, c, _ in finished)
            exposed = max(int(e) for _, _, e in finished)
            count = int(row["count"])
            aicb_ms = float(row["busy_s"]) / count * 1e3 if count else 0.0
            astra_ms = cycles * 1e-6
            print("| %s | %d | %.3f | %.3f | %.3f | %+.1f%% |"
                  % (name, ranks, aicb_ms, astra_ms, exposed * 1e-6,
                     100 * (astra_ms / aicb_ms - 1) if aicb_ms else 0.0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
