#!/usr/bin/env bash
# aicb — builds and runs every test: the unit tests (against include/ and against the single
# header), examples, consumer projects (find_package, add_subdirectory, FetchContent), header
# self-containment, the single header's freshness, formatting, CUDA compilation where nvcc exists.
#
#   scripts/test.sh              the whole suite (what CI runs)
#   scripts/test.sh --sanitize   the same suite built with AddressSanitizer + UBSan
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

build=build/test
options=(-DCMAKE_BUILD_TYPE=Release)
if [[ "${1:-}" == "--sanitize" ]]; then
  build=build/sanitize
  options=(-DCMAKE_BUILD_TYPE=Debug -DAICB_DEV_SANITIZE=ON -DCMAKE_CXX_FLAGS_DEBUG=-O1)
fi
jobs=${AICB_JOBS:-2}

cmake -S . -B "$build" "${options[@]}" >/dev/null
cmake --build "$build" -j "$jobs"
mkdir -p "$build/logs"
log="$build/logs/ctest.log"
status=0
ctest --test-dir "$build" -j "$jobs" --output-on-failure 2>&1 | tee "$log" || status=$?
# The runner's summary, then the skipped tests with their reasons and the counts, last, where CI
# and people look for them.
grep -E '^[0-9]+% tests passed' "$log" | tail -n 1 || true
python3 scripts/test-summary.py "$log" "$build/Testing/Temporary/LastTest.log" || status=1
exit "$status"
