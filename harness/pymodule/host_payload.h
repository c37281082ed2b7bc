// HostPayload: everything a host function owns until the driver has run it for the last time.
//
// For a Python host function: the callable, its args tuple and kwargs dict (owned references).
// For a native CUhostFn: what must outlive the call, i.e. the ctypes function object (a CFUNCTYPE
// thunk dies with it) and the module's copy of a bytes-like user_data.
//
// Python references are taken and dropped only with the GIL held. A payload is released exactly once,
// either by dropping its references (release_payload) or, when Python is already gone, by leaking
// them on purpose (leak_payload); the counters in module_stats.h prove which.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

#include <atomic>
#include <cstdint>

namespace gilsan::pymodule {

struct HostPayload {
  enum class Kind { PythonCall, NativeKeepAlive };

  Kind kind = Kind::PythonCall;
  PyObject* callable = nullptr;    // owned: the Python callable, or the ctypes function object (or null)
  PyObject* args = nullptr;        // owned tuple (PythonCall)
  PyObject* kwargs = nullptr;      // owned dict or null (PythonCall)
  void* user_data_copy = nullptr;  // malloc'd copy of a bytes-like user_data (NativeKeepAlive) or null
  const char* origin = "";         // names the path in unraisable messages, e.g. "gilsan.host_launch"
  // "file.py:LINE name" of the callable, for the watchdog's board (observation.h); written with the
  // GIL at creation, read by the trampoline before it has the GIL.
  char description[96] = {};
  bool released = false;           // drop_python_references ran (it runs at most once)
  // 1, 2, 3... in creation order: the host function's id on the board and for the sanitizer, so
  // reports say "host function #3" and an id is never reused when memory is.
  std::uint64_t serial = 0;

  // Stream path only: the context whose sticky error means the driver will never run it, and who
  // claimed it (the trampoline that runs it, or the sweep that abandons it).
  CUcontext context = nullptr;
  CUstream stream = nullptr;  // where it was enqueued, for the board's host-function record
  // Whether the board took its pending note (board::HostFunctionInfo::maybe_pending): written before
  // the launch, read by the trampoline's begin.
  bool maybe_pending = true;
  std::atomic<int> claim{0};
};

// GIL held. Takes new references to fn, args (a tuple) and kwargs (a dict, or null).
HostPayload* new_python_payload(PyObject* fn, PyObject* args, PyObject* kwargs, const char* origin);
// GIL held when keep_alive is not null. Takes a new reference to keep_alive and ownership of the copy.
HostPayload* new_native_payload(PyObject* keep_alive, void* user_data_copy);

// GIL held: runs fn(*args, **kwargs). An exception cannot cross into the driver: it goes to
// sys.unraisablehook with a message naming the payload's origin and the callable.
void call_payload(HostPayload* payload);

// GIL held: drops the Python references (once) without freeing the payload's memory.
void drop_python_references(HostPayload* payload);
// GIL held: drops the Python references and frees the payload.
void release_payload(HostPayload* payload);
// No GIL needed: Python is gone. Frees the C memory and leaks the Python references on purpose.
void leak_payload(HostPayload* payload);
// No GIL needed: frees the memory of a payload whose Python references were already dropped.
void free_payload_memory(HostPayload* payload);

}  // namespace gilsan::pymodule
