# Shared settings for every target of our own: warnings as errors, the chosen sanitizers,
# and the CUDA headers without the CUDA driver library.

if(GILSAN_SANITIZE STREQUAL "")
  set(_gilsan_sanitize_flags "")
elseif(GILSAN_SANITIZE MATCHES "^(address,undefined|undefined,address|address|undefined|thread)$")
  set(_gilsan_sanitize_flags -fsanitize=${GILSAN_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
else()
  message(FATAL_ERROR "GILSAN_SANITIZE must be empty, 'address,undefined' or 'thread', not '${GILSAN_SANITIZE}'")
endif()

function(gilsan_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-missing-field-initializers ${_gilsan_sanitize_flags})
  target_link_options(${target} PRIVATE ${_gilsan_sanitize_flags})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
endfunction()

# The driver API headers only: CUDA::toolkit is an include-only target, so nothing links libcuda.
function(gilsan_use_cuda_headers target)
  target_include_directories(${target} PUBLIC ${CUDAToolkit_INCLUDE_DIRS})
endfunction()

# Adds each listed subfolder of the current folder that exists, honouring GILSAN_ONLY.
function(gilsan_add_parts)
  foreach(part ${ARGN})
    if(GILSAN_ONLY AND NOT part IN_LIST GILSAN_ONLY)
      continue()
    endif()
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${part}/CMakeLists.txt)
      add_subdirectory(${part})
    endif()
  endforeach()
endfunction()
