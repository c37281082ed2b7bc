# `cmake --install`: the layout docs/installing.md describes. Every piece is found from the binary that
# looks for it (harness/driver/install_layout.h), so the installed tree can be moved as a whole.
#   bin/gilsan
#   LIBDIR/libgilsan_inject.so, libgilsan_simcuda.so, libgilsan_cudashim.so, libgilsan_native_locks.so
#   LIBDIR/gilsan/libgilsan_native_scenario.so   the C library of scenarios/native
#   LIBDIR/gilsan/driver/libcuda.so.1      the simulated driver, for LD_LIBRARY_PATH
#   LIBDIR/gilsan/python/                  the gilsan module and its pytest plugin, for PYTHONPATH
#   LIBDIR/cmake/gilsan/                   find_package(gilsan)
#   share/gilsan/{scenarios,profiles,impl,bench}
include(CMakePackageConfigHelpers)

set(GILSAN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gilsan)

# Where the layout below goes: the install prefix, or, in a wheel (pyproject.toml, scikit-build-core),
# the wheel's data folder, which pip puts at the root of the Python environment (VENV/bin/gilsan, ...):
# scikit-build-core's own prefix is site-packages, and the pieces find each other only in this layout.
set(_root "")
if(GILSAN_WHEEL)
  if(NOT DEFINED SKBUILD_DATA_DIR)
    message(FATAL_ERROR "GILSAN_WHEEL is for a build by scikit-build-core (pip install . or pip wheel .)")
  endif()
  set(_root "${SKBUILD_DATA_DIR}/")
endif()

# A second name for a built library: a symbolic link made at install time under the (possibly overridden)
# prefix, honouring DESTDIR, relative to the link's folder so that it survives moving the tree; a copy in
# a wheel, which cannot hold links.
function(gilsan_install_alias library relative_target link)
  get_filename_component(_folder "${link}" DIRECTORY)
  get_filename_component(_name "${link}" NAME)
  if(GILSAN_WHEEL)
    install(FILES $<TARGET_FILE:${library}> DESTINATION ${_root}${_folder} RENAME ${_name}
            PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    return()
  endif()
  install(CODE "
    set(_link \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${link}\")
    get_filename_component(_folder \"\${_link}\" DIRECTORY)
    file(MAKE_DIRECTORY \"\${_folder}\")
    file(CREATE_LINK \"${relative_target}\" \"\${_link}\" SYMBOLIC)
    message(STATUS \"Installing: \${_link} -> ${relative_target}\")")
endfunction()

if(TARGET gilsan)
  install(TARGETS gilsan RUNTIME DESTINATION ${_root}${CMAKE_INSTALL_BINDIR})
endif()
foreach(_library gilsan_inject gilsan_simcuda gilsan_cudashim gilsan_native_locks)
  if(TARGET ${_library})
    install(TARGETS ${_library} LIBRARY DESTINATION ${_root}${CMAKE_INSTALL_LIBDIR})
  endif()
endforeach()
if(TARGET gilsan_native_scenario)
  install(TARGETS gilsan_native_scenario LIBRARY DESTINATION ${_root}${CMAKE_INSTALL_LIBDIR}/gilsan)
endif()
if(TARGET gilsan_simcuda)
  # LIBDIR/gilsan/driver/libcuda.so.1 -> LIBDIR/libgilsan_simcuda.so
  gilsan_install_alias(gilsan_simcuda ../../libgilsan_simcuda.so ${GILSAN_INSTALL_DRIVERDIR}/libcuda.so.1)
endif()

if(TARGET gilsan_python_module)
  install(TARGETS gilsan_python_module LIBRARY DESTINATION ${_root}${GILSAN_INSTALL_PYTHONDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/harness/pymodule/gilsan DESTINATION ${_root}${GILSAN_INSTALL_PYTHONDIR}
          FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
  # The module finds LIBDIR/libgilsan_simcuda.so from its own folder (harness/driver/install_layout.cpp).
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${_root}${GILSAN_INSTALL_DATADIR}/scenarios
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/profiles/ DESTINATION ${_root}${GILSAN_INSTALL_DATADIR}/profiles)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/harness/impl/ DESTINATION ${_root}${GILSAN_INSTALL_DATADIR}/impl
        PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
# `gilsan bench`'s workloads (harness/bench/bench_command.cpp looks here first).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/harness/bench/ DESTINATION ${_root}${GILSAN_INSTALL_DATADIR}/bench
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
# The compiled-in default profile may be one outside profiles/ (-DGILSAN_DEFAULT_PROFILE=...).
install(FILES ${GILSAN_DEFAULT_PROFILE} DESTINATION ${_root}${GILSAN_INSTALL_DATADIR}/profiles)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gilsanConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/gilsanConfig.cmake
  INSTALL_DESTINATION ${GILSAN_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR GILSAN_INSTALL_DATADIR GILSAN_INSTALL_PYTHONDIR
            GILSAN_INSTALL_DRIVERDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/gilsanConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/gilsanConfig.cmake ${CMAKE_BINARY_DIR}/cmake/gilsanConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/GilsanScenarios.cmake
        DESTINATION ${_root}${GILSAN_INSTALL_CMAKEDIR})

# A wheel (pyproject.toml, scikit-build-core) installs this same layout at the root of a Python
# environment (the wheel's data, e.g. VENV/bin/gilsan) and two files in its site-packages: gilsan.pth,
# which puts LIBDIR/gilsan/python on sys.path, so that `import gilsan` finds the module where the gilsan
# program and the installed tree expect it, and the pytest11 entry point (gilsan_entry_point.py). site-packages is
# LIBDIR/pythonX.Y/site-packages under the same root; a .pth line is relative to its own folder.
if(GILSAN_WHEEL AND TARGET gilsan_python_module)
  set(_site_packages ${CMAKE_INSTALL_LIBDIR}/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/site-packages)
  file(RELATIVE_PATH _module_folder /root/${_site_packages} /root/${GILSAN_INSTALL_PYTHONDIR})
  file(WRITE ${CMAKE_BINARY_DIR}/gilsan.pth "${_module_folder}\n")
  install(FILES ${CMAKE_BINARY_DIR}/gilsan.pth ${PROJECT_SOURCE_DIR}/harness/pymodule/gilsan_entry_point.py
          DESTINATION ${SKBUILD_PLATLIB_DIR})
endif()
