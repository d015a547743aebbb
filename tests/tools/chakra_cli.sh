#!/usr/bin/env bash
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
# `aicb generate --format chakra` as a user's shell meets it: a set lands whole, chosen ranks, and
# failures — a missing or unwritable directory, a file-size limit reached midway, a directory of
# someone else's files — give a clear error, a non-zero exit and no partial set. Each check prints
# "ok: …" or "FAIL: …"; the script fails if any check fails.
#
#   chakra_cli.sh AICB_BINARY
set -u
aicb=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
ok() { echo "ok: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
expect() {  # expect STATUS DESCRIPTION REGEX COMMAND...
  local status=$1 what=$2 regex=$3
  shift 3
  local out rc
  out=$(timeout 120 "$@" 2>&1)
  rc=$?
  if [[ $rc -eq $status ]] && grep -qE -- "$regex" <<<"$out"; then ok "$what"; else fail "$what (exit $rc): $out"; fi
}
# Only hidden temporaries would be left behind by a failure: none may be.
no_leftovers() {
  local left
  left=$(find . -maxdepth 1 -name '.*aicb-*' | head -5)
  [[ -z "$left" ]] && ok "no temporaries left ($1)" || fail "temporaries left ($1): $left"
}
job=(generate --format chakra --model llama3-8b --num-layers 4 --world-size 16 --tp 2 --pp 2 --sp
     --global-batch 16 --seq-length 2048)

expect 0 "a set is written" "wrote traces/: 16 Chakra traces .*comm_groups.json, manifest.json" \
  "$aicb" "${job[@]}" -o traces
expect 0 "the simulator's command is named" "--workload-configuration=again/workload --comm-group-configuration=again/comm_groups.json" \
  "$aicb" "${job[@]}" -o again
n=$(ls traces/workload.*.et 2>/dev/null | wc -l)
[[ $n -eq 16 ]] && ok "16 rank files" || fail "$n rank files, not 16"
grep -q '"schema": "aicb.chakra/1"' traces/manifest.json && ok "the manifest names its schema" || fail "manifest"
grep -q '"tensor_parallel": 2' traces/manifest.json && ok "the manifest holds the job" || fail "manifest job"
before=$(cksum <traces/workload.3.et)

expect 0 "chosen ranks replace the set whole" "wrote traces/: 3 Chakra traces" \
  "$aicb" "${job[@]}" -o traces --ranks 0-1,9
n=$(ls traces/*.et | wc -l)
[[ $n -eq 3 && -f traces/workload.9.et && ! -f traces/workload.3.et ]] && ok "only the chosen ranks" ||
  fail "after --ranks 0-1,9: $(ls traces)"
expect 2 "a rank beyond the world is refused" "ranks = 0-16: every rank must be below world_size \\(16\\)" \
  "$aicb" "${job[@]}" -o traces --ranks 0-16
expect 2 "--pp-stage has no meaning for per-rank traces" "--ranks" "$aicb" "${job[@]}" -o traces --pp-stage 1
expect 2 "aicb writes no Chakra traces" "corrected only" "$aicb" "${job[@]}" -o traces --compat aicb

# A file-size limit reached midway: the write fails, the previous set stays as it was.
"$aicb" "${job[@]}" -o traces -q >/dev/null 2>&1
before=$(cksum <traces/workload.3.et)
out=$(bash -c "ulimit -f 8; exec \"\$0\" \"\$@\"" "$aicb" "${job[@]}" -o traces 2>&1)
rc=$?
if [[ $rc -eq 1 ]] && grep -qE "write failed: File too large" <<<"$out"; then ok "a file-size limit is a clear error"
else fail "file-size limit (exit $rc): $out"; fi
[[ $(cksum <traces/workload.3.et) == "$before" && $(ls traces/*.et | wc -l) -eq 16 ]] &&
  ok "the previous set is untouched" || fail "the previous set changed"
out=$(bash -c "ulimit -f 8; exec \"\$0\" \"\$@\"" "$aicb" "${job[@]}" -o fresh 2>&1)
[[ ! -e fresh ]] && ok "no partial set under a new name" || fail "a partial set was left: $(ls fresh)"
no_leftovers "file-size limit"

expect 1 "a missing parent directory is refused" "directory no/such does not exist" "$aicb" "${job[@]}" -o no/such/dir
expect 1 "a place nothing can be created is refused" "cannot create a directory beside it" \
  "$aicb" "${job[@]}" -o /proc/aicb-traces
mkdir mine && echo notes >mine/notes.txt
expect 1 "a directory of someone else's files is refused" "holds files aicb did not write" "$aicb" "${job[@]}" -o mine
[[ -f mine/notes.txt ]] && ok "their files are untouched" || fail "their files were touched"
# A directory that merely holds a file named manifest.json — a project, its .git — is never deleted.
mkdir -p proj/src proj/.git && echo '{"manifest_version":3}' >proj/manifest.json && echo x >proj/src/main.js
expect 1 "a project with a manifest.json is refused" "not the manifest of an aicb.chakra/1 set" \
  "$aicb" generate --format chakra --world-size 8 --tp 2 --pp 2 -q -o proj
[[ -f proj/src/main.js && -d proj/.git && -f proj/manifest.json ]] && ok "the project is untouched" ||
  fail "the project was touched: $(ls -a proj)"
# A set with a user's notes in it, and a link to a set: refused, kept as they are.
echo mine >traces/notes.txt
expect 1 "a set with notes added is refused" '"notes.txt" is not a file the manifest lists' "$aicb" "${job[@]}" -o traces
[[ -f traces/notes.txt ]] && ok "the notes are kept" || fail "the notes were deleted"
rm traces/notes.txt
ln -s traces linked
expect 1 "a link to a set is refused" "symbolic link" "$aicb" "${job[@]}" -o linked
[[ -L linked ]] && ok "the link stays a link" || fail "the link was replaced"
rm linked
echo x >afile
expect 1 "a file in the way is refused" "exists and is not a directory" "$aicb" "${job[@]}" -o afile
no_leftovers "refusals"
expect 0 "a path with \"empty\" in it gets ASTRA-sim's trap named" "warning: .*\"empty\".*silently ignores" \
  "$aicb" "${job[@]}" -o empty_run

echo "$failures failures"
[[ $failures -eq 0 ]]
