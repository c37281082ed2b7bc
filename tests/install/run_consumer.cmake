# cmake -P run_consumer.cmake: the steps of the install/consumer test (tests/install/CMakeLists.txt).
# Each step stops the test with its own one-line reason and the step's output.

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "install/consumer: ${what} failed (${status}):\n${output}")
  endif()
  message(STATUS "install/consumer: ${what}: ok")
  set(step_output "${output}" PARENT_SCOPE)
endfunction()

foreach(variable GILSAN_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR MAKE_PROGRAM PYTHON CTEST BENCH_JSON)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "run_consumer.cmake needs -D${variable}=...")
  endif()
endforeach()

set(installed ${WORK_DIR}/installed)
set(moved ${WORK_DIR}/moved)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

step("cmake --install" ${CMAKE_COMMAND} --install ${GILSAN_BUILD_DIR} --prefix ${installed})
# Moved with its symbolic links as links (file(RENAME) keeps the tree exactly as installed).
file(RENAME ${installed} ${moved})

step("configure the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/consumer -G ${GENERATOR}
     -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_PREFIX_PATH=${moved} -DPython3_EXECUTABLE=${PYTHON}
     -DGILSAN_EXPECTED_PREFIX=${moved}/)
step("build the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
step("the consumer's ctest" ${CMAKE_COMMAND} -E chdir ${WORK_DIR}
     ${CTEST} --test-dir ${WORK_DIR}/consumer --output-on-failure --no-tests=error)
message(STATUS "${step_output}")  # which tests ran, for the log
# `gilsan bench` from the moved tree: its workloads are the installed copies; rendering an earlier run
# measures nothing, so the step is quick.
if(NOT EXISTS ${moved}/share/gilsan/bench/bench_run.py)
  message(FATAL_ERROR "install/consumer: share/gilsan/bench/bench_run.py is not installed")
endif()
step("gilsan bench from the installed tree" ${moved}/bin/gilsan bench --from-json ${BENCH_JSON}
     --markdown ${WORK_DIR}/performance.md)
file(READ ${WORK_DIR}/performance.md rendered)
if(NOT rendered MATCHES "us per callback|per callback")
  message(FATAL_ERROR "install/consumer: the installed bench rendered no per-callback table:\n${rendered}")
endif()
# The installed tree is the test's only leftover otherwise; the folder is rebuilt by the next run.
file(REMOVE_RECURSE ${WORK_DIR})
