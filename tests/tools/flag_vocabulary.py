#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Lists every subcommand's flags (from its --help) and fails where one meaning has two spellings.

  flag_vocabulary.py AICB

The vocabulary (tools/aicb/vocabulary.hpp says it in prose): each meaning below has one spelling, the
first of its list; the others are former spellings, accepted but hidden from --help, and must not be
shown by any subcommand. `--iterations` means training iterations: the subcommands that repeat a
measurement or a sweep's records (REPEATING) say `--repeat` and must not show it. A subcommand whose
program is not built here (aicb run without MPI, aicb profile without CUDA) is listed as not checked.
A subcommand that prints a result (PRINTS_RESULT) offers it as a document with `--json`. A timeline
is asked for one way: `--timeline FILE` beside another output (or `aicb timeline` itself), never as
a `--format` value.
"""
import re
import subprocess
import sys

MEANINGS = {
    "timed repetitions": ["--repeat", "--timed-calls", "--reps", "--repetitions"],
    "the ranks shown or written": ["--ranks", "--rank"],
    "the file written": ["--output", "--out", "--output-file"],
    "a JSON document printed": ["--json", "--as-json"],
}
REPEATING = {"run", "micro", "profile"}
PRINTS_RESULT = {"models", "describe", "plan", "generate", "deepspeed", "inference", "micro", "run", "schedule",
                 "check", "lint"}
FLAG = re.compile(r"^\s{1,8}((?:-{1,2}[A-Za-z0-9][\w-]*)(?:,\s*-{1,2}[A-Za-z0-9][\w-]*)*)")


def help_text(aicb: str, path: list[str]) -> str | None:
    run = subprocess.run([aicb, *path, "--help"], capture_output=True, text=True, timeout=60)
    return run.stdout if run.returncode == 0 else None


def sections(text: str) -> tuple[list[str], list[str]]:
    """The flags and the subcommands a --help text lists."""
    flags, subcommands, in_subcommands = [], [], False
    for line in text.splitlines():
        if re.match(r"^\S.*:\s*$", line):  # a section heading ("OPTIONS:", "SUBCOMMANDS:", a group)
            in_subcommands = line.strip().rstrip(":").lower() == "subcommands"
            continue
        if in_subcommands:
            m = re.match(r"^\s{1,8}([a-z][\w-]*)\s", line)
            if m:
                subcommands.append(m.group(1))
            continue
        m = FLAG.match(line)
        if m:
            flags += [f.strip() for f in m.group(1).split(",")]
    return flags, subcommands


def main() -> int:
    aicb = sys.argv[1]
    top = help_text(aicb, [])
    if top is None:
        print("FAIL: aicb --help failed")
        return 1
    _, commands = sections(top)
    if len(commands) < 10:
        print(f"FAIL: only {len(commands)} subcommands found in aicb --help: {commands}")
        return 1
    problems, checked, unchecked = [], 0, []
    pending = [[c] for c in commands]
    while pending:
        path = pending.pop(0)
        text = help_text(aicb, path)
        name = " ".join(path)
        if text is None:
            unchecked.append(name)
            continue
        flags, nested = sections(text)
        pending += [path + [n] for n in nested]
        if not flags:
            problems.append(f"aicb {name}: no flags read from its --help (has its format changed?)")
            continue
        checked += 1
        print(f"aicb {name}: {' '.join(sorted(set(flags)))}")
        for meaning, (spelling, *former) in MEANINGS.items():
            for old in former:
                if old in flags:
                    problems.append(f"aicb {name}: {old} shown, where {meaning} is spelled {spelling}")
        if path[0] in PRINTS_RESULT and "--json" not in flags:
            problems.append(f"aicb {name}: prints a result but has no --json")
        for line in text.splitlines():
            if re.match(r"^\s+--format\b", line) and re.search(r"\btimeline\b", line):
                problems.append(f"aicb {name}: --format offers a timeline, which is asked for with --timeline FILE")
        if path[0] in REPEATING and "--iterations" in flags:
            problems.append(f"aicb {name}: --iterations shown, where its timed repetitions are spelled --repeat "
                            "(--iterations means training iterations)")
    for name in unchecked:
        print(f"aicb {name}: not checked (its program is not built here)")
    for p in problems:
        print(f"FAIL: {p}")
    if problems:
        return 1
    print(f"{checked} subcommands checked: one spelling for each meaning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
