# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts that test `aicb run` under mpirun: skips (exit 77; in CI, fails) without
# mpirun or aicb-run beside the aicb binary in $aicb, moves into a temporary folder removed at exit,
# sets OpenMPI up for one machine, and defines ok and fail (counting $failures).
if ! command -v mpirun >/dev/null || [[ ! -x "$(dirname "$aicb")/aicb-run" ]]; then
  echo "skipped: mpirun or aicb-run missing (scripts/install-deps.sh installs OpenMPI)"
  [[ -n "${CI:-}" ]] && exit 1
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# One machine, more ranks than cores, possibly as root, possibly in a container.
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_btl=self,vader
failures=0
ok() { echo "ok: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
