#!/usr/bin/env bash
# aicb — measures the request-stream simulation: 10,000 requests on DeepSeek-V3 served by 8 H200s
# (DP-attention 8, EP 8, FP8), at 2, 5, 10 and 12 requests per second: the wall time and peak resident
# memory of each run and the stream's latencies. Builds tests/bench/serving_stream.bench.cpp with
# g++ -O2 (the flags of a Release build). The numbers are in docs/inference.md.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(mktemp)
trap 'rm -f "$binary"' EXIT
"${CXX:-g++}" -std=c++20 -O2 -DNDEBUG -I include tests/bench/serving_stream.bench.cpp -o "$binary"
for rate in 2 5 10 12; do
  /usr/bin/time -f "  peak resident memory: %M KiB, wall %e s" "$binary" "$rate"
done
