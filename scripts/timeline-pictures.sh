#!/usr/bin/env bash
# aicb — the pictures in docs/timeline.md: the same job as 1F1B and as interleaved 1F1B (VPP 2),
# written by `aicb timeline` as HTML and photographed by headless chromium.
#
#   scripts/timeline-pictures.sh [AICB_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
aicb=${1:-build/test/bin/aicb}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p docs/images
job=(--model llama3-8b --num-layers 16 --world-size 32 --tp 2 --pp 4 --sp --global-batch 32 --seq-length 4096
     --gpu H100)
for kind in 1f1b interleaved; do
  extra=()
  [[ $kind == interleaved ]] && extra=(--vpp 2)
  "$aicb" timeline "${job[@]}" "${extra[@]}" -o "$work/$kind.html" >/dev/null
  "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --user-data-dir="$work/profile" --virtual-time-budget=10000 --window-size=1100,560 \
    --screenshot="docs/images/timeline-$kind.png" "file://$work/$kind.html" 2>/dev/null
  echo "docs/images/timeline-$kind.png"
done
