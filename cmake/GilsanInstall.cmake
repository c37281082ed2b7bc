# `cmake --install`: the layout docs/installing.md describes. Every piece is found from the binary that
# looks for it (harness/driver/install_layout.h), so the installed tree can be moved as a whole.
#   bin/gilsan
#   LIBDIR/libgilsan_inject.so, libgilsan_simcuda.so, libgilsan_cudashim.so
#   LIBDIR/gilsan/driver/libcuda.so.1      the simulated driver, for LD_LIBRARY_PATH
#   LIBDIR/gilsan/python/                  the gilsan module and its pytest plugin, for PYTHONPATH
#   LIBDIR/cmake/gilsan/                   find_package(gilsan)
#   share/gilsan/{scenarios,profiles,impl,bench}
include(CMakePackageConfigHelpers)

set(GILSAN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gilsan)
set(GILSAN_INSTALL_PYTHONDIR ${CMAKE_INSTALL_LIBDIR}/gilsan/python)
set(GILSAN_INSTALL_DRIVERDIR ${CMAKE_INSTALL_LIBDIR}/gilsan/driver)

# A symbolic link made at install time under the (possibly overridden) prefix, honouring DESTDIR.
# target is relative to the link's folder, so the link survives moving the tree.
function(gilsan_install_symlink target link)
  install(CODE "
    set(_link \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${link}\")
    get_filename_component(_folder \"\${_link}\" DIRECTORY)
    file(MAKE_DIRECTORY \"\${_folder}\")
    file(CREATE_LINK \"${target}\" \"\${_link}\" SYMBOLIC)
    message(STATUS \"Installing: \${_link} -> ${target}\")")
endfunction()

if(TARGET gilsan)
  install(TARGETS gilsan RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
foreach(_library gilsan_inject gilsan_simcuda gilsan_cudashim)
  if(TARGET ${_library})
    install(TARGETS ${_library} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endforeach()
if(TARGET gilsan_simcuda)
  # LIBDIR/gilsan/driver/libcuda.so.1 -> LIBDIR/libgilsan_simcuda.so
  gilsan_install_symlink(../../libgilsan_simcuda.so ${GILSAN_INSTALL_DRIVERDIR}/libcuda.so.1)
endif()

if(TARGET gilsan_python_module)
  install(TARGETS gilsan_python_module LIBRARY DESTINATION ${GILSAN_INSTALL_PYTHONDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/harness/pymodule/gilsan DESTINATION ${GILSAN_INSTALL_PYTHONDIR}
          FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
  if(TARGET gilsan_simcuda)
    # The module looks for the simulated driver beside itself (harness/driver/driver_selection.cpp).
    gilsan_install_symlink(../../libgilsan_simcuda.so ${GILSAN_INSTALL_PYTHONDIR}/libgilsan_simcuda.so)
  endif()
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${GILSAN_INSTALL_DATADIR}/scenarios
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/profiles/ DESTINATION ${GILSAN_INSTALL_DATADIR}/profiles)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/harness/impl/ DESTINATION ${GILSAN_INSTALL_DATADIR}/impl
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
# `gilsan bench`'s workloads (harness/bench/bench_command.cpp looks here first).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/harness/bench/ DESTINATION ${GILSAN_INSTALL_DATADIR}/bench
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
# The compiled-in default profile may be one outside profiles/ (-DGILSAN_DEFAULT_PROFILE=...).
install(FILES ${GILSAN_DEFAULT_PROFILE} DESTINATION ${GILSAN_INSTALL_DATADIR}/profiles)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gilsanConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/gilsanConfig.cmake
  INSTALL_DESTINATION ${GILSAN_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR GILSAN_INSTALL_DATADIR GILSAN_INSTALL_PYTHONDIR
            GILSAN_INSTALL_DRIVERDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/gilsanConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/gilsanConfig.cmake ${CMAKE_BINARY_DIR}/cmake/gilsanConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/GilsanScenarios.cmake
        DESTINATION ${GILSAN_INSTALL_CMAKEDIR})

# BUILD/wheel/gilsan-VERSION-TAG.whl: the Python side (module, simulated driver, pytest plugin) for
# pip (harness/pymodule/make_wheel.py, docs/installing.md). Remade when one of its pieces changes.
if(TARGET gilsan_python_module AND TARGET gilsan_simcuda)
  file(GLOB _gilsan_plugin_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/harness/pymodule/gilsan/*.py)
  # The stamp names the wheel; it lives outside wheel/, which each packing empties.
  set(GILSAN_WHEEL_STAMP ${CMAKE_BINARY_DIR}/wheel-made.txt)
  add_custom_command(OUTPUT ${GILSAN_WHEEL_STAMP}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${CMAKE_BINARY_DIR}/wheel
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/harness/pymodule/make_wheel.py
            --module $<TARGET_FILE:gilsan_python_module> --sim-library $<TARGET_FILE:gilsan_simcuda>
            --plugin-dir ${PROJECT_SOURCE_DIR}/harness/pymodule/gilsan --version ${PROJECT_VERSION}
            --out-dir ${CMAKE_BINARY_DIR}/wheel > ${GILSAN_WHEEL_STAMP}.part
    COMMAND ${CMAKE_COMMAND} -E rename ${GILSAN_WHEEL_STAMP}.part ${GILSAN_WHEEL_STAMP}
    DEPENDS gilsan_python_module gilsan_simcuda ${_gilsan_plugin_files} ${PROJECT_SOURCE_DIR}/harness/pymodule/make_wheel.py
    COMMENT "Packing gilsan's wheel"
    VERBATIM)
  add_custom_target(gilsan_wheel ALL DEPENDS ${GILSAN_WHEEL_STAMP})
endif()
