# Configures aicb with its defaults (tests, examples and CUDA off to keep it quick), installs without
# building, and checks that the headers and the package files landed.
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE}" -B "${WORK}/build" -DAICB_BUILD_TESTS=OFF
                        -DAICB_BUILD_EXAMPLES=OFF -DAICB_BUILD_CUDA=OFF
                RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "configure failed:\n${errors}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --install "${WORK}/build" --prefix "${WORK}/prefix"
                RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install without a build failed:\n${errors}")
endif()
foreach(file include/aicb/aicb.hpp share/cmake/aicb/aicbConfig.cmake)
  if(NOT EXISTS "${WORK}/prefix/${file}")
    message(FATAL_ERROR "not installed: ${file}")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
