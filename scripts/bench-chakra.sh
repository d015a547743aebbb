#!/usr/bin/env bash
# aicb — measures `aicb generate --format chakra` for every rank of Llama-3-70B on 1024 GPUs (TP 8,
# PP 8, DP 16, 16 micro batches of 1 × 8192 tokens): wall time, peak resident memory and the set's size;
# and the same model on 64 GPUs (DP 1), to show that memory does not grow with ranks. Best of N runs
# (default 3) of the whole command, file writing included. The numbers are in docs/performance.md.
#
#   scripts/bench-chakra.sh [AICB_BINARY] [RUNS]
set -euo pipefail
aicb=${1:-build/test/bin/aicb}
runs=${2:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/aicb-chakra-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
measure() {  # measure LABEL WORLD GLOBAL_BATCH
  local best="" rss="" size=""
  for _ in $(seq "$runs"); do
    rm -rf "$work/set"
    /usr/bin/time -f "%e %M" -o "$work/time" "$aicb" generate --format chakra --model llama3-70b \
      --world-size "$2" --tp 8 --pp 8 --sp --global-batch "$3" --micro-batch 1 --seq-length 8192 \
      -q -o "$work/set"
    read -r seconds kib <"$work/time"
    if [[ -z "$best" ]] || awk "BEGIN{exit !($seconds < $best)}"; then best=$seconds; rss=$kib; fi
  done
  size=$(du -sb "$work/set" | cut -f1)
  files=$(find "$work/set" -name '*.et' | wc -l)
  nodes=$(grep -o '"nodes": [0-9]*' "$work/set/manifest.json" | grep -o '[0-9]*')
  printf '%-28s %5d traces %10d nodes %8.1f MiB   %6.2f s   peak RSS %6.1f MiB\n' "$1" "$files" "$nodes" \
    "$(awk "BEGIN{print $size/1048576}")" "$best" "$(awk "BEGIN{print $rss/1024}")"
}
echo "aicb generate --format chakra, best of $runs ($(nproc) cores)"
measure "llama3-70b, 64 GPUs (DP 1)" 64 16
measure "llama3-70b, 1024 GPUs (DP 16)" 1024 256
