#!/usr/bin/env bash
# aicb — the outside check of docs/fidelity.md ("An outside check: Megatron-Bridge's performance
# summary"): Megatron-Bridge's 25.11 pre-training rows on DGX-H100 and DGX-B200, each described with the
# flags the section states, estimated by `aicb describe`, and printed as a Markdown table beside the
# measured step time (global batch x sequence / (tokens/s/GPU x GPUs)).
#
#   scripts/bridge-check.sh [path/to/aicb]    (default: build/tool/bin/aicb)
set -euo pipefail
cd "$(dirname "$0")/.."
aicb=${1:-build/tool/bin/aicb}
overlap="--distributed-optimizer --overlap-grad-reduce --overlap-param-gather"
moe="--moe-dispatcher alltoall --moe-grouped-gemm"
split="--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split"
h100="--gpu H100 --cluster dgx-h100"
b200="--gpu B200 --cluster dgx-b200"

# name | GPUs | global batch | sequence | tokens/s/GPU | flags
rows=(
  "Llama-3 8B, FP8, H100|8|128|8192|14451|--model llama3-8b --mbs 1 --dtype fp8 $overlap $h100"
  "Llama-3 70B, FP8, H100|64|128|8192|1602|--model llama3-70b --tp 4 --pp 8 --vpp 5 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $h100"
  "Llama-3.1 405B, FP8, H100|1024|512|8192|292|--model llama3.1-405b --tp 8 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $h100"
  "GPT-OSS 120B, BF16, H100|64|512|4096|5630|--model gpt-oss-120b --pp 4 --ep 8 --mbs 4 $moe $overlap $h100"
  "Qwen3-30B-A3B, FP8, H100|16|512|4096|5275|--model qwen3-30b-a3b --pp 2 --vpp 24 --ep 8 --mbs 2 --dtype fp8 $moe $overlap $h100"
  "Llama-3 8B, FP8, B200|8|128|8192|30624|--model llama3-8b --mbs 2 --dtype fp8 $overlap $b200"
  "Llama-3.1 405B, FP8, B200|128|64|8192|661|--model llama3.1-405b --tp 4 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $b200"
  "DeepSeek-V3, FP8-MX, B200|256|2048|4096|2139|--model deepseek-v3 --pp 16 --ep 8 --mbs 1 --dtype fp8 $moe $overlap --first-stage-layers 4 --last-stage-layers 1 $b200"
  "GPT-OSS 120B, BF16, B200|64|512|4096|8213|--model gpt-oss-120b --ep 8 --mbs 4 $moe $overlap $b200"
  "Qwen3-30B-A3B, FP8-MX, B200|8|512|4096|9299|--model qwen3-30b-a3b --ep 8 --mbs 1 --dtype fp8 $moe $overlap $b200"
  "Qwen3-235B-A22B, FP8-MX, B200|64|1024|4096|3269|--model qwen3-235b-a22b --pp 8 --vpp 2 --ep 8 --mbs 1 --dtype fp8 $moe $overlap $split $b200"
)

echo "| run | GPUs | measured s | estimate s | error |"
echo "|---|---|---|---|---|"
for row in "${rows[@]}"; do
  IFS='|' read -r name gpus batch seq rate flags <<<"$row"
  # shellcheck disable=SC2086  # the flags are words
  estimate=$("$aicb" describe $flags --world-size "$gpus" --global-batch "$batch" --seq "$seq" 2>/dev/null |
    awk '/iteration time/ {print $3}')
  python3 -c "
measured = $batch * $seq / ($rate * $gpus)
estimate = float('${estimate:-nan}')
print('| $name | $gpus | %.2f | %.2f | %+.1f%% |' % (measured, estimate, (estimate / measured - 1) * 100))"
done
