#!/usr/bin/env bash
# aicb — the outside check of docs/fidelity.md ("An outside check: Megatron-Bridge's performance
# summary"): Megatron-Bridge's pre-training rows on DGX-H100 and DGX-B200 from its 25.09, 25.11, 26.02,
# 26.02.01, 26.04, 26.04.01 and 26.06 containers, each described with the flags the section states, estimated by `aicb describe`, and
# printed as a Markdown table beside the measured step time (global batch x sequence / (tokens/s/GPU x
# GPUs)), then the median error per release and family.
#
#   scripts/bridge-check.sh [path/to/aicb [host_us]]    (default: build/tool/bin/aicb)
#
# host_us, when given, prices every row with that host time per launch (--host-overhead-us): the
# sensitivity the section quotes; a row whose recipe captures the whole iteration in a CUDA graph keeps
# its host of 0.
set -euo pipefail
cd "$(dirname "$0")/.."
aicb=${1:-build/tool/bin/aicb}
host=${2:+--host-overhead-us $2}
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
gb200="--gpu GB200 --cluster gb200-nvl72"

# The 2026 releases' recipes (scripts/performance/configs/*/…_workload_base_configs.py at the tags that
# published each table: v0.3.0 for 26.02, v0.4.0 for 26.02.01 and 26.04, v0.4.2 for 26.04.01, v0.5.0 for
# 26.06): Qwen3-30B-A3B and the Nemotron 3 models on the flex dispatcher (DeepEP or HybridEP; 26.02's B200
# Qwen3 row on the all-to-all one), Qwen3-235B-A22B on the all-to-all one with its EP all-to-all overlapped
# on H100 (as the 26.02 H100 Qwen3-30B-A3B row: the combined 1F1B is modelled on the all-to-all
# dispatcher), DeepSeek-V3 on HybridEP (26.04.01's B200 row on DeepEP with its all-to-all overlapped, in
# its own per-chunk pipeline layout), GPT-OSS on B200 on HybridEP at v0.4.0 (26.02.01, 26.04) and on the
# all-to-all one otherwise; every MoE table balanced and dropless (its footnote). Every family's
# performance configuration at those tags reduces the gradients in BF16 (grad_reduce_in_fp32 False):
# the 2026 rows get --grad-dtype bf16.
flex="--moe-dispatcher flex --moe-grouped-gemm"
bf16_grads="--grad-dtype bf16"
# Their selective recomputation (recompute_modules): GPT-OSS the norms and the experts' activation,
# Nemotron 3 Nano on H100 the whole MoE block and the norms, Nemotron 3 Super on B200 the
# activation and the norms, DeepSeek-V3 on B200 MLA's up-projections (the 25.09 and 25.11 recipes too).
oss_recompute="--recompute selective --recompute-modules layernorm,moe_act"
nano_recompute="--recompute selective --recompute-modules moe,layernorm,core_attn,moe_act"
super_recompute="--recompute selective --recompute-modules moe_act,layernorm"
ds_recompute="--recompute selective --recompute-modules mla_up_proj"
a2a_overlap="--overlap-moe-expert-parallel-comm"
# DeepSeek-V3's per-chunk layout of its 26.04.01 B200 recipe (PP 8 x VPP 2), and of its H100
# performance recipe behind the model verification card (PP 8 x VPP 4: the last virtual stage holds
# the MTP module and the loss alone); a | would split a row, so the rows name them and the loop puts
# them in.
ds_pp8_vpp2_layout="Et*4|(t*4|)*14tmL"
ds_pp8_vpp4_layout="Et|(tt|)*30mL"

# The model verification cards (examples/model_verification_cards/*/card.yaml at the Bridge's
# 2026-08-22 commit): their pretrain_performance items, the tuned canonical performance recipes with
# mock data and forced expert balance, steps 41-50 averaged, on H100 and on GB200 where the job fits
# one NVL72 rack (GB300 is not in the catalogue). Each recipe as src/megatron/bridge/perf_recipes sets it:
# Qwen3-30B-A3B (qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config, NeMo 26.06) EP 16 on HybridEP with the
# EP all-to-all overlapped and delayed weight gradients off; Nemotron 3 Super
# (nemotron_3_super_pretrain_64gpu_h100_bf16_config, 26.06) PP 2 x EP 32 on HybridEP with each
# expert padded to a capacity of 1.10, its two MTP passes of one repeated layer as two MTP layers, no
# overlapped gradient reduction or weight gather; DeepSeek-V3 (deepseek_v3_pretrain_1024gpu_h100_bf16_config, 26.08.rc5)
# TP 2 x PP 8 x VPP 4 x EP 64 in its layout above, HybridEP, the weight gather overlapped, the gradient
# reduction not.
# On GB200 (NeMo 26.06, each job inside one rack's NVLink domain): GPT-OSS 120B
# (gpt_oss_120b_pretrain_64gpu_gb200_bf16_config) EP 64 on the all-to-all dispatcher with the EP
# all-to-all overlapped and delayed weight gradients; Nemotron 3 Super
# (nemotron_3_super_pretrain_64gpu_gb200_bf16_config) TP 2 x EP 64 on HybridEP, padded to 1.10 and
# recomputed as on H100, its gradient reduction and weight gather overlapped; Qwen3-30B-A3B
# (qwen3_30b_a3b_pretrain_8gpu_gb200_fp8mx_config) EP 8 on HybridEP in MXFP8 with the EP all-to-all
# overlapped and delayed weight gradients, the whole iteration captured as one CUDA graph (no host
# launches: --host-overhead-us 0) — and FP8 attention, which the estimate does not price. The hosts are
# the racks' Grace CPUs (the preset's 33 us a launch). The 256-GPU DeepSeek-V3
# and Qwen3-235B-A22B rows place 64 GPUs per rack, which the preset's 72 does not.
card_oss_gb200="--model gpt-oss-120b --ep 64 --mbs 4 $moe $a2a_overlap --delay-wgrad-compute $overlap $oss_recompute"
card_super_gb200="--model nemotron3-super-120b-a12b --num-mtp-layers 2 --tp 2 --sp --ep 64 --expert-tensor-parallel 1 --mbs 1 $flex --moe-flex-backend hybridep --moe-capacity-factor 1.1 --moe-pad-to-capacity $overlap --recompute selective --recompute-modules layernorm,moe_act,moe,core_attn"
card_qwen_gb200="--model qwen3-30b-a3b --ep 8 --mbs 4 --dtype fp8 $flex --moe-flex-backend hybridep $a2a_overlap --delay-wgrad-compute $overlap --host-overhead-us 0"
card_qwen="--model qwen3-30b-a3b --ep 16 --mbs 1 $flex $a2a_overlap $overlap"
# The same recipe with its EP exchanges exposed: the overlap A/B of the Bridge's MoE tuning notes
# (skills/nemo-mbridge-perf-moe-optimization-workflow/card.yaml, qwen3_30b_h100_case_study, at its
# 2026-08-01 commit: 24713.8 ms a step without the overlap).
card_qwen_exposed="--model qwen3-30b-a3b --ep 16 --mbs 1 $flex $overlap"
# And on the all-to-all dispatcher, eager: the CUDA-graph guide's A/B of the same recipe
# (docs/training/cuda-graphs.md, "Mid-sized MoE pretrain", at the 2026-08-01 commit: 2 H100 nodes,
# EP 16, MBS 1, GBS 1024, the flex backend cleared, the EP overlap off, iterations 5-8 averaged at
# 41.36 s eager and 42.00 s with Transformer Engine's CUDA graphs over attention, router and
# dispatch preprocessing — a graph of those scopes bought nothing, so the host did not bind there).
card_qwen_alltoall="--model qwen3-30b-a3b --ep 16 --mbs 1 $moe $overlap"
card_super="--model nemotron3-super-120b-a12b --num-mtp-layers 2 --pp 2 --ep 32 --mbs 1 $flex --moe-flex-backend hybridep --moe-capacity-factor 1.1 --moe-pad-to-capacity --distributed-optimizer --recompute selective --recompute-modules layernorm,moe_act,moe,core_attn"
card_ds="--model deepseek-v3 --tp 2 --sp --pp 8 --vpp 4 --ep 64 --expert-tensor-parallel 1 --mbs 1 $flex --distributed-optimizer --overlap-param-gather --pipeline-layout @DS_PP8_VPP4@ $ds_recompute,mlp"

# release | family | name | GPUs | global batch | sequence | tokens/s/GPU | flags
rows=(
  "26.06-card|MoE|Qwen3-30B-A3B, BF16, H100 (tuned recipe)|16|1024|4096|13011.378|$card_qwen $te_loss $h100"
  "26.06-card|MoE|Qwen3-30B-A3B, BF16, H100 (tuned recipe, EP exchanges exposed)|16|1024|4096|10607.191|$card_qwen_exposed $te_loss $h100"
  "26.06-card|MoE|Qwen3-30B-A3B, BF16, H100 (tuned recipe, all-to-all dispatcher)|16|1024|4096|6338.104|$card_qwen_alltoall $te_loss $h100"
  "26.06-card|hybrid|Nemotron 3 Super, BF16, H100 (tuned recipe)|64|1280|4096|2969.345|$card_super $te_loss $h100"
  "26.08-card|MoE|DeepSeek-V3, BF16, H100 (tuned recipe)|1024|16384|4096|1061.206|$card_ds $te_loss $h100"
  "26.06-card|MoE|GPT-OSS 120B, BF16, GB200 (tuned recipe)|64|1280|4096|16398.332|$card_oss_gb200 $te_loss $gb200"
  "26.06-card|hybrid|Nemotron 3 Super, BF16, GB200 (tuned recipe)|64|512|4096|3301.113|$card_super_gb200 $te_loss $gb200"
  "26.06-card|MoE|Qwen3-30B-A3B, MXFP8, GB200 (tuned recipe)|8|512|4096|40322.898|$card_qwen_gb200 $te_loss $gb200"
  "25.11|dense|Llama-3 8B, FP8, H100 (its FSDP run as data parallelism)|8|128|8192|14451|--model llama3-8b --mbs 1 --dtype fp8 $overlap $te_loss $h100"
  "25.11|dense|Llama-3 70B, FP8, H100|64|128|8192|1602|--model llama3-70b --tp 4 --pp 8 --vpp 5 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $te_loss $h100"
  "25.11|dense|Llama-3.1 405B, FP8, H100|1024|512|8192|292|--model llama3.1-405b --tp 8 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $te_loss $h100"
  "25.11|MoE|GPT-OSS 120B, BF16, H100|64|512|4096|5630|--model gpt-oss-120b --pp 4 --ep 8 --mbs 4 $moe $overlap $native_loss $h100 $oss_recompute"
  "25.11|MoE|Qwen3-30B-A3B, FP8, H100|16|512|4096|5275|--model qwen3-30b-a3b --pp 2 --vpp 24 --ep 8 --mbs 2 --dtype fp8 $moe $overlap $te_loss $h100"
  "25.11|dense|Llama-3 8B, FP8, B200|8|128|8192|30624|--model llama3-8b --mbs 2 --dtype fp8 $overlap $te_loss $b200"
  "25.11|dense|Llama-3.1 405B, FP8, B200|128|64|8192|661|--model llama3.1-405b --tp 4 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $te_loss $b200"
  "25.11|MoE|DeepSeek-V3, FP8-MX, B200|256|2048|4096|2139|--model deepseek-v3 --pp 16 --ep 8 --mbs 1 --dtype fp8 $moe $overlap --first-stage-layers 4 --last-stage-layers 1 $te_loss $b200 $ds_recompute"
  "25.11|MoE|GPT-OSS 120B, BF16, B200|64|512|4096|8213|--model gpt-oss-120b --ep 8 --mbs 4 $moe $overlap $native_loss $b200 $oss_recompute"
  "25.11|MoE|Qwen3-30B-A3B, FP8-MX, B200|8|512|4096|9299|--model qwen3-30b-a3b --ep 8 --mbs 1 --dtype fp8 $moe $overlap $te_loss $b200"
  "25.11|MoE|Qwen3-235B-A22B, FP8-MX, B200|64|1024|4096|3269|--model qwen3-235b-a22b --pp 8 --vpp 2 --ep 8 --mbs 1 --dtype fp8 $moe $overlap $split $te_loss $b200"
  "25.09|dense|Llama-3 8B, FP8, H100 (its FSDP run as data parallelism)|8|128|8192|14079|--model llama3-8b --mbs 1 --dtype fp8 $overlap $native_loss $h100"
  "25.09|dense|Llama-3 70B, FP8, H100|64|128|8192|1619|--model llama3-70b --tp 4 --pp 8 --vpp 5 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $native_loss $h100"
  "25.09|dense|Llama-3.1 405B, FP8, H100|1024|512|8192|302|--model llama3.1-405b --tp 8 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $native_loss $h100"
  "25.09|MoE|Qwen3-30B-A3B, FP8, H100 (token drop)|16|512|4096|10494|--model qwen3-30b-a3b --pp 2 --vpp 24 --ep 8 --mbs 2 --dtype fp8 $moe $drop $overlap $te_loss $h100"
  "25.09|MoE|Qwen3-235B-A22B, FP8, H100 (token drop)|256|2048|4096|1204|--model qwen3-235b-a22b --tp 2 --expert-tensor-parallel 1 --pp 8 --vpp 4 --ep 32 --sp --mbs 1 --dtype fp8 $moe $drop $overlap --tp-comm-overlap $split $te_loss $h100"
  "25.09|dense|Llama-3 8B, FP8, B200|8|128|8192|29994|--model llama3-8b --mbs 2 --dtype fp8 $overlap $native_loss $b200"
  "25.09|dense|Llama-3.1 405B, FP8, B200|128|64|8192|664|--model llama3.1-405b --tp 4 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $native_loss $b200"
  "25.09|MoE|DeepSeek-V3, FP8, B200 (token drop)|256|2048|4096|2265|--model deepseek-v3 --pp 16 --ep 8 --mbs 1 --dtype fp8 $moe $drop $overlap --first-stage-layers 4 --last-stage-layers 1 $te_loss $b200 $ds_recompute"
  "25.09|MoE|Qwen3-30B-A3B, FP8, B200 (token drop)|8|512|4096|18066|--model qwen3-30b-a3b --ep 8 --mbs 1 --dtype fp8 $moe $drop $overlap $te_loss $b200"
  "25.09|MoE|Qwen3-235B-A22B, FP8, B200 (token drop)|64|1024|4096|4104|--model qwen3-235b-a22b --pp 8 --vpp 2 --ep 8 --mbs 1 --dtype fp8 $moe $drop $overlap $split $te_loss $b200"
  "26.06|dense|Llama-3.1 405B, FP8, H100|1024|1536|8192|326|--model llama3.1-405b --tp 8 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $te_loss $h100"
  "26.06|MoE|Qwen3-30B-A3B, FP8, H100|16|1024|4096|8826|--model qwen3-30b-a3b --ep 16 --mbs 1 --dtype fp8 $flex $overlap $te_loss $h100"
  "26.06|hybrid|Nemotron 3 Nano, FP8, H100|16|1024|8192|14719|--model nemotron3-nano-30b-a3b --ep 8 --mbs 1 --dtype fp8 $flex $overlap $te_loss $h100 $nano_recompute"
  "26.04.01|dense|Llama-3 70B, FP8, H100|64|256|8192|1664|--model llama3-70b --tp 4 --pp 8 --vpp 5 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $te_loss $h100"
  "26.04.01|dense|Llama-3.1 405B, FP8, H100|1024|1536|8192|328|--model llama3.1-405b --tp 8 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $te_loss $h100"
  "26.04.01|MoE|DeepSeek-V3, MXFP8, B200|256|4096|4096|3328|--model deepseek-v3 --pp 8 --vpp 2 --ep 32 --mbs 1 --dtype fp8 $flex $a2a_overlap $overlap --pipeline-layout @DS_PP8_VPP2@ $te_loss $b200 --recompute selective --recompute-modules mla_up_proj,mlp"
  "26.04.01|MoE|GPT-OSS 120B, BF16, B200|64|1280|4096|13568|--model gpt-oss-120b --ep 8 --mbs 4 $moe $overlap $native_loss $b200 $oss_recompute"
  "26.04.01|MoE|GPT-OSS 120B, BF16, H100|64|1280|4096|5824|--model gpt-oss-120b --pp 4 --ep 8 --mbs 1 $moe $overlap $native_loss $h100 $oss_recompute"
  "26.04.01|MoE|Qwen3-30B-A3B, MXFP8, B200|8|512|4096|27136|--model qwen3-30b-a3b --ep 8 --mbs 4 --dtype fp8 $flex $overlap $te_loss $b200"
  "26.04.01|MoE|Qwen3-30B-A3B, FP8, H100|16|1024|4096|8960|--model qwen3-30b-a3b --ep 16 --mbs 1 --dtype fp8 $flex $overlap $te_loss $h100"
  "26.04.01|MoE|Qwen3-235B-A22B, MXFP8, B200|256|8192|4096|3776|--model qwen3-235b-a22b --pp 8 --ep 8 --mbs 1 --dtype fp8 $moe $overlap $split $te_loss $b200"
  "26.04.01|MoE|Qwen3-235B-A22B, FP8, H100|256|8192|4096|1712|--model qwen3-235b-a22b --tp 2 --expert-tensor-parallel 1 --pp 8 --vpp 4 --ep 32 --sp --mbs 1 --dtype fp8 $moe $a2a_overlap $overlap --tp-comm-overlap $split $te_loss $h100"
  "26.04.01|hybrid|Nemotron 3 Nano, MXFP8, B200|8|512|8192|32768|--model nemotron3-nano-30b-a3b --ep 8 --mbs 2 --dtype fp8 $flex $overlap $te_loss $b200"
  "26.04.01|hybrid|Nemotron 3 Nano, FP8, H100|16|1024|8192|14336|--model nemotron3-nano-30b-a3b --ep 8 --mbs 1 --dtype fp8 $flex $overlap $te_loss $h100 $nano_recompute"
  "26.04.01|hybrid|Nemotron 3 Super, MXFP8, B200|64|512|8192|6400|--model nemotron3-super-120b-a12b --ep 64 --mbs 1 --dtype fp8 $flex $overlap $te_loss $b200 $super_recompute"
  "26.04|dense|Llama-3 70B, FP8, H100|64|256|8192|1633|--model llama3-70b --tp 4 --pp 8 --vpp 5 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $te_loss $h100"
  "26.04|MoE|DeepSeek-V3, MXFP8, B200|256|4096|4096|2815|--model deepseek-v3 --pp 16 --ep 8 --mbs 1 --dtype fp8 $flex $overlap --first-stage-layers 4 --last-stage-layers 1 $te_loss $b200 $ds_recompute"
  "26.04|MoE|GPT-OSS 120B, BF16, B200|64|1280|4096|13045|--model gpt-oss-120b --ep 8 --mbs 4 $flex $overlap $native_loss $b200 $oss_recompute"
  "26.04|MoE|GPT-OSS 120B, BF16, H100|64|1280|4096|5810|--model gpt-oss-120b --pp 4 --ep 8 --mbs 1 $moe $overlap $native_loss $h100 $oss_recompute"
  "26.04|MoE|Qwen3-30B-A3B, MXFP8, B200|8|512|4096|26859|--model qwen3-30b-a3b --ep 8 --mbs 4 --dtype fp8 $flex $overlap $te_loss $b200"
  "26.04|MoE|Qwen3-30B-A3B, FP8, H100|16|1024|4096|8901|--model qwen3-30b-a3b --ep 16 --mbs 1 --dtype fp8 $flex $overlap $te_loss $h100"
  "26.04|MoE|Qwen3-235B-A22B, FP8, H100|256|8192|4096|1686|--model qwen3-235b-a22b --tp 2 --expert-tensor-parallel 1 --pp 8 --vpp 4 --ep 32 --sp --mbs 1 --dtype fp8 $moe $a2a_overlap $overlap --tp-comm-overlap $split $te_loss $h100"
  "26.04|hybrid|Nemotron 3 Nano, FP8, H100|16|1024|8192|14507|--model nemotron3-nano-30b-a3b --ep 8 --mbs 1 --dtype fp8 $flex $overlap $te_loss $h100 $nano_recompute"
  "26.04|hybrid|Nemotron 3 Super, MXFP8, B200|64|512|8192|6302|--model nemotron3-super-120b-a12b --ep 64 --mbs 1 --dtype fp8 $flex $overlap $te_loss $b200 $super_recompute"
  "26.02.01|dense|Llama-3 70B, FP8, H100|64|256|8192|1639|--model llama3-70b --tp 4 --pp 8 --vpp 5 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $te_loss $h100"
  "26.02.01|MoE|DeepSeek-V3, MXFP8, B200|256|4096|4096|2790|--model deepseek-v3 --pp 16 --ep 8 --mbs 1 --dtype fp8 $flex $overlap --first-stage-layers 4 --last-stage-layers 1 $te_loss $b200 $ds_recompute"
  "26.02.01|MoE|GPT-OSS 120B, BF16, B200|64|1280|4096|13722|--model gpt-oss-120b --ep 8 --mbs 4 $flex $overlap $native_loss $b200 $oss_recompute"
  "26.02.01|MoE|GPT-OSS 120B, BF16, H100|64|1280|4096|5984|--model gpt-oss-120b --pp 4 --ep 8 --mbs 1 $moe $overlap $native_loss $h100 $oss_recompute"
  "26.02.01|MoE|Qwen3-30B-A3B, MXFP8, B200|8|512|4096|26695|--model qwen3-30b-a3b --ep 8 --mbs 4 --dtype fp8 $flex $overlap $te_loss $b200"
  "26.02.01|MoE|Qwen3-30B-A3B, FP8, H100|16|1024|4096|9058|--model qwen3-30b-a3b --pp 2 --vpp 12 --ep 8 --mbs 1 --dtype fp8 $moe $a2a_overlap $overlap $te_loss $h100"
  "26.02.01|MoE|Qwen3-235B-A22B, FP8, H100|256|8192|4096|1611|--model qwen3-235b-a22b --tp 2 --expert-tensor-parallel 1 --pp 8 --vpp 4 --ep 32 --sp --mbs 1 --dtype fp8 $moe $a2a_overlap $overlap --tp-comm-overlap $split $te_loss $h100"
  "26.02.01|hybrid|Nemotron 3 Nano, FP8, H100|16|1024|8192|14890|--model nemotron3-nano-30b-a3b --ep 8 --mbs 1 --dtype fp8 $flex $overlap $te_loss $h100 $nano_recompute"
  "26.02|dense|Llama-3 70B, FP8, H100|64|256|8192|1621|--model llama3-70b --tp 4 --pp 8 --vpp 5 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $te_loss $h100"
  "26.02|dense|Llama-3.1 405B, FP8, H100|1024|1536|8192|311|--model llama3.1-405b --tp 8 --pp 8 --vpp 8 --cp 2 --sp --mbs 1 --dtype fp8 $overlap --tp-comm-overlap $split $te_loss $h100"
  "26.02|MoE|DeepSeek-V3, MXFP8, B200|256|4096|4096|2689|--model deepseek-v3 --pp 16 --ep 8 --mbs 1 --dtype fp8 $flex $overlap --first-stage-layers 4 --last-stage-layers 1 $te_loss $b200 $ds_recompute"
  "26.02|MoE|GPT-OSS 120B, BF16, B200|64|1280|4096|8047|--model gpt-oss-120b --ep 64 --mbs 4 $moe $overlap $native_loss $b200 $oss_recompute"
  "26.02|MoE|GPT-OSS 120B, BF16, H100|64|1280|4096|5993|--model gpt-oss-120b --pp 4 --ep 8 --mbs 1 $moe $overlap $native_loss $h100 $oss_recompute"
  "26.02|MoE|Qwen3-30B-A3B, MXFP8, B200|8|512|4096|9691|--model qwen3-30b-a3b --ep 8 --mbs 1 --dtype fp8 $moe $overlap $te_loss $b200"
  "26.02|MoE|Qwen3-30B-A3B, FP8, H100|16|1024|4096|5113|--model qwen3-30b-a3b --pp 2 --vpp 12 --ep 8 --mbs 1 --dtype fp8 $moe $a2a_overlap $overlap $te_loss $h100"
  "26.02|MoE|Qwen3-235B-A22B, MXFP8, B200|256|8192|4096|3805|--model qwen3-235b-a22b --pp 8 --ep 8 --mbs 1 --dtype fp8 $moe $overlap $split $te_loss $b200"
  "26.02|MoE|Qwen3-235B-A22B, FP8, H100|256|8192|4096|1633|--model qwen3-235b-a22b --tp 2 --expert-tensor-parallel 1 --pp 8 --vpp 4 --ep 32 --sp --mbs 1 --dtype fp8 $moe $a2a_overlap $overlap --tp-comm-overlap $split $te_loss $h100"
)

set -f  # the flags are split into words, never expanded as file names (a layout has * in it)
results=$(mktemp)
workloads=$(mktemp -d)
trap 'rm -rf "$results" "$workloads"' EXIT
echo "| release | run | GPUs | measured s | estimate s | error | SimAI-Analytical s | error |"
echo "|---|---|---|---|---|---|---|---|"
index=0
for row in "${rows[@]}"; do
  IFS='|' read -r release family name gpus batch seq rate flags <<<"$row"
  flags=${flags//@DS_PP8_VPP2@/$ds_pp8_vpp2_layout}
  flags=${flags//@DS_PP8_VPP4@/$ds_pp8_vpp4_layout}
  [[ $release == 26.* ]] && flags="$flags $bf16_grads"
  # The FP8 recipe the row names: MXFP8 (FP8-MX) on Blackwell, per-tensor current scaling otherwise
  # (the Bridge's fp8_cs; the 25.09 table's figures outside parentheses).
  case $name in
    *MXFP8* | *FP8-MX*) flags="$flags --fp8-recipe mxfp8" ;;
    *FP8*) flags="$flags --fp8-recipe tensorwise" ;;
  esac
  row_host=$host
  [[ $flags == *--host-overhead-us* ]] && row_host=  # a row whose recipe graphs the iteration keeps its 0
  # shellcheck disable=SC2086  # the flags are words
  output=$("$aicb" describe $flags $row_host --world-size "$gpus" --global-batch "$batch" --seq "$seq" 2>&1)
  estimate=$(awk '/iteration time/ {print $3}' <<<"$output")
  fits=$(grep -q "does not fit" <<<"$output" && echo " (beyond the memory counted)" || true)
  index=$((index + 1))
  # SimAI-Analytical on the default-mode file `aicb generate` writes for the job, priced by
  # scripts/fidelity.py's model of it with the machines' SimAI flags: the job's flags without the
  # estimate's own.
  ROW_FLAGS="$flags --world-size $gpus --global-batch $batch --seq $seq" AICB="$aicb" \
    WORKLOAD="$workloads/$index.txt" python3 -c "
import os, sys
sys.path.insert(0, 'scripts')
import fidelity
words = os.environ['ROW_FLAGS'].split()
estimate_only = {'--overlap-param-gather': 0, '--tp-comm-overlap': 0, '--overlap-p2p': 0,
                 '--host-overhead-us': 1, '--gpu': 1, '--cluster': 1}
job, gpu, cluster, i = [], None, None, 0
while i < len(words):
    w = words[i]
    if w == '--gpu': gpu = words[i + 1]
    if w == '--cluster': cluster = words[i + 1]
    if w in estimate_only:
        i += 1 + estimate_only[w]
        continue
    job.append(w)
    i += 1
measured = $batch * $seq / ($rate * $gpus)
estimate = float('${estimate:-nan}')
error = (estimate / measured - 1) * 100
try:
    simai = fidelity.simai_seconds(os.environ['AICB'], gpu, cluster, job, $gpus, os.environ['WORKLOAD'])
    simai_error = (simai / measured - 1) * 100
    simai_cells = '%.2f | %+.1f%%' % (simai, simai_error)
except RuntimeError as e:  # what the format cannot express, in aicb's words
    reason = str(e).replace('aicb: configuration error: ', '').split('; see')[0]
    simai_error, simai_cells = None, '– | – (%s)' % reason
print('| $release | $name$fits | $gpus | %.2f | %.2f | %+.1f%% | %s |' % (measured, estimate, error, simai_cells))
open('$results', 'a').write('$release $family %r %r\\n' % (error, simai_error))"
done
python3 - "$results" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]


def medians(label, selected):
    """`label`: both predictions' median error and median absolute error over the rows `selected`."""
    parts = []
    for column, name in ((2, "estimate"), (3, "SimAI-Analytical")):
        errors = [float(r[column]) for r in selected if r[column] != "None"]
        if errors:
            parts.append("%s median error %+.1f%%, median absolute %.1f%% (%d runs)" % (
                name, statistics.median(errors), statistics.median(abs(e) for e in errors), len(errors)))
        else:
            parts.append("%s: no file" % name)
    print("- %s: %s" % (label, "; ".join(parts)))


print()
for release in sorted({r[0] for r in rows},
                      key=lambda r: [int(x) for x in r.split("-")[0].split(".")] + [r.endswith("card")],
                      reverse=True):
    for family in ("dense", "MoE", "hybrid"):
        selected = [r for r in rows if r[0] == release and r[1] == family]
        if selected:
            medians("%s, %s" % (release, family), selected)
for family in ("dense", "MoE", "hybrid", "all"):
    medians("every release, %s" % family, [r for r in rows if family in ("all", r[1])])
for source, cards in (("the performance tables", False), ("the verification cards", True)):
    medians("%s, all" % source, [r for r in rows if r[0].endswith("card") == cards])
EOF
