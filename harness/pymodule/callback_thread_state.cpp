#include "harness/pymodule/callback_thread_state.h"

#include "harness/pymodule/module_stats.h"

namespace gilsan::pymodule {
namespace {

// One per driver thread. Its destructor runs when the thread ends, maybe after finalization, so it
// touches no Python API: the state stays in the interpreter's list until Py_FinalizeEx frees it.
struct KeptThreadState {
  PyThreadState* state = nullptr;
  bool thread_has_own_state = false;  // decided at the thread's first host function
  bool attached = false;              // a CallbackPython of this thread holds `state` attached

  ~KeptThreadState() {
    if (state != nullptr) stats().callback_thread_states_retired.fetch_add(1);
  }
};

thread_local KeptThreadState kept_on_this_thread;

// The state to attach on this thread, or null when this thread must use PyGILState_Ensure.
PyThreadState* kept_state() {
  KeptThreadState& kept = kept_on_this_thread;
  if (kept.state != nullptr || kept.thread_has_own_state) return kept.state;
  // Read without the GIL (a TSS lookup). A state bound here was made by someone else: leave it to them.
  if (PyGILState_GetThisThreadState() != nullptr) {
    kept.thread_has_own_state = true;
    return nullptr;
  }
  // No GIL needed; binds the new state to this thread's gilstate slot, so a PyGILState_Ensure made by the
  // callable on this thread reuses it (its counter starts at 1, so a Release never deletes it).
  kept.state = PyThreadState_New(PyInterpreterState_Main());
  if (kept.state == nullptr) {
    kept.thread_has_own_state = true;  // out of memory: fall back to Ensure, which reports it
    return nullptr;
  }
  stats().callback_thread_states_created.fetch_add(1);
  return kept.state;
}

}  // namespace

CallbackPython::CallbackPython() {
  // Nested (a host function run while this thread is already inside one): attaching the state again
  // would wait for the GIL this thread holds; Ensure sees it current and only counts.
  kept_ = kept_on_this_thread.attached ? nullptr : kept_state();
  if (kept_ != nullptr) {
    PyEval_RestoreThread(kept_);
    kept_on_this_thread.attached = true;
  } else {
    gilstate_ = PyGILState_Ensure();
  }
}

CallbackPython::~CallbackPython() {
  if (kept_ != nullptr) {
    kept_on_this_thread.attached = false;
    PyEval_SaveThread();
  } else {
    PyGILState_Release(gilstate_);
  }
}

}  // namespace gilsan::pymodule
