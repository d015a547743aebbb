#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Reads nccl-tests' text output (all_reduce_perf and friends) as nccl-tests prints it (src/util.cu):
each data line a preamble of fixed widths — size %12li, count %12li, type %8s, redop %6s, root %6s —
then the out-of-place and the in-place results, each "time algbw busbw #wrong" or, where the test
did not run that placement (trace replay), 32 blanks; footer lines "# Out of bounds values : N OK"
and "# Avg bus bandwidth : X"; "# Collective test concluded: NAME". Prints the tables as JSON.

  nccl_tests_output.py FILE
"""
import json
import sys

PREAMBLE = 12 + 2 + 12 + 2 + 8 + 2 + 6 + 2 + 6  # the widths of writeBenchmarkLinePreamble
BODY = 32  # a placement that did not run


def placement(text):
    fields = text.split()
    if not fields:
        return None
    time, algbw, busbw, wrong = fields[:4]
    return {"time_us": float(time), "algbw": float(algbw), "busbw": float(busbw),
            "wrong": None if wrong == "N/A" else float(wrong)}


def parse(text):
    tables, rows = [], []
    summary = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            if len(line) < PREAMBLE or not line[:12].strip().isdigit():
                continue
            size, count, dtype, redop, root = line[:PREAMBLE].split()
            rest = line[PREAMBLE:]
            if rest[:BODY].strip():  # out of place ran: its four fields, then the in-place ones (or blanks)
                fields = rest.split()
                out_of_place = placement(" ".join(fields[:4]))
                in_place = placement(" ".join(fields[4:8]))
            else:
                out_of_place, in_place = None, placement(rest[BODY:])
            rows.append({"size": int(size), "count": int(count), "type": dtype, "redop": redop, "root": int(root),
                         "out_of_place": out_of_place, "in_place": in_place})
        elif "Out of bounds values" in line:
            summary["out_of_bounds"] = int(line.split(":")[1].split()[0])
        elif "Avg bus bandwidth" in line:
            summary["avg_busbw"] = float(line.split(":")[1].split()[0])
        elif "Collective test concluded:" in line:
            tables.append({"test": line.split(":", 1)[1].strip(), "rows": rows, **summary})
            rows, summary = [], {}
    return tables


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        print(json.dumps(parse(f.read()), indent=1))
