#!/usr/bin/env bash
# aicb — measures what each public header costs to compile, as a ratio to <nlohmann/json.hpp>:
# `g++ -std=c++20 -fsyntax-only` of a translation unit that includes only that header, best of 3
# runs, each run of a header interleaved with a run of the reference (so a machine that slows down
# or speeds up during the measurement moves both alike), plus the preprocessed line count.
# Prints a Markdown table (the one in docs/headers.md).
#
#   scripts/header-cost.sh                     every public header
#   scripts/header-cost.sh aicb/core.hpp ...   only these (the umbrellas' targets: docs/headers.md)
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=${CXX:-g++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '#include <nlohmann/json.hpp>' >"$tmp/reference.cpp"

seconds() {
  local TIMEFORMAT=%R
  { time "$cxx" -std=c++20 -fsyntax-only -Iinclude "$1"; } 2>&1
}
min() { awk 'NR == 1 || $1 < best { best = $1 } END { printf "%.2f", best }'; }

if [[ $# -gt 0 ]]; then
  headers=("$@")
else
  mapfile -t headers < <(find include/aicb -name '*.hpp' | sed 's|^include/||' | sort)
fi
echo "| header | syntax-only (best of 3) | ÷ nlohmann/json (same runs) | preprocessed lines |"
echo "|---|---|---|---|"
for header in "${headers[@]}"; do
  echo "#include <$header>" >"$tmp/tu.cpp"
  own=() reference=()
  for _ in 1 2 3; do
    own+=("$(seconds "$tmp/tu.cpp")")
    reference+=("$(seconds "$tmp/reference.cpp")")
  done
  best=$(printf '%s\n' "${own[@]}" | min)
  best_reference=$(printf '%s\n' "${reference[@]}" | min)
  ratio=$(awk -v a="$best" -v b="$best_reference" 'BEGIN { printf "%.2f", a / b }')
  lines=$("$cxx" -std=c++20 -E -Iinclude "$tmp/tu.cpp" | wc -l)
  printf '| `%s` | %s s | %s× | %s |\n' "$header" "$best" "$ratio" "$lines"
done
