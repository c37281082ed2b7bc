// Observation: the one place where the `gilsan` module says what its threads are doing -- which
// driver call a thread is in, who holds or waits for the GIL, which host functions are pending or
// running, where events were recorded, how long device work will keep a stream busy.
//
// Every call site in the module goes through these functions and nothing else, so a consumer is
// added here once. Two consumers: the watchdog's board (harness/board/board_writer.h) and, when the
// process runs one, the sanitizer (checkers/sources/sanitizer_hooks.h, looked up by name once);
// every function is a cheap no-op for a consumer that is absent. The functions never allocate,
// lock or block (except observe_payload_created, which runs with the GIL held at enqueue time, and,
// with a sanitizer only, the graph-lifetime ones below, which take a short leaf lock), so they may be
// called right before a thread blocks and without the GIL.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

#include <cstdint>

namespace gilsan::pymodule {

struct HostPayload;

// What a driver call acts on, as far as the call site knows (null: not known or not applicable).
struct DriverCallTarget {
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUevent event = nullptr;
};

// Module import (GIL held): attaches the board early and names the importing thread.
void observe_module_imported();
// The module opened its driver (no GIL held): a sanitizer in the process watches the simulated one.
void observe_driver_opened(bool simulated, const char* library);
// The interpreter is shutting down (the module's atexit hook): host functions can no longer count on it.
void observe_interpreter_finalizing();
// What the calling thread does for the program's user, as the program says it (gilsan.note_activity):
// the watchdog's report shows it with the thread. Null or empty: nothing any more.
void observe_activity(const char* text);

// Around each driver call, entered after the GIL was released (or kept, for hold_gil=True).
void observe_call_enter(const char* entry_point, const DriverCallTarget& target);
void observe_call_exit(const char* entry_point, CUresult result);

// The GIL as the calling thread sees it.
void observe_gil_released();
void observe_gil_waiting();
void observe_gil_held();

// GIL held: remembers a short description of a Python callable ("file.py:LINE name") in the
// payload, for the board's host-function records (the trampoline may not touch Python objects
// before it has the GIL).
void observe_payload_created(HostPayload* payload);

// A host function of ours was handed to the driver on `stream` (pending until it begins), or will
// never run (a failed enqueue, a sticky-error sweep).
void observe_host_function_enqueued(HostPayload* payload, CUstream stream, CUcontext context);
void observe_host_function_dropped(const HostPayload* payload);
// A launch of `exec` enqueued `count` Python host nodes on `stream` (before cuGraphLaunch), or its
// failure took them back. On the board they are pending under one shared id (a launch does not say
// which node runs when), and each graph trampoline that begins takes one; the sanitizer is told of one
// more run of each callable the exec holds.
void observe_graph_host_functions_enqueued(CUgraphExec exec, long long count, CUstream stream, CUcontext context);
void observe_graph_host_functions_dropped(CUgraphExec exec, long long count);

// Callables' lifetime, for a sanitizer's host-function-lifetime checker (nothing else uses them). Only
// Python payloads are followed: the trampolines say when they run.
// Stream path, on the callback thread, after observe_host_function_end and before the payload's memory
// is freed: the trampoline let go of the callable it has just run (its release ends its one run).
void observe_payload_released(const HostPayload* payload);
// GIL held: a host node running `payload` was added to `graph`, built, or captured from
// `capturing_stream` (null for a built graph). The graph now owns the payload.
void observe_graph_host_node_added(CUgraph graph, const HostPayload* payload, CUstream capturing_stream);
// GIL held: `exec` was instantiated from `graph` and holds every payload the graph holds now.
void observe_graph_instantiated(CUgraph graph, CUgraphExec exec);
// GIL held, before the driver destroys it (its destroy may let the payloads' destructors run).
void observe_graph_destroyed(CUgraph graph);
void observe_graph_exec_destroyed(CUgraphExec exec);
// GIL held, after cuStreamEndCapture: `graph_returned` false means the capture failed and the driver
// destroyed the graph it was building.
void observe_capture_ended(CUstream stream, bool graph_returned);
// A driver thread, in the user object's destructor: the last graph or exec owning `payload` is gone and
// its launches completed, so the module lets go of the callable now (release_later).
void observe_graph_payload_released(const HostPayload* payload);

// On the driver's callback thread, inside the driver's own host-function record: our trampoline
// adds what it knows (a Python callable, its description).
void observe_host_function_begin(const HostPayload* payload);
void observe_graph_host_function_begin(const HostPayload* payload);
void observe_host_function_end();
// Inside a host function of ours, before observe_host_function_end: the trampoline skipped the
// callable because the interpreter was finalizing.
void observe_host_function_skipped();
// GIL held, an exception set: the Python callable of a host function raised, and the exception is
// about to become unraisable. Leaves the exception set as it was.
void observe_host_function_raised();

void observe_event_recorded(CUevent event, CUstream stream, CUcontext context);

// stream.work(ms): device work of a known duration was enqueued, so a quiet stream is not a hang.
void observe_device_work_enqueued(unsigned long long microseconds);

}  // namespace gilsan::pymodule
