#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Runs `aicb generate --compat aicb` on every SimAI-text case of aicb's reference outputs, read in
place: families A (dense), B (MoE), C (DeepSeek), E (edge cases) and S (shell presets). A case whose
aicb run succeeded (rc 0) must be reproduced byte for byte under aicb's own file name; a case on
which aicb failed (rc 1) must be refused with exit status 2 and a message.

  aicb_cases.py AICB_BINARY CASES_DIR

Fails if CASES_DIR is missing, unless AICB_REFERENCE_OPTIONAL is set (then it exits 77: skipped).
"""
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

GENERATOR = "python -m workload_generator.SimAI_training_workload_generator"
SCRIPT = "sh scripts/megatron_workload_with_aiob.sh"


def main() -> int:
    binary, cases = Path(sys.argv[1]), Path(sys.argv[2])
    if not cases.is_dir():
        if os.environ.get("AICB_REFERENCE_OPTIONAL"):
            print(f"skipped: {cases} is missing (AICB_REFERENCE_OPTIONAL is set)")
            return 77
        print(f"FAIL: reference cases {cases} are missing; they are read in place", file=sys.stderr)
        return 1
    example = cases.parent / "aiob" / "Example.txt"
    failures, reproduced, refused = [], 0, 0
    for case in sorted(p for p in cases.iterdir() if p.is_dir() and p.name[0] in "ABCES"):
        command = (case / "command.txt").read_text().strip()
        if command.startswith(GENERATOR):
            args = shlex.split(command[len(GENERATOR):])
        elif command.startswith(SCRIPT):
            args = shlex.split(command[len(SCRIPT):])
        else:
            continue  # CSV generators: not SimAI text
        args = [a.replace("workload/aiob_inputs/Example.txt", str(example)) for a in args]
        rc = int((case / "rc.txt").read_text().strip())
        expected = [p for p in case.iterdir() if p.suffix == ".txt" and p.name not in ("command.txt", "rc.txt", "stdout.txt")]
        with tempfile.TemporaryDirectory() as work:
            run = subprocess.run([str(binary), "generate", "--compat", "aicb", "-q", "--no-sidecar", *args],
                                 cwd=work, capture_output=True, text=True)
            produced = list((Path(work) / "results" / "workload").glob("*.txt")) if run.returncode == 0 else []
            if rc != 0:
                if run.returncode == 2 and run.stderr.strip():
                    refused += 1
                    print(f"{case.name}: refused as aicb fails: {run.stderr.strip().splitlines()[-1]}")
                else:
                    failures.append(f"{case.name}: aicb fails here, but aicb generate returned {run.returncode}")
                continue
            if run.returncode != 0:
                failures.append(f"{case.name}: exit {run.returncode}: {run.stderr.strip()}")
                continue
            if len(expected) != 1 or len(produced) != 1:
                failures.append(f"{case.name}: expected one workload file, got {[p.name for p in produced]}")
                continue
            if produced[0].name != expected[0].name:
                failures.append(f"{case.name}: file name {produced[0].name} != aicb's {expected[0].name}")
            elif produced[0].read_bytes() != expected[0].read_bytes():
                failures.append(f"{case.name}: contents differ from aicb's")
            else:
                reproduced += 1
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    print(f"{reproduced} cases reproduced byte for byte, {refused} refused as aicb fails, {len(failures)} failures")
    return 1 if failures or reproduced == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
