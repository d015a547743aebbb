#!/usr/bin/env bash
# aicb — the executor's overhead on the CPU backend: 1000 iterations of a 1 MiB all-reduce over 2
# ranks through `aicb run` (the sum of its measured iterations' wall times: the per-iteration
# barrier, the watchdog and the timing included) against a bare loop of MPI_Allreduce
# (tests/bench/bare_allreduce.cpp), in paired runs; prints each pair and the median ratio. The
# numbers are in docs/performance.md.
#
#   scripts/bench-run.sh [AICB_BINARY] [PAIRS]
set -euo pipefail
aicb=$(realpath "${1:-build/test/bin/aicb}")
pairs=${2:-7}
work=$(mktemp -d "${TMPDIR:-/tmp}/aicb-run-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpicxx -O2 -std=c++20 -DOMPI_SKIP_MPICXX "$(dirname "$0")/../tests/bench/bare_allreduce.cpp" -o "$work/bare"
ratios=()
echo "1000 x 1 MiB all-reduce, 2 ranks ($(nproc) cores): bare loop vs aicb run, microseconds"
for i in $(seq "$pairs"); do
  bare=$(mpirun -np 2 "$work/bare" 1048576 1000 10)
  mpirun -np 2 "$aicb" run --sweep all_reduce --sizes 1MiB --repeat 1000 --warmup 10 -q -o "$work/run.json"
  replay=$(python3 -c "import json,sys; print(sum(json.load(open(sys.argv[1]))['iterations_us']))" "$work/run.json")
  ratio=$(awk "BEGIN{printf \"%.4f\", $replay/$bare}")
  ratios+=("$ratio")
  printf 'pair %d: bare %10.1f   aicb run %10.1f   ratio %s\n' "$i" "$bare" "$replay" "$ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
echo "median ratio (aicb run / bare): $median"
