#!/usr/bin/env bash
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
# The aicb tool against hostile files and interruptions, as a user's shell meets them: each check
# prints "ok: …" or "FAIL: …"; the script fails if any check fails.
#
#   hostile_files.sh AICB_BINARY DATA_DIR
set -u
aicb=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
ok() { echo "ok: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
# expect STATUS DESCRIPTION REGEX COMMAND...: the command exits with STATUS and its output matches REGEX.
expect() {
  local status=$1 what=$2 regex=$3
  shift 3
  local out rc
  out=$(timeout 60 "$@" 2>&1)
  rc=$?
  if [[ $rc -eq $status ]] && grep -qE -- "$regex" <<<"$out"; then ok "$what"; else fail "$what (exit $rc): $out"; fi
}
small=(generate --model llama2-7b --world-size 8 --tp 8 --global-batch 8 -q)

# Outputs.
expect 0 "a character device is written into, not replaced" "" "$aicb" "${small[@]}" --no-sidecar -o /dev/null
[[ -c /dev/null ]] && ok "/dev/null is still a device" || fail "/dev/null was replaced"
mkdir out_dir
expect 1 "a directory as output is refused" "out_dir: is a directory" "$aicb" "${small[@]}" -o out_dir
cp "$data/aiob/good/crlf_tabs_spacing.txt" profile.txt
before=$(cksum <profile.txt)
expect 1 "an output that is an input is refused" "is also an input of this command" \
  "$aicb" generate -m 7 --world-size 8 --global-batch 8 --aiob_enable --comp_filepath profile.txt -o profile.txt
expect 1 "an output that is an input, by another path, is refused" "is also an input" \
  "$aicb" generate -m 7 --world-size 8 --global-batch 8 --aiob_enable --comp_filepath profile.txt -o ./profile.txt
[[ $(cksum <profile.txt) == "$before" ]] && ok "the input is unchanged" || fail "the input was changed"
expect 1 "aiob convert does not overwrite its input" "is also an input" "$aicb" aiob convert profile.txt -o profile.txt
echo "old workload" >pair.txt
echo "old sidecar" >pair.txt.json.keep
mkdir pair.txt.json
expect 1 "a sidecar that cannot be written leaves no new workload" "pair.txt.json: is a directory" \
  "$aicb" "${small[@]}" -o pair.txt
[[ $(cat pair.txt) == "old workload" ]] && ok "the old workload is untouched" || fail "the workload was replaced alone"
expect 0 "the workload and its sidecar land together" "" "$aicb" "${small[@]}" -o together.txt
[[ -s together.txt && -s together.txt.json ]] && ok "both files exist" || fail "one of the pair is missing"
long=$(printf 'n%.0s' $(seq 1 251))
expect 1 "an output whose sidecar name would exceed NAME_MAX is refused first" "longer than 255 bytes" \
  "$aicb" "${small[@]}" -o "$long"
[[ ! -e "$long" ]] && ok "nothing written for it" || fail "the workload was written without its sidecar"
expect 0 "an output name of 250 bytes works, sidecar included" "" "$aicb" "${small[@]}" -o "${long:0:250}"
expect 2 "more records than SimAI can count are refused before writing" "2\\^31-1" \
  "$aicb" generate --model llama2-7b --world-size 8 --tp 8 --global-batch 20000000 -o huge.txt
expect 2 "a job of 10^12 micro batches is refused" "must not exceed 2\\^50" \
  "$aicb" generate --model llama2-7b --world-size 8 --tp 8 --global-batch 1000000000000 -o huge.txt
[[ ! -e huge.txt ]] && ok "no huge file" || fail "a huge file was started"

# Inputs.
mkfifo pipe
expect 1 "a FIFO given to lint is refused, not waited on" "is a FIFO" "$aicb" lint pipe
expect 1 "a FIFO given as a profile is refused" "is a FIFO" "$aicb" aiob check pipe
expect 1 "a directory given as a profile is called a directory" "is a directory, not an AIOB profile" \
  "$aicb" aiob check out_dir
expect 1 "a directory given as config.json is called a directory" "is a directory" \
  "$aicb" describe --hf-config out_dir
# A 2 GiB profile (sparse: no disk) with garbage on line 1: the error, found without reading it all.
printf 'garbage\n' >huge_profile.txt
truncate -s 2G huge_profile.txt
expect 2 "garbage at the start of a 2 GiB profile is reported at its line" "huge_profile.txt:1:1: expected" \
  "$aicb" aiob check huge_profile.txt
printf 'train_iter:1\nEmb:\n    time_gpu_avg: 1\n' >huge_valid.txt
truncate -s 100M huge_valid.txt
expect 1 "a 100 MiB profile is refused for its size" "aicb reads profiles up to 64 MiB" "$aicb" aiob check huge_valid.txt

# Lint goes on after an unreadable file, escapes what it prints, fixes only into a file it is told.
cp "$data/simai/good/valid.txt" valid.txt
expect 1 "lint reports an unreadable file and checks the next" "valid.txt: 3 records, 0 errors" \
  "$aicb" lint missing.txt valid.txt
printf 'HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 1 pp_comm: 0\n1\n\033[31mred\t-1\t1\tALLREDUSE\t0\t1\tNONE\t0\t1\tNONE\t0\t1\n' >ansi.txt
out=$("$aicb" lint ansi.txt 2>&1)
if grep -q $'\033' <<<"$out"; then fail "a terminal escape from the file was printed raw"; else ok "control bytes are escaped"; fi
cp "$data/simai/bad/13_header_without_ep_pp.txt" legacy1.txt
cp legacy1.txt legacy2.txt
expect 2 "--fix without -o or --in-place writes nothing" "give -o FILE, or --in-place" \
  "$aicb" lint --fix --world-size 16 legacy1.txt
expect 2 "-o with several inputs is refused" "exactly one input" \
  "$aicb" lint --fix --world-size 16 -o fixed.txt legacy1.txt legacy2.txt
expect 0 "--in-place fixes several files" "legacy2.txt: fixed" "$aicb" lint --fix --in-place --world-size 16 legacy1.txt legacy2.txt
cp "$data/simai/bad/13_header_without_ep_pp.txt" legacy3.txt
expect 2 "--fix never writes a world SimAI's stoi cannot read" "2\\^31-1" \
  "$aicb" lint --fix --world-size 4294967296 -o fixed.txt legacy3.txt
[[ ! -e fixed.txt ]] && ok "nothing written for it" || fail "an unreadable header was written"

# Interrupts: a large generation stopped by SIGINT, SIGTERM or SIGHUP leaves no temporary behind.
for signal in INT TERM HUP; do
  mkdir "sig_$signal"
  (cd "sig_$signal" && exec "$aicb" generate --model llama2-7b --world-size 8 --tp 8 --global-batch 2000000 \
    -o big.txt -q) &
  pid=$!
  for _ in $(seq 1 100); do
    compgen -G "sig_$signal/.big.txt.aicb-tmp-*" >/dev/null && break
    sleep 0.1
  done
  kill -"$signal" "$pid"
  wait "$pid"
  rc=$?
  left=$(ls -A "sig_$signal")
  if [[ $rc -gt 128 && -z "$left" ]]; then ok "SIG$signal: exit $rc, nothing left"; else fail "SIG$signal: exit $rc, left: $left"; fi
done

echo "$failures failures"
[[ $failures -eq 0 ]]
