#!/usr/bin/env bash
# aicb — the outside check of docs/fidelity.md ("An outside check: Megatron-Bridge's performance
# summary"): Megatron-Bridge's pre-training rows on DGX-H100 and DGX-B200 from its 25.09 and 25.11
# containers, each described with the flags the section states, estimated by `aicb describe`, and
# printed as a Markdown table beside the measured step time (global batch x sequence / (tokens/s/GPU x
# GPUs)), then the median error per release and family.
#
#   scripts/bridge-check.sh [path/to/aicb]    (default: build/tool/bin/aicb)
set -euo pipefail
cd "$(dirname "$0")/.."
aicb=${1:-build/tool/bin/aicb}
overlap="--distributed-optimizer --overlap-grad-reduce --overlap-param-gather"
moe="--moe-dispatcher alltoall --moe-grouped-gemm"
# 25.09's MoE rows drop tokens: capacity factor 1, padded (its run_script's apply_moe_token_drop).
drop="--moe-capacity-factor 1 --moe-pad-to-capacity"
split="--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split"
# The loss as the recipes run it: the GPT provider's fused cross-entropy, Transformer Engine's in the
# Llama-3, Qwen3 and DeepSeek recipes, Megatron's in GPT-OSS's.
te_loss="--cross-entropy-loss-fusion --cross-entropy-fusion-impl te"
native_loss="--cross-entropy-loss-fusion"
h100="--gpu H100 --cluster dgx-h100"
b200="--gpu B200 --cluster dgx-b200"

# release | family | name | GPUs | global batch | sequence | tokens/s/GPU | flags
rows=(
  "25.11|dense|Llama-3 8B, FP8, H100 (its FSDP run as data parallelism)|8|128|8192|14451|--model llama3-8b --mbs 1 --dtype fp8 $overlap $te_loss $h100"
  "25.11|dense|Llama-3 70B, FP8, H100|64|128|8192|1602|--model llama3-70b --tp 4 --pp 8 --vpp 5 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $te_loss $h100"
  "25.11|dense|Llama-3.1 405B, FP8, H100|1024|512|8192|292|--model llama3.1-405b --tp 8 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $te_loss $h100"
  "25.11|MoE|GPT-OSS 120B, BF16, H100|64|512|4096|5630|--model gpt-oss-120b --pp 4 --ep 8 --mbs 4 $moe $overlap $native_loss $h100"
  "25.11|MoE|Qwen3-30B-A3B, FP8, H100|16|512|4096|5275|--model qwen3-30b-a3b --pp 2 --vpp 24 --ep 8 --mbs 2 --dtype fp8 $moe $overlap $te_loss $h100"
  "25.11|dense|Llama-3 8B, FP8, B200|8|128|8192|30624|--model llama3-8b --mbs 2 --dtype fp8 $overlap $te_loss $b200"
  "25.11|dense|Llama-3.1 405B, FP8, B200|128|64|8192|661|--model llama3.1-405b --tp 4 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $te_loss $b200"
  "25.11|MoE|DeepSeek-V3, FP8-MX, B200|256|2048|4096|2139|--model deepseek-v3 --pp 16 --ep 8 --mbs 1 --dtype fp8 $moe $overlap --first-stage-layers 4 --last-stage-layers 1 $te_loss $b200"
  "25.11|MoE|GPT-OSS 120B, BF16, B200|64|512|4096|8213|--model gpt-oss-120b --ep 8 --mbs 4 $moe $overlap $native_loss $b200"
  "25.11|MoE|Qwen3-30B-A3B, FP8-MX, B200|8|512|4096|9299|--model qwen3-30b-a3b --ep 8 --mbs 1 --dtype fp8 $moe $overlap $te_loss $b200"
  "25.11|MoE|Qwen3-235B-A22B, FP8-MX, B200|64|1024|4096|3269|--model qwen3-235b-a22b --pp 8 --vpp 2 --ep 8 --mbs 1 --dtype fp8 $moe $overlap $split $te_loss $b200"
  "25.09|dense|Llama-3 8B, FP8, H100 (its FSDP run as data parallelism)|8|128|8192|14079|--model llama3-8b --mbs 1 --dtype fp8 $overlap $native_loss $h100"
  "25.09|dense|Llama-3 70B, FP8, H100|64|128|8192|1619|--model llama3-70b --tp 4 --pp 8 --vpp 5 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $native_loss $h100"
  "25.09|dense|Llama-3.1 405B, FP8, H100|1024|512|8192|302|--model llama3.1-405b --tp 8 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $native_loss $h100"
  "25.09|MoE|Qwen3-30B-A3B, FP8, H100 (token drop)|16|512|4096|10494|--model qwen3-30b-a3b --pp 2 --vpp 24 --ep 8 --mbs 2 --dtype fp8 $moe $drop $overlap $te_loss $h100"
  "25.09|MoE|Qwen3-235B-A22B, FP8, H100 (token drop)|256|2048|4096|1204|--model qwen3-235b-a22b --tp 2 --expert-tensor-parallel 1 --pp 8 --vpp 4 --ep 32 --sp --mbs 1 --dtype fp8 $moe $drop $overlap --tp-comm-overlap $split $te_loss $h100"
  "25.09|dense|Llama-3 8B, FP8, B200|8|128|8192|29994|--model llama3-8b --mbs 2 --dtype fp8 $overlap $native_loss $b200"
  "25.09|dense|Llama-3.1 405B, FP8, B200|128|64|8192|664|--model llama3.1-405b --tp 4 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $native_loss $b200"
  "25.09|MoE|DeepSeek-V3, FP8, B200 (token drop)|256|2048|4096|2265|--model deepseek-v3 --pp 16 --ep 8 --mbs 1 --dtype fp8 $moe $drop $overlap --first-stage-layers 4 --last-stage-layers 1 $te_loss $b200"
  "25.09|MoE|Qwen3-30B-A3B, FP8, B200 (token drop)|8|512|4096|18066|--model qwen3-30b-a3b --ep 8 --mbs 1 --dtype fp8 $moe $drop $overlap $te_loss $b200"
  "25.09|MoE|Qwen3-235B-A22B, FP8, B200 (token drop)|64|1024|4096|4104|--model qwen3-235b-a22b --pp 8 --vpp 2 --ep 8 --mbs 1 --dtype fp8 $moe $drop $overlap $split $te_loss $b200"
)

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "| release | run | GPUs | measured s | estimate s | error |"
echo "|---|---|---|---|---|---|"
for row in "${rows[@]}"; do
  IFS='|' read -r release family name gpus batch seq rate flags <<<"$row"
  # shellcheck disable=SC2086  # the flags are words
  estimate=$("$aicb" describe $flags --world-size "$gpus" --global-batch "$batch" --seq "$seq" 2>/dev/null |
    awk '/iteration time/ {print $3}')
  python3 -c "
measured = $batch * $seq / ($rate * $gpus)
estimate = float('${estimate:-nan}')
error = (estimate / measured - 1) * 100
print('| $release | $name | $gpus | %.2f | %.2f | %+.1f%% |' % (measured, estimate, error))
open('$results', 'a').write('$release $family %r\n' % error)"
done
python3 - "$results" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
print()
for release in sorted({r[0] for r in rows}, reverse=True):
    for family in ("dense", "MoE"):
        errors = [float(r[2]) for r in rows if r[0] == release and r[1] == family]
        if errors:
            print("- %s, %s: median error %+.1f%%, median absolute %.1f%% (%d runs)" % (
                release, family, statistics.median(errors), statistics.median(abs(e) for e in errors), len(errors)))
EOF
