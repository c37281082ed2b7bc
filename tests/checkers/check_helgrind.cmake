# Runs PROGRAM under `VALGRIND --tool=helgrind` and passes when Helgrind reports a lock-order
# violation whose locks were announced by gilsan's HelgrindAnnouncer (so the order is between the
# sanitizer's pseudo-locks, not between the simulated driver's own mutexes), and the program's own
# check that the announcer's bytes stay few over many stream lifetimes passed (its exit status); then that
# the announcer is made under Helgrind and DRD, which read its annotations, and not under Callgrind.
# Usage: cmake -DVALGRIND=path -DPROGRAM=path -P check_helgrind.cmake
if(NOT VALGRIND OR NOT EXISTS "${VALGRIND}")
  message("SKIP: valgrind is not installed (ci/install-deps.sh installs it)")
  return()
endif()
execute_process(
  COMMAND "${VALGRIND}" --tool=helgrind --num-callers=30 "${PROGRAM}"
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
set(all "${out}${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} under helgrind exited with ${status}:\n${all}")
endif()
string(REGEX MATCH "lock order \"0x[0-9A-Fa-f]+ before 0x[0-9A-Fa-f]+\" violated" violation "${all}")
if(NOT violation)
  message(FATAL_ERROR "helgrind reported no lock-order violation:\n${all}")
endif()
string(FIND "${all}" "HelgrindAnnouncer" announced)
if(announced EQUAL -1)
  message(FATAL_ERROR "the violation does not involve gilsan's announced pseudo-locks:\n${all}")
endif()
string(FIND "${all}" "lock-order-cycle" reported)
if(reported EQUAL -1)
  message(FATAL_ERROR "the sanitizer itself did not report the cycle:\n${all}")
endif()
# The program fails on its own when the announcer's bytes grow with stream lifetimes; say how many.
string(REGEX MATCH "[0-9]+ announced bytes made over [0-9]+ stream lifetimes" bytes "${all}")
message(STATUS "helgrind: ${violation}; ${bytes}")

# Only the tools that read lock annotations get them (valgrind_announcer.h, announcements_are_read).
foreach(tool_and_expected "helgrind;yes" "drd;yes" "callgrind;no")
  list(GET tool_and_expected 0 tool)
  list(GET tool_and_expected 1 expected)
  set(tool_options --tool=${tool})
  if(tool STREQUAL "callgrind")
    list(APPEND tool_options --callgrind-out-file=/dev/null)
  endif()
  execute_process(
    COMMAND "${VALGRIND}" ${tool_options} "${PROGRAM}" --announcer=${expected}
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "under ${tool}, the announcer should be made: ${expected}; got:\n${out}${err}")
  endif()
endforeach()
message(STATUS "helgrind: announcer made under helgrind and drd, not under callgrind")
