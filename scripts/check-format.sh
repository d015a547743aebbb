#!/usr/bin/env bash
# aicb — fails if any C++ source differs from what clang-format (with the committed .clang-format)
# would make of it. The generated single header is not checked.
set -euo pipefail
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -co --exclude-standard -- '*.hpp' '*.cpp' '*.cu' '*.cuh' | grep -v '^single_include/' | while read -r f; do [[ -f "$f" ]] && echo "$f"; done)
else
  mapfile -t files < <(find include tests examples tools cuda -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \))
fi
[[ ${#files[@]} -gt 0 ]] || { echo "no sources found"; exit 1; }
if clang-format --dry-run --Werror "${files[@]}"; then
  echo "${#files[@]} files formatted"
else
  echo "formatting differs: run  clang-format -i <file>  on the files above" >&2
  exit 1
fi
