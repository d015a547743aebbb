#!/usr/bin/env bash
# aicb — builds the aicb tool and runs its main job on an embedded default: a SimAI training
# workload, written to results/workload/ with a provenance sidecar (FILE.json).
#
# Only the tool is built (no tests, examples or CUDA profiler), so the first run takes about a
# minute on two cores and later runs start at once.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=build/release
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DAICB_BUILD_TESTS=OFF -DAICB_BUILD_EXAMPLES=OFF \
  -DAICB_BUILD_CUDA=OFF >/dev/null
if [[ ! -x "$build/bin/aicb" ]]; then
  echo "aicb: building the aicb tool in $build (first run: about a minute on two cores)..."
fi
# Progress lines only; the whole log is kept, and shown if the build fails.
set +e
cmake --build "$build" -j "${AICB_JOBS:-2}" --target aicb_tool 2>&1 | tee "$build/build.log" |
  grep --line-buffered -E '^\[ *[0-9]+%\] (Building|Linking)'
status=${PIPESTATUS[0]}
set -e
if [[ $status -ne 0 ]]; then
  cat "$build/build.log" >&2
  echo "aicb: the build failed (log: $build/build.log)" >&2
  exit 1
fi
echo "aicb: the tool is $build/bin/aicb (aicb --help lists its commands)"
# The embedded default: Llama-2-7B on 4096 GPUs, TP 2 with sequence parallelism, 8192 sequences of
# 4096 tokens per iteration, compute timed by the roofline model of an H100. Extra arguments are
# passed to `aicb generate` (e.g. --iterations 2, -o FILE).
exec "$build/bin/aicb" generate --model llama2-7b --world-size 4096 --tp 2 --sp --global-batch 8192 \
  --seq 4096 --gpu H100 "$@"
