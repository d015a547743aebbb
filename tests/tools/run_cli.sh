#!/usr/bin/env bash
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
# `aicb run` on the CPU backend under mpirun (4 and 8 ranks, oversubscribed on a small machine): a
# dense TP x DP job, 1F1B and interleaved pipelines (sends meet receives), an EP MoE job and a
# collective sweep, each with the data check; bus bandwidths against nccl-tests' definitions; a
# rank killed or hung mid-run ends the job with a message and leaves no results file; ranks
# started differently are refused before any traffic. Prints "ok: …" or "FAIL: …" per check.
# Without mpirun or aicb-run it says skipped (exit 77) — in CI it fails.
#
#   run_cli.sh AICB_BINARY
set -u
aicb=$(realpath "$1")
schema_check="$(realpath "$(dirname "$0")/../../scripts/check-json-schema.py")"
schema="$(realpath "$(dirname "$0")/../../docs/schemas/run.schema.json")"
source "$(dirname "$0")/mpirun_setup.sh"
expect() {  # expect STATUS DESCRIPTION REGEX... -- COMMAND...: every REGEX matches a line of the output
  local status=$1 what=$2
  shift 2
  local regexes=()
  while [[ $1 != "--" ]]; do
    regexes+=("$1")
    shift
  done
  shift
  local out rc missing=""
  out=$(timeout 300 "$@" 2>&1)
  rc=$?
  for regex in "${regexes[@]}"; do grep -qE -- "$regex" <<<"$out" || missing+=" [$regex]"; done
  if [[ $rc -eq $status && -z "$missing" ]]; then ok "$what"; else fail "$what (exit $rc, missing$missing): $out"; fi
}
verified="check: [1-9][0-9]* elements verified, 0 wrong"
# A small model; computation as a thousandth of its roofline time.
model=(--hidden-size 256 --num-attention-heads 8 --num-layers 8 --vocab-size 1024 --seq-length 128 --micro-batch 1
       --warmup 1 --compute-scale 0.001 --check)
small=("${model[@]}" --repeat 2)

expect 0 "dense TP 2 x DP 2: values right" "$verified" "all_reduce +dp_cp +2 " -- \
  mpirun -np 4 "$aicb" run "${small[@]}" --world-size 4 --tp 2 --global-batch 8 -o dense.json --csv dense.csv
expect 0 "1F1B, PP 2 x TP 2: sends meet receives" "^send +pp " "^recv +pp " "$verified" -- \
  mpirun -np 4 "$aicb" run "${small[@]}" --world-size 4 --tp 2 --pp 2 --global-batch 8
expect 0 "interleaved, PP 4 x VPP 2 x TP 2 on 8 ranks" "^send +pp " "$verified" -- \
  mpirun -np 8 "$aicb" run "${small[@]}" --world-size 8 --tp 2 --pp 4 --virtual-pipeline 2 --global-batch 16 \
  --timeline interleaved.json
expect 0 "zero-bubble H1, PP 4 x TP 2 on 8 ranks" "^send +pp " "$verified" -- \
  mpirun -np 8 "$aicb" run "${small[@]}" --world-size 8 --tp 2 --pp 4 --pipeline-schedule zb_h1 --global-batch 8
expect 0 "DualPipe, PP 4 x TP 2 on 8 ranks: both directions and the mirrors' exchange" "^send +pp " "$verified" -- \
  mpirun -np 8 "$aicb" run "${small[@]}" --world-size 8 --tp 2 --pp 4 --pipeline-schedule dualpipe --global-batch 8
expect 0 "MoE, EP 4 x TP 2 on 8 ranks: the dispatcher's collectives over the expert groups" \
  "^all_gather +etp_ep +8 " "^reduce_scatter +etp_ep +8 " "$verified" -- \
  mpirun -np 8 "$aicb" run "${small[@]}" --world-size 8 --tp 2 --sp --ep 4 --num-experts 8 --moe-top-k 2 \
  --global-batch 8 -o moe.json
expect 0 "MoE with the all-to-all dispatcher, EP 4 x TP 2" "^all_to_all +ep +4 " "$verified" -- \
  mpirun -np 8 "$aicb" run "${small[@]}" --world-size 8 --tp 2 --sp --ep 4 --num-experts 8 --moe-top-k 2 \
  --moe-dispatcher alltoall --global-batch 8
expect 0 "routing skew: the expert all-to-alls replayed uneven (all-to-all-v), every block verified" \
  "^all_to_all +ep +4 " "$verified" -- \
  mpirun -np 8 "$aicb" run "${small[@]}" --world-size 8 --tp 2 --sp --ep 4 --num-experts 8 --moe-top-k 2 \
  --moe-dispatcher alltoall --moe-load-skew 1.5 --global-batch 8 -o skew.json
python3 -c "
import json; d = json.load(open('skew.json'))
uneven = [o for o in d['operations'] if o.get('uneven')]
assert uneven and all(o['collective'] == 'all_to_all' and o['group'].startswith('ep') for o in uneven), uneven
" && ok "the skewed job's expert all-to-alls are marked uneven in the summary" || fail "uneven all-to-alls: $(head -c 300 skew.json)"
expect 0 "the combined 1F1B (EP all-to-all overlap, delayed weight gradients), PP 2 x VPP 2 x EP 4" \
  "^all_to_all +ep +4 " "^send +pp " "$verified" -- \
  mpirun -np 8 "$aicb" run "${small[@]}" --world-size 8 --ep 4 --pp 2 --virtual-pipeline 2 --num-experts 8 \
  --moe-top-k 2 --moe-dispatcher alltoall --overlap-moe-expert-parallel-comm --delay-wgrad-compute --global-batch 8
expect 0 "overlapped: TP 2 x DP 2 with --overlap-grad-reduce, the reductions beside the last backward, data checked" \
  "\(mpi, overlapped\)" "all_reduce +dp_cp +2 " "$verified" -- \
  mpirun -np 4 "$aicb" run "${small[@]}" --world-size 4 --tp 2 --global-batch 8 --overlap-grad-reduce --overlap \
  -o overlapped.json
expect 0 "overlapped: the combined 1F1B's chains, PP 2 x VPP 2 x EP 4, data checked" \
  "\(mpi, overlapped\)" "^all_to_all +ep +4 " "$verified" -- \
  mpirun -np 8 "$aicb" run "${small[@]}" --world-size 8 --ep 4 --pp 2 --virtual-pipeline 2 --num-experts 8 \
  --moe-top-k 2 --moe-dispatcher alltoall --overlap-moe-expert-parallel-comm --global-batch 8 --overlap
expect 0 "a straggler: rank 3's computation 20x longer is named the slowest rank; percentiles reported" \
  "^slowest rank: 3 " "p50 [0-9.]+ ms, p99 [0-9.]+ ms" -- \
  mpirun -np 4 "$aicb" run "${small[@]}" --world-size 4 --tp 2 --global-batch 8 --slow-rank 3:20
expect 2 "a straggler beyond the ranks is refused" "slow_rank = 9" -- \
  mpirun -np 4 "$aicb" run "${small[@]}" --world-size 4 --tp 2 --global-batch 8 --slow-rank 9:2
expect 0 "collective sweep over 8 ranks" "^all_to_all +world +8 +1048576 " "$verified" -- \
  mpirun -np 8 "$aicb" run --sweep all_reduce,all_gather,reduce_scatter,all_to_all --sizes 4KiB:1MiB \
  --repeat 3 --check -o sweep.json
expect 0 "a saved Chakra set is written" "wrote saved/" -- \
  "$aicb" generate --format chakra --hidden-size 256 --num-attention-heads 8 --num-layers 8 --vocab-size 1024 \
  --seq-length 128 --micro-batch 1 --world-size 4 --tp 2 --pp 2 --global-batch 8 -o saved
expect 0 "the saved set replays, each rank its own trace" "Chakra set saved" "^send +pp " "$verified" -- \
  mpirun -np 4 "$aicb" run --chakra saved --repeat 2 --warmup 1 --compute-scale 0.001 --check
expect 0 "one process without mpirun is a world of 1" "on 1 ranks" -- \
  "$aicb" run --sweep all_reduce --sizes 64KiB --repeat 2
# Every bus bandwidth is finite, positive and algbw times nccl-tests' factor.
for f in dense.json moe.json sweep.json; do
  if python3 - "$f" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "aicb.run/2" and d["backend"] == "mpi", d["schema"]
assert all(t > 0 for t in d["iterations_us"]) and d["check"]["wrong"] == 0
factor = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
          "reduce_scatter": lambda n: (n - 1) / n, "all_to_all": lambda n: (n - 1) / n}
seen = 0
for op in d["operations"]:
    if op["type"] == "compute":
        continue
    alg, bus = op["algbw_gb_per_s"], op["busbw_gb_per_s"]
    assert math.isfinite(alg) and alg > 0 and op["mean_us"] > 0, op
    assert abs(alg - op["bytes"] / (op["mean_us"] * 1e-6) / 1e9) <= 1e-9 * alg, op
    want = alg * (factor[op["collective"]](op["group_size"]) if op["type"] == "collective" else 1)
    assert math.isfinite(bus) and bus > 0 and abs(bus - want) <= 1e-9 * want, op
    seen += 1
assert seen > 0
PY
  then ok "$f: every busbw = algbw x nccl-tests' factor, finite and positive"; else fail "$f: bandwidths"; fi
done

if python3 "$schema_check" "$schema" dense.json moe.json skew.json overlapped.json sweep.json >schema.log 2>&1; then
  ok "the summaries follow docs/schemas/run.schema.json"
else
  fail "schema: $(head -5 schema.log)"
fi

# aicb's result-CSV form: its 12 columns, times filled in ms, one epoch_end per measured iteration.
if python3 -c "
import csv
rows = list(csv.DictReader(open('dense.csv')))
assert list(rows[0].keys()) == ['comm_type', 'comm_group', 'comm_group_size', 'msg_size', 'stage', 'dst', 'src',
                                'additional', '_elapsed_time', 'algbw', 'busbw', 'count']
ops = [r for r in rows if r['comm_type'] == 'CommType.all_reduce']
assert ops and all(float(r['_elapsed_time']) > 0 and float(r['algbw']) > 0 for r in ops)
assert sum(r['comm_type'] == 'CommType.epoch_end' for r in rows) == 2
"; then ok "the result CSV has aicb's columns, times and an epoch_end per iteration"; else fail "result CSV"; fi

# The measured timeline: every rank a process, valid as the estimated timelines are.
if python3 "$schema_check" "$(dirname "$schema")/trace.schema.json" interleaved.json >trace.log 2>&1 &&
  python3 -c "
import json, sys
d = json.load(open('interleaved.json'))
spans = [e for e in d['traceEvents'] if e['ph'] == 'X']
assert sorted({e['pid'] for e in spans}) == list(range(8)), 'a process per rank'
assert {'compute', 'collectives', 'transfers'} <= {e['cat'] for e in spans}
assert all(e['dur'] > 0 and e['ts'] >= 0 for e in spans)
"; then
  ok "the measured timeline holds every rank's operations and follows the trace schema"
else
  fail "measured timeline: $(head -5 trace.log)"
fi

# Ranks started with different flags: refused before any traffic, naming them.
expect 2 "ranks started differently are refused" "configuration = ranks 2, 3: differs from rank 0" -- \
  mpirun -np 2 "$aicb" run --sweep all_reduce --sizes 4KiB : -np 2 "$aicb" run --sweep all_reduce --sizes 8KiB
expect 2 "a job for another world size is refused" "world_size = 8: must equal the ranks started \(4\)" -- \
  mpirun -np 4 "$aicb" run "${small[@]}" --world-size 8 --tp 2 --global-batch 8

# Floats that no replay can use are refused before anything runs, naming the option.
for bad in inf nan 1e308 -1 0; do
  expect 2 "--timeout $bad is refused" "timeout = .*more than 0 and at most a week" -- \
    "$aicb" run --sweep all_reduce --sizes 4KiB --timeout "$bad"
done
for bad in -1 nan inf 1e308; do
  expect 2 "--compute-scale $bad is refused" "compute_scale = .*finite factor" -- \
    "$aicb" run --sweep all_reduce --sizes 4KiB --compute-scale "$bad"
done
expect 2 "a model given with --chakra is refused, not ignored" "carries its own job" -- \
  "$aicb" run --chakra saved -m llama3-8b
# Without --world-size the job spans the ranks mpirun started; progress is printed as it goes.
expect 0 "the world size defaults to mpirun's, with progress" "^aicb run: setup" "^aicb run: warm-up 1/1" \
  "^aicb run: check" "^aicb run: iteration 2/2" "$verified" -- \
  mpirun -np 4 "$aicb" run "${small[@]}" --tp 2 --global-batch 8

# Installed to a prefix, the installed aicb finds its aicb-run and runs under mpirun.
build=$(dirname "$(dirname "$aicb")")
if cmake --install "$build" --prefix "$work/prefix" >install.log 2>&1 && [[ -x prefix/bin/aicb-run ]]; then
  expect 0 "the installed aicb run works under mpirun" "on 2 ranks" "$verified" -- \
    mpirun -np 2 "$work/prefix/bin/aicb" run --sweep all_reduce --sizes 4KiB --repeat 1 --check
else
  fail "cmake --install did not install aicb-run: $(tail -3 install.log)"
fi

# A rank killed mid-run ends every rank (within 30 s) and no results file appears.
long=("$aicb" run "${model[@]}" --world-size 4 --tp 2 --pp 2 --global-batch 8 --repeat 1000000 -o killed.json)
start=$(date +%s)
mpirun -np 4 "${long[@]}" >killed.log 2>&1 &
launcher=$!
sleep 5
victim=$(pgrep -f "aicb-run .*killed.json" | sed -n 3p)
kill -9 "$victim" 2>/dev/null
timeout 60 bash -c "while kill -0 $launcher 2>/dev/null; do sleep 0.5; done"
took=$(($(date +%s) - start - 5))
left=$(pgrep -f "aicb-run .*killed.json" | wc -l)
if [[ $left -eq 0 && $took -le 30 ]] && grep -qE "exited on signal 9|Process name:" killed.log && [[ ! -e killed.json ]]; then
  ok "a killed rank ends all ranks in ${took} s, with a message, no results file"
else
  fail "killed rank: $left ranks left after ${took} s; $(tail -5 killed.log)"
  pkill -9 -f "aicb-run .*killed.json"
fi

# A rank that hangs (stopped) is named by its peers' watchdog: the operation and the rank.
mpirun -np 4 "$aicb" run "${model[@]}" --world-size 4 --tp 2 --pp 2 --global-batch 8 --repeat 1000000 \
  --timeout 3 -o hung.json >hung.log 2>&1 &
launcher=$!
sleep 5
kill -STOP "$(pgrep -f "aicb-run .*hung.json" | sed -n 2p)" 2>/dev/null
timeout 60 bash -c "while kill -0 $launcher 2>/dev/null; do sleep 0.5; done"
if ! kill -0 $launcher 2>/dev/null && grep -qE "rank [0-9]+: operation #[0-9]+ .* did not complete within 3000 ms" hung.log &&
  [[ ! -e hung.json ]]; then
  ok "a hung rank: the job ends naming the rank and the operation"
else
  fail "hung rank: $(tail -5 hung.log)"
fi
pkill -9 -f "aicb-run .*hung.json" 2>/dev/null

if ((failures)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
