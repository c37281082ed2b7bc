// What host_launch and Graph.add_host_node were given as `fn`, sorted out before anything is enqueued:
//   - a Python callable: called as fn(*args, **kwargs) by the module's trampoline, with the GIL;
//   - a native CUhostFn: a ctypes function pointer of prototype CFUNCTYPE(None, c_void_p), or an int
//     address, with `user_data=` (None, an int address, a ctypes.c_void_p, or a bytes-like object that
//     the module copies and owns). It goes to the driver as is; the driver calls it without the GIL.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

#include <cstdlib>
#include <memory>

#include "harness/pymodule/trailing_arguments.h"

namespace gilsan::pymodule {

struct FreeDeleter {
  void operator()(void* memory) const { std::free(memory); }
};

struct HostFunctionArgument {
  bool native = false;
  // Python: the callable. Native: the ctypes object that must outlive the call (null for an int address).
  PyObject* object = nullptr;  // borrowed from the caller's arguments
  PyObject* args = nullptr;    // Python: the positional arguments (owned tuple)
  PyObject* kwargs = nullptr;  // Python: the keyword arguments (owned dict or null)
  CUhostFn function = nullptr;                        // Native
  void* user_data = nullptr;                          // Native: what the driver passes to it
  std::unique_ptr<void, FreeDeleter> user_data_copy;  // Native: the module's copy of bytes-like user_data

  HostFunctionArgument() = default;
  HostFunctionArgument(const HostFunctionArgument&) = delete;
  HostFunctionArgument& operator=(const HostFunctionArgument&) = delete;
  ~HostFunctionArgument() {
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
  }
  // Native: whether the module must keep something alive until the driver ran the function.
  bool needs_keep_alive() const { return native && (object != nullptr || user_data_copy != nullptr); }
};

// GIL held. `rest`: what follows fn in the call. False with TypeError / ValueError set (naming `who`)
// for a bad fn or arguments that do not go with it.
bool parse_host_function(const char* who, PyObject* fn, const TrailingArguments& rest, HostFunctionArgument& out);

}  // namespace gilsan::pymodule
