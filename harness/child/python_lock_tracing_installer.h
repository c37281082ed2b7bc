// Traced Python locks in the scenario child (docs/sanitizer.md, "Python locks"): threading.Lock and
// threading.RLock (and so the locks of Condition, Event, Semaphore, Barrier and queue.Queue) report
// to the child's Sanitizer and to the watchdog's board through checkers/sources/python_lock_hooks.h.
#pragma once

namespace gilsan {

// With the interpreter initialized and the GIL held, before the scenario's code runs. Installs the
// tracing only when there is someone to tell: the child runs a Sanitizer or writes a board; otherwise
// it does nothing. Registers two modules: `_gilsan_lock_hooks`, the builtin module whose functions
// (the five hooks, by their C names) call the C functions directly, and `_gilsan_lock_tracing`, the
// Python source (python_lock_tracing_source.h). Throws PythonError when the source fails.
void install_scenario_python_locks();

}  // namespace gilsan
