#!/usr/bin/env bash
# aicb — installs, from Debian's packages, whatever aicb's build and tests need and this machine
# lacks. Idempotent: when everything is present it installs nothing and touches no package list.
set -euo pipefail

packages=(
  g++ cmake make python3 git        # toolchain; git lists the files the format check reads
  libboost-dev                      # Boost >= 1.74 headers: Hana, Spirit X3
  librange-v3-dev                   # range-v3 >= 0.12
  catch2                            # Catch2 v2 (tests)
  libcli11-dev                      # CLI11 (the aicb tool's flags)
  nlohmann-json3-dev                # JSON (HF config.json, JSON outputs)
  clang-format                      # the formatting check
  clang libclang-rt-14-dev          # libFuzzer targets
  libbenchmark-dev                  # Google Benchmark (benchmarks, not run as tests)
  protobuf-compiler libprotobuf-dev # Chakra traces decoded by the real protobuf library (tests only)
  chromium                          # the HTML timeline rendered in a headless browser (tests only)
  openmpi-bin libopenmpi-dev        # aicb run: one process per rank under mpirun (CPU backend, tests)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "aicb: installing missing packages: ${missing[*]}"
sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo)
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "aicb: dependencies installed"
