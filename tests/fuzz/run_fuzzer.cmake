# Runs FUZZER over its SEEDS folders. With SEEDS_ONLY, each seed file once (libFuzzer's -runs=0):
# the regression corpus. Otherwise for SECONDS over CORPUS (created, kept between runs) and the seeds,
# with a 5-second per-input timeout and a 2 GB memory limit. Fails on any crash, leak, hang, excess
# memory or undefined behaviour, and prints libFuzzer's count of executions.
set(seed_dirs "")
foreach(dir IN LISTS SEEDS)
  if(IS_DIRECTORY "${dir}")
    list(APPEND seed_dirs "${dir}")
  endif()
endforeach()
if(SEEDS_ONLY)
  execute_process(COMMAND "${FUZZER}" -runs=0 -timeout=5 -rss_limit_mb=2048 ${seed_dirs}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
else()
  file(MAKE_DIRECTORY "${CORPUS}")
  execute_process(COMMAND "${FUZZER}" -max_total_time=${SECONDS} -timeout=5 -rss_limit_mb=2048 -print_final_stats=1
                          "-artifact_prefix=${CORPUS}/../" "${CORPUS}" ${seed_dirs}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second" done "${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the fuzzer found a failure (status ${status}):\n${err}")
endif()
string(REGEX MATCH "INITED[^\n]*" inited "${err}")
message(STATUS "${done}${inited}")
