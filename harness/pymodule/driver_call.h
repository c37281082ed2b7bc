// How the module's Python-facing code calls the driver.
//
// Every driver call releases the GIL (Py_BEGIN_ALLOW_THREADS) unless the scenario asks for
// hold_gil=True, which reproduces a C extension that forgets to. Tests can make the next calls of an
// entry point fail (gilsan._inject_error) to reach error paths the driver rarely takes.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

#include <optional>
#include <utility>

#include "harness/pymodule/observation.h"

namespace gilsan::pymodule {

enum class Gil { Release, Hold };

// The injected result for the next call of `entry_point`, if a test asked for one (and counts it down).
std::optional<CUresult> take_injected_error(const char* entry_point);

// Every driver call the module makes goes through here, so observation.h sees each one: the call is
// entered after the GIL is released (the board's GIL-at-entry check then reads "released") and left
// before the thread waits for the GIL again. `target` names the stream, event or context the call
// waits on, where the call site knows it.
template <typename Call>
CUresult call_driver(const char* entry_point, Gil gil, const DriverCallTarget& target, Call&& call) {
  if (std::optional<CUresult> injected = take_injected_error(entry_point)) return *injected;
  CUresult result = CUDA_SUCCESS;
  if (gil == Gil::Hold) {
    observe_gil_held();
    observe_call_enter(entry_point, target);
    result = call();
    observe_call_exit(entry_point, result);
  } else {
    PyThreadState* saved = PyEval_SaveThread();
    observe_gil_released();
    observe_call_enter(entry_point, target);
    result = call();
    observe_call_exit(entry_point, result);
    observe_gil_waiting();
    PyEval_RestoreThread(saved);
    observe_gil_held();
  }
  return result;
}

template <typename Call>
CUresult call_driver(const char* entry_point, Gil gil, Call&& call) {
  return call_driver(entry_point, gil, DriverCallTarget{}, std::forward<Call>(call));
}

// Several driver calls under one release of the GIL (host_launch's checks and its launch), where
// call_driver would release and take it again around each: every call is still observed as
// call_driver observes it (an injected error included), the GIL's release and the wait for it once
// around them all. Nothing may touch a Python object while one exists.
class GilReleased {
 public:
  GilReleased() : saved_(PyEval_SaveThread()) { observe_gil_released(); }
  ~GilReleased() {
    observe_gil_waiting();
    PyEval_RestoreThread(saved_);
    observe_gil_held();
  }
  GilReleased(const GilReleased&) = delete;
  GilReleased& operator=(const GilReleased&) = delete;

  template <typename Call>
  CUresult call(const char* entry_point, Call&& driver_call) const {
    if (std::optional<CUresult> injected = take_injected_error(entry_point)) return *injected;
    observe_call_enter(entry_point, DriverCallTarget{});
    const CUresult result = driver_call();
    observe_call_exit(entry_point, result);
    return result;
  }

 private:
  PyThreadState* saved_;
};

// GIL held. CUDA_SUCCESS: true. Otherwise sets gilsan.CudaError(name, code, call) and returns false;
// after a sticky error it first releases the host functions of `context` (null: the calling thread's
// current context) that the driver will never run.
bool check_driver(CUresult result, const char* entry_point, CUcontext context = nullptr);

// GIL held. For a call that lets go of something (a destroy, a free), as check_driver, except that the
// sticky error of a context whose failure the module has already raised counts as done: on the H200
// every release on a failed context returns that error, and a program that caught the first one must
// be able to drop its objects without an "Exception ignored" per object for the same fault. A failure
// first seen by a release is raised as any other.
bool check_release(CUresult result, const char* entry_point, CUcontext context = nullptr);

// The context is gone (cuCtxDestroy succeeded): a new context at the same address starts healthy.
void forget_context_failure(CUcontext context);

// gilsan._inject_error(entry_point, code, count=1, after=0): after `after` more calls go through, the
// next `count` calls the module makes to `entry_point` return `code` without reaching the driver.
// count=0 clears it.
PyObject* inject_error(PyObject* module, PyObject* args, PyObject* kwargs);

}  // namespace gilsan::pymodule
