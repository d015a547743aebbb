#!/usr/bin/env bash
# aicb — measures what each public header costs to compile: `g++ -std=c++20 -fsyntax-only` of a
# translation unit that includes only that header, best of 3 runs, plus the preprocessed line count.
# Prints a Markdown table (the one in docs/headers.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=${CXX:-g++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| header | syntax-only (best of 3) | preprocessed lines |"
echo "|---|---|---|"
best_of_3() {
  local TIMEFORMAT=%R
  for _ in 1 2 3; do { time "$cxx" -std=c++20 -fsyntax-only -Iinclude "$1"; } 2>&1; done |
    awk 'NR == 1 || $1 < best { best = $1 } END { printf "%.2f s", best }'
}
{ echo "empty translation unit"; find include/aicb -name '*.hpp' | sed 's|^include/||' | sort; } | while read -r header; do
  if [[ "$header" == "empty translation unit" ]]; then
    : >"$tmp/tu.cpp"
  else
    echo "#include <$header>" >"$tmp/tu.cpp"
  fi
  lines=$("$cxx" -std=c++20 -E -Iinclude "$tmp/tu.cpp" | wc -l)
  printf '| `%s` | %s | %s |\n' "$header" "$(best_of_3 "$tmp/tu.cpp")" "$lines"
done
