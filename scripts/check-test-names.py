#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Every Catch test name must reach CTest whole: CTest splits a name at ';' (its list separator), and the
truncated name then matches no test case, which Catch reports as "No tests ran" with exit code 0 — a test
that silently never runs. Lists the offending names and exits 1.

  scripts/check-test-names.py [tests/]
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests")
bad = []
# The name is the first literal after TEST_CASE(, on the same line or the next.
name_pattern = re.compile(r'TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"')
for path in sorted(glob.glob(os.path.join(root, "**", "*.test.cpp"), recursive=True)):
    text = open(path, encoding="utf-8").read()
    for match in name_pattern.finditer(text):
        if ";" in match.group(1):
            line = text.count("\n", 0, match.start()) + 1
            bad.append("%s:%d: %s" % (os.path.relpath(path, root), line, match.group(1)))
if bad:
    print("test names with ';' (CTest would run none of them):\n  " + "\n  ".join(bad))
    sys.exit(1)
print("every test name reaches CTest whole")
