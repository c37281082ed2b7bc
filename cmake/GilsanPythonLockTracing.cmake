# gilsan_python_lock_tracing: the Python half of the lock source (checkers/sources/python_lock_tracing.py),
# compiled in as text so that no front end needs the file at run time. Its own library, without Python
# headers, because both front ends link it: the scenario child (harness/runner) and the injected
# library (checkers/inject); whichever folder is configured first defines it. Reconfigured when the .py
# changes.
function(gilsan_python_lock_tracing_library)
  if(TARGET gilsan_python_lock_tracing)
    return()
  endif()
  set(_source_dir ${PROJECT_SOURCE_DIR}/checkers/sources)
  set(_lock_tracing_py ${_source_dir}/python_lock_tracing.py)
  file(READ ${_lock_tracing_py} GILSAN_PYTHON_LOCK_TRACING_SOURCE)
  set(GILSAN_PYTHON_LOCK_TRACING_PATH ${_lock_tracing_py})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_lock_tracing_py})
  set(_generated ${CMAKE_BINARY_DIR}/generated/python_lock_tracing_source.cpp)
  configure_file(${_source_dir}/python_lock_tracing_source.cpp.in ${_generated} @ONLY)
  add_library(gilsan_python_lock_tracing STATIC ${_generated})
  gilsan_target_defaults(gilsan_python_lock_tracing)
endfunction()
