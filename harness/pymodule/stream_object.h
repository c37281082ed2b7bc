// gilsan.Stream: a CUDA stream, owned (created and destroyed by us) or borrowed (never destroyed).
//
//   s = gilsan.Stream()                       # owning; non_blocking=True by default
//   s = gilsan.Stream.from_handle(0x5555...)  # borrowed, e.g. a CuPy stream's handle
//   gilsan.Stream.legacy(), gilsan.Stream.per_thread()
//   s.work(ms); s.synchronize(hold_gil=False); s.query(); s.close()
//   s.begin_capture(); ...; graph = s.end_capture()
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

namespace gilsan::pymodule {

struct StreamObject {
  PyObject_HEAD
  CUstream handle;
  CUcontext context;  // null for the legacy and per-thread streams: they follow the current context
  bool owning;
  bool closed;
  PyObject* weakrefs;
};

bool add_stream_type(PyObject* module);

// GIL held. The open Stream behind `object`, or null with TypeError (not a Stream) or ValueError
// (closed) set; `who` names the caller in the message, e.g. "host_launch".
StreamObject* open_stream_or_raise(PyObject* object, const char* who);

// The stream's context: its own, or (legacy, per-thread) the calling thread's current one.
// False with an exception set when it cannot be told.
bool stream_context_or_raise(StreamObject* stream, CUcontext* context);

}  // namespace gilsan::pymodule
