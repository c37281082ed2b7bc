// gilsan.host_launch(stream, fn, *args, **kwargs): enqueues fn(*args, **kwargs) in stream order.
//
// On a stream that is not capturing, the module owns fn, args and kwargs from the call until the driver
// ran them (released right after, with the GIL), until the enqueue failed (released before raising),
// or until the context hit a sticky error (released by the sweep). On a capturing stream it adds a host
// node to the graph being captured and ties the payload's lifetime to that graph (graph_lifetime.h).
// A native CUhostFn (see host_function_argument.h) goes to the driver as is.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace gilsan::pymodule {

PyObject* host_launch(PyObject* module, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

}  // namespace gilsan::pymodule
