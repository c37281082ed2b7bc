// InterpreterGate: whether a driver thread may still enter Python, decided without the GIL.
//
// A trampoline runs on the driver's callback thread. Once the interpreter finalizes it must not take
// the GIL: on 3.12 PyGILState_Ensure would end the driver's own thread, on 3.14 it would hang it. Checking
// Py_IsFinalizing() alone leaves a window (checked false, then finalization starts, then Ensure), so the
// module closes a gate from an atexit hook, which runs while the interpreter is still whole: after the
// gate closes no trampoline enters Python, and the hook waits (GIL released) for those already inside.
//
// The gate also counts host functions the driver holds but has not run, so that after finalization the
// embedding program can wait for them (gilsan_module_drain_after_finalize) and learn how many were skipped.
#pragma once

namespace gilsan::pymodule {

// Trampoline side, no GIL. True: the caller may PyGILState_Ensure and run Python, and must call
// leave_python() after PyGILState_Release. False: Python is gone; touch no Python object.
bool try_enter_python();
void leave_python();

// Runs action(argument) under the gate's lock if Python is not gone, so that handing work to the
// interpreter (Py_AddPendingCall) cannot race its finalization. Returns whether it ran.
bool run_while_python_alive(void (*action)(void*), void* argument);

// Interpreter side: called by the module's atexit hook with the GIL held. Closes the gate, then waits
// with the GIL released until no trampoline is inside Python. Afterwards every driver thread's kept
// thread state (callback_thread_state.h) is detached and never attached again, so Py_FinalizeEx may
// clear and free it.
void close_gate_at_exit();

// Accounting of our trampolines the driver holds (stream host functions, release markers).
void host_functions_pending(long long count);  // before an enqueue (or negative after a failed one)
void host_function_finished();                  // the trampoline's very last action
// Graph launches: each launch of an exec with N Python host nodes expects N trampoline runs.
void graph_host_runs_expected(long long count);
void graph_host_run_finished();  // never drops below zero (a launch we did not make)

// User-object destructors the driver owes us: every graph and exec holding a payload was destroyed, so
// its destructor will run (asynchronously, on a driver thread). Counted only while a sanitizer follows
// callables (observation.cpp), so that its end-of-run check does not race the destructor.
void user_object_destructors_due(long long count);

// Waits up to `timeout_seconds` until the driver ran every host function (and destructor) counted above;
// returns how many the trampolines skipped because Python was gone.
unsigned long long drain_after_finalize(double timeout_seconds);

}  // namespace gilsan::pymodule
