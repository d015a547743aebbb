#!/usr/bin/env bash
# aicb — the profiler's check on a real GPU, in one run: builds aicb with CUDA, runs the CUDA tests
# (every kernel against its float64 reference, in bf16, fp16 and fp32), profiles a dense and a MoE
# preset, and prints one table per preset: each operation's time, achieved TFLOP/s and GB/s against
# the GPU's datasheet peaks, and — where PyTorch is installed — PyTorch's time for the same GEMM and
# attention shapes (cuda/torch_reference.py). Writes everything under ${OUT:-build/gpu-check}.
#
#   cuda/check-on-gpu.sh            # on a machine with an NVIDIA GPU, driver and CUDA toolkit
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/gpu-check}
mkdir -p "$out"
jobs=${AICB_JOBS:-$(nproc)}

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv |
  tee "$out/nvidia-smi.csv"

scripts/install-deps.sh
cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=Release -DAICB_BUILD_CUDA=ON >/dev/null
cmake --build build/gpu -j "$jobs" --target aicb_tool aicb_cuda_tests
build/gpu/tests/aicb_cuda_tests 2>&1 | tee "$out/cuda-tests.log"

aicb=build/gpu/bin/aicb
"$aicb" profile --check-only --dtype bf16 2>&1 | tee "$out/check-bf16.log"

# The two presets: a dense model and a mixture of experts, each on one GPU's TP shard.
"$aicb" profile --model llama3-8b --world-size 8 --tp 1 --seq 4096 --mbs 1 --skip-check \
  -o "$out/llama3-8b.aiob.txt" 2>&1 | tee "$out/llama3-8b.log"
"$aicb" profile --model mixtral-8x7b --world-size 8 --tp 2 --ep 4 --sp --seq 4096 --mbs 1 --skip-check \
  -o "$out/mixtral-8x7b.aiob.txt" 2>&1 | tee "$out/mixtral-8x7b.log"

# Read back by aicb's own reader rules and by the library.
"$aicb" aiob show "$out/llama3-8b.aiob.txt" | head -n 30

if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  python3 cuda/torch_reference.py "$out/llama3-8b.log" "$out/mixtral-8x7b.log" | tee "$out/torch.md"
else
  echo "PyTorch with CUDA is not installed: no PyTorch comparison" | tee "$out/torch.md"
fi
echo "results in $out"
