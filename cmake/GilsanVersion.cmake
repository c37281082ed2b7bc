# GILSAN_VERSION: which gilsan made a result (suite results JSON, `gilsan merge --compare` across two
# gilsan versions). `git describe --always --dirty` of the source tree when it is a git checkout, read
# at configure time (a build of a later commit in the same build folder says so only after cmake runs
# again, which ci/build.sh does); else the project's version with "(no git)".
find_package(Git QUIET)
set(GILSAN_VERSION "${PROJECT_VERSION} (no git)")
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _gilsan_describe OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _gilsan_describe_status ERROR_QUIET)
  if(_gilsan_describe_status EQUAL 0 AND NOT _gilsan_describe STREQUAL "")
    set(GILSAN_VERSION "${PROJECT_VERSION}+${_gilsan_describe}")
  endif()
endif()
