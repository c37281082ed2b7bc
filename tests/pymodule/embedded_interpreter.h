// For tests that embed CPython with the gilsan module linked in, as the runner does. Each test
// initializes the interpreter once (Python cannot be re-initialized reliably), so each runs in its own
// process (ctest with gtest_discover_tests).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>

#include "harness/pymodule/gilsan_module.h"

namespace gilsan::test {

// Registers the built-in module and starts the interpreter on the simulated driver.
inline void start_interpreter() {
  ASSERT_EQ(setenv("GILSAN_DRIVER", "sim", 1), 0);
  ASSERT_EQ(setenv("GILSAN_SIM_LIBRARY", GILSAN_TEST_SIM_LIBRARY, 1), 0);
  ASSERT_EQ(PyImport_AppendInittab("gilsan", &PyInit_gilsan), 0);
  Py_InitializeEx(0);
}

// Runs `source` in __main__; an exception is printed to stderr and fails the test.
inline void run(const char* source) {
  ASSERT_EQ(PyRun_SimpleString(source), 0) << "the Python source raised (see stderr)";
}

}  // namespace gilsan::test
