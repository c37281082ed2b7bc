# Shared settings for every target of our own: warnings as errors, the chosen sanitizers,
# and the CUDA headers without the CUDA driver library.

# The install layout (bin/, lib/, share/gilsan/) is compiled into harness/driver/install_layout.cpp as
# paths relative to the prefix, so an installed tree can be moved: absolute folders would defeat that.
include(GNUInstallDirs)
foreach(_dir BINDIR LIBDIR DATADIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
    message(FATAL_ERROR "CMAKE_INSTALL_${_dir} must be relative to the prefix (gilsan finds its pieces from its own location)")
  endif()
endforeach()
set(GILSAN_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/gilsan)
set(GILSAN_INSTALL_PYTHONDIR ${CMAKE_INSTALL_LIBDIR}/gilsan/python)
set(GILSAN_INSTALL_DRIVERDIR ${CMAKE_INSTALL_LIBDIR}/gilsan/driver)

if(GILSAN_SANITIZE STREQUAL "")
  set(_gilsan_sanitize_flags "")
elseif(GILSAN_SANITIZE MATCHES "^(address,undefined|undefined,address|address|undefined|thread)$")
  set(_gilsan_sanitize_flags -fsanitize=${GILSAN_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
else()
  message(FATAL_ERROR "GILSAN_SANITIZE must be empty, 'address,undefined' or 'thread', not '${GILSAN_SANITIZE}'")
endif()

set(_gilsan_werror "")
if(GILSAN_WARNINGS_AS_ERRORS)
  set(_gilsan_werror -Werror)
endif()

function(gilsan_target_defaults target)
  gilsan_unsanitized_target_defaults(${target})
  target_compile_options(${target} PRIVATE ${_gilsan_sanitize_flags})
  target_link_options(${target} PRIVATE ${_gilsan_sanitize_flags})
endfunction()

# The same, never with a sanitizer: for what is preloaded into programs gilsan did not build
# (harness/nativelocks), where an instrumented library would pull the sanitizer's runtime in.
function(gilsan_unsanitized_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra ${_gilsan_werror} -Wno-missing-field-initializers)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
endfunction()

# Sources that #define one of cuda.h's switches (__CUDA_API_VERSION_INTERNAL,
# CUDA_API_PER_THREAD_DEFAULT_STREAM) before including it: a unity build (CMAKE_UNITY_BUILD=ON, as CI's
# sanitizer builds are made) compiles them alone, since cuda.h declares other functions under them.
# Paths relative to the calling folder, which must be the one that adds their target.
function(gilsan_compile_alone)
  set_source_files_properties(${ARGN} DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
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

# The environment an uninstrumented python3 needs to load our libraries in an ASan build: the ASan
# runtime first, and libstdc++ (python3 does not link it, and ASan's __cxa_throw interceptor must find
# the real one when it starts, or the first C++ exception aborts the process). CPython's deliberate
# leaks make LeakSanitizer useless there. Empty in other builds.
function(gilsan_python_preload_env out_var)
  set(_env "")
  if(GILSAN_SANITIZE MATCHES "address")
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                    OUTPUT_VARIABLE _libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so
                    OUTPUT_VARIABLE _libstdcxx OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(_env "LD_PRELOAD=${_libasan}:${_libstdcxx}" "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0")
  endif()
  set(${out_var} ${_env} PARENT_SCOPE)
endfunction()

# The ELF symbol reader and the DWARF source lines (harness/symbols/elf_symbols, source_lines), a
# library of their own: the watchdog and the sanitizer's sources (checkers/sources) both name code
# addresses with them, and the sources must not drag the watchdog in. Source lines need elfutils'
# headers (libdw-dev) to build; libdw.so.1 itself is loaded when a report is made (libdw_functions.h
# says why), so nothing links it.
function(gilsan_add_symbols_library)
  if(TARGET gilsan_elf_symbols)
    return()
  endif()
  set(dir ${PROJECT_SOURCE_DIR}/harness/symbols)
  add_library(gilsan_elf_symbols STATIC ${dir}/elf_symbols.cpp ${dir}/source_lines.cpp ${dir}/libdw_functions.cpp
              ${dir}/module_owner.cpp)
  gilsan_target_defaults(gilsan_elf_symbols)
  find_path(GILSAN_LIBDW_INCLUDE_DIR elfutils/libdwfl.h)
  find_path(GILSAN_LIBELF_INCLUDE_DIR gelf.h)
  if(GILSAN_LIBDW_INCLUDE_DIR AND GILSAN_LIBELF_INCLUDE_DIR)
    target_include_directories(gilsan_elf_symbols PRIVATE ${GILSAN_LIBDW_INCLUDE_DIR} ${GILSAN_LIBELF_INCLUDE_DIR})
    target_compile_definitions(gilsan_elf_symbols PRIVATE GILSAN_HAVE_LIBDW_HEADERS)
    target_link_libraries(gilsan_elf_symbols PRIVATE ${CMAKE_DL_LIBS})
  else()
    message(STATUS "elfutils' headers (libdw-dev) not found: reports will name functions without file:line")
  endif()
endfunction()

# A test that checks source lines knows whether they were built (and then must work: libdw-dev's
# headers imply libdw1 on the machine) from the same definition the library got.
function(gilsan_tell_whether_source_lines_are_built target)
  get_target_property(definitions gilsan_elf_symbols COMPILE_DEFINITIONS)
  if(definitions MATCHES "GILSAN_HAVE_LIBDW_HEADERS")
    target_compile_definitions(${target} PRIVATE GILSAN_HAVE_LIBDW_HEADERS)
  endif()
endfunction()
