// gilsan.Event: a CUDA event in the current context.
//
//   e = gilsan.Event(timing=False, blocking_sync=False)
//   e.record(stream); e.query(); e.synchronize(hold_gil=False); e.elapsed_ms(later); e.close()
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

namespace gilsan::pymodule {

struct EventObject {
  PyObject_HEAD
  CUevent handle;
  CUcontext context;
};

bool add_event_type(PyObject* module);

// GIL held. The handle of an open gilsan.Event, or false with TypeError / ValueError set.
bool event_handle_or_raise(PyObject* object, const char* who, CUevent* event);

}  // namespace gilsan::pymodule
