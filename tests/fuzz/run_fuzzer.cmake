# Runs FUZZER for SECONDS over CORPUS (created, kept between runs) and the SEEDS folders, with a
# 5-second per-input timeout and a 2 GB memory limit; fails on any crash, leak, hang or excess
# memory, and prints libFuzzer's count of executions.
file(MAKE_DIRECTORY "${CORPUS}")
set(seed_dirs "")
foreach(dir IN LISTS SEEDS)
  if(IS_DIRECTORY "${dir}")
    list(APPEND seed_dirs "${dir}")
  endif()
endforeach()
execute_process(COMMAND "${FUZZER}" -max_total_time=${SECONDS} -timeout=5 -rss_limit_mb=2048 -print_final_stats=1
                        "-artifact_prefix=${CORPUS}/../" "${CORPUS}" ${seed_dirs}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second" done "${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a failure (status ${status}):\n${err}")
endif()
message(STATUS "${done}")
