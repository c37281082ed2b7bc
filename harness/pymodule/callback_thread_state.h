// CallbackPython: takes the GIL on a driver callback thread, keeping one PyThreadState per thread.
//
// The driver runs host functions on threads it made, which have no Python thread state. Taking the GIL
// there with PyGILState_Ensure/Release makes and destroys a thread state on every call, which on an
// H200 is most of a Python host function's cost (docs/performance.md). Instead, the first Python host
// function on a thread makes one state (PyThreadState_New on the main interpreter) and every later one
// attaches it (PyEval_RestoreThread) and detaches it (PyEval_SaveThread).
//
// Safety, and why each rule holds (CPython 3.11 to 3.14 share it):
// - Enter only after try_enter_python() succeeded (interpreter_gate.h): the atexit gate waits until no
//   trampoline is inside, so when finalization starts every kept state is detached and idle.
// - The states are freed by CPython itself: Py_FinalizeEx clears and frees every other thread's state
//   right after the atexit callbacks, while the interpreter is whole (the path daemon threads' states
//   take). Deleting one from another thread ourselves would unbind the deleting thread's own gilstate
//   (tstate_delete_common clears the caller's TSS slot), and clearing it ourselves first would clear it
//   twice. After the gate closed it never reopens, so no thread touches its kept state again.
// - When the driver ends a thread, its state is left to finalization (counted as retired), not deleted:
//   deleting needs the GIL, and the thread that ends a callback thread (cuCtxDestroy) may hold it.
// - A thread that already has a gilstate state of its own (a Python thread running a host function, or a
//   library that keeps states too) keeps using PyGILState_Ensure/Release, which never deletes that state.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace gilsan::pymodule {

// Holds the GIL for its lifetime on the calling (driver) thread. Not copyable. Nested on one thread,
// the inner one goes through PyGILState_Ensure/Release, which leave the kept state attached.
class CallbackPython {
 public:
  CallbackPython();
  ~CallbackPython();
  CallbackPython(const CallbackPython&) = delete;
  CallbackPython& operator=(const CallbackPython&) = delete;

 private:
  PyThreadState* kept_ = nullptr;  // attached for this call, or null when gilstate_ is used
  PyGILState_STATE gilstate_ = PyGILState_UNLOCKED;
};

}  // namespace gilsan::pymodule
