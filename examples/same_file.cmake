# Writes one job's SimAI file through the library (the write_simai example) and through `aicb
# generate`, and fails unless the two files are byte-identical.
set(library "${WORK}/same_file_library.txt")
set(cli "${WORK}/same_file_cli.txt")
file(REMOVE "${library}" "${cli}")
execute_process(COMMAND "${EXAMPLE}" "${library}" RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the example exited with ${status}:\n${errors}")
endif()
execute_process(COMMAND "${TOOL}" generate -m llama3-8b --world-size 16 --tp 2 --sp --gbs 32 --seq 4096
                        --no-sidecar -q -o "${cli}"
                RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "aicb generate exited with ${status}:\n${errors}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${library}" "${cli}" RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "the library and the command line wrote different files: ${library} ${cli}")
endif()
file(REMOVE "${library}" "${cli}")
