#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
# The HTML timeline in a real browser: `aicb timeline` writes the page for every rank of a 64-rank
# job, headless chromium loads it, and the page must report no script errors, a track per rank and
# stream that has intervals, and every interval drawn; chromium's console must stay clean, and a
# screenshot must have the window's size. Without chromium the test says skipped (exit 77), except
# in CI, where it fails.
#
#   timeline_browser.py AICB_BINARY
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

aicb = sys.argv[1]
browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
if browser is None:
    print("skipped: no chromium to render the HTML timeline in (apt-get install chromium)")
    sys.exit(1 if os.environ.get("CI") else 77)

work = tempfile.mkdtemp(prefix="aicb-timeline-")
try:
    page = os.path.join(work, "timeline.html")
    job = ["--model", "llama3-8b", "--num-layers", "8", "--world-size", "64", "--tp", "2", "--pp", "4",
           "--vpp", "2", "--sp", "--global-batch", "64", "--seq-length", "2048", "--gpu", "H100"]
    run = subprocess.run([aicb, "timeline", *job, "--ranks", "all", "-o", page], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL: aicb timeline exited {run.returncode}: {run.stderr}")
    print(run.stdout.strip())
    text = open(page, encoding="utf-8").read()
    events = len(re.findall(r'"ph":\s*"X"', text))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
             f"--user-data-dir={os.path.join(work, 'profile')}", "--enable-logging=stderr", "--v=0",
             "--virtual-time-budget=20000", "--window-size=1400,900"]
    url = "file://" + page
    dom = subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=240)
    body = re.search(r"<body([^>]*)>", dom.stdout)
    if not body:
        sys.exit(f"FAIL: chromium gave no page (exit {dom.returncode}): {dom.stderr[-2000:]}")
    attributes = dict(re.findall(r'data-([a-z]+)="([^"]*)"', body.group(1)))
    print("page reports:", attributes)
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    failures = []
    if attributes.get("errors") != "0":
        failures.append(f"script errors: {attributes.get('errors')}")
    if console:
        failures.append("console: " + " | ".join(console[:5]))
    if attributes.get("processes") != "64":
        failures.append(f"{attributes.get('processes')} ranks drawn, not 64")
    if int(attributes.get("tracks", "0")) < 3 * 64:  # compute, collectives, transfers at least
        failures.append(f"{attributes.get('tracks')} tracks")
    if attributes.get("events") != str(events):
        failures.append(f"{attributes.get('events')} intervals drawn of {events}")
    shot = os.path.join(work, "timeline.png")
    subprocess.run([browser, *flags, f"--screenshot={shot}", url], capture_output=True, timeout=240)
    with open(shot, "rb") as f:
        header = f.read(24)
    if header[:8] != b"\x89PNG\r\n\x1a\n":
        failures.append("the screenshot is not a PNG")
    else:
        width, height = struct.unpack(">II", header[16:24])
        print(f"screenshot {width}x{height}")
        if (width, height) != (1400, 900):
            failures.append(f"screenshot {width}x{height}, not 1400x900")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failures")
    sys.exit(1 if failures else 0)
finally:
    shutil.rmtree(work, ignore_errors=True)
