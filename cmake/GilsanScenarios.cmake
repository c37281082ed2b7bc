# gilsan_add_scenarios(DIR [DRIVER sim|real|auto] [PREFIX name] [TIMEOUT seconds] [LABELS ...] [ARGS ...])
#
# Registers each scenario under DIR (every *.py below it, except helper modules named _*.py) as a ctest
# that runs `gilsan run --driver DRIVER FILE ARGS...`: it passes when the scenario's outcome matches its
# `# gilsan: expect` line (gilsan run's exit code 0). DRIVER defaults to sim, so the tests run on any
# machine; PREFIX (default: DIR's name followed by "/") starts each test's name, which goes on with the
# scenario's path below DIR without ".py". TIMEOUT is ctest's limit, on top of the scenario's own
# watchdog timeout (default 120 s). Scenarios added or removed below DIR are picked up at the next
# configure (the glob is CONFIGURE_DEPENDS).
function(gilsan_add_scenarios dir)
  cmake_parse_arguments(PARSE_ARGV 1 _gilsan "" "DRIVER;PREFIX;TIMEOUT" "LABELS;ARGS")
  if(_gilsan_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gilsan_add_scenarios: unexpected arguments: ${_gilsan_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET gilsan::gilsan)
    message(FATAL_ERROR "gilsan_add_scenarios: call find_package(gilsan) first")
  endif()
  get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT IS_DIRECTORY "${dir}")
    message(FATAL_ERROR "gilsan_add_scenarios: ${dir} is not a folder")
  endif()
  if(NOT DEFINED _gilsan_DRIVER)
    set(_gilsan_DRIVER sim)
  elseif(NOT _gilsan_DRIVER MATCHES "^(sim|real|auto)$")
    message(FATAL_ERROR "gilsan_add_scenarios: DRIVER must be sim, real or auto, not '${_gilsan_DRIVER}'")
  endif()
  if(NOT DEFINED _gilsan_PREFIX)
    get_filename_component(_gilsan_PREFIX "${dir}" NAME)
    string(APPEND _gilsan_PREFIX "/")
  endif()
  if(NOT DEFINED _gilsan_TIMEOUT)
    set(_gilsan_TIMEOUT 120)
  endif()
  file(GLOB_RECURSE _scenarios CONFIGURE_DEPENDS RELATIVE "${dir}" "${dir}/*.py")
  list(SORT _scenarios)
  set(_count 0)
  foreach(_scenario IN LISTS _scenarios)
    get_filename_component(_file_name "${_scenario}" NAME)
    if(_file_name MATCHES "^_" OR _scenario MATCHES "(^|/)__pycache__/")
      continue()
    endif()
    string(REGEX REPLACE "\\.py$" "" _name "${_scenario}")
    add_test(NAME "${_gilsan_PREFIX}${_name}"
             COMMAND gilsan::gilsan run --driver ${_gilsan_DRIVER} "${dir}/${_scenario}" ${_gilsan_ARGS})
    set_tests_properties("${_gilsan_PREFIX}${_name}" PROPERTIES TIMEOUT ${_gilsan_TIMEOUT}
                         LABELS "gilsan;${_gilsan_LABELS}")
    math(EXPR _count "${_count} + 1")
  endforeach()
  if(_count EQUAL 0)
    message(FATAL_ERROR "gilsan_add_scenarios: no scenario (*.py) under ${dir}")
  endif()
endfunction()
