#include "harness/pymodule/host_launch.h"

#include <optional>

#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/graph_lifetime.h"
#include "harness/pymodule/host_function_argument.h"
#include "harness/pymodule/host_payload.h"
#include "harness/pymodule/host_trampolines.h"
#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/module_stats.h"
#include "harness/pymodule/observation.h"
#include "harness/pymodule/python_ref.h"
#include "harness/pymodule/stream_object.h"
#include "harness/pymodule/stream_payload_registry.h"

namespace gilsan::pymodule {
namespace {

constexpr const char* kWho = "host_launch";

struct LaunchTarget {
  const DriverTable* table = nullptr;
  CUstream stream = nullptr;
  CUcontext context = nullptr;
};

// Enqueues one of our trampolines with a payload the stream path owns. On failure the payload is
// released (or, if a sticky-error sweep got to it while the GIL was released, only freed).
bool enqueue_owned(const LaunchTarget& target, CUhostFn trampoline, HostPayload* payload) {
  payload->context = target.context;
  payload->stream = target.stream;
  register_stream_payload(payload);
  host_functions_pending(1);
  // Pending before the call: the driver may start it before cuLaunchHostFunc returns.
  observe_host_function_enqueued(payload, target.stream, target.context);
  const CUresult result = call_driver("cuLaunchHostFunc", Gil::Release, DriverCallTarget{target.context, target.stream, nullptr},
                                      [&] { return target.table->cuLaunchHostFunc(target.stream, trampoline, payload); });
  if (result == CUDA_SUCCESS) return true;
  observe_host_function_dropped(payload);
  if (claim_stream_payload(payload)) {
    host_functions_pending(-1);
    release_payload(payload);
  } else {
    free_payload_memory(payload);
  }
  return check_driver(result, "cuLaunchHostFunc", target.context);
}

bool launch_python_on_stream(const LaunchTarget& target, HostFunctionArgument& fn) {
  HostPayload* payload = new_python_payload(fn.object, fn.args, fn.kwargs, "gilsan.host_launch");
  if (!enqueue_owned(target, &stream_python_trampoline, payload)) return false;
  stats().host_functions_enqueued.fetch_add(1);
  return true;
}

// A native function with something to keep alive (check_then_launch_native launched the others).
bool launch_native_with_keep_alive(const LaunchTarget& target, HostFunctionArgument& fn) {
  const CUresult result = call_driver("cuLaunchHostFunc", Gil::Release, [&] {
    return target.table->cuLaunchHostFunc(target.stream, fn.function, fn.user_data);
  });
  if (!check_driver(result, "cuLaunchHostFunc", target.context)) return false;
  stats().native_host_functions_enqueued.fetch_add(1);
  // Stream order runs the marker after the native function: then its keep-alive may go.
  HostPayload* payload = new_native_payload(fn.object, fn.user_data_copy.release());
  payload->context = target.context;
  register_stream_payload(payload);
  host_functions_pending(1);
  const CUresult marker = call_driver("cuLaunchHostFunc", Gil::Release, [&] {
    return target.table->cuLaunchHostFunc(target.stream, &native_release_marker, payload);
  });
  if (marker == CUDA_SUCCESS) return true;
  // The native function is enqueued and nothing will say when it ran: its keep-alive must live on.
  if (claim_stream_payload(payload)) {
    host_functions_pending(-1);
    stats().releases_leaked.fetch_add(1);
  }
  return check_driver(marker, "cuLaunchHostFunc", target.context);
}

bool launch_into_capture(const LaunchTarget& target, HostFunctionArgument& fn) {
  CUgraph graph = nullptr;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!check_driver(call_driver("cuStreamGetCaptureInfo", Gil::Release, [&] {
                      return target.table->cuStreamGetCaptureInfo(target.stream, &status, nullptr, &graph, nullptr,
                                                                   nullptr, nullptr);
                    }),
                    "cuStreamGetCaptureInfo", target.context))
    return false;

  HostPayload* payload = nullptr;
  CUhostFn function = fn.function;
  void* user_data = fn.user_data;
  if (!fn.native) {
    payload = new_python_payload(fn.object, fn.args, fn.kwargs, "gilsan.host_launch (captured)");
    function = &graph_python_trampoline;
    user_data = payload;
  } else if (fn.needs_keep_alive()) {
    payload = new_native_payload(fn.object, fn.user_data_copy.release());
  }
  CUuserObject owner = nullptr;
  if (payload != nullptr && !tie_payload_to_graph_or_raise(graph, payload, target.context, &owner)) return false;

  const CUresult result = call_driver("cuLaunchHostFunc", Gil::Release,
                                      [&] { return target.table->cuLaunchHostFunc(target.stream, function, user_data); });
  if (result != CUDA_SUCCESS) {
    if (owner != nullptr) untie_payload_from_graph(graph, owner);
    return check_driver(result, "cuLaunchHostFunc", target.context);
  }
  if (!fn.native) {
    observe_graph_host_node_added(graph, payload, target.stream);
    note_captured_python_node(graph);
    stats().graph_host_nodes_added.fetch_add(1);
  }
  return true;
}

// A stream with a context of its own must belong to the calling thread's current context. Where the
// driver cannot say which context is current (`current` null: inside a host function) it is not judged.
bool same_context(const StreamObject& stream, CUcontext stream_context, CUcontext current) {
  return stream.context == nullptr || current == nullptr || current == stream_context;
}

bool same_context_or_raise(const StreamObject& stream, CUcontext stream_context, CUcontext current) {
  if (same_context(stream, stream_context, current)) return true;
  PyErr_Format(PyExc_ValueError,
               "host_launch: stream %p belongs to context %p, but the current context is %p; make the stream's "
               "context current first (e.g. with gilsan.Context)",
               stream.handle, stream_context, current);
  return false;
}

// What host_launch learns before it launches, and the launch itself when it needed no Python object.
struct Prelaunch {
  CUcontext current = nullptr;  // the calling thread's current context; null: not known
  std::optional<CUresult> capture_query;  // cuStreamIsCapturing's result; unset: not asked
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  std::optional<CUresult> native_launch;  // set when a native function was launched here
};

// The current context and, for a native function that needs nothing kept alive, its launch; for
// anything else, the capture status: the same driver calls in the same order as one call_driver
// each, under one release of the GIL instead of several (two round trips of the GIL per native
// host_launch were most of what it cost above the raw cuLaunchHostFunc). A native function with
// nothing to keep alive is launched without asking whether the stream captures: the driver makes it
// a host node of the capture then, which is all launch_into_capture would do with it. What needs the
// GIL -- a payload, a keep-alive, a capture's graph, raising -- is left to the caller, after.
Prelaunch check_then_launch_native(const LaunchTarget& target, const StreamObject& stream, const HostFunctionArgument& fn) {
  Prelaunch out;
  const GilReleased released;
  if (released.call("cuCtxGetCurrent", [&] { return target.table->cuCtxGetCurrent(&out.current); }) != CUDA_SUCCESS)
    out.current = nullptr;
  if (!same_context(stream, target.context, out.current)) return out;
  if (fn.native && !fn.needs_keep_alive()) {
    out.native_launch = released.call(
        "cuLaunchHostFunc", [&] { return target.table->cuLaunchHostFunc(target.stream, fn.function, fn.user_data); });
    return out;
  }
  out.capture_query = released.call("cuStreamIsCapturing",
                                    [&] { return target.table->cuStreamIsCapturing(target.stream, &out.capture); });
  return out;
}

}  // namespace

PyObject* host_launch(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (nargs < 2) {
    PyErr_Format(PyExc_TypeError, "host_launch(stream, fn, *args, **kwargs) takes at least 2 positional arguments (%zd given)",
                 nargs);
    return nullptr;
  }
  run_deferred_releases();
  StreamObject* stream = open_stream_or_raise(args[0], kWho);
  if (stream == nullptr) return nullptr;
  HostFunctionArgument fn;
  if (!parse_host_function(kWho, args[1], TrailingArguments::from_vectorcall(args + 2, nargs - 2, kwnames), fn))
    return nullptr;

  LaunchTarget target;
  target.table = table_or_raise();
  if (target.table == nullptr) return nullptr;
  target.stream = stream->handle;
  if (!stream_context_or_raise(stream, &target.context)) return nullptr;

  const Prelaunch checked = check_then_launch_native(target, *stream, fn);
  if (!same_context_or_raise(*stream, target.context, checked.current) ||
      (checked.capture_query && !check_driver(*checked.capture_query, "cuStreamIsCapturing", target.context)))
    return nullptr;

  bool launched = false;
  if (checked.native_launch) {
    launched = check_driver(*checked.native_launch, "cuLaunchHostFunc", target.context);
    if (launched) stats().native_host_functions_enqueued.fetch_add(1);
  } else if (checked.capture == CU_STREAM_CAPTURE_STATUS_ACTIVE) {
    launched = launch_into_capture(target, fn);
  } else if (fn.native) {
    launched = launch_native_with_keep_alive(target, fn);
  } else {
    launched = launch_python_on_stream(target, fn);
  }
  if (!launched) return nullptr;
  Py_RETURN_NONE;
}

}  // namespace gilsan::pymodule
