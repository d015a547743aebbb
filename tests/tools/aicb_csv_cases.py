#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Runs the aicb command line on every case of aicb's reference outputs written by aicb's other
generators, read in place: DeepSpeed ZeRO (D), collective tests (M), the Megatron / DeepSeek
physical-cluster CSV (P) and its megatron_gpt.sh front end (S16, S17). A case whose aicb run
succeeded (rc 0) must be reproduced byte for byte under aicb's own file name; a case on which aicb
failed (rc 1) must be refused with exit status 2, a message and no file.

  aicb_csv_cases.py AICB_BINARY CASES_DIR

Fails if CASES_DIR is missing, unless AICB_REFERENCE_OPTIONAL is set (then it exits 77: skipped).
"""
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

# aicb's command prefix -> the aicb command line that replaces it.
COMMANDS = {
    "python -m workload_generator.generate_deepspeed_stage1_2_workload": ["deepspeed", "--compat", "aicb"],
    "python -m workload_generator.generate_deepspeed_stage3_workload": ["deepspeed", "--compat", "aicb"],
    "python -m workload_generator.generate_megatron_workload": ["generate", "--format", "csv", "--compat", "aicb"],
    "sh scripts/megatron_gpt.sh": ["generate", "--format", "csv", "--compat", "aicb"],
    "python -m workload_generator.generate_collective_test": ["micro", "--format", "csv"],
    # aicb's MICRO writer has no command line; the case records the arguments it was called with.
    "(aicb has no command line for this generator": ["micro", "--format", "micro"],
}
NOT_OUTPUT = ("command.txt", "rc.txt", "stdout.txt")


def main() -> int:
    binary, cases = Path(sys.argv[1]), Path(sys.argv[2])
    if not cases.is_dir():
        if os.environ.get("AICB_REFERENCE_OPTIONAL"):
            print(f"skipped: {cases} is missing (AICB_REFERENCE_OPTIONAL is set)")
            return 77
        print(f"FAIL: reference cases {cases} are missing; they are read in place", file=sys.stderr)
        return 1
    failures, reproduced, refused = [], 0, 0
    for case in sorted(p for p in cases.iterdir() if (p / "command.txt").is_file()):
        command = (case / "command.txt").read_text().strip()
        prefix = next((p for p in COMMANDS if command.startswith(p)), None)
        if prefix is None or (prefix.startswith("sh ") and case.name[0] != "S"):
            continue
        rest = command[len(prefix):]
        if prefix.startswith("("):
            rest = rest[rest.rindex(")") + 1:]
        args = shlex.split(rest)
        rc = int((case / "rc.txt").read_text().strip())
        expected = [p for p in case.iterdir() if p.name not in NOT_OUTPUT]
        with tempfile.TemporaryDirectory() as work:
            run = subprocess.run([str(binary), *COMMANDS[prefix], "-q", *args], cwd=work, capture_output=True,
                                 text=True)
            produced = [p for p in (Path(work) / "results").rglob("*") if p.is_file()]
            if rc != 0:
                if run.returncode == 2 and "configuration error" in run.stderr and not produced:
                    refused += 1
                    print(f"{case.name}: refused as aicb fails: {run.stderr.strip().splitlines()[-1]}")
                else:
                    failures.append(f"{case.name}: aicb fails here, but aicb returned {run.returncode} "
                                    f"and wrote {[p.name for p in produced]}")
                continue
            if run.returncode != 0:
                failures.append(f"{case.name}: exit {run.returncode}: {run.stderr.strip()}")
                continue
            if len(expected) != 1 or len(produced) != 1:
                failures.append(f"{case.name}: expected one workload file, got {[p.name for p in produced]}")
            elif produced[0].name != expected[0].name:
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
