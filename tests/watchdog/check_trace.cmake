# Runs GILSAN (gilsan) on SCENARIO with GILSAN_WATCHDOG_TRACE=TRACE and checks that the trace holds a
# sample that found the spin, with the spinning thread's frames, and the HUNG verdict.
# cmake -DGILSAN=... -DSCENARIO=... -DTRACE=... -DSPINNING_DRIVER=... -P check_trace.cmake
file(REMOVE ${TRACE})
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env GILSAN_WATCHDOG_TRACE=${TRACE} GILSAN_TEST_SPINNING_DRIVER=${SPINNING_DRIVER}
          ${GILSAN} run ${SCENARIO} --driver sim
  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "gilsan run exited with ${status}:\n${output}\n${errors}")
endif()
if(NOT EXISTS ${TRACE})
  message(FATAL_ERROR "no trace written to ${TRACE}")
endif()
file(READ ${TRACE} trace)
foreach(expected "progress on the board" "ms sample: not hung" "checked spinning-in=cuStreamSynchronize"
                 "frames: cuStreamSynchronize \\(libgilsan_test_spinning_driver.so\\)" "ms sample: HUNG")
  if(NOT trace MATCHES "${expected}")
    message(FATAL_ERROR "the trace lacks '${expected}':\n${trace}")
  endif()
endforeach()
file(REMOVE ${TRACE})
