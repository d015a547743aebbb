#!/usr/bin/env bash
# aicb — builds the aicb tool and runs its main job on an embedded default.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=build/release
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DAICB_BUILD_TESTS=OFF -DAICB_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "${AICB_JOBS:-2}" --target aicb_tool >/dev/null
# Until workload generation lands, the main job describes the embedded default job.
exec "$build/bin/aicb" describe --model llama2-7b --world-size 4096 --tp 2 --global-batch 8192 --seq 4096 --sp "$@"
