#!/usr/bin/env bash
# aicb — `aicb run --backend nccl` as one process without MPI (the form a GPU machine without MPI
# gets): with a GPU, a sweep with its data check runs on it and reports times and bandwidths; without
# one, it refuses with a clear message and exit status 2, having touched nothing.
#
#   run_nccl.sh AICB_RUN_WITHOUT_MPI
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
out=$(timeout 300 "$1" --sweep all_reduce,all_gather,reduce_scatter,all_to_all --sizes 1MiB:4MiB --repeat 2 \
  --check -o nccl.json 2>&1)
rc=$?
echo "$out"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  if [[ $rc -eq 0 ]] && grep -q "on 1 ranks (nccl)" <<<"$out" && grep -q ", 0 wrong" <<<"$out" && [[ -s nccl.json ]]; then
    echo "ok: the nccl backend ran a checked sweep on this GPU"
    exit 0
  fi
  echo "FAIL: the nccl backend on this GPU (exit $rc)"
  exit 1
fi
if [[ $rc -eq 2 ]] && grep -q "the nccl backend needs a GPU per rank" <<<"$out" && [[ ! -e nccl.json ]]; then
  echo "ok: without a GPU the nccl backend refuses, exit 2, no file"
  exit 0
fi
echo "FAIL: without a GPU (exit $rc)"
exit 1
