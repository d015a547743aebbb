# Tests of the aicb command-line tool: exit status and output of real invocations.
#   aicb_cli_test(<name> [REFERENCE] [STATUS <n>] [EXPECT <regex>...] [REJECT <regex>...] ARGS <arg>...)
# REFERENCE: the command reads the shared reference material; without it the test is skipped (and
# fails in CI), as tests/reference.hpp does for the unit tests.
function(aicb_cli_test name)
  cmake_parse_arguments(arg "REFERENCE" "STATUS" "EXPECT;REJECT;ARGS" ${ARGN})
  if(NOT DEFINED arg_STATUS)
    set(arg_STATUS 0)
  endif()
  # Lists cross into the script joined by "@@" (a ;-list would be split by add_test).
  list(JOIN arg_ARGS "@@" command)
  list(JOIN arg_EXPECT "@@" expect)
  list(JOIN arg_REJECT "@@" reject)
  set(command "$<TARGET_FILE:aicb_tool>@@${command}")
  set(reference "")
  if(arg_REFERENCE)
    set(reference "-DREFERENCE_DIR=${AICB_REFERENCE_DIR}")
  endif()
  add_test(NAME cli.${name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command}" "-DEXPECT_STATUS=${arg_STATUS}" "-DEXPECT_OUTPUT=${expect}"
                   "-DREJECT_OUTPUT=${reject}" "-DWORKING_DIRECTORY=${CMAKE_CURRENT_BINARY_DIR}" ${reference}
                   -P "${CMAKE_CURRENT_SOURCE_DIR}/cmake/run_command.cmake")
  set_tests_properties(cli.${name} PROPERTIES LABELS cli SKIP_REGULAR_EXPRESSION "skipped: reference folder")
endfunction()

aicb_cli_test(version EXPECT "^aicb [0-9]+\\.[0-9]+\\.[0-9]+" ARGS --version)
aicb_cli_test(no_subcommand STATUS 2 EXPECT "subcommand" ARGS)
aicb_cli_test(unknown_flag STATUS 2 EXPECT "--no-such-flag" ARGS describe --no-such-flag 3)

# aicb models: real and aicb presets, with exact counts; aicb's flagged.
aicb_cli_test(models EXPECT "llama2-7b .* 6738415616" "deepseek-v3 .* 671026419200 +37552297472"
                            "DeepSeek_671B .*\\[aicb\\].*differs: hidden 18432" ARGS models)
aicb_cli_test(models_json EXPECT "\"key\": \"mixtral-8x7b\"" "\"total_params\": 46702792704" ARGS models --json)

# aicb describe: a preset with a layout; the same preset with a field overridden; a 15B shape by
# size; a model by dimensions alone; JSON.
aicb_cli_test(describe_preset EXPECT "model llama2-7b" "data parallel +16" "micro batches / iteration +16"
                                     "total +6738415616" "memory per GPU" "communication per GPU"
              ARGS describe --model llama2-7b --tp 2 --pp 2 --world-size 64 --global-batch 256 --seq 4096 --sp)
aicb_cli_test(describe_override_wins EXPECT "num_layers=40" REJECT "num_layers=32"
              ARGS describe --model llama2-7b --num-layers 40 --world-size 8)
aicb_cli_test(describe_size_15b EXPECT "model llama-15\\.1B" "total +15076418560"
              ARGS describe --size 15B --family llama --tp 8 --world-size 64)
aicb_cli_test(describe_dims EXPECT "hidden_size=5120" "num_layers=48" "total +1[45][0-9]+ \\(1[45]\\.[0-9]+ G\\)"
              ARGS describe --hidden-size 5120 --num-layers 48 --num-attention-heads 40 --vocab-size 32000
                   --activation swiglu --norm rmsnorm --position rope --world-size 64 --tp 4)
# The iteration estimate: on the GPU's cluster, with the SimAI command line for the same machines;
# FP8's rule and the attention kernel shown.
aicb_cli_test(describe_estimate EXPECT "iteration estimate \\(dgx-a100, A100" "MFU / HFU +[0-9.]+% / [0-9.]+%"
              "stage 1 \\(rank 8\\)" "SimAI_analytical -w WORKLOAD.txt -g 16 -g_p_s 8 -r aicb- -nv 240 -nic 23.5 -n_p_s 8 -g_type A100"
              "GEMMs fp8, delayed scaling \\(the output layer's bf16\\); attention \\(unfused\\)"
              ARGS describe --model llama3-8b --world-size 16 --tp 2 --pp 2 --sp --global-batch 32 --dtype fp8
                   --attention unfused --gpu A100)
# aicb generate also takes the descriptor's own names (those of describe), where aicb's flags leave them free.
aicb_cli_test(generate_descriptor_names EXPECT "virtual_pipeline=2" "linear_bias=true" "distributed_optimizer=true"
              ARGS generate --model llama3-8b --num-layers 8 --world_size 16 --tp 2 --pp 2 --vpp 2 --gbs 32
                   --linear-bias --distributed-optimizer -o descriptor_names.txt)
aicb_cli_test(generate_simai_command EXPECT "simulate: SimAI_analytical -w [^ ]*simai_command.txt -g 16 -g_p_s 8 -r aicb- -nv 240 -nic 23.5 -n_p_s 8 -g_type A100"
              ARGS generate --model llama3-8b --world_size 16 --tp 2 --gbs 32 --gpu_type A100 -o simai_command.txt)
aicb_cli_test(describe_no_estimate REJECT "iteration estimate" ARGS describe --model llama3-8b --no-estimate)
aicb_cli_test(describe_gpu_without_preset STATUS 2 EXPECT "gpu = L40S" "--cluster"
              ARGS describe --model llama3-8b --gpu L40S)
# The FP8 recipe: printed with the GEMMs' format; MXFP8 refused on a GPU without microscaled FP8.
aicb_cli_test(describe_fp8_recipe EXPECT "GEMMs fp8, tensorwise scaling" "fp8_recipe=tensorwise"
              ARGS describe --model llama3-8b --dtype fp8 --fp8-recipe tensorwise --no-estimate)
aicb_cli_test(describe_mxfp8_on_hopper STATUS 2 EXPECT "fp8_recipe = mxfp8: MXFP8 GEMMs need" "H100"
              ARGS describe --model llama3-8b --dtype fp8 --fp8-recipe mxfp8 --gpu H100)
# aicb plan: layouts ranked; fixed flags kept; nothing fits is said, with exit 0.
# aicb inference --compat aicb: aicb's two command lines; where aicb fails, exit 2 naming the defect.
aicb_cli_test(inference_aicb_script EXPECT "wrote inference_cli.txt: 470 records \\(aicb, Qwen3-Moe-235B, decode\\)"
              ARGS inference --compat aicb -m qwen3-235B -p decode -s 1024 -b 32 -w 8 -t 1 -e 8 -o inference_cli.txt)
aicb_cli_test(inference_aicb_generator_needs_config STATUS 2 EXPECT "CONFIG = \\(none\\): aicb's generator has no model defaults"
              ARGS inference --compat aicb DeepSeek-671B --phase decode --world_size 8)
aicb_cli_test(inference_aicb_unknown_option STATUS 2 EXPECT "--seq-length = \\(flag\\): not an option of aicb's inference script"
              ARGS inference --compat aicb -m qwen3-235B --seq-length 8)
aicb_cli_test(inference_aicb_world_too_small STATUS 2 EXPECT "world_size >= tensor_model_parallel_size"
              ARGS inference --compat aicb -m qwen3-235B -w 4 -e 8)
# Serving steps: described, and written for SimAI.
aicb_cli_test(describe_serving_decode EXPECT "KV cache per token +70272 B" "memory-bound" "time per output token"
              ARGS describe --model deepseek-v3 --phase decode --batch 256 --context 4096 --dp-attention 8 --ep 8
                   --weights fp8 --gpu H200)
aicb_cli_test(describe_serving_bad_layout STATUS 2 EXPECT "expert_parallel = 4: must be 1"
              ARGS describe --model deepseek-v3 --phase decode --batch 256 --context 4096 --dp-attention 8 --ep 4)
aicb_cli_test(inference_corrected EXPECT "wrote inference_corrected.txt: [0-9]+ records \\(one decode step of rank 0" "SimAI_analytical -w inference_corrected.txt -g 8"
              ARGS inference --model qwen3-235b-a22b --phase decode --batch 64 --context 2048 --tp 4 --dp-attention 2
                   --ep 8 -o inference_corrected.txt)
aicb_cli_test(inference_chakra EXPECT "wrote inference_chakra/: 8 Chakra traces and [0-9]+ nodes \\(workload.RANK.et, comm_groups.json, manifest.json: one decode step\\)"
              ARGS inference --format chakra --model qwen3-235b-a22b --phase decode --batch 64 --context 2048 --tp 4
                   --dp-attention 2 --ep 8 -o inference_chakra)
aicb_cli_test(inference_timeline EXPECT "wrote inference_timeline.html: an HTML timeline, one decode step, [0-9.]+ ms"
                                     "wrote inference_beside_timeline.txt: [0-9]+ records"
              ARGS inference --timeline inference_timeline.html --model qwen3-235b-a22b --phase decode --batch 64
                   --context 2048 --tp 4 --dp-attention 2 --ep 8 -o inference_beside_timeline.txt)
aicb_cli_test(inference_timeline_old_spelling EXPECT "--format timeline is an old spelling of --timeline"
                                                     "wrote inference_old_timeline.html: an HTML timeline"
              REJECT "records"
              ARGS inference --format timeline --model qwen3-235b-a22b --phase decode --batch 64 --context 2048 --tp 4
                   --dp-attention 2 --ep 8 --ranks 0,4 -o inference_old_timeline.html)
aicb_cli_test(inference_json EXPECT "\"schema\": \"aicb.inference/1\"" "\"records\": [1-9]"
              ARGS inference --json --model qwen3-235b-a22b --phase decode --batch 8 --context 1024 --tp 4
                   --dp-attention 2 --ep 8 -o inference_json.txt)
# Qwen3-Next's hybrid layers: served (KV in the softmax layers only, a fixed state per request) and trained.
aicb_cli_test(describe_serving_hybrid EXPECT "KV cache per token +12288 B +\\(the whole model's: 24576 B\\)"
              "recurrent state +18.84 MiB per request" "memory-bound"
              ARGS describe --model qwen3-next-80b-a3b --phase decode --batch 64 --context 4096 --tp 2 --dp-attention 2
                   --ep 4 --gpu H100)
aicb_cli_test(inference_hybrid EXPECT "wrote inference_hybrid.txt: [0-9]+ records \\(one prefill step"
              ARGS inference --model qwen3-next-80b-a3b --phase prefill --batch 4 --prompt 4096 --tp 2
                   --dp-attention 2 --ep 4 -o inference_hybrid.txt)
set(hybrid_job --model qwen3-next-80b-a3b --world-size 16 --tp 2 --sp --ep 4 --global-batch 16 --seq 4096)
aicb_cli_test(describe_hybrid_training EXPECT "79674391296|79,674,391,296" "iteration"
              ARGS describe ${hybrid_job})
aicb_cli_test(check_hybrid_training EXPECT "ok: all 16 ranks ran jointly" ARGS check ${hybrid_job})
aicb_cli_test(generate_hybrid_training EXPECT "wrote hybrid.txt: [0-9]+ records"
              ARGS generate ${hybrid_job} --no-sidecar -o hybrid.txt)
aicb_cli_test(lint_hybrid_training EXPECT "records, 0 errors, 0 warnings" ARGS lint hybrid.txt)
set_tests_properties(cli.lint_hybrid_training PROPERTIES DEPENDS cli.generate_hybrid_training)
aicb_cli_test(chakra_hybrid_training EXPECT "wrote hybrid_chakra/: 16 Chakra traces"
              ARGS generate ${hybrid_job} --format chakra -o hybrid_chakra)
aicb_cli_test(schedule_hybrid_training EXPECT "gdn_core" "attention_gate" ARGS schedule ${hybrid_job} --ranks 0)
aicb_cli_test(hybrid_training_cp_refused STATUS 2 EXPECT "context_parallel = 2: context parallelism with Gated DeltaNet"
              ARGS describe --model qwen3-next-80b-a3b --world-size 16 --tp 2 --sp --cp 2 --ep 4 --global-batch 16
                   --seq 4096)
# 2025-26 families: GPT-OSS (sliding windows, sinks, biased experts), Nemotron 3 Nano (Mamba-2 and
# experts in a layer pattern), Llama-3.1-405B on PP 8 x VPP 8 with the embedding and the loss counted.
set(gpt_oss_job --model gpt-oss-120b --world-size 32 --ep 16 --pp 2 --global-batch 32 --seq 4096
    --moe-dispatcher alltoall --moe-grouped-gemm)
aicb_cli_test(describe_gpt_oss EXPECT "116829156672|116,829,156,672" "iteration" ARGS describe ${gpt_oss_job})
aicb_cli_test(check_gpt_oss EXPECT "ok: all 32 ranks ran jointly" ARGS check ${gpt_oss_job})
aicb_cli_test(generate_gpt_oss EXPECT "wrote gpt_oss.txt: [0-9]+ records" ARGS generate ${gpt_oss_job} --no-sidecar -o gpt_oss.txt)
aicb_cli_test(lint_gpt_oss EXPECT "records, 0 errors, 0 warnings" ARGS lint gpt_oss.txt)
set_tests_properties(cli.lint_gpt_oss PROPERTIES DEPENDS cli.generate_gpt_oss)
# The loss as its kernels run it: Transformer Engine's fused cross-entropy gathers each rank's row
# statistics over TP in one all-gather (scheduled, written for SimAI and linted); its implementation
# flag alone is refused, naming the field.
set(loss_job --model llama3-8b --num-layers 2 --world-size 2 --tp 2 --sp --global-batch 2 --seq 2048)
aicb_cli_test(schedule_te_loss EXPECT "cross_entropy_stats_gather" REJECT "cross_entropy_sum"
              ARGS schedule ${loss_job} --cross-entropy-loss-fusion --cross-entropy-fusion-impl te --ranks 0)
aicb_cli_test(generate_te_loss EXPECT "wrote te_loss.txt: [0-9]+ records"
              ARGS generate ${loss_job} --cross-entropy-loss-fusion --cross-entropy-fusion-impl te --no-sidecar
                   -o te_loss.txt)
aicb_cli_test(lint_te_loss EXPECT "records, 0 errors, 0 warnings" ARGS lint te_loss.txt)
set_tests_properties(cli.lint_te_loss PROPERTIES DEPENDS cli.generate_te_loss)
aicb_cli_test(loss_impl_alone_refused STATUS 2 EXPECT "cross_entropy_fusion_impl = te: the fused cross-entropy"
              ARGS describe ${loss_job} --cross-entropy-fusion-impl te)
aicb_cli_test(gpt_oss_window_with_cp_refused STATUS 2 EXPECT "context_parallel = 2: context parallelism with sliding-window"
              ARGS describe --model gpt-oss-20b --world-size 4 --cp 2 --ep 2 --global-batch 2 --seq 8192)
aicb_cli_test(describe_gpt_oss_serving EXPECT "KV cache per token" ARGS describe --model gpt-oss-120b --phase decode
              --batch 64 --context 32768 --tp 8 --gpu H100)
set(nemotron_job --model nemotron3-nano-30b-a3b --world-size 16 --tp 2 --sp --ep 4 --pp 2 --global-batch 16 --seq 8192
    --moe-dispatcher alltoall --moe-grouped-gemm)
aicb_cli_test(describe_nemotron EXPECT "31577940288|31,577,940,288" "iteration" ARGS describe ${nemotron_job})
aicb_cli_test(check_nemotron EXPECT "ok: all 16 ranks ran jointly" ARGS check ${nemotron_job})
aicb_cli_test(chakra_nemotron EXPECT "wrote nemotron_chakra/: 16 Chakra traces"
              ARGS generate ${nemotron_job} --format chakra -o nemotron_chakra)
aicb_cli_test(schedule_nemotron EXPECT "mamba_scan" "moe_permute" ARGS schedule ${nemotron_job} --ranks 0)
aicb_cli_test(describe_nemotron_serving EXPECT "recurrent state +[0-9.]+ MiB per request" ARGS describe --model nemotron3-nano-30b-a3b
              --phase decode --batch 16 --context 8192 --tp 2 --gpu H100)
# DeepSeek-V3.2: sparse attention (the lightning indexer, whole on every TP rank; attention over the top-k
# keys) — described, scheduled, checked, written for SimAI and Chakra, imported from its config.json; served
# with the indexer's keys in the KV cache; refused with context parallelism.
set(v32_job --model deepseek-v3.2 --num-layers 4 --world-size 16 --tp 2 --sp --ep 8 --global-batch 16 --seq 8192
    --moe-dispatcher alltoall --moe-grouped-gemm)
aicb_cli_test(describe_deepseek_v32 EXPECT "iteration" ARGS describe ${v32_job})
aicb_cli_test(check_deepseek_v32 EXPECT "ok: all 16 ranks ran jointly" ARGS check ${v32_job})
aicb_cli_test(schedule_deepseek_v32 EXPECT "indexer_key_gather" "indexer_scores" ARGS schedule ${v32_job} --ranks 0)
aicb_cli_test(generate_deepseek_v32 EXPECT "wrote deepseek_v32.txt: [0-9]+ records"
              ARGS generate ${v32_job} --no-sidecar -o deepseek_v32.txt)
aicb_cli_test(lint_deepseek_v32 EXPECT "records, 0 errors, 0 warnings" ARGS lint deepseek_v32.txt)
set_tests_properties(cli.lint_deepseek_v32 PROPERTIES DEPENDS cli.generate_deepseek_v32)
aicb_cli_test(chakra_deepseek_v32 EXPECT "wrote deepseek_v32_chakra/: 16 Chakra traces"
              ARGS generate ${v32_job} --format chakra -o deepseek_v32_chakra)
aicb_cli_test(hf_deepseek_v32 EXPECT "671877944064|671,877,944,064"
              ARGS describe --hf-config "${PROJECT_SOURCE_DIR}/tests/data/hf/deepseek-v3.2-exp.json" --no-estimate)
aicb_cli_test(deepseek_v32_with_cp_refused STATUS 2
              EXPECT "context_parallel = 2: context parallelism with DeepSeek sparse attention"
              ARGS describe --model deepseek-v3.2 --num-layers 4 --world-size 16 --cp 2 --ep 8 --global-batch 8 --seq 8192)
aicb_cli_test(describe_deepseek_v32_serving EXPECT "KV cache per token" ARGS describe --model deepseek-v3.2 --phase decode
              --batch 64 --context 32768 --tp 8 --gpu H100)
# Nemotron 3 Super: latent experts, an MTP module in a layer-pattern model, over PP 2.
set(super_job --model nemotron3-super-120b-a12b --world-size 64 --tp 2 --sp --ep 8 --pp 4 --global-batch 16
    --seq 8192 --moe-dispatcher alltoall --moe-grouped-gemm)
aicb_cli_test(describe_nemotron_super EXPECT "120668707840|120,668,707,840" "iteration" ARGS describe ${super_job})
aicb_cli_test(check_nemotron_super EXPECT "ok: all 64 ranks ran jointly" ARGS check ${super_job})
aicb_cli_test(schedule_nemotron_super EXPECT "moe_latent_down" "moe_latent_up" ARGS schedule ${super_job} --ranks 0)
aicb_cli_test(generate_nemotron_super EXPECT "wrote nemotron_super.txt: [0-9]+ records"
              ARGS generate ${super_job} --no-sidecar -o nemotron_super.txt)
aicb_cli_test(lint_nemotron_super EXPECT "records, 0 errors, 0 warnings" ARGS lint nemotron_super.txt)
set_tests_properties(cli.lint_nemotron_super PROPERTIES DEPENDS cli.generate_nemotron_super)
# Llama 4: chunked attention on three layers of four, experts on every second layer (Maverick), the
# multimodal config.json's language model.
set(llama4_job --model llama4-maverick-17b-128e --world-size 64 --tp 4 --sp --ep 8 --pp 2 --global-batch 16
    --seq 16384 --moe-dispatcher alltoall --moe-grouped-gemm)
aicb_cli_test(describe_llama4 EXPECT "400711848960|400,711,848,960" "iteration" ARGS describe ${llama4_job})
aicb_cli_test(check_llama4 EXPECT "ok: all 64 ranks ran jointly" ARGS check ${llama4_job})
aicb_cli_test(generate_llama4 EXPECT "wrote llama4.txt: [0-9]+ records" ARGS generate ${llama4_job} --no-sidecar -o llama4.txt)
aicb_cli_test(lint_llama4 EXPECT "records, 0 errors, 0 warnings" ARGS lint llama4.txt)
set_tests_properties(cli.lint_llama4 PROPERTIES DEPENDS cli.generate_llama4)
aicb_cli_test(chakra_llama4 EXPECT "wrote llama4_chakra/: 64 Chakra traces"
              ARGS generate ${llama4_job} --format chakra -o llama4_chakra)
aicb_cli_test(llama4_chunks_with_cp_refused STATUS 2 EXPECT "context_parallel = 2: context parallelism with chunked"
              ARGS describe --model llama4-maverick-17b-128e --world-size 128 --tp 4 --sp --ep 8 --pp 2 --cp 2
                   --global-batch 16 --seq 16384)
aicb_cli_test(describe_llama4_hf EXPECT "107769861120|107,769,861,120"
              ARGS describe --hf-config ${PROJECT_SOURCE_DIR}/tests/data/hf/llama4-scout-17b-16e.json --world-size 16
                   --tp 4 --sp --ep 4 --global-batch 16 --seq 8192)
aicb_cli_test(describe_llama4_serving EXPECT "KV cache per token +24576 B" ARGS describe --model llama4-scout-17b-16e
              --phase decode --batch 8 --context 20000 --tp 8 --gpu H100)
# GLM-4.5-Air (grouped-query attention with q/k/v biases, DeepSeek-V3-style experts, an MTP module)
# and Kimi K2 (DeepSeek-V3's architecture under model_type kimi_k2), from their config.json too.
set(glm_job --model glm-4.5-air --world-size 16 --ep 8 --pp 2 --global-batch 16 --seq 4096
    --moe-dispatcher alltoall --moe-grouped-gemm)
aicb_cli_test(describe_glm EXPECT "106852251264|106,852,251,264" "iteration" ARGS describe ${glm_job})
aicb_cli_test(check_glm EXPECT "ok: all 16 ranks ran jointly" ARGS check ${glm_job})
aicb_cli_test(hf_kimi_k2 EXPECT "1026408232448|1,026,408,232,448"
              ARGS describe --hf-config "${PROJECT_SOURCE_DIR}/tests/data/hf/kimi-k2-instruct.json" --no-estimate)
# GLM-5 (DeepSeek-V3.2's architecture under model_type glm_moe_dsa), cut to 8 layers: described, run
# jointly, and written for SimAI.
set(glm5_job --model glm-5 --num-layers 8 --world-size 16 --ep 8 --pp 2 --global-batch 16 --seq 4096
    --moe-dispatcher alltoall --moe-grouped-gemm)
aicb_cli_test(hf_glm5 EXPECT "743911218432|743,911,218,432"
              ARGS describe --hf-config "${PROJECT_SOURCE_DIR}/tests/data/hf/glm-5.json" --no-estimate)
# GLM-5.2's shared indexers (index_topk_freq 4 from index_skip_topk_offset 3): 57 layers without one.
aicb_cli_test(hf_glm_shared_indexers EXPECT "743377019904|743,377,019,904" "indexer_pattern=FFFSSSFSSSF"
              ARGS describe --hf-config "${PROJECT_SOURCE_DIR}/tests/data/hf/glm_shared_indexers.json" --no-estimate)
aicb_cli_test(check_glm5 EXPECT "ok: all 16 ranks ran jointly" ARGS check ${glm5_job})
aicb_cli_test(generate_glm5 EXPECT "wrote" ARGS generate ${glm5_job} --no-sidecar -o glm5.txt)
aicb_cli_test(lint_glm5 EXPECT "records, 0 errors, 0 warnings" ARGS lint glm5.txt)
set_tests_properties(cli.lint_glm5 PROPERTIES DEPENDS cli.generate_glm5)
# Megatron's flex dispatcher (DeepEP): run jointly, written for SimAI and linted, overlapped.
set(flex_job --model qwen3-30b-a3b --num-layers 4 --world-size 16 --ep 8 --pp 2 --global-batch 16 --seq 4096
    --moe-dispatcher flex --moe-grouped-gemm)
aicb_cli_test(check_flex EXPECT "ok: all 16 ranks ran jointly" ARGS check ${flex_job})
aicb_cli_test(generate_flex EXPECT "wrote" ARGS generate ${flex_job} --no-sidecar -o flex.txt)
aicb_cli_test(lint_flex EXPECT "records, 0 errors, 0 warnings" ARGS lint flex.txt)
set_tests_properties(cli.lint_flex PROPERTIES DEPENDS cli.generate_flex)
aicb_cli_test(describe_flex_overlap EXPECT "overlap +p2p moe-expert-parallel-comm" "iteration time"
              ARGS describe ${flex_job} --vpp 2 --overlap-moe-expert-parallel-comm)
# The host, EP overlap and routing imbalance in the estimate.
set(host_job --model mixtral-8x7b --num-layers 2 --world-size 8 --ep 8 --global-batch 16 --seq 2048
    --moe-dispatcher alltoall --moe-grouped-gemm)
aicb_cli_test(describe_host EXPECT "host +12 us per launch" "waiting for the host [0-9.e-]+ s" ARGS describe ${host_job})
aicb_cli_test(describe_host_json EXPECT "\"host_s\": [0-9.e-]+" "\"us_per_launch\": 12"
              ARGS describe ${host_job} --json)
aicb_cli_test(describe_no_host EXPECT "host +never the bottleneck" ARGS describe ${host_job} --host-overhead-us 0)
aicb_cli_test(describe_ep_overlap EXPECT "overlap +moe-expert-parallel-comm" "overlap contention"
              ARGS describe ${host_job} --overlap-moe-expert-parallel-comm)
aicb_cli_test(check_ep_overlap EXPECT "ok: all 8 ranks ran jointly"
              ARGS check ${host_job} --overlap-moe-expert-parallel-comm --delay-wgrad-compute)
aicb_cli_test(generate_ep_overlap EXPECT "note: overlap_moe_expert_parallel_comm: SimAI's format"
              ARGS generate ${host_job} --overlap-moe-expert-parallel-comm --no-sidecar -o ep_overlap.txt)
aicb_cli_test(lint_ep_overlap EXPECT "records, 0 errors, 0 warnings" ARGS lint ep_overlap.txt)
aicb_cli_test(describe_flex_forwarding EXPECT "ep counts each token once per destination GPU: across nodes DeepEP"
              ARGS describe --model mixtral-8x7b --num-layers 2 --world-size 16 --ep 16 --global-batch 16 --seq 2048
                   --moe-dispatcher flex --moe-grouped-gemm --num-experts 16)
aicb_cli_test(generate_flex_forwarding EXPECT "note: moe_dispatcher flex: where the EP group spans nodes"
              ARGS generate --model mixtral-8x7b --num-layers 2 --world-size 8 --ep 8 --global-batch 16 --seq 2048
                   --moe-dispatcher flex --moe-grouped-gemm --no-sidecar -o flex_forwarding.txt)
set_tests_properties(cli.lint_ep_overlap PROPERTIES DEPENDS cli.generate_ep_overlap)
set(ep_overlap_vpp --model mixtral-8x7b --num-layers 4 --world-size 16 --ep 8 --pp 2 --vpp 2 --global-batch 32
    --seq 2048 --moe-dispatcher alltoall --moe-grouped-gemm --overlap-moe-expert-parallel-comm --delay-wgrad-compute)
aicb_cli_test(chakra_ep_overlap EXPECT "wrote ep_overlap_chakra/: 16 Chakra traces"
              ARGS generate ${ep_overlap_vpp} --format chakra -o ep_overlap_chakra)
aicb_cli_test(describe_ep_overlap_vpp EXPECT "overlap +p2p moe-expert-parallel-comm" ARGS describe ${ep_overlap_vpp})
aicb_cli_test(ep_overlap_needs_vpp STATUS 2 EXPECT "set virtual_pipeline > 1"
              ARGS describe --model mixtral-8x7b --num-layers 2 --world-size 16 --ep 8 --pp 2 --global-batch 16
                   --seq 2048 --moe-dispatcher alltoall --overlap-moe-expert-parallel-comm)
aicb_cli_test(skew_refused STATUS 2 EXPECT "moe_load_skew = -1"
              ARGS describe ${host_job} --moe-load-skew -1)
aicb_cli_test(pad_refused STATUS 2 EXPECT "moe_pad_to_capacity needs moe_capacity_factor"
              ARGS describe ${host_job} --moe-pad-to-capacity)
set(split_job --model llama3.1-405b --world-size 512 --tp 8 --sp --pp 8 --vpp 8 --global-batch 64 --seq 8192
    --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split)
aicb_cli_test(describe_accounted_split EXPECT "layers per pipeline stage +15 16 16 16 16 16 16 15" ARGS describe ${split_job})
aicb_cli_test(check_accounted_split_cp EXPECT "context-parallel ring 0 \\(16 ranks\\) ran jointly"
              ARGS check --model llama3.1-405b --world-size 256 --tp 8 --sp --pp 8 --vpp 8 --cp 2 --global-batch 16
                   --seq 8192 --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split
                   --joint-limit 8)
aicb_cli_test(accounted_split_uneven_refused STATUS 2 EXPECT "num_layers = 125"
              ARGS describe --model llama3.1-405b --num-layers 125 --world-size 512 --tp 8 --sp --pp 8 --vpp 8
                   --global-batch 64 --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split)
aicb_cli_test(inference_corrected_needs_phase STATUS 2 EXPECT "phase = \\(none\\)" ARGS inference --model qwen3-235b-a22b)
aicb_cli_test(inference_corrected_rejects_aicb_flags STATUS 2 EXPECT "-m = \\(flag\\).*--compat aicb"
              ARGS inference -m qwen3-235B --phase decode)
# aicb timeline: the file lands whole, with the next step named.
aicb_cli_test(timeline_file EXPECT "wrote timeline_cli.json: a trace-event JSON timeline, 2 pipeline stage\\(s\\), iteration [0-9.e+-]+ s on dgx-a100 \\(A100\\)"
              "ui.perfetto.dev"
              ARGS timeline --model llama3-8b --num-layers 4 --world-size 16 --tp 2 --pp 2 --global-batch 8 --gpu A100
                   -o timeline_cli.json)
aicb_cli_test(timeline_missing_folder STATUS 1 EXPECT "directory no_such_folder does not exist"
              ARGS timeline --model llama3-8b --num-layers 4 -o no_such_folder/t.json)
aicb_cli_test(timeline_html EXPECT "wrote timeline_cli.html: an HTML timeline, 3 rank\\(s\\)" "open it in a browser"
              ARGS timeline --model llama3-8b --num-layers 4 --world-size 16 --tp 2 --pp 2 --global-batch 8
                   --ranks 0,8-9 -o timeline_cli.html)
aicb_cli_test(timeline_bad_ranks STATUS 2 EXPECT "ranks = 3-1: a range must not run backwards"
              ARGS timeline --model llama3-8b --num-layers 4 --world-size 16 --ranks 3-1 -o t.html)
# The HTML timeline of a 64-rank job in headless chromium: no script errors, every rank's tracks drawn.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME cli.timeline_html_in_browser
         COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/tools/timeline_browser.py" $<TARGET_FILE:aicb_tool>)
set_tests_properties(cli.timeline_html_in_browser PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
# Chakra traces from the command line: sets land whole; failures midway leave nothing.
add_test(NAME cli.chakra_sets COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/tools/chakra_cli.sh" $<TARGET_FILE:aicb_tool>)
set_tests_properties(cli.chakra_sets PROPERTIES LABELS cli PASS_REGULAR_EXPRESSION "\n0 failures")
# `aicb run` under mpirun (4 and 8 ranks): dense, pipelined, MoE and sweep replays with their data
# checks and bandwidths; killed and hung ranks; mismatched ranks. Without OpenMPI: skipped (CI: fails).
add_test(NAME cli.run_under_mpirun COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/tools/run_cli.sh" $<TARGET_FILE:aicb_tool>)
set_tests_properties(cli.run_under_mpirun PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 900 RUN_SERIAL TRUE)
# The calibration loop under mpirun: a sweep's cluster file fits its measurements within 10%, and
# describe --cluster of it predicts a replayed job within -15%/+35% (on this loopback a collective
# in the job runs slower than the same size in the sweep).
add_test(NAME cli.calibrate_under_mpirun
         COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/tools/calibrate_cli.sh" $<TARGET_FILE:aicb_tool>)
set_tests_properties(cli.calibrate_under_mpirun PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 900 RUN_SERIAL TRUE
                     PASS_REGULAR_EXPRESSION "\n0 failures")
# aicb-run with NCCL alone, one process (where MPI and NCCL are both found, this form is built too).
if(TARGET aicb_run_without_mpi)
  add_test(NAME cli.run_nccl_single_process
           COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/tools/run_nccl.sh" $<TARGET_FILE:aicb_run_without_mpi>)
  set_tests_properties(cli.run_nccl_single_process PROPERTIES LABELS cli TIMEOUT 600)
endif()
aicb_cli_test(plan_ranked EXPECT "layouts considered, [0-9]+ valid, [0-9]+ fit in memory" "TP  CP  PP VPP"
              ARGS plan --model llama3-8b --world-size 16 --global-batch 32 --seq 4096 --top 5)
aicb_cli_test(plan_fixed_tp EXPECT "\"tensor_parallel\": 4" REJECT "\"tensor_parallel\": [1238]"
              ARGS plan --model llama3-8b --world-size 16 --global-batch 32 --tp 4 --json)
aicb_cli_test(plan_nothing_fits STATUS 1 EXPECT "no layout fits" ARGS plan --model llama3.1-405b --world-size 8 --global-batch 8)
aicb_cli_test(plan_without_model STATUS 2 EXPECT "model = \\(none\\): no model given" ARGS plan --world-size 8 --global-batch 8)
aicb_cli_test(plan_estimate_limit_zero STATUS 2 EXPECT "estimate_limit = 0" ARGS plan -m llama3-8b --world-size 8 --global-batch 8 --estimate-limit 0)
aicb_cli_test(describe_does_not_fit EXPECT "warning: stage 0 needs [0-9.]+ [GT]iB per GPU, more than the H100" "iteration estimate of a layout that does not fit"
              ARGS describe -m llama3.1-405b --world-size 8 --tp 8 --global-batch 8 --gpu H100)
aicb_cli_test(describe_without_model STATUS 2 EXPECT "no model given: name one with --model" REJECT "hidden_size = 0" ARGS describe --world-size 8)
aicb_cli_test(timeline_without_model STATUS 2 EXPECT "no model given" ARGS timeline -o t.json)
aicb_cli_test(describe_json EXPECT "\"data_parallel\": 16" "\"aicb_version\"" "\"stages\": .\n +\\{"
              ARGS describe --model llama2-7b --tp 2 --pp 2 --world-size 64 --json)
aicb_cli_test(describe_underscore_aliases EXPECT "tensor_parallel=2"
              ARGS describe --model llama2-7b --tensor_parallel 2 --world_size 8)

# Invalid layouts and values exit 2 naming the field, its value and the rule.
aicb_cli_test(describe_tp_not_dividing_heads STATUS 2
              EXPECT "configuration error: tensor_parallel = 5: tensor_parallel must divide num_attention_heads"
              ARGS describe --model llama2-7b --tp 5 --world-size 40)
aicb_cli_test(describe_bad_value STATUS 2 EXPECT "activation = relu: expected gelu \\| swiglu"
              ARGS describe --model llama2-7b --activation relu)
aicb_cli_test(describe_unknown_preset STATUS 2 EXPECT "unknown model; did you mean llama2-7b\\?"
              ARGS describe --model llama2-7x)
aicb_cli_test(describe_two_sources STATUS 2 EXPECT "give only one model source" ARGS describe --model llama2-7b --size 15B)
aicb_cli_test(describe_missing_hf_config STATUS 1 EXPECT "cannot open file" ARGS describe --hf-config /nonexistent.json)

# aicb aiob: show, check and convert profiles.
set(_aiob_example "${AICB_REFERENCE_DIR}/aicb/aiob/Example.txt")
aicb_cli_test(reference_aiob_show_example REFERENCE
              EXPECT "version 1, 12 sections" "train_iter: 10 +\\(aicb: forward iterations profiled"
                     "unknown: this profile does not say which GPU" "attention_forward +1820000"
                     "grad_backward +17374000"
              ARGS aiob show "${_aiob_example}")
aicb_cli_test(aiob_check_valid EXPECT "valid AIOB profile, version 1, 2 sections"
              ARGS aiob check "${PROJECT_SOURCE_DIR}/tests/data/aiob/good/crlf_tabs_spacing.txt")
aicb_cli_test(aiob_check_invalid STATUS 2
              EXPECT "duplicate_section.txt:6:1: duplicate section 'Emb' \\(first at line 2\\)"
              ARGS aiob check "${PROJECT_SOURCE_DIR}/tests/data/aiob/bad/duplicate_section.txt")
aicb_cli_test(aiob_check_missing_file STATUS 1 EXPECT "cannot open file" ARGS aiob check /nonexistent.txt)
aicb_cli_test(aiob_check_against_job EXPECT "warning: the profile records no provenance"
              ARGS aiob check "${PROJECT_SOURCE_DIR}/tests/data/aiob/good/crlf_tabs_spacing.txt"
                   --model llama2-7b --world-size 8 --tp 2)
aicb_cli_test(aiob_check_strict STATUS 2 EXPECT "error: the profile records no provenance"
              ARGS aiob check "${PROJECT_SOURCE_DIR}/tests/data/aiob/good/crlf_tabs_spacing.txt"
                   --model llama2-7b --world-size 8 --tp 2 --strict)
aicb_cli_test(aiob_convert_to_v2 EXPECT "wrote .*converted_v2.txt \\(version 2"
              ARGS aiob convert "${PROJECT_SOURCE_DIR}/tests/data/aiob/good/crlf_tabs_spacing.txt" --to v2
                   --gpu "NVIDIA H100" --dtype bf16 --set tensor_parallel=2 -o converted_v2.txt)
aicb_cli_test(aiob_show_converted EXPECT "version 2" "gpu +NVIDIA H100" "tensor_parallel +2"
              ARGS aiob show converted_v2.txt)
set_tests_properties(cli.aiob_show_converted PROPERTIES DEPENDS cli.aiob_convert_to_v2)

# aicb generate --compat aicb: every SimAI-text case of aicb's reference outputs, byte for byte
# (tests/tools/aicb_cases.py reads them in place; without them: skipped, or failed in CI).
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME cli.reference_aicb_cases_byte_for_byte
         COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/tools/aicb_cases.py" $<TARGET_FILE:aicb_tool>
                 "${AICB_REFERENCE_DIR}/aicb/cases")
set_tests_properties(cli.reference_aicb_cases_byte_for_byte PROPERTIES LABELS cli SKIP_RETURN_CODE 77
                     PASS_REGULAR_EXPRESSION "[1-9][0-9]* cases reproduced byte for byte, [0-9]+ refused as aicb fails, 0 failures")

# aicb generate, corrected: the seed command, with a 15B shape, writes a valid file and its sidecar.
aicb_cli_test(reference_generate_seed_15b REFERENCE
              EXPECT "size 15B: the standard llama shape llama-1[45]\\.[0-9]B" "wrote seed15b.txt: [0-9]+ records"
              ARGS generate -m 15 --world_size 4096 --tensor_model_parallel_size 2 --pipeline_model_parallel 1
                   --frame Megatron --global_batch 8192 --micro_batch 1 --seq_length 4096 --swiglu --use_flash_attn
                   --aiob_enable --comp_filepath "${_aiob_example}" -o seed15b.txt)
aicb_cli_test(generate_default_names_like_aicb EXPECT "wrote results/workload/H100-gpt_7B-world_size64-tp2-pp1-ep1-gbs64-mbs1-seq4096-MOE-False-GEMM-False-flash_attn-True.txt"
              ARGS generate -m 7 --world-size 64 --tp 2 --gbs 64 --seq 4096 --gpu_type H100)
aicb_cli_test(generate_name_says_unfused EXPECT "-flash_attn-False.txt"
              ARGS generate -m 7 --num-layers 2 --world-size 64 --tp 2 --gbs 64 --seq 4096 --attention unfused)
aicb_cli_test(generate_explicit_dims_win EXPECT "num_layers=10" REJECT "num_layers=36"
              ARGS generate -m 7 --num_layers 10 --world_size 8 --global_batch 8 -o dims_win.txt)
aicb_cli_test(generate_compat_preset_overrides_with_note EXPECT "preset gpt_13B overrides num_layers 10 -> 40"
              ARGS generate --compat aicb -m 13 --num_layers 10 --world_size 32 --global_batch 128 -o compat13.txt)
aicb_cli_test(generate_invalid_layout STATUS 2 EXPECT "tensor_parallel must divide num_attention_heads"
              ARGS generate -m 7 --tp 5 --world_size 40 -o never.txt)
aicb_cli_test(generate_context_parallel_not_in_simai STATUS 2 EXPECT "SimAI cannot express a cp collective"
              ARGS generate --model llama2-7b --world-size 8 --cp 2 --seq 4096 --global-batch 4 -o never_cp.txt)

# aicb lint: diagnostics, exit status, --fix.
aicb_cli_test(lint_clean EXPECT "3 records, 0 errors, 0 warnings" ARGS lint "${PROJECT_SOURCE_DIR}/tests/data/simai/good/valid.txt")
aicb_cli_test(lint_error STATUS 2
              EXPECT "04_typo_collective.txt:4:25: error: unknown communication type 'ALLREDUSE': SimAI silently drops it; did you mean ALLREDUCE\\?"
              ARGS lint "${PROJECT_SOURCE_DIR}/tests/data/simai/good/valid.txt" "${PROJECT_SOURCE_DIR}/tests/data/simai/bad/04_typo_collective.txt")
aicb_cli_test(lint_fix EXPECT "fixed: header: added ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 16 pp_comm: 0" "0 errors"
              ARGS lint --fix --world-size 16 -o legacy_fixed.txt "${PROJECT_SOURCE_DIR}/tests/data/simai/bad/13_header_without_ep_pp.txt")
aicb_cli_test(generate_for_lint EXPECT "wrote generated_for_lint.txt"
              ARGS generate --model mixtral-8x7b --world-size 64 --tp 2 --sp --ep 8 --gbs 64 --seq 4096 -o generated_for_lint.txt)
aicb_cli_test(lint_generated EXPECT "records, 0 errors, 0 warnings" ARGS lint generated_for_lint.txt)
set_tests_properties(cli.lint_generated PROPERTIES DEPENDS cli.generate_for_lint)
aicb_cli_test(lint_missing_file STATUS 1 EXPECT "cannot open file" ARGS lint /nonexistent.txt)

# aicb deepspeed, aicb micro, aicb generate --format csv: every CSV / MICRO case of aicb's reference
# outputs, byte for byte; M03 (aicb crashes) refused with no file.
add_test(NAME cli.reference_aicb_csv_cases_byte_for_byte
         COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/tools/aicb_csv_cases.py" $<TARGET_FILE:aicb_tool>
                 "${AICB_REFERENCE_DIR}/aicb/cases")
set_tests_properties(cli.reference_aicb_csv_cases_byte_for_byte PROPERTIES LABELS cli SKIP_RETURN_CODE 77
                     PASS_REGULAR_EXPRESSION "15 cases reproduced byte for byte, 1 refused as aicb fails, 0 failures")

# The SimAI forms aicb lacks: ZeRO stages and the collective sweep, linted clean.
foreach(stage 1 2 3)
  aicb_cli_test(deepspeed_zero${stage}_simai EXPECT "wrote zero${stage}.txt: [0-9]+ records \\(ZeRO-${stage}, DP 64"
                ARGS deepspeed --format simai --stage ${stage} --world_size 64 --global_batch 128 --num_layers 8
                     --hidden_size 4096 --num_attention_heads 32 --ffn_hidden_size 11008 -o zero${stage}.txt)
  aicb_cli_test(lint_zero${stage} EXPECT "records, 0 errors, 0 warnings" ARGS lint zero${stage}.txt)
  set_tests_properties(cli.lint_zero${stage} PROPERTIES DEPENDS cli.deepspeed_zero${stage}_simai)
  # The CSV of the same job: the per-rank model's rank 0, the operations of the SimAI form.
  aicb_cli_test(deepspeed_zero${stage}_csv EXPECT "wrote zero${stage}.csv: [0-9]+ items \\(ZeRO-${stage}, corrected: rank 0, DP 64"
                ARGS deepspeed --format csv --stage ${stage} --world_size 64 --global_batch 128 --num_layers 8
                     --hidden_size 4096 --num_attention_heads 32 --ffn_hidden_size 11008 -o zero${stage}.csv)
endforeach()
# One rule for the default format: SimAI text, or under --compat aicb the one aicb writes (its CSV).
aicb_cli_test(deepspeed_default_format EXPECT "wrote default_zero.txt: [0-9]+ records \\(ZeRO-1, DP 8"
              ARGS deepspeed --stage 1 --world_size 8 --global_batch 8 --num_layers 2 -o default_zero.txt)
aicb_cli_test(deepspeed_compat_simai STATUS 2 EXPECT "format = simai: aicb writes no SimAI file for DeepSpeed"
              ARGS deepspeed --compat aicb --format simai --stage 1 --world_size 8 -o never_ds.txt)
aicb_cli_test(deepspeed_json EXPECT "\"schema\": \"aicb.deepspeed/1\"" "\"format\": \"simai\""
              ARGS deepspeed --json --stage 2 --world_size 8 --global_batch 8 --num_layers 2 -o json_zero.txt)
aicb_cli_test(micro_sweep EXPECT "wrote sweep.txt: 33 records \\(11 sizes x 3 collectives x 1; run with SimAI -g 16\\)"
              ARGS micro --world_size 16 --test_comm all_reduce,all_gather,all_to_all --begin_size 1048576
                   --end_size 1073741824 -o sweep.txt)
aicb_cli_test(lint_micro_sweep EXPECT "33 records, 0 errors, 0 warnings" ARGS lint sweep.txt)
set_tests_properties(cli.lint_micro_sweep PROPERTIES DEPENDS cli.micro_sweep)
aicb_cli_test(micro_zero_begin_size STATUS 2 EXPECT "begin_size = 0: begin_size must be at least 1 byte"
              ARGS micro --format csv --world_size 8 --begin_size 0 -o never_micro.csv)
aicb_cli_test(micro_unknown_collective STATUS 2 EXPECT "test_comm = broadcast"
              ARGS micro --world_size 8 --test_comm broadcast -o never_micro.txt)
aicb_cli_test(deepspeed_amp_compat STATUS 2 EXPECT "amp_enabled = true: aicb crashes here"
              ARGS deepspeed --compat aicb --stage 1 --amp_enabled --world_size 8 --num_layers 2 -o never_ds.csv)
aicb_cli_test(generate_csv_gpu_count EXPECT "wrote gpus.csv: [0-9]+ items \\(corrected: rank 0, pipeline stage 0"
              ARGS generate --format csv -m 7 --nnodes 8 --nproc_per_node 8 --tp 2 --global_batch 64 -o gpus.csv)
aicb_cli_test(generate_gpu_count_disagrees STATUS 2 EXPECT "world_size = 32: differs from nnodes x nproc_per_node = 64"
              ARGS generate -m 7 --nnodes 8 --nproc_per_node 8 --world_size 32 -o disagree.txt)
aicb_cli_test(generate_gpu_count_half STATUS 2 EXPECT "nproc_per_node = \\(none\\): --nnodes and --nproc_per_node go together"
              ARGS generate -m 7 --nnodes 8 -o half.txt)
aicb_cli_test(generate_csv_corrected EXPECT "wrote pp2.csv: [0-9]+ items \\(corrected: rank 8, pipeline stage 1, 1 iteration"
              ARGS generate --format csv --world_size 16 --tensor_model_parallel_size 2 --pipeline_model_parallel 2
                   --global_batch 32 --num_layers 4 --hidden_size 4096 --num_attention_heads 32 --pp_rank 1 -o pp2.csv)

# aicb profile without a GPU (hidden here even where one exists): a clear message and status 1.
aicb_cli_test(profile_without_gpu STATUS 1 EXPECT "aicb: profile: .*(aicb profile needs an NVIDIA GPU|built without CUDA)"
              ARGS profile --model llama2-7b --world-size 8 --tp 2 -o never_profile.txt)
set_tests_properties(cli.profile_without_gpu PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=")
# Its former --iterations (timed calls; training iterations elsewhere) warns and names the new flag.
aicb_cli_test(profile_iterations_renamed STATUS 1 EXPECT "(--iterations is an old spelling of --repeat|built without CUDA)"
              ARGS profile --model llama2-7b --iterations 3 -o never_profile.txt)
set_tests_properties(cli.profile_iterations_renamed PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=")

# Hostile files and interruptions: devices, directories, FIFOs, inputs as outputs, sidecars that
# cannot land, names near NAME_MAX, huge and endless jobs, huge inputs, lint's --fix, signals.
add_test(NAME cli.hostile_files
         COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/tools/hostile_files.sh" $<TARGET_FILE:aicb_tool>
                 "${PROJECT_SOURCE_DIR}/tests/data")
set_tests_properties(cli.hostile_files PROPERTIES LABELS cli PASS_REGULAR_EXPRESSION "\n0 failures")

# Flags: unsigned values take non-negative decimal integers; a mistyped flag gets a suggestion.
aicb_cli_test(micro_negative_world_size STATUS 2 EXPECT "--world_size: expected a non-negative integer, found '-8'"
              ARGS micro --world_size -8 -o never_negative.txt)
aicb_cli_test(generate_negative_iterations STATUS 2 EXPECT "--iterations: expected a non-negative integer, found '-1'"
              ARGS generate -m 7 --iterations -1 -o never_negative.txt)
aicb_cli_test(describe_value_beyond_64_bits STATUS 2 EXPECT "exceeds 2\\^64-1"
              ARGS micro --world_size 99999999999999999999 -o never_big.txt)
aicb_cli_test(did_you_mean_flag STATUS 2 EXPECT "unknown flag --world-sise; did you mean --world-size\\?"
              ARGS describe --model llama2-7b --world-sise 8)
aicb_cli_test(did_you_mean_model STATUS 2 EXPECT "did you mean llama2-7b\\?" ARGS generate -m llama2-7 -o never_model.txt)

# Sizes that would overflow are refused with the field, its value and the limit.
aicb_cli_test(generate_overflow_refused STATUS 2
              EXPECT "configuration error: hidden_size = 2147483648: .*must not exceed 2\\^50"
              ARGS generate --hidden-size 2147483648 --num-layers 2 --num-attention-heads 16
                   --seq-length 4294967297 -o never_overflow.txt)
aicb_cli_test(describe_overflow_refused STATUS 2 EXPECT "configuration error: .*must not exceed 2\\^50"
              ARGS describe --hidden-size 4294967296 --num-layers 2 --num-attention-heads 32 --vocab-size 32000
                   --seq-length 4294967296)
aicb_cli_test(generate_learned_positions_too_short STATUS 2
              EXPECT "seq_length = 4096: seq_length must not exceed max_position_embeddings"
              ARGS generate -m gpt3-6.7b --seq_length 4096 --world_size 8 --global_batch 8 -o never_positions.txt)
# The seed question: a 15B model with SwiGLU is 15B as the job counts it.
aicb_cli_test(generate_15b_swiglu_is_15b EXPECT "llama-1[45]\\.[0-9]B, [0-9]+ layers x hidden [0-9]+, 1(4[7-9]|5[0-3])[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9] parameters as this job has them \\(swiglu"
              ARGS generate -m 15 --swiglu --world_size 64 --tensor_model_parallel_size 2 --global_batch 64
                   --seq_length 4096 -o seed15b_swiglu.txt)
# One model source for every subcommand: -m takes aicb's names, presets and sizes everywhere; generate takes
# a config.json and --size as describe does; the family default (llama) is one, and generate says it changed.
aicb_cli_test(generate_hf_config EXPECT "job: " "hidden_size=512" "wrote hf_small.txt: [0-9]+ records"
                                         "next: aicb lint hf_small.txt"
              ARGS generate --hf-config "${PROJECT_SOURCE_DIR}/tests/data/hf/llama_small.json" --world-size 8
                   --tp 2 --gbs 16 -o hf_small.txt)
aicb_cli_test(generate_epoch_num_is_iterations EXPECT "\\(2 iteration\\(s\\) x 4 micro batches\\)"
              ARGS generate -m llama2-7b --num-layers 2 --epoch_num 2 -o epoch_num.txt)
# A bare generate names its file for the GPU that times it and a model given by dimensions alone.
aicb_cli_test(generate_bare_names EXPECT "wrote results/workload/H100-custom-world_size1-tp1-pp1-ep1-gbs4-mbs1-seq2048-"
              REJECT "None" ARGS generate)
aicb_cli_test(generate_family_default_note EXPECT "--family defaults to llama in every subcommand now"
              ARGS generate -m 15 --world_size 8 --global_batch 8 -o family_note.txt)
aicb_cli_test(describe_aicb_model_name EXPECT "model gpt_13B" ARGS describe -m 13)
aicb_cli_test(describe_size_as_model EXPECT "model llama-15\\.[0-9]B" ARGS describe -m 15)
aicb_cli_test(generate_bool_field_is_a_flag EXPECT "wrote kv_flag.txt"
              ARGS generate -m llama3-8b --replicate-kv-heads --world_size 16 --tp 16 --gbs 16 -o kv_flag.txt)
aicb_cli_test(generate_size_refused_in_compat STATUS 2 EXPECT "aicb has no such option"
              ARGS generate --compat aicb --size 15B -o never_compat_size.txt)
# CSV outputs: their size is estimated from one iteration first; what cannot fit is refused.
aicb_cli_test(deepspeed_csv_too_large STATUS 1 EXPECT "the output would take about .* GiB but only"
              ARGS deepspeed --format csv --stage 1 --world_size 8 --global_batch 8 --epoch_num 1000000000000 -o never_deepspeed.csv)
aicb_cli_test(deepspeed_csv_too_large_aicb STATUS 1 EXPECT "the output would take about .* GiB but only"
              ARGS deepspeed --compat aicb --stage 1 --world_size 8 --epoch_num 1000000000000 -o never_deepspeed.csv)
aicb_cli_test(generate_csv_too_large STATUS 1 EXPECT "the output would take about .* GiB but only"
              ARGS generate --format csv --world_size 8 --global_batch 8 --epoch_num 1000000000000 -o never_generate.csv)
aicb_cli_test(micro_csv_too_large STATUS 1 EXPECT "the output would take about .* GiB but only"
              ARGS micro --format csv --world_size 8 --iter_num 1000000000000000 -o never_micro.csv)

# aicb schedule, aicb check: what one rank does; the whole-job check.
aicb_cli_test(schedule_rank EXPECT "rank 21 of 64: tp 1, cp 0, dp 1, pp 1" "tp\\[5\\] +\\[20 21 22 23\\]"
                                   "recv +forward .*recv_activation +from 5 tag"
                                   "collective +finalize .*grad_reduce +reduce_scatter dp_cp\\[5\\]/4"
              ARGS schedule --model llama2-7b --world-size 64 --tp 4 --pp 4 --vpp 2 --sp --distributed-optimizer
                   --global-batch 32 --seq 4096 --ranks 21)
aicb_cli_test(schedule_json EXPECT "\"rank\": 21" "\"operations\": ." "\"type\": \"collective\""
              ARGS schedule --model llama2-7b --world-size 64 --tp 4 --pp 4 --vpp 2 --sp --global-batch 32
                   --seq 4096 --ranks 21 --json --limit 50)
aicb_cli_test(schedule_only_transfers EXPECT "recv +forward +0 .*recv_activation +from 0 tag 0"
                                            "send +backward +3 .*send_gradient +to 0 tag 15"
              REJECT "collective" " compute "
              ARGS schedule --model llama2-7b --world-size 16 --tp 2 --pp 2 --sp --global-batch 16 --seq 4096
                   --ranks 8 --only transfer)
aicb_cli_test(schedule_one_microbatch EXPECT "collective +forward +3 .*attention_output_reduce"
              REJECT "forward +[0-2] " "finalize"
              ARGS schedule --model llama2-7b --world-size 16 --tp 2 --pp 2 --global-batch 16 --seq 4096
                   --ranks 8 --only collective --microbatch 3)
aicb_cli_test(schedule_rank_out_of_range STATUS 2 EXPECT "rank = 64: a rank must be below world_size \\(64\\)"
              ARGS schedule --model llama2-7b --world-size 64 --tp 4 --ranks 64)
aicb_cli_test(schedule_interleaved_refused STATUS 2 EXPECT "a multiple of pipeline_parallel, as Megatron-Core requires"
              ARGS schedule --model llama2-7b --world-size 64 --tp 4 --pp 4 --vpp 2 --sp --global-batch 24 --seq 4096)
aicb_cli_test(check_job EXPECT "ok: all 64 ranks ran jointly" "transfers"
              ARGS check --model mixtral-8x7b --world-size 64 --tp 2 --pp 2 --ep 8 --sp --global-batch 64 --seq 4096)
aicb_cli_test(check_job_two_passes EXPECT "ok: all 64 ranks streamed" "pipeline group 0 \\(4 ranks\\) ran jointly"
              ARGS check --model llama2-7b --world-size 64 --tp 4 --pp 4 --vpp 2 --sp --global-batch 32 --seq 4096
                   --joint-limit 16)
add_test(NAME cli.schedule_json_is_json
         COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/tools/json_output.py" operations $<TARGET_FILE:aicb_tool>
                 schedule --model llama2-7b --world-size 16 --tp 2 --pp 2 --sp --global-batch 8 --seq 2048 --ranks 9 --json)
set_tests_properties(cli.schedule_json_is_json PROPERTIES LABELS cli PASS_REGULAR_EXPRESSION "valid JSON")

# --- Versioned documents validate against their schemas (docs/schemas/) ---------------------------
function(aicb_schema_test name schema)
  add_test(NAME cli.${name}
           COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/scripts/check-json-schema.py"
                   "${PROJECT_SOURCE_DIR}/docs/schemas/${schema}" ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS cli)  # the checker exits 1 on any violation
endfunction()
aicb_schema_test(describe_json_schema_dense describe.schema.json -- $<TARGET_FILE:aicb_tool>
                 describe --model llama3-8b --world-size 16 --tp 2 --pp 2 --sp --global-batch 32 --json)
aicb_schema_test(describe_json_schema_moe describe.schema.json -- $<TARGET_FILE:aicb_tool>
                 describe --model mixtral-8x7b --world-size 64 --tp 2 --pp 4 --ep 8 --sp --global-batch 256 --json)
aicb_schema_test(describe_json_schema_estimate describe.schema.json -- $<TARGET_FILE:aicb_tool>
                 describe --model llama3-8b --world-size 16 --tp 2 --pp 2 --sp --global-batch 32 --dtype fp8
                 --gpu A100 --cluster dgx-a100 --tp-comm-overlap --overlap-p2p --json)
aicb_schema_test(describe_json_schema_nvlink_fits describe.schema.json -- $<TARGET_FILE:aicb_tool>
                 describe --model llama3-8b --world-size 16 --tp 2 --pp 2 --sp --global-batch 32
                 --gpu B200 --cluster dgx-b200 --json)
# An explicit pipeline layout and selective recomputation's modules, in the report and refused when wrong.
aicb_schema_test(describe_json_schema_layout describe.schema.json -- $<TARGET_FILE:aicb_tool>
                 describe --model deepseek-v3 --world-size 256 --pp 8 --vpp 2 --ep 32 --global-batch 4096
                 --seq 4096 --moe-dispatcher flex --moe-grouped-gemm --pipeline-layout "Et*4|(t*4|)*14tmL"
                 --recompute selective --recompute-modules mla_up_proj,mlp --json)
aicb_cli_test(pipeline_layout_refused STATUS 2 EXPECT "pipeline_layout = .*: it has 15 virtual stages"
              ARGS describe --model deepseek-v3 --world-size 256 --pp 8 --vpp 2 --ep 32 --global-batch 4096
                   --seq 4096 --pipeline-layout "Et*4|(t*4|)*13tmL")
aicb_cli_test(recompute_modules_refused STATUS 2 EXPECT "'attn' is not a module Megatron recomputes"
              ARGS describe --model llama3-8b --world-size 8 --global-batch 8 --recompute selective
                   --recompute-modules attn)
# A preset whose NVLink collectives are priced by fits says so, in the report, --explain and the JSON;
# the others report none.
aicb_cli_test(describe_nvlink_fits
              EXPECT "inside a node fitted to measurements: all_reduce 717 GB/s, all_gather 651 GB/s"
                     "all_reduce in a node \\(fit\\) +bus 717 GB/s, 5.52 us per ring hop, 22.23 us per collective"
              ARGS describe --model llama3-8b --world-size 16 --tp 2 --global-batch 32 --gpu B200
                   --cluster dgx-b200 --explain)
# (No unbalanced "[" in an EXPECT: CMake's lists do not split inside square brackets.)
aicb_cli_test(describe_nvlink_fits_json
              EXPECT "\"nvlink_fits\": " "\"collective\": \"all_reduce\"" "\"bus_gb_per_s\": 717\\.4"
                     "\"step_us\": 5\\.5183" "\"fixed_us\": 22\\.2316"
              ARGS describe --model llama3-8b --world-size 16 --tp 2 --global-batch 32 --gpu B200
                   --cluster dgx-b200 --json)
aicb_cli_test(describe_no_nvlink_fits_json EXPECT "\"nvlink_fits\": \\[\\]"
              ARGS describe --model llama3-8b --world-size 16 --tp 2 --global-batch 32 --gpu H100
                   --cluster dgx-h100 --json)
aicb_schema_test(plan_json_schema plan.schema.json -- $<TARGET_FILE:aicb_tool>
                 plan --model llama3-8b --world-size 16 --global-batch 32 --seq 4096 --json)
aicb_schema_test(timeline_json_schema trace.schema.json -- $<TARGET_FILE:aicb_tool>
                 timeline --model llama3-8b --num-layers 4 --world-size 16 --tp 2 --pp 2 --sp --global-batch 8
                 --tp-comm-overlap -o -)
aicb_schema_test(chakra_manifest_schema chakra.schema.json -- sh -c
                 "\"$0\" generate --format chakra --model mixtral-8x7b --num-layers 2 --world-size 8 --tp 2 --ep 4 --sp --global-batch 8 --ranks 0-3 -q -o chakra_schema_set && cat chakra_schema_set/manifest.json"
                 $<TARGET_FILE:aicb_tool>)
aicb_schema_test(serving_json_schema serving.schema.json -- $<TARGET_FILE:aicb_tool>
                 describe --model qwen3-235b-a22b --tp 4 --ep 8 --phase decode --batch 64 --context 2048 --dp-attention 2 --json)
aicb_schema_test(inference_timeline_json_schema trace.schema.json -- $<TARGET_FILE:aicb_tool>
                 inference --timeline /dev/stdout --model deepseek-v3 --phase decode --batch 64 --context 1024
                 --dp-attention 8 --ep 8 --weights fp8 -q -o inference_schema_step.txt)
aicb_schema_test(schedule_json_schema schedule.schema.json -- $<TARGET_FILE:aicb_tool>
                 schedule --model mixtral-8x7b --world-size 32 --tp 2 --pp 2 --ep 4 --sp --global-batch 16 --ranks 9 --json)
aicb_schema_test(generate_json_schema_simai generate.schema.json -- $<TARGET_FILE:aicb_tool>
                 generate -m llama3-8b --num-layers 2 --world-size 16 --tp 2 --sp --gbs 32 --cluster dgx-a100
                 -o generate_json.txt --json)
aicb_schema_test(generate_json_schema_chakra generate.schema.json -- $<TARGET_FILE:aicb_tool>
                 generate --format chakra -m llama3-8b --num-layers 2 --world-size 8 --tp 2 --pp 2 --gbs 8
                 -o generate_json_set --json)
aicb_schema_test(check_json_schema check.schema.json -- $<TARGET_FILE:aicb_tool>
                 check --model llama2-7b --world-size 16 --tp 2 --pp 2 --global-batch 16 --json)
aicb_schema_test(lint_json_schema lint.schema.json -- sh -c
                 "\"$0\" lint --json \"$1\" \"$2\" /nonexistent.txt || test $? -eq 2" $<TARGET_FILE:aicb_tool>
                 "${PROJECT_SOURCE_DIR}/tests/data/simai/good/valid.txt"
                 "${PROJECT_SOURCE_DIR}/tests/data/simai/bad/10_negative.txt")
aicb_cli_test(generate_cluster EXPECT "wrote generate_cluster.txt" "simulate: .*-g_type A100"
              ARGS generate -m llama3-8b --num-layers 2 --world-size 16 --tp 2 --gbs 32 --cluster dgx-a100
                   -o generate_cluster.txt)
aicb_cli_test(lint_json_diagnostics STATUS 2 EXPECT "\"severity\": \"error\"" "\"schema\": \"aicb.lint/1\""
              ARGS lint --json "${PROJECT_SOURCE_DIR}/tests/data/simai/bad/10_negative.txt")
aicb_cli_test(check_json_ok EXPECT "\"ok\": true" "\"ranks_streamed\": 16"
              ARGS check --model llama2-7b --world-size 16 --tp 2 --pp 2 --global-batch 16 --json)
# The sidecars of both modes: written by `aicb generate`, then validated.
set(_sidecar_dir "${CMAKE_CURRENT_BINARY_DIR}/sidecars")
file(MAKE_DIRECTORY "${_sidecar_dir}")
add_test(NAME cli.sidecar_write_corrected
         COMMAND $<TARGET_FILE:aicb_tool> generate -m llama3-8b --world-size 16 --tp 2 --sp --gbs 32 -q
                 -o "${_sidecar_dir}/corrected.txt")
add_test(NAME cli.sidecar_write_aicb
         COMMAND $<TARGET_FILE:aicb_tool> generate --compat aicb --world_size 16 --tensor_model_parallel_size 2 -q
                 -o "${_sidecar_dir}/aicb.txt")
set_tests_properties(cli.sidecar_write_corrected cli.sidecar_write_aicb PROPERTIES LABELS cli FIXTURES_SETUP sidecars)
aicb_schema_test(sidecar_json_schema sidecar.schema.json "${_sidecar_dir}/corrected.txt.json" "${_sidecar_dir}/aicb.txt.json")
set_tests_properties(cli.sidecar_json_schema PROPERTIES FIXTURES_REQUIRED sidecars)
aicb_cli_test(lint_chakra_trace STATUS 2 EXPECT "is a Chakra trace or set, not SimAI text"
              ARGS lint "${PROJECT_SOURCE_DIR}/tests/data/chakra/rank3.et")
aicb_cli_test(generate_output_dash STATUS 2 EXPECT "output = -: aicb writes files, not standard output"
              ARGS generate -m llama2-7b --num-layers 2 -o -)
aicb_cli_test(schedule_microbatch_beyond STATUS 2 EXPECT "microbatch = 999: must be below the job's micro batches per iteration \\(4\\)"
              ARGS schedule -m llama3-8b --num-layers 2 --world-size 2 --global-batch 8 --microbatch 999)
aicb_cli_test(check_beyond_stream_limit STATUS 2 EXPECT "world_size = 1000000000: checking streams every rank" "hour"
              ARGS check -m llama3-8b --num-layers 2 --world-size 1000000000 --global-batch 1000000000)
aicb_cli_test(timeline_too_many_ranks STATUS 2 EXPECT "ranks = all: names 2048 ranks; at most 1024 can be chosen here"
              ARGS timeline --model llama3-8b --num-layers 2 --world-size 2048 --global-batch 2048 --ranks all -o t.html)
aicb_cli_test(describe_phase_world_size STATUS 2 EXPECT "world_size = 8: a serving step runs on --tp x --dp-attention GPUs \\(2\\)"
              ARGS describe -m llama3-8b --tp 2 --world-size 8 --phase decode --batch 64 --context 4096)
aicb_cli_test(describe_phase_prompt_in_decode STATUS 2 EXPECT "prompt = 512: a decode step has no prompt"
              ARGS describe -m llama3-8b --tp 8 --phase decode --batch 64 --context 4096 --prompt 512)
aicb_cli_test(describe_phase_mtp_wrap STATUS 2 EXPECT "mtp_drafts = 18446744073709551615: must be at most 256"
              ARGS describe -m llama3-8b --tp 8 --phase decode --batch 64 --context 4096 --mtp-drafts 18446744073709551615)
aicb_cli_test(describe_phase_memory_fraction STATUS 2 EXPECT "memory_fraction = 2.0+: expected a fraction in .0, 1. of the GPU"
              ARGS describe -m llama3-8b --tp 8 --phase decode --batch 64 --context 4096 --memory-fraction 2)

# One vocabulary: every subcommand's flags listed, and no meaning with two spellings shown
# (tools/aicb/vocabulary.hpp). Old spellings still work, with a warning naming the new one.
add_test(NAME cli.flag_vocabulary
         COMMAND Python3::Interpreter "${CMAKE_CURRENT_SOURCE_DIR}/tools/flag_vocabulary.py" $<TARGET_FILE:aicb_tool>)
set_tests_properties(cli.flag_vocabulary PROPERTIES LABELS cli PASS_REGULAR_EXPRESSION "subcommands checked: one spelling")
aicb_cli_test(old_spelling_rank EXPECT "--rank is an old spelling of --ranks" "rank 3"
              ARGS schedule --model llama2-7b --num-layers 2 --world-size 8 --tp 2 --global-batch 4 --rank 3 --limit 1)
aicb_cli_test(old_spelling_micro_iterations EXPECT "--iterations is an old spelling of --repeat"
              ARGS micro --world_size 8 --iterations 2 -o old_spelling_micro.txt)
# Zero-bubble H1 and DualPipe: checked jointly, estimated, written for SimAI with what SimAI cannot show, and as
# Chakra traces; refused with the rule where they have no meaning.
set(zb_job --model llama3-8b --num-layers 8 --world-size 16 --tp 2 --pp 4 --sp --global-batch 16 --seq 2048)
aicb_cli_test(check_zb_h1 EXPECT "ok: all 16 ranks ran jointly" ARGS check ${zb_job} --pipeline-schedule zb_h1)
aicb_cli_test(check_dualpipe EXPECT "ok: all 16 ranks ran jointly" ARGS check ${zb_job} --pipeline-schedule dualpipe)
aicb_cli_test(describe_dualpipe EXPECT "pipeline_schedule=dualpipe" "iteration estimate"
              ARGS describe ${zb_job} --pipeline-schedule dualpipe --gpu H100)
aicb_cli_test(generate_zb_h1_simai EXPECT "pipeline_schedule zb_h1: SimAI runs its own 1F1B"
              ARGS generate ${zb_job} --pipeline-schedule zb_h1 --no-sidecar -o zb_h1.txt)
aicb_cli_test(generate_dualpipe_chakra EXPECT "wrote dualpipe_chakra/: 16 Chakra traces"
              ARGS generate ${zb_job} --pipeline-schedule dualpipe --format chakra -o dualpipe_chakra)
aicb_cli_test(dualpipe_odd_stages STATUS 2 EXPECT "pipeline_parallel = 3" "even pipeline_parallel"
              ARGS check --model llama3-8b --num-layers 6 --world-size 3 --pp 3 --global-batch 6
                   --pipeline-schedule dualpipe)
aicb_cli_test(zb_h1_interleaved STATUS 2 EXPECT "virtual_pipeline = 2" "one model chunk per stage"
              ARGS check ${zb_job} --vpp 2 --pipeline-schedule zb_h1)
# Slow ranks: what a straggler costs the iteration (describe), a slow rank's trace (Chakra), the refusals.
aicb_cli_test(describe_slow_rank EXPECT "slow +rank 5 compute x1.5" "what they cost +\\+[0-9.]+(e-?[0-9]+)? s per iteration"
              ARGS describe ${zb_job} --gpu H100 --slow-rank 5:1.5)
aicb_cli_test(describe_slow_node EXPECT "slow +node 1 communication x4" "what they cost"
              ARGS describe ${zb_job} --gpu H100 --slow-node 1:1:4)
aicb_cli_test(describe_slow_rank_malformed STATUS 2 EXPECT "--slow-rank" "INDEX:COMPUTE"
              ARGS describe ${zb_job} --slow-rank 5x)
aicb_cli_test(describe_slow_rank_outside STATUS 2 EXPECT "slow_rank = 16" "below world_size \\(16\\)"
              ARGS describe ${zb_job} --slow-rank 16:2)
aicb_cli_test(chakra_slow_rank EXPECT "wrote slow_chakra/: 16 Chakra traces"
              ARGS generate ${zb_job} --format chakra --slow-rank 5:2 -o slow_chakra)
aicb_cli_test(simai_slow_rank STATUS 2 EXPECT "only --format chakra writes a slow rank"
              ARGS generate ${zb_job} --slow-rank 5:2 -o slow.txt)
aicb_cli_test(chakra_slow_link STATUS 2 EXPECT "a Chakra trace times computation only"
              ARGS generate ${zb_job} --format chakra --slow-rank 5:1:2 -o slow_link_chakra)
aicb_cli_test(plan_restart EXPECT "before: 16 GPUs" "after losing 3: 8 GPUs" "cost: \\+[0-9.]+% per iteration"
              ARGS plan --model llama3-8b --world-size 16 --global-batch 32 --seq 2048 --lost-gpus 3 --estimate-limit 8)
aicb_cli_test(plan_restart_json STATUS 2 EXPECT "drop --json"
              ARGS plan --model llama3-8b --world-size 16 --global-batch 32 --lost-gpus 3 --json)

# --- Job sets: several jobs on one cluster (docs/jobs.md) ------------------------------------------
set(two_jobs "${PROJECT_SOURCE_DIR}/examples/jobs/two_jobs.json")
set(shared_leaves "${PROJECT_SOURCE_DIR}/examples/jobs/shared_leaves.json")
aicb_cli_test(jobs_check EXPECT "dense: ok" "moe: ok" ARGS check --jobs ${two_jobs})
aicb_cli_test(jobs_describe EXPECT "3 job\\(s\\) on 24 GPUs of dgx-h100" "oversubscribed 4:1" "a +4-11 +2 +2 "
                            "b +12-19 +2 +2 " ARGS describe --jobs ${shared_leaves})
aicb_cli_test(jobs_generate_chakra EXPECT "wrote jobs_chakra/: 16 file" "one Chakra trace per GPU" "dense: GPUs 0-7"
                                   "moe: GPUs 8-15" ARGS generate --jobs ${two_jobs} --format chakra -o jobs_chakra)
aicb_cli_test(jobs_generate_simai EXPECT "wrote jobs_simai/: 5 file" "simulate: SimAI_analytical -w jobs_simai/dense.txt -g 8 "
                                  ARGS generate --jobs ${two_jobs} --format simai -o jobs_simai)
aicb_cli_test(jobs_timeline EXPECT "side by side" "dense \\(GPUs 0-7\\)" ARGS timeline --jobs ${two_jobs} -o jobs.html)
aicb_cli_test(jobs_overlap STATUS 2 EXPECT "jobs.second.gpus = 4-11: GPU 4 is held by job first"
              ARGS check --jobs "${PROJECT_SOURCE_DIR}/tests/data/jobs/overlap.json")
aicb_cli_test(jobs_exceed STATUS 2 EXPECT "jobs.bigger.world_size = 16: the job does not fit" "big \\(GPUs 0-7\\)"
              ARGS generate --jobs "${PROJECT_SOURCE_DIR}/tests/data/jobs/exceed.json" --format chakra -o never_written)
aicb_cli_test(jobs_beside_job_flags STATUS 2 EXPECT "give either --jobs or a job's flags"
              ARGS describe --jobs ${two_jobs} --model llama3-8b)
aicb_cli_test(jobs_missing_file STATUS 1 EXPECT "no_such_jobs.json" ARGS check --jobs no_such_jobs.json)
aicb_schema_test(jobs_schema_examples jobs.schema.json ${two_jobs} ${shared_leaves})
aicb_schema_test(jobs_estimate_schema jobs.schema.json -- $<TARGET_FILE:aicb_tool> describe --jobs ${shared_leaves} --json)
aicb_schema_test(jobs_check_schema jobs.schema.json -- $<TARGET_FILE:aicb_tool> check --jobs ${two_jobs} --json)
aicb_schema_test(jobs_generate_schema jobs.schema.json -- $<TARGET_FILE:aicb_tool> generate --jobs ${two_jobs}
                 --format simai -o jobs_simai_json --json)
aicb_schema_test(jobs_simai_manifest_schema jobs.schema.json -- sh -c
                 "\"$0\" generate --jobs \"$1\" --format simai -q -o jobs_simai_manifest && cat jobs_simai_manifest/manifest.json"
                 $<TARGET_FILE:aicb_tool> ${two_jobs})
aicb_schema_test(jobs_chakra_manifest_schema chakra.schema.json -- sh -c
                 "\"$0\" generate --jobs \"$1\" --format chakra -q -o jobs_chakra_manifest && cat jobs_chakra_manifest/manifest.json"
                 $<TARGET_FILE:aicb_tool> ${two_jobs})

# --- aicb serve: a stream of requests on one deployment --------------------------------------------
aicb_cli_test(serve_synthetic
              EXPECT "model llama3-70b on 8 GPUs: TP 8 x DP-attention 1" "synthetic: 4 requests/s, gaps of CV 1"
                     "time to first token s +[0-9.]+ +[0-9.]+" "time per token ms" "throughput: [0-9.]+ requests/s"
                     "goodput at TTFT <= 500 ms, TPOT <= 40 ms: "
              ARGS serve --model llama3-70b --tp 8 --gpu H200 --count 200 --rate 4 --prompt 500:1500 --output 50:150
                   --slo-ttft-ms 500 --slo-tpot-ms 40)
aicb_cli_test(serve_trace EXPECT "requests: 2 \\(trace [^)]*trace.jsonl\\); 4908 prompt and 66 output tokens"
              ARGS serve --model llama3-8b --requests ${PROJECT_SOURCE_DIR}/tests/data/requests/trace.jsonl)
aicb_cli_test(serve_bad_trace STATUS 2 EXPECT "bad_key.jsonl:1:.*did you mean output_tokens"
              ARGS serve --model llama3-8b --requests ${PROJECT_SOURCE_DIR}/tests/data/requests/bad_key.jsonl)
aicb_cli_test(serve_trace_or_synthetic STATUS 2 EXPECT "--requests excludes --rate"
              ARGS serve --model llama3-8b --requests ${PROJECT_SOURCE_DIR}/tests/data/requests/trace.csv --rate 3)
aicb_cli_test(serve_bad_lengths STATUS 2 EXPECT "prompt = 900:100: expected 1 <= low <= high tokens"
              ARGS serve --model llama3-8b --prompt 900:100)
aicb_cli_test(serve_prefixes EXPECT "prefix cache: [0-9.]+% of prompt tokens found cached \\(4608 tokens\\)"
              ARGS serve --model llama3-8b --gpu H100
                   --requests ${PROJECT_SOURCE_DIR}/tests/data/requests/prefixes.csv)
aicb_cli_test(serve_synthetic_prefixes EXPECT "each prompt begins with one of 8 prefixes of 1500 tokens"
              ARGS serve --model llama3-8b --gpu H100 --count 200 --rate 20 --prompt 2000:3000 --output 10:20
                   --prefix-groups 8 --prefix-tokens 1500)
aicb_cli_test(serve_prefix_local_refused STATUS 2 EXPECT "prefix_caching = true: .*--no-prefix-caching"
              ARGS serve --model gpt-oss-120b --tp 4 --gpu H200 --count 30 --prefix-groups 2 --prefix-tokens 100)
aicb_schema_test(serve_prefix_json_schema serving_run.schema.json -- $<TARGET_FILE:aicb_tool>
                 serve --model llama3-8b --gpu H100 --count 300 --rate 20 --prompt 2000:3000 --output 100:200
                 --prefix-groups 8 --prefix-tokens 1500 --json)
aicb_cli_test(serve_recurrent EXPECT "recurrent state: [0-9.]+ MB a running request, held beside the KV cache"
              ARGS serve --model qwen3-next-80b-a3b --tp 4 --gpu H200 --count 50)
# The recurrent state as SGLang keeps it (FP32): twice the bytes a request holds; refused without one.
aicb_cli_test(serve_recurrent_state_fp32 EXPECT "KV cache bf16, recurrent state fp32" "recurrent state: 19\\.3 MB a running request"
              ARGS serve --model qwen3-next-80b-a3b --tp 4 --gpu H200 --count 20 --recurrent-state fp32)
aicb_cli_test(describe_recurrent_state_refused STATUS 2
              EXPECT "recurrent_state = fp32: the model keeps no recurrent state"
              ARGS describe --model llama3-8b --phase decode --batch 8 --context 1024 --recurrent-state fp32)
aicb_cli_test(serve_mamba EXPECT "recurrent state: [0-9.]+ MB a running request"
              ARGS serve --model nemotron3-nano-30b-a3b --gpu H100 --count 50 --rate 5)
aicb_cli_test(serve_mtp EXPECT "speculative decoding: 1 MTP draft a step, each accepted at 0.85: 1.85 tokens"
              ARGS serve --model deepseek-v3 --dp-attention 8 --ep 8 --weights fp8 --gpu H200 --cluster dgx-h200
                   --count 50 --mtp-drafts 1)
aicb_cli_test(serve_mtp_needs_module STATUS 2 EXPECT "mtp_drafts = 1: the model has no multi-token-prediction module"
              ARGS serve --model llama3-8b --mtp-drafts 1)
aicb_cli_test(serve_bad_acceptance STATUS 2 EXPECT "draft_acceptance = 1.5.*expected a probability"
              ARGS serve --model deepseek-v3 --dp-attention 8 --ep 8 --weights fp8 --gpu H200 --mtp-drafts 1
                   --draft-acceptance 1.5)
aicb_schema_test(serve_mtp_json_schema serving_run.schema.json -- $<TARGET_FILE:aicb_tool>
                 serve --model deepseek-v3 --dp-attention 8 --ep 8 --weights fp8 --gpu H200 --cluster dgx-h200
                 --count 100 --rate 5 --mtp-drafts 2 --draft-acceptance 0.8 --json)
aicb_schema_test(serve_recurrent_json_schema serving_run.schema.json -- $<TARGET_FILE:aicb_tool>
                 serve --model qwen3-next-80b-a3b --tp 4 --gpu H200 --count 100 --rate 5 --json)
aicb_cli_test(serve_weights_do_not_fit STATUS 2 EXPECT "leave no memory for a KV cache"
              ARGS serve --model llama3-70b --tp 1 --gpu H100)
aicb_schema_test(serve_json_schema serving_run.schema.json -- $<TARGET_FILE:aicb_tool>
                 serve --model deepseek-v3 --dp-attention 8 --ep 8 --weights fp8 --gpu H200 --cluster dgx-h200
                 --count 300 --rate 5 --prompt 1000:3000 --output 100:300 --slo-ttft-ms 2000 --json)
# The requests written as a trace and served from it give the same latencies.
add_test(NAME cli.serve_written_trace_serves_the_same
         COMMAND sh -c "set -e; a=$(\"$0\" serve --model llama3-8b --count 100 --rate 20 --cv 2 --write-requests serve_written.csv | grep -v '^requests: '); b=$(\"$0\" serve --model llama3-8b --requests serve_written.csv | grep -v '^requests: '); [ \"$a\" = \"$b\" ] && echo same"
                 $<TARGET_FILE:aicb_tool>)
set_tests_properties(cli.serve_written_trace_serves_the_same PROPERTIES LABELS cli PASS_REGULAR_EXPRESSION "^same")
# Disaggregated: the KV transfers reported, the prefill layout its own; a prefill layout alone refused.
aicb_cli_test(serve_disaggregated
              EXPECT "on 24 GPUs, disaggregated: 1 prefill instance\\(s\\) of TP 8 x DP-attention 1, EP 1, 2 decode instance\\(s\\) of TP 8"
                     "KV transfers [0-9.]+ GB in all, [0-9.]+ ms a request at the median"
              ARGS serve --model llama3-70b --tp 8 --gpu H200 --count 100 --rate 4 --prompt 1000:2000 --output 50:100
                   --prefill-instances 1 --decode-instances 2)
aicb_cli_test(serve_prefill_layout_needs_instances STATUS 2 EXPECT "needs --prefill-instances"
              ARGS serve --model llama3-70b --tp 8 --prefill-tp 4)
aicb_schema_test(serve_json_schema_disaggregated serving_run.schema.json -- $<TARGET_FILE:aicb_tool>
                 serve --model deepseek-v3 --dp-attention 8 --ep 8 --weights fp8 --gpu H200 --cluster dgx-h200
                 --count 300 --rate 5 --prompt 1000:3000 --output 100:300 --prefill-instances 1 --prefill-dp-attention 16
                 --prefill-ep 16 --decode-instances 1 --slo-tpot-ms 50 --json)
# aicb plan --serving: deployments ranked for a traffic and an objective; none without an objective;
# exit 1 when none meets it.
aicb_cli_test(plan_serving EXPECT "rank deployment +GPUs +within" "\n1 +[0-9]+ [a-z0-9 +]*x TP[0-9] DP1 EP1" "deployments judged in [0-9]+ simulations"
              ARGS plan --serving --model llama3-8b --gpu H200 --count 400 --rate 40 --prompt 1000:3000 --output 50:150
                   --slo-ttft-ms 300 --slo-tpot-ms 12 --max-gpus 8)
aicb_cli_test(plan_serving_needs_objective STATUS 2 EXPECT "needs an objective"
              ARGS plan --serving --model llama3-8b --count 50 --rate 5)
aicb_cli_test(plan_serving_none_meets STATUS 1 EXPECT "no deployment of at most 8 GPUs meets the objective"
              ARGS plan --serving --model llama3-70b --gpu H200 --count 200 --rate 50 --slo-tpot-ms 1 --max-gpus 8)
# The run's operations, bounded: every kind of step once with the mix (SimAI text; Chakra with the KV
# transfers as sends and receives when disaggregated), and the report as an HTML page with its plots.
aicb_cli_test(serve_steps_simai EXPECT "steps: [0-9]+ kinds \\([0-9]+ with a prompt chunk, [0-9]+ decode only\\)"
                                       "wrote serve_steps: [0-9]+ kinds of step \\([0-9]+ steps\\), [0-9]+ files, the mix in steps.csv"
              ARGS serve --model llama3-8b --gpu H200 --count 100 --rate 20 --steps serve_steps)
add_test(NAME cli.serve_steps_chakra_disaggregated
         COMMAND sh -c "set -e; rm -rf serve_steps_pd; \"$0\" serve --model deepseek-v3 --dp-attention 8 --ep 8 --weights fp8 --gpu H200 --count 60 --rate 5 --prefill-instances 1 --decode-instances 1 --steps serve_steps_pd --steps-format chakra --steps-ranks 0-1 > /dev/null; grep -c '^prefill,' serve_steps_pd/steps.csv; grep '^transfer,0,kv_cache,' serve_steps_pd/steps.csv; ls serve_steps_pd/kv-transfer serve_steps_pd/decode-000-*"
                 $<TARGET_FILE:aicb_tool>)
set_tests_properties(cli.serve_steps_chakra_disaggregated PROPERTIES LABELS cli
                     PASS_REGULAR_EXPRESSION "transfer,0,kv_cache,0,0,0,[0-9]+,60,[0-9.e-]+,,kv-transfer.*workload\\.1\\.et.*kv_transfer\\.0\\.et")
aicb_cli_test(serve_html EXPECT "wrote serve_report.html: the report with its latency plots"
              ARGS serve --model llama3-8b --gpu H200 --count 50 --rate 10 --html serve_report.html)
aicb_cli_test(serve_steps_ranks_need_steps STATUS 2 EXPECT "give --steps DIR"
              ARGS serve --model llama3-8b --steps-ranks 0-1)
aicb_cli_test(serve_steps_ranks_need_chakra STATUS 2 EXPECT "only a Chakra set takes chosen GPUs"
              ARGS serve --model llama3-8b --count 5 --steps serve_steps_ranks --steps-ranks 0)
aicb_cli_test(plan_serving_writes_no_files STATUS 2 EXPECT "a serving plan writes no files"
              ARGS plan --serving --model llama3-8b --count 50 --rate 5 --slo-tpot-ms 20 --html plan.html)
# A bound on outstanding requests: a closed loop of clients, aggregated or disaggregated; refused where it
# cannot be simulated.
aicb_cli_test(serve_concurrency EXPECT "at most 4 outstanding \\(each next sent as one finishes\\)"
              ARGS serve --model llama3-8b --gpu H100 --count 40 --prompt 500 --output 50 --concurrency 4)
aicb_cli_test(serve_step_overhead EXPECT "host: 500 us a step exposed before the GPUs run it"
              ARGS serve --model llama3-8b --gpu H100 --count 40 --prompt 500 --output 50 --step-overhead-us 500)
aicb_cli_test(serve_step_overhead_negative STATUS 2 EXPECT "step_overhead_us"
              ARGS serve --model llama3-8b --gpu H100 --count 40 --step-overhead-us -5)
# A front end streaming the tokens: reported, refused with a negative cost, refused where not simulated.
aicb_cli_test(serve_front_end EXPECT "front end: streams each request's new tokens of a step as one message"
              "175 us a message and 0.50 us a token of the whole text so far"
              ARGS serve --model llama3-8b --gpu H100 --count 40 --prompt 500 --output 50 --stream-message-us 175
                   --stream-token-us 0.5 --stream-cumulative)
aicb_cli_test(serve_front_end_negative STATUS 2 EXPECT "stream_message_us"
              ARGS serve --model llama3-8b --gpu H100 --count 40 --stream-message-us -1)
aicb_cli_test(serve_front_end_disaggregated STATUS 2 EXPECT "aggregated deployment only"
              ARGS serve --model llama3-70b --tp 8 --gpu H200 --count 20 --prefill-instances 1
                   --stream-message-us 100)
aicb_schema_test(serve_front_end_json_schema serving_run.schema.json -- $<TARGET_FILE:aicb_tool>
                 serve --model llama3-8b --gpu H100 --count 40 --output 50 --stream-message-us 175 --json)
aicb_cli_test(serve_receive_interval EXPECT "host: new requests taken in every 10 decode steps"
              ARGS serve --model llama3-8b --gpu H100 --count 40 --output 50 --scheduler sglang --receive-interval 10)
aicb_cli_test(serve_receive_interval_zero STATUS 2 EXPECT "receive_interval = 0: expected 1 to 1,000,000"
              ARGS serve --model llama3-8b --gpu H100 --count 40 --receive-interval 0)
aicb_schema_test(serve_receive_interval_json_schema serving_run.schema.json -- $<TARGET_FILE:aicb_tool>
                 serve --model llama3-8b --gpu H100 --count 40 --output 50 --receive-interval 4 --json)
aicb_cli_test(serve_concurrency_disaggregated
              EXPECT "disaggregated: 1 prefill instance" "at most 4 outstanding" "KV transfers"
              ARGS serve --model llama3-70b --tp 8 --gpu H200 --count 20 --prefill-instances 1 --concurrency 4)
aicb_schema_test(serve_concurrency_disaggregated_json_schema serving_run.schema.json -- $<TARGET_FILE:aicb_tool>
                 serve --model llama3-70b --tp 8 --gpu H200 --count 20 --prefill-instances 1 --concurrency 4 --json)
aicb_cli_test(plan_serving_concurrency EXPECT "clients keep at most 16 requests outstanding over a deployment"
              "1 +[0-9]+ x TP"
              ARGS plan --serving --model llama3-8b --gpu H200 --count 200 --prompt 1000 --output 100
                   --slo-tpot-ms 20 --concurrency 16 --max-gpus 8)
# A window of the run as a timeline (aggregated and disaggregated), valid against its schema; a window
# without a file, or an empty one, refused.
aicb_cli_test(serve_timeline EXPECT "wrote serve_timeline.json: the timeline of [0-9]+ steps from 1 s to 2 s"
              ARGS serve --model llama3-8b --gpu H100 --count 200 --rate 20 --prompt 500:2000 --output 50:200
                   --timeline serve_timeline.json --timeline-window 1:2)
aicb_schema_test(serve_timeline_json_schema serving_timeline.schema.json -- sh -c
                 "\"$0\" serve --model deepseek-v3 --dp-attention 8 --ep 8 --weights fp8 --gpu H200 --count 60 --rate 5 --prefill-instances 1 --decode-instances 2 --timeline serve_timeline_pd.json > /dev/null && cat serve_timeline_pd.json"
                 $<TARGET_FILE:aicb_tool>)
aicb_cli_test(serve_timeline_window_needs_file STATUS 2 EXPECT "a window needs --timeline FILE"
              ARGS serve --model llama3-8b --timeline-window 1:2)
aicb_cli_test(serve_timeline_empty_window STATUS 2 EXPECT "timeline_window = 3:1: expected 0 <= FROM < TO seconds"
              ARGS serve --model llama3-8b --timeline serve_timeline_bad.json --timeline-window 3:1)
