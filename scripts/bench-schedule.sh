#!/usr/bin/env bash
# aicb — measures the per-rank schedule and the whole-job check of Llama-3-70B on 4096 GPUs (TP 8,
# PP 8, VPP 2, DP 64, 64 micro batches): the median time to stream one rank's operations, the time
# and peak resident memory of the whole-job check. Builds tests/bench/rank_schedule.bench.cpp with
# g++ -O2 (the flags of a Release build). The numbers are in docs/schedules.md.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(mktemp)
trap 'rm -f "$binary"' EXIT
"${CXX:-g++}" -std=c++20 -O2 -DNDEBUG -I include tests/bench/rank_schedule.bench.cpp -o "$binary"
/usr/bin/time -f "peak resident memory: %M KiB, wall %e s" "$binary"
