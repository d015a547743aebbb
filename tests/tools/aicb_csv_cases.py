#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Runs the aicb command line on every case of aicb's reference outputs written by aicb's other
generators, read in place: DeepSpeed ZeRO (D), collective tests (M), the Megatron / DeepSeek
physical-cluster CSV (P) and its megatron_gpt.sh front end (S16, S17). A case whose aicb run
succeeded (rc 0) must be reproduced byte for byte under aicb's own file name; a case on which aicb
failed (rc 1) must be refused with exit status 2, a message and no file.

  aicb_csv_cases.py AICB_BINARY CASES_DIR

When CASES_DIR is missing it fails in CI (CI or AICB_REFERENCE_REQUIRED set) and elsewhere exits 77
(skipped), saying why.
"""
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from aicb_cases import cases_dir_or_exit, judge, report

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
    binary, cases = Path(sys.argv[1]), cases_dir_or_exit(Path(sys.argv[2]))
    outcomes = []
    for case in sorted(p for p in cases.iterdir() if (p / "command.txt").is_file()):
        command = (case / "command.txt").read_text().strip()
        prefix = next((p for p in COMMANDS if command.startswith(p)), None)
        if prefix is None or (prefix.startswith("sh ") and case.name[0] != "S"):
            continue
        rest = command[len(prefix):]
        if prefix.startswith("("):
            rest = rest[rest.rindex(")") + 1:]
        rc = int((case / "rc.txt").read_text().strip())
        expected = [p for p in case.iterdir() if p.name not in NOT_OUTPUT]
        with tempfile.TemporaryDirectory() as work:
            run = subprocess.run([str(binary), *COMMANDS[prefix], "-q", *shlex.split(rest)], cwd=work,
                                 capture_output=True, text=True)
            produced = [p for p in (Path(work) / "results").rglob("*") if p.is_file()]
            outcomes.append(judge(case.name, rc, run, produced, expected))
    return report(outcomes)


if __name__ == "__main__":
    sys.exit(main())
