#include "harness/pymodule/copy_host.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/graph_lifetime.h"
#include "harness/pymodule/host_copy_arguments.h"
#include "harness/pymodule/host_payload.h"
#include "harness/pymodule/interpreter_gate.h"
#include "harness/pymodule/stream_object.h"
#include "harness/pymodule/stream_payload_registry.h"

namespace gilsan::pymodule {
namespace {

constexpr const char* kCopyHost = "copy_host";

void perform(const HostCopy& copy) {
  if (copy.size == 0) return;
  if (copy.workers != nullptr) {
    copy.workers->copy(copy.destination, copy.source, copy.size);
  } else {
    std::memcpy(copy.destination, copy.source, copy.size);
  }
}

// A copy into or out of Python-owned memory goes through the interpreter gate like a trampoline: once
// the atexit hook closed it the copy is skipped (nobody is left to read the result), and the hook waits
// for a copy already under way, so finalization never frees memory a copy still touches.
void perform_guarded(const HostPayload& payload) {
  const auto& copy = *static_cast<const HostCopy*>(payload.user_data_copy);
  if (payload.callable == nullptr) {
    perform(copy);
    return;
  }
  if (!try_enter_python()) return;
  perform(copy);
  leave_python();
}

// Stream path: runs once, then hands the payload (the buffers' views) over for release.
void CUDA_CB run_stream_host_copy(void* data) {
  auto* payload = static_cast<HostPayload*>(data);
  if (!claim_stream_payload(payload)) {
    // The context hit a sticky error and a sweep already dropped the buffers: copy nothing.
    free_payload_memory(payload);
    return;
  }
  perform_guarded(*payload);
  release_later(payload);
  host_function_finished();
}

// Graph path: runs on every replay; the graph's user object owns (and releases) the payload.
void CUDA_CB run_graph_host_copy(void* data) { perform_guarded(*static_cast<const HostPayload*>(data)); }

// GIL held. A payload owning `keep_alive` and a malloc'd copy of the task (freed with the payload).
HostPayload* new_copy_payload(const HostCopy& copy, PyObject* keep_alive) {
  void* task = std::malloc(sizeof(HostCopy));
  if (task == nullptr) {
    PyErr_NoMemory();
    return nullptr;
  }
  new (task) HostCopy(copy);
  return new_native_payload(keep_alive, task);
}

struct ParsedCopy {
  HostSpan destination;
  HostSpan source;
  std::size_t size = 0;
};

bool parse_copy(const char* who, PyObject* dst, PyObject* src, PyObject* nbytes, ParsedCopy& parsed) {
  if (!parse_host_span(who, "dst", dst, true, parsed.destination) ||
      !parse_host_span(who, "src", src, false, parsed.source))
    return false;
  const char* const roles[] = {"src", "dst"};
  const Py_ssize_t lengths[] = {parsed.source.length, parsed.destination.length};
  return resolve_copy_size(who, nbytes, roles, lengths, 2, parsed.size) &&
         check_no_overlap(who, "dst", parsed.destination.address, parsed.size, "src", parsed.source.address,
                          parsed.size);
}

}  // namespace

bool enqueue_host_copy_or_raise(const DriverTable* table, CUstream stream, CUcontext context, const HostCopy& copy,
                                PyObject* keep_alive) {
  HostPayload* payload = new_copy_payload(copy, keep_alive);
  if (payload == nullptr) return false;
  payload->context = context;
  register_stream_payload(payload);
  host_functions_pending(1);
  const CUresult result = call_driver("cuLaunchHostFunc", Gil::Release,
                                      [&] { return table->cuLaunchHostFunc(stream, &run_stream_host_copy, payload); });
  if (result == CUDA_SUCCESS) return true;
  if (claim_stream_payload(payload)) {
    host_functions_pending(-1);
    release_payload(payload);
  } else {
    free_payload_memory(payload);
  }
  return check_driver(result, "cuLaunchHostFunc", context);
}

bool captured_graph_or_raise(const DriverTable* table, CUstream stream, CUcontext context, CUgraph* graph) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return check_driver(call_driver("cuStreamGetCaptureInfo", Gil::Release,
                                  [&] {
                                    return table->cuStreamGetCaptureInfo(stream, &status, nullptr, graph, nullptr,
                                                                         nullptr, nullptr);
                                  }),
                      "cuStreamGetCaptureInfo", context);
}

bool capture_host_copy_or_raise(const DriverTable* table, CUstream stream, CUcontext context, CUgraph graph,
                                const HostCopy& copy, PyObject* keep_alive) {
  HostPayload* payload = new_copy_payload(copy, keep_alive);
  if (payload == nullptr) return false;
  CUuserObject owner = nullptr;
  if (!tie_payload_to_graph_or_raise(graph, payload, context, &owner)) return false;
  const CUresult result = call_driver("cuLaunchHostFunc", Gil::Release,
                                      [&] { return table->cuLaunchHostFunc(stream, &run_graph_host_copy, payload); });
  if (result == CUDA_SUCCESS) return true;
  untie_payload_from_graph(graph, owner);
  return check_driver(result, "cuLaunchHostFunc", context);
}

PyObject* copy_host(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"stream", "dst", "src", "nbytes", nullptr};
  PyObject* stream_object = nullptr;
  PyObject* dst = nullptr;
  PyObject* src = nullptr;
  PyObject* nbytes = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|O:copy_host", const_cast<char**>(keywords), &stream_object,
                                   &dst, &src, &nbytes))
    return nullptr;
  run_deferred_releases();
  StreamObject* stream = open_stream_or_raise(stream_object, kCopyHost);
  ParsedCopy parsed;
  if (stream == nullptr || !parse_copy(kCopyHost, dst, src, nbytes, parsed)) return nullptr;
  const DriverTable* table = table_or_raise();
  CUcontext context = nullptr;
  if (table == nullptr || !stream_context_or_raise(stream, &context)) return nullptr;
  PyRef keep_alive;
  if (!keep_alive_tuple(keep_alive, parsed.destination.view.get(), parsed.source.view.get())) return nullptr;

  const HostCopy copy{parsed.destination.address, parsed.source.address, parsed.size, nullptr};
  const CUstream handle = stream->handle;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!check_driver(call_driver("cuStreamIsCapturing", Gil::Release,
                                [&] { return table->cuStreamIsCapturing(handle, &status); }),
                    "cuStreamIsCapturing", context))
    return nullptr;
  if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
    if (!enqueue_host_copy_or_raise(table, handle, context, copy, keep_alive.get())) return nullptr;
    Py_RETURN_NONE;
  }
  CUgraph graph = nullptr;
  if (!captured_graph_or_raise(table, handle, context, &graph) ||
      !capture_host_copy_or_raise(table, handle, context, graph, copy, keep_alive.get()))
    return nullptr;
  Py_RETURN_NONE;
}

PyObject* host_memcpy(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"dst", "src", "nbytes", "threads", nullptr};
  constexpr const char* who = "host_memcpy";
  PyObject* dst = nullptr;
  PyObject* src = nullptr;
  PyObject* nbytes = Py_None;
  int threads = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$i:host_memcpy", const_cast<char**>(keywords), &dst, &src,
                                   &nbytes, &threads))
    return nullptr;
  if (threads < 1 || threads > static_cast<int>(HostCopyWorkers::kMaxThreads)) {
    PyErr_Format(PyExc_ValueError, "%s: threads must be between 1 and %u, not %d", who, HostCopyWorkers::kMaxThreads,
                 threads);
    return nullptr;
  }
  ParsedCopy parsed;
  if (!parse_copy(who, dst, src, nbytes, parsed)) return nullptr;
  Py_BEGIN_ALLOW_THREADS
  {
    // Started and joined with the GIL released: the helpers' start-up is part of what a caller pays.
    HostCopyWorkers workers(static_cast<unsigned>(threads));
    workers.copy(parsed.destination.address, parsed.source.address, parsed.size);
  }
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

}  // namespace gilsan::pymodule
