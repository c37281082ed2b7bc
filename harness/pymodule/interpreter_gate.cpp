#include "harness/pymodule/interpreter_gate.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "harness/pymodule/module_stats.h"

namespace gilsan::pymodule {
namespace {

struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool closed = false;
  int inside = 0;                 // trampolines between try_enter_python and leave_python
  long long pending = 0;          // stream host functions and release markers the driver holds
  long long graph_expected = 0;   // graph host-node runs still to come from our launches
  long long destructors_due = 0;  // user objects whose owners are all destroyed (observation.cpp)
};

// Never destroyed: driver threads use it while the process exits.
Gate& gate() {
  static Gate* const instance = new Gate();
  return *instance;
}

bool interpreter_finalizing() {
  if (!Py_IsInitialized()) return true;
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

}  // namespace

bool try_enter_python() {
  Gate& g = gate();
  std::lock_guard lock(g.mutex);
  if (g.closed || interpreter_finalizing()) return false;
  ++g.inside;
  return true;
}

void leave_python() {
  Gate& g = gate();
  std::lock_guard lock(g.mutex);
  --g.inside;
  g.changed.notify_all();
}

bool run_while_python_alive(void (*action)(void*), void* argument) {
  Gate& g = gate();
  std::lock_guard lock(g.mutex);
  if (g.closed || interpreter_finalizing()) return false;
  action(argument);
  return true;
}

void close_gate_at_exit() {
  Gate& g = gate();
  {
    std::lock_guard lock(g.mutex);
    g.closed = true;
  }
  // Trampolines already inside may be waiting for the GIL this thread holds.
  Py_BEGIN_ALLOW_THREADS
  {
    std::unique_lock lock(g.mutex);
    g.changed.wait(lock, [&] { return g.inside == 0; });
  }
  Py_END_ALLOW_THREADS
}

void host_functions_pending(long long count) {
  Gate& g = gate();
  std::lock_guard lock(g.mutex);
  g.pending += count;
  g.changed.notify_all();
}

void host_function_finished() { host_functions_pending(-1); }

namespace {

// Adds `count` to one of the gate's counts that never goes below zero (a run or destructor we did not
// announce is not owed back), and wakes the drain.
void add_to_count(long long Gate::*counter, long long count) {
  Gate& g = gate();
  std::lock_guard lock(g.mutex);
  long long& value = g.*counter;
  value = std::max(0LL, value + count);
  g.changed.notify_all();
}

}  // namespace

void graph_host_runs_expected(long long count) { add_to_count(&Gate::graph_expected, count); }

void graph_host_run_finished() { add_to_count(&Gate::graph_expected, -1); }

void user_object_destructors_due(long long count) { add_to_count(&Gate::destructors_due, count); }

unsigned long long drain_after_finalize(double timeout_seconds) {
  Gate& g = gate();
  {
    std::unique_lock lock(g.mutex);
    const auto limit = std::chrono::duration<double>(timeout_seconds > 0 ? timeout_seconds : 0);
    g.changed.wait_for(lock, limit, [&] { return g.pending <= 0 && g.graph_expected <= 0 && g.destructors_due <= 0; });
  }
  return stats().host_functions_skipped.load();
}

}  // namespace gilsan::pymodule
