#!/usr/bin/env bash
# aicb — the timeline pictures in the docs, written by `aicb timeline` as HTML and photographed by
# headless chromium: docs/timeline.md's job as 1F1B and as interleaved 1F1B (VPP 2), and
# docs/schedules.md's schedules (zero-bubble H1, DualPipe, Megatron's combined 1F1B).
#
#   scripts/timeline-pictures.sh [AICB_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
aicb=${1:-build/test/bin/aicb}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p docs/images
dense=(--model llama3-8b --num-layers 16 --world-size 32 --tp 2 --pp 4 --sp --global-batch 32 --seq-length 4096
       --gpu H100)
moe=(--model mixtral-8x7b --num-layers 4 --world-size 16 --ep 16 --num-experts 16 --global-batch 64
     --seq-length 4096 --moe-dispatcher alltoall --moe-grouped-gemm --gpu H100)
picture() {  # NAME AICB-TIMELINE-ARGS...
  local name=$1
  shift
  "$aicb" timeline "$@" -o "$work/$name.html" >/dev/null
  "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --user-data-dir="$work/profile" --virtual-time-budget=10000 --window-size=1100,560 \
    --screenshot="docs/images/timeline-$name.png" "file://$work/$name.html" 2>/dev/null
  echo "docs/images/timeline-$name.png"
}
picture 1f1b "${dense[@]}"
picture interleaved "${dense[@]}" --vpp 2
picture zb-h1 "${dense[@]}" --pipeline-schedule zb_h1
picture dualpipe "${dense[@]}" --pipeline-schedule dualpipe
picture moe-plain "${moe[@]}"
picture moe-combined "${moe[@]}" --overlap-moe-expert-parallel-comm --delay-wgrad-compute
