// The gilsan module's init: its functions, its types, and its two exit hooks.
//
// Built twice from the same sources: into the runner's embedded interpreter (static library; the
// runner calls gilsan_module_drain_after_finalize and reports the skip count), and as an ordinary
// extension module (GILSAN_MODULE_STANDALONE), which drains at Py_FinalizeEx's end by itself and
// prints the skip count on stderr when it is not zero.
#include "harness/pymodule/gilsan_module.h"

#include <cstdio>
#include <cstdlib>

#include "harness/pymodule/context_object.h"
#include "harness/pymodule/copy_host.h"
#include "harness/pymodule/copy_to.h"
#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/event_object.h"
#include "harness/pymodule/graph_object.h"
#include "harness/pymodule/host_launch.h"
#include "harness/pymodule/python_stack.h"
#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/memory_objects.h"
#include "harness/pymodule/module_errors.h"
#include "harness/pymodule/module_stats.h"
#include "harness/pymodule/observation.h"
#ifdef GILSAN_MODULE_STANDALONE
#include "harness/pymodule/package_path.h"
#endif
#include "harness/pymodule/native_test_functions.h"
#include "harness/pymodule/pinned_ring.h"
#include "harness/pymodule/python_ref.h"
#include "harness/pymodule/stream_object.h"
#include "harness/pymodule/type_support.h"

namespace gilsan::pymodule {
namespace {

PyObject* module_stats(PyObject*, PyObject*) {
  run_deferred_releases();
  const ModuleStats& s = stats();
  const unsigned long long created = s.payloads_created.load();
  const unsigned long long released = s.payloads_released.load();
  const unsigned long long leaked = s.releases_leaked.load();
  return Py_BuildValue(
      "{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}",                       //
      "host_functions_enqueued", s.host_functions_enqueued.load(),                         //
      "native_host_functions_enqueued", s.native_host_functions_enqueued.load(),           //
      "graph_host_nodes_added", s.graph_host_nodes_added.load(),                           //
      "host_functions_run", s.host_functions_run.load(),                                   //
      "host_functions_raised", s.host_functions_raised.load(),                             //
      "host_functions_skipped", s.host_functions_skipped.load(),                           //
      "host_functions_abandoned", s.host_functions_abandoned.load(),                       //
      "payloads_created", created,                                                         //
      "payloads_released", released,                                                       //
      "payloads_live", created - released - leaked,                                        //
      "releases_deferred", s.releases_deferred.load(),                                     //
      "releases_leaked", leaked,                                                           //
      "callback_thread_states_created", s.callback_thread_states_created.load(),             //
      "callback_thread_states_retired", s.callback_thread_states_retired.load(),             //
      "native_test_calls", s.native_test_calls.load(),                                     //
      "native_last_word", s.native_last_word.load());
}

PyObject* note_activity(PyObject*, PyObject* text) {
  if (text == Py_None) {
    observe_activity(nullptr);
    Py_RETURN_NONE;
  }
  const char* utf8 = PyUnicode_Check(text) ? PyUnicode_AsUTF8(text) : nullptr;
  if (utf8 == nullptr) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "note_activity(text): text must be a str or None");
    return nullptr;
  }
  observe_activity(utf8);
  Py_RETURN_NONE;
}

PyObject* release_deferred(PyObject*, PyObject*) {
  run_deferred_releases();
  Py_RETURN_NONE;
}

// Registered with atexit: runs while the interpreter is still whole, before finalization begins.
PyObject* close_at_interpreter_exit(PyObject*, PyObject*) {
  observe_interpreter_finalizing();
  run_deferred_releases();
  close_gate_at_exit();
  run_deferred_releases();
  forget_python_stacks();
  Py_RETURN_NONE;
}

PyMethodDef kAtExitMethod = {"_close_at_interpreter_exit", close_at_interpreter_exit, METH_NOARGS,
                             "gilsan's atexit hook: no host function enters Python after this."};

PyMethodDef kModuleMethods[] = {
    {"host_launch", as_method(host_launch), METH_FASTCALL | METH_KEYWORDS,
     "host_launch(stream, fn, *args, **kwargs): enqueues fn(*args, **kwargs) on the stream. fn may also be a "
     "ctypes CFUNCTYPE(None, c_void_p) pointer or an int address, with user_data=."},
    {"copy_host", as_method(copy_host), METH_VARARGS | METH_KEYWORDS,
     "copy_host(stream, dst, src, nbytes=None): a host-to-host memcpy in stream order, run by a C host function "
     "(no GIL)."},
    {"copy_to", as_method(copy_to), METH_VARARGS | METH_KEYWORDS,
     "copy_to(dst, device_src, stream, *, staging=None, nbytes=None): device memory into a host buffer in stream "
     "order, staged through a PinnedRing when given."},
    {"host_memcpy", as_method(host_memcpy), METH_VARARGS | METH_KEYWORDS,
     "host_memcpy(dst, src, nbytes=None, *, threads=1): a synchronous native memcpy over `threads` threads, GIL "
     "released."},
    {"driver", driver_info, METH_NOARGS, "The driver in use: DriverInfo(kind, reason, version, library, profile_source)."},
    {"device_count", device_count, METH_NOARGS, "Number of devices (cuDeviceGetCount)."},
    {"current_context", current_context, METH_NOARGS, "The calling thread's current CUcontext as an int, or None."},
    {"context_synchronize", as_method(context_synchronize), METH_VARARGS | METH_KEYWORDS,
     "context_synchronize(*, hold_gil=False): waits for all work of the current context."},
    {"native_test_functions", native_test_functions, METH_NOARGS,
     "Addresses of the module's native CUhostFn test functions: increment_u64, record_u64."},
    {"note_activity", note_activity, METH_O,
     "note_activity(text): what the calling thread does for the user (e.g. the test it runs), shown with the thread "
     "in the watchdog's report under gilsan run; None or \"\" clears it."},
    {"_stats", module_stats, METH_NOARGS, "Counters of host functions and owned callables, for tests."},
    {"_release_deferred", release_deferred, METH_NOARGS,
     "Releases now what driver threads handed over (otherwise done at the next eval breaker)."},
    {"_inject_error", as_method(inject_error), METH_VARARGS | METH_KEYWORDS,
     "_inject_error(entry_point, code, count=1, after=0): after `after` calls, the next `count` calls of "
     "entry_point fail with code (tests)."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT,
    "gilsan",
    "gilsan's reference host_launch and the vocabulary of its scenarios (streams, events, contexts, graphs, "
    "memory) on the real or the simulated CUDA driver.",
    -1,
    kModuleMethods,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

bool register_atexit_hook() {
  PyRef atexit(PyImport_ImportModule("atexit"));
  PyRef hook(PyCFunction_New(&kAtExitMethod, nullptr));
  if (!atexit || !hook) return false;
  PyRef done(PyObject_CallMethod(atexit.get(), "register", "O", hook.get()));
  return static_cast<bool>(done);
}

#ifdef GILSAN_MODULE_STANDALONE
double exit_drain_seconds() {
  const char* text = std::getenv("GILSAN_EXIT_DRAIN_SECONDS");
  if (text == nullptr || *text == '\0') return 10.0;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  return (end != text && seconds >= 0) ? seconds : 10.0;
}

// Py_AtExit: after finalization, no Python left. Waits for the host functions still pending and says how
// many it skipped, since no runner is there to report it.
void report_skipped_after_finalize() {
  const unsigned long long skipped = drain_after_finalize(exit_drain_seconds());
  if (skipped != 0)
    std::fprintf(stderr,
                 "gilsan: skipped %llu Python host function(s) that the driver reached after the interpreter "
                 "finalized (their references were leaked on purpose)\n",
                 skipped);
}
#endif

}  // namespace
}  // namespace gilsan::pymodule

PyMODINIT_FUNC PyInit_gilsan(void) {
  using namespace gilsan::pymodule;
  PyRef module(PyModule_Create(&kModule));
  if (!module) return nullptr;
  if (!add_error_types(module.get()) || !add_driver_info_type(module.get()) || !add_context_type(module.get()) ||
      !add_stream_type(module.get()) || !add_event_type(module.get()) || !add_graph_types(module.get()) ||
      !add_memory_types(module.get()) || !add_pinned_ring_type(module.get()) || !register_atexit_hook())
    return nullptr;
  observe_module_imported();
#ifdef GILSAN_MODULE_STANDALONE
  static bool exit_report_registered = false;
  if (!exit_report_registered) {
    exit_report_registered = Py_AtExit(&report_skipped_after_finalize) == 0;
  }
  if (!add_package_path(module.get())) return nullptr;
#endif
  return module.release();
}

extern "C" unsigned long long gilsan_module_drain_after_finalize(double timeout_seconds) {
  return gilsan::pymodule::drain_after_finalize(timeout_seconds);
}
