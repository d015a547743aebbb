#!/usr/bin/env bash
# aicb — builds the aicb tool and runs its main job on an embedded default: a SimAI training
# workload, written to results/workload/ with a provenance sidecar (FILE.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=build/release
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DAICB_BUILD_TESTS=OFF -DAICB_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "${AICB_JOBS:-2}" --target aicb_tool >/dev/null
# The embedded default: Llama-2-7B on 4096 GPUs, TP 2 with sequence parallelism, 8192 sequences of
# 4096 tokens per iteration, compute timed by the roofline model of an H100. Extra arguments are
# passed to `aicb generate` (e.g. --iterations 2, -o FILE).
exec "$build/bin/aicb" generate --model llama2-7b --world-size 4096 --tp 2 --sp --global-batch 8192 \
  --seq 4096 --gpu H100 "$@"
