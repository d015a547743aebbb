#!/usr/bin/env bash
# aicb — the profiler's check on a real GPU, in one run: builds aicb with CUDA, runs the CUDA tests
# (every kernel against its float64 reference, in bf16, fp16 and fp32), replays a collective sweep on
# NCCL (`aicb run --backend nccl`), profiles a dense and a MoE preset, and prints one table per
# preset: each operation's time, achieved TFLOP/s and GB/s against
# the GPU's datasheet peaks, and — where PyTorch is installed — PyTorch's time for the same GEMM and
# attention shapes (cuda/torch_reference.py). Writes everything under ${OUT:-build/gpu-check}.
#
#   cuda/check-on-gpu.sh            # on a machine with an NVIDIA GPU, driver and CUDA toolkit
#   AICB_PREBUILT=build/gpu cuda/check-on-gpu.sh
#                                   # with programs built elsewhere (cmake -DAICB_BUILD_CUDA=ON, targets
#                                   # aicb_tool aicb_profile_tool aicb_cuda_tests): for a GPU machine
#                                   # without aicb's build dependencies
#   AICB_CURVES="gemm attention_passes" cuda/check-on-gpu.sh
#                                   # only those sections of the efficiency curves (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/gpu-check}
mkdir -p "$out"
jobs=${AICB_JOBS:-$(nproc)}

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv |
  tee "$out/nvidia-smi.csv"

build=${AICB_PREBUILT:-build/gpu}
if [[ -z "${AICB_PREBUILT:-}" ]]; then
  scripts/install-deps.sh
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DAICB_BUILD_CUDA=ON >/dev/null
  cmake --build "$build" -j "$jobs" --target aicb_tool aicb_profile_tool aicb_cuda_tests aicb_run_tool
fi
# Every step runs even when an earlier one fails (one GPU session should show every problem); the
# script fails at the end naming the steps that failed.
failed=()
step() {
  local name=$1 log=$2
  shift 2
  echo "== $name"
  if ! "$@" 2>&1 | tee "$log"; then failed+=("$name"); fi
}

aicb=$build/bin/aicb
step "CUDA tests" "$out/cuda-tests.log" "$build/tests/aicb_cuda_tests"
step "kernel check" "$out/check-bf16.log" "$aicb" profile --check-only --dtype bf16

# The two presets: a dense model and a mixture of experts, each on one GPU's TP shard.
step "profile llama3-8b" "$out/llama3-8b.log" "$aicb" profile --model llama3-8b --world-size 8 --tp 1 \
  --seq 4096 --mbs 1 --skip-check -o "$out/llama3-8b.aiob.txt"
step "profile mixtral-8x7b" "$out/mixtral-8x7b.log" "$aicb" profile --model mixtral-8x7b --world-size 8 \
  --tp 2 --ep 4 --sp --seq 4096 --mbs 1 --skip-check -o "$out/mixtral-8x7b.aiob.txt"

# `aicb run` on NCCL, one process on one GPU (no MPI needed): a sweep with its data check — times and
# algorithm bandwidths (bus bandwidth is 0 for a group of one, as in nccl-tests).
step "aicb run, nccl backend" "$out/run-nccl.log" "$aicb" run --backend nccl \
  --sweep all_reduce,all_gather,reduce_scatter,all_to_all --sizes 1MiB:1GiB --warmup 5 --repeat 20 --check \
  -o "$out/run-nccl.json"

# The same sweep in nccl-tests' own text (one table per collective), and a one-rank job replayed
# overlapped (collectives on the communication stream; groups of one run nothing, so this checks the
# stream and event path's set-up and tear-down, not the overlap).
step "aicb run, nccl-tests text" "$out/run-nccl-tests.txt" "$aicb" run --backend nccl \
  --sweep all_reduce,all_to_all --sizes 1MiB:256MiB --warmup 5 --repeat 20 --format nccl-tests
step "aicb run, overlapped job" "$out/run-overlap.log" "$aicb" run --backend nccl --model llama3-8b \
  --num-layers 2 --global-batch 1 --seq 4096 --overlap --check -o "$out/run-overlap.json"

# Read back by aicb's own reader rules and by the library.
step "read back" "$out/aiob-show.log" "$aicb" aiob show "$out/llama3-8b.aiob.txt"

if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  step "PyTorch comparison" "$out/torch.md" python3 cuda/torch_reference.py "$out/llama3-8b.log" \
    "$out/mixtral-8x7b.log"
  # The curves of the physics compute model (docs/compute-model.md), measured on this GPU.
  step "efficiency curves" "$out/curves.log" python3 cuda/efficiency_curves.py "$out/curves" ${AICB_CURVES:-}
else
  echo "PyTorch with CUDA is not installed: no PyTorch comparison" | tee "$out/torch.md"
fi
echo "results in $out"
if ((${#failed[@]})); then
  printf 'failed: %s\n' "${failed[@]}"
  exit 1
fi
