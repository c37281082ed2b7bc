// What an injected front end does once in a Python process, with the GIL, at the first driver call it
// sees: right there when the calling thread holds the GIL, else through Py_AddPendingCall, which has
// the interpreter's main thread run it at its next chance (so that our hook never waits for the GIL):
// - registers faulthandler on the watchdog's Python-stack pipe (GILSAN_PYTHON_STACK_FD) and announces
//   the signal on the board, as the scenario child does, so that hang reports carry Python stacks;
// - registers a Py_AtExit function, called when Py_FinalizeEx has finished: from then on no Python host
//   function can run (the sanitizer's host-function-lost-at-exit);
// - installs the traced threading locks (docs/sanitizer.md, "Python locks"), which report to this
//   library's gilsan_lock_* functions.
// Python is reached through dlsym: the injection library links nothing of it.
#pragma once

#include <atomic>
#include <functional>
#include <optional>

namespace gilsan::checkers::inject {

class PythonProcessSetup {
 public:
  // `interpreter_finished` runs from Py_FinalizeEx's last step: it must not call Python.
  explicit PythonProcessSetup(std::function<void()> interpreter_finished);

  // Call at each driver call with whether the calling thread holds the GIL (nullopt: no interpreter
  // runs); does its work once, and costs one load afterwards.
  void on_driver_call(std::optional<bool> holds_gil);

 private:
  static int run_pending(void* self);
  void set_up();

  std::function<void()> interpreter_finished_;
  std::atomic<bool> started_{false};
};

}  // namespace gilsan::checkers::inject
