#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Runs a command and checks that its standard output is one JSON document holding KEY.

  json_output.py KEY COMMAND...
"""
import json
import subprocess
import sys

key, command = sys.argv[1], sys.argv[2:]
run = subprocess.run(command, capture_output=True, text=True)
if run.returncode != 0:
    sys.exit(f"FAIL: exit {run.returncode}: {run.stderr.strip()}")
try:
    document = json.loads(run.stdout)
except json.JSONDecodeError as e:
    sys.exit(f"FAIL: not JSON: {e}")
if key not in document:
    sys.exit(f"FAIL: no '{key}' in the document")
size = len(document[key]) if isinstance(document[key], (list, dict)) else 1
print(f"valid JSON, '{key}' holds {size} entries")
