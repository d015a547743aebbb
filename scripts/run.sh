#!/usr/bin/env bash
# aicb — builds the aicb tool and runs its main job on an embedded default.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=build/release
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DAICB_BUILD_TESTS=OFF -DAICB_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "${AICB_JOBS:-2}" --target aicb_tool >/dev/null
exec "$build/bin/aicb" info "$@"
