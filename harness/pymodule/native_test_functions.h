// Native CUhostFn functions the module exports for scenarios and tests, so that the native path of
// host_launch can be exercised without a compiled extension of one's own:
//   gilsan_native_increment_u64(p)  atomically adds 1 to the uint64 at p
//   gilsan_native_record_u64(p)     records the first 8 bytes at p (gilsan._stats()['native_last_word'])
// Both count their calls (gilsan._stats()['native_test_calls']). They never touch Python.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

extern "C" {
void gilsan_native_increment_u64(void* user_data);
void gilsan_native_record_u64(void* user_data);
}

namespace gilsan::pymodule {

// gilsan.native_test_functions(): {'increment_u64': address, 'record_u64': address}
PyObject* native_test_functions(PyObject* module, PyObject* unused);

}  // namespace gilsan::pymodule
