# Compiles SOURCE with COMPILER (C++20, warnings as errors, INCLUDE on the include path) and runs it.
file(MAKE_DIRECTORY "${WORK}")
set(program "${WORK}/single_header")
execute_process(COMMAND "${COMPILER}" -std=c++20 -O1 -Wall -Wextra -Werror -I "${INCLUDE}" "${SOURCE}" -o "${program}"
                RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${COMPILER} could not build ${SOURCE}:\n${errors}")
endif()
execute_process(COMMAND "${program}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${program} exited with ${status}")
endif()
