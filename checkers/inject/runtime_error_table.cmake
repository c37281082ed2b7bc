# Writes OUTPUT: the C++ table of the CUDA runtime's cudaError_t names, read from the toolkit's
# driver_types.h (HEADER), one `{N, "cudaErrorX"},` per `cudaErrorX = N,` line (and cudaSuccess).
# Run at build time by checkers/inject/CMakeLists.txt, so a new toolkit's names come with it.
file(STRINGS "${HEADER}" lines REGEX "^[ \t]*cuda(Success|Error[A-Za-z0-9_]*)[ \t]*=[ \t]*[0-9]+")
set(entries "")
set(count 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^[ \t]*(cuda[A-Za-z0-9_]+)[ \t]*=[ \t]*([0-9]+)")
    string(APPEND entries "    {${CMAKE_MATCH_2}, \"${CMAKE_MATCH_1}\"},\n")
    math(EXPR count "${count} + 1")
  endif()
endforeach()
if(count LESS 2)
  message(FATAL_ERROR "${HEADER}: no `cudaErrorX = N,` lines found; cannot build the runtime error table")
endif()
file(WRITE "${OUTPUT}.tmp" "// Generated from ${HEADER} by checkers/inject/runtime_error_table.cmake: do not edit.\n{\n${entries}}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
