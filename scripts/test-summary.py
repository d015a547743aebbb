#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""The closing lines of a ctest run: every skipped test with the reason it printed, then one line
"N passed, N failed, N skipped" (ctest counts a skipped test as passed and hides it below). A test that
ran nothing (Catch's "No test cases matched") is counted as failed, and the exit status is 1.

    test-summary.py CTEST_OUTPUT LAST_TEST_LOG
"""
import re
import sys


def main() -> int:
    output = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    try:
        log = open(sys.argv[2], encoding="utf-8", errors="replace").read()
    except OSError:
        log = ""
    summary = re.findall(r"^\d+% tests passed, (\d+) tests? failed out of (\d+)", output, re.M)
    if not summary:
        print("no test summary: the build or ctest failed")
        return 1
    failed, total = map(int, summary[-1])
    skipped = re.findall(r"^\s*\d+ - (.+) \(Skipped\)\s*$", output, re.M)
    # Each test's output in LastTest.log, to find the line that says why it skipped.
    outputs = {}
    for m in re.finditer(r'^\d+/\d+ Test: (.+?)\n.*?^Output:\n-+\n(.*?)<end of output>', log, re.M | re.S):
        outputs[m.group(1)] = m.group(2)
    if skipped:
        print(f"skipped ({len(skipped)}):")
        for name in skipped:
            text = outputs.get(name, "")
            reason = next((line.strip() for line in text.splitlines() if re.search(r"skip", line, re.I)), "")
            print(f"  {name}: {reason[:160] or '(no reason printed)'}")
    # A Catch test whose name reached ctest mangled matches nothing, and Catch exits 0: ctest says
    # passed although it ran nothing. Such a test is a failure.
    empty = sorted(name for name, text in outputs.items() if "No test cases matched" in text)
    if empty:
        print(f"ran nothing ({len(empty)}), counted as failed:")
        for name in empty:
            print(f"  {name}")
    print(f"{total - failed - len(skipped) - len(empty)} passed, {failed + len(empty)} failed, "
          f"{len(skipped)} skipped")
    return 1 if empty else 0


if __name__ == "__main__":
    sys.exit(main())
