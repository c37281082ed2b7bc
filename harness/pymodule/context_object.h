// gilsan.Context: a device's primary context (retained) or a context of its own (created), and the
// calling thread's current context.
//
//   ctx = gilsan.Context(device=0)               # primary context, retained until close()
//   ctx = gilsan.Context(device=0, create=True)  # a new context, destroyed by close()
//   with ctx: ...                                # pushed on entry, popped on exit
//   ctx.synchronize(hold_gil=False)
//   gilsan.device_count(), gilsan.current_context(), gilsan.context_synchronize(hold_gil=False)
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

namespace gilsan::pymodule {

struct ContextObject {
  PyObject_HEAD
  CUcontext handle;
  CUdevice device;
  int ordinal;
  bool primary;
  bool closed;
};

bool add_context_type(PyObject* module);

// GIL held. The calling thread's current context; a thread without one gets device 0's primary
// context made current, as the runtime API does. False with an exception set on failure.
bool current_context_or_raise(CUcontext* context);

PyObject* device_count(PyObject* module, PyObject* unused);
PyObject* current_context(PyObject* module, PyObject* unused);
PyObject* context_synchronize(PyObject* module, PyObject* args, PyObject* kwargs);

}  // namespace gilsan::pymodule
