#!/usr/bin/env bash
# aicb — instruction counts of the library's streams (tests/bench/streams.bench.cpp) under callgrind,
# for the working tree's include/ and, given a revision, for that revision's include/ beside it: a
# comparison that does not depend on what else the machine is doing. Prints a Markdown table.
#
#   scripts/bench-instructions.sh [REVISION]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "bench-instructions: needs valgrind" >&2; exit 1; }
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
build() {  # include-dir binary
  "${CXX:-g++}" -std=c++20 -O2 -DNDEBUG -I "$1" tests/bench/streams.bench.cpp -o "$2"
}
build include "$work/now"
columns="| stream | instructions (working tree) |"
rule="|---|---|"
if [[ $# -gt 0 ]]; then
  git worktree add --detach "$work/base" "$1" >/dev/null 2>&1
  build "$work/base/include" "$work/base.bin"
  columns="| stream | instructions ($1) | instructions (working tree) | ratio | checksums equal |"
  rule="|---|---|---|---|---|"
fi
count() {  # binary stream -> "instructions checksum"
  local out
  out=$(valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$1" "$2" 2>"$work/log")
  echo "$(grep -o 'Collected : [0-9]*' "$work/log" | grep -o '[0-9]*$') $out"
}
echo "$columns"
echo "$rule"
for stream in rank simai compat check; do
  read -r now now_sum <<<"$(count "$work/now" "$stream")"
  if [[ $# -gt 0 ]]; then
    read -r base base_sum <<<"$(count "$work/base.bin" "$stream")"
    ratio=$(awk -v a="$now" -v b="$base" 'BEGIN { printf "%.3f", a / b }')
    printf '| %s | %s | %s | %s | %s |\n' "$stream" "$base" "$now" "$ratio" "$([[ $now_sum == "$base_sum" ]] && echo yes || echo NO)"
  else
    printf '| %s | %s |\n' "$stream" "$now"
  fi
done
