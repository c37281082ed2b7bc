#include "harness/pymodule/stream_object.h"

#include <structmember.h>

#include <string>
#include <string_view>

#include "harness/pymodule/context_object.h"
#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/event_object.h"
#include "harness/pymodule/graph_object.h"
#include "harness/pymodule/stream_work.h"
#include "harness/pymodule/type_support.h"

namespace gilsan::pymodule {
namespace {

PyTypeObject* g_stream_type = nullptr;

bool is_special_handle(CUstream handle) {
  return handle == nullptr || handle == CU_STREAM_LEGACY || handle == CU_STREAM_PER_THREAD;
}

bool close_stream(StreamObject* self) {
  if (self->closed) return true;
  self->closed = true;
  if (!self->owning || is_special_handle(self->handle)) return true;
  const DriverTable* table = opened_driver_table();
  if (table == nullptr) return true;
  const CUstream handle = self->handle;
  const CUcontext context = self->context;
  return check_release(call_driver("cuStreamDestroy", Gil::Release, [&] { return table->cuStreamDestroy(handle); }),
                       "cuStreamDestroy", context);
}

// A new Stream object for an existing handle (borrowed) or one just created (owning).
PyObject* new_stream(PyTypeObject* type, CUstream handle, CUcontext context, bool owning) {
  PyObject* object = type->tp_alloc(type, 0);
  if (object == nullptr) return nullptr;
  auto* self = reinterpret_cast<StreamObject*>(object);
  self->handle = handle;
  self->context = context;
  self->owning = owning;
  self->closed = false;
  return object;
}

PyObject* stream_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"non_blocking", "priority", nullptr};
  int non_blocking = 1;
  PyObject* priority = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$pO:Stream", const_cast<char**>(keywords), &non_blocking,
                                   &priority))
    return nullptr;
  run_deferred_releases();
  CUcontext context = nullptr;
  if (!current_context_or_raise(&context)) return nullptr;
  const DriverTable* table = opened_driver_table();
  const unsigned flags = non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT;
  CUstream handle = nullptr;
  if (priority == Py_None) {
    if (!check_driver(call_driver("cuStreamCreate", Gil::Release, [&] { return table->cuStreamCreate(&handle, flags); }),
                      "cuStreamCreate", context))
      return nullptr;
  } else {
    const int value = static_cast<int>(PyLong_AsLong(priority));
    if (value == -1 && PyErr_Occurred()) return nullptr;
    if (!check_driver(call_driver("cuStreamCreateWithPriority", Gil::Release,
                                  [&] { return table->cuStreamCreateWithPriority(&handle, flags, value); }),
                      "cuStreamCreateWithPriority", context))
      return nullptr;
  }
  PyObject* object = new_stream(type, handle, context, true);
  if (object == nullptr) {
    call_driver("cuStreamDestroy", Gil::Release, [&] { return table->cuStreamDestroy(handle); });
  }
  return object;
}

void stream_dealloc(PyObject* object) {
  auto* self = reinterpret_cast<StreamObject*>(object);
  if (self->weakrefs != nullptr) PyObject_ClearWeakRefs(object);
  if (!self->closed) {
    SavedException saved;
    if (!close_stream(self)) write_unraisable("while destroying a gilsan.Stream");
  }
  free_heap_object(object);
}

PyObject* stream_from_handle(PyObject* cls, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"handle", nullptr};
  PyObject* handle_object = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:from_handle", const_cast<char**>(keywords), &handle_object))
    return nullptr;
  if (!PyLong_Check(handle_object) || PyBool_Check(handle_object)) {
    PyErr_Format(PyExc_TypeError, "Stream.from_handle: the handle must be an int (a CUstream), not '%s'",
                 Py_TYPE(handle_object)->tp_name);
    return nullptr;
  }
  auto* handle = static_cast<CUstream>(PyLong_AsVoidPtr(handle_object));
  if (handle == nullptr && PyErr_Occurred()) return nullptr;
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  CUcontext context = nullptr;
  if (!is_special_handle(handle) &&
      !check_driver(call_driver("cuStreamGetCtx", Gil::Release, [&] { return table->cuStreamGetCtx(handle, &context); }),
                    "cuStreamGetCtx"))
    return nullptr;
  return new_stream(reinterpret_cast<PyTypeObject*>(cls), handle, context, false);
}

PyObject* stream_legacy(PyObject* cls, PyObject*) {
  return new_stream(reinterpret_cast<PyTypeObject*>(cls), CU_STREAM_LEGACY, nullptr, false);
}

PyObject* stream_per_thread(PyObject* cls, PyObject*) {
  return new_stream(reinterpret_cast<PyTypeObject*>(cls), CU_STREAM_PER_THREAD, nullptr, false);
}

PyObject* stream_close(PyObject* object, PyObject*) {
  run_deferred_releases();
  if (!close_stream(reinterpret_cast<StreamObject*>(object))) return nullptr;
  Py_RETURN_NONE;
}

PyObject* stream_exit(PyObject* object, PyObject*) { return stream_close(object, nullptr); }

PyObject* stream_enter(PyObject* object, PyObject*) {
  if (open_stream_or_raise(object, "Stream.__enter__") == nullptr) return nullptr;
  return Py_NewRef(object);
}

PyObject* stream_work(PyObject* object, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"ms", nullptr};
  double milliseconds = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "d:work", const_cast<char**>(keywords), &milliseconds)) return nullptr;
  StreamObject* self = open_stream_or_raise(object, "Stream.work");
  if (self == nullptr) return nullptr;
  if (!(milliseconds >= 0) || milliseconds > 3.6e6) {
    PyErr_SetString(PyExc_ValueError,
                    ("Stream.work: ms must be between 0 and 3600000, not " + std::to_string(milliseconds)).c_str());
    return nullptr;
  }
  run_deferred_releases();
  if (!enqueue_device_work_or_raise(self->handle, self->context, static_cast<unsigned long long>(milliseconds * 1000.0)))
    return nullptr;
  Py_RETURN_NONE;
}

PyObject* stream_synchronize(PyObject* object, PyObject* args, PyObject* kwargs) {
  bool hold_gil = false;
  if (!parse_hold_gil(args, kwargs, "|$p:synchronize", hold_gil)) return nullptr;
  StreamObject* self = open_stream_or_raise(object, "Stream.synchronize");
  if (self == nullptr) return nullptr;
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  const CUstream handle = self->handle;
  const CUresult result = call_driver("cuStreamSynchronize", hold_gil ? Gil::Hold : Gil::Release,
                                      DriverCallTarget{self->context, handle, nullptr}, [&] { return table->cuStreamSynchronize(handle); });
  if (!check_driver(result, "cuStreamSynchronize", self->context)) return nullptr;
  Py_RETURN_NONE;
}

PyObject* stream_query(PyObject* object, PyObject*) {
  StreamObject* self = open_stream_or_raise(object, "Stream.query");
  if (self == nullptr) return nullptr;
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  const CUstream handle = self->handle;
  const CUresult result = call_driver("cuStreamQuery", Gil::Release, [&] { return table->cuStreamQuery(handle); });
  if (result == CUDA_ERROR_NOT_READY) Py_RETURN_FALSE;
  if (!check_driver(result, "cuStreamQuery", self->context)) return nullptr;
  Py_RETURN_TRUE;
}

PyObject* stream_wait_event(PyObject* object, PyObject* event_object) {
  StreamObject* self = open_stream_or_raise(object, "Stream.wait_event");
  if (self == nullptr) return nullptr;
  CUevent event = nullptr;
  if (!event_handle_or_raise(event_object, "Stream.wait_event", &event)) return nullptr;
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  const CUstream handle = self->handle;
  if (!check_driver(call_driver("cuStreamWaitEvent", Gil::Release,
                                [&] { return table->cuStreamWaitEvent(handle, event, 0); }),
                    "cuStreamWaitEvent", self->context))
    return nullptr;
  Py_RETURN_NONE;
}

bool parse_capture_mode(const char* text, CUstreamCaptureMode& mode) {
  const std::string_view name(text);
  if (name == "global") mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  else if (name == "thread_local") mode = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
  else if (name == "relaxed") mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  else {
    PyErr_Format(PyExc_ValueError, "Stream.begin_capture: mode must be 'global', 'thread_local' or 'relaxed', not '%s'",
                 text);
    return false;
  }
  return true;
}

PyObject* stream_begin_capture(PyObject* object, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"mode", nullptr};
  const char* mode_text = "global";
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|s:begin_capture", const_cast<char**>(keywords), &mode_text))
    return nullptr;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  if (!parse_capture_mode(mode_text, mode)) return nullptr;
  StreamObject* self = open_stream_or_raise(object, "Stream.begin_capture");
  if (self == nullptr) return nullptr;
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  const CUstream handle = self->handle;
  if (!check_driver(call_driver("cuStreamBeginCapture", Gil::Release,
                                [&] { return table->cuStreamBeginCapture(handle, mode); }),
                    "cuStreamBeginCapture", self->context))
    return nullptr;
  Py_RETURN_NONE;
}

PyObject* stream_end_capture(PyObject* object, PyObject*) {
  StreamObject* self = open_stream_or_raise(object, "Stream.end_capture");
  if (self == nullptr) return nullptr;
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  const CUstream handle = self->handle;
  CUgraph graph = nullptr;
  const CUresult result =
      call_driver("cuStreamEndCapture", Gil::Release, [&] { return table->cuStreamEndCapture(handle, &graph); });
  // A failed capture may still hand back the graph it built (invalidated): destroy it, and with it
  // the references its host nodes held.
  if (result != CUDA_SUCCESS) {
    if (graph != nullptr) release_captured_graph(graph);
    observe_capture_ended(handle, graph != nullptr);
    check_driver(result, "cuStreamEndCapture", self->context);
    return nullptr;
  }
  observe_capture_ended(handle, true);
  return wrap_captured_graph(graph);
}

PyObject* stream_is_capturing(PyObject* object, PyObject*) {
  StreamObject* self = open_stream_or_raise(object, "Stream.is_capturing");
  if (self == nullptr) return nullptr;
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  const CUstream handle = self->handle;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!check_driver(call_driver("cuStreamIsCapturing", Gil::Release,
                                [&] { return table->cuStreamIsCapturing(handle, &status); }),
                    "cuStreamIsCapturing", self->context))
    return nullptr;
  return PyBool_FromLong(status == CU_STREAM_CAPTURE_STATUS_ACTIVE);
}

PyObject* stream_repr(PyObject* object) {
  auto* self = reinterpret_cast<StreamObject*>(object);
  return PyUnicode_FromFormat("<gilsan.Stream handle=%p %s%s>", self->handle, self->owning ? "owning" : "borrowed",
                              self->closed ? " closed" : "");
}

PyObject* stream_handle(PyObject* object, void*) {
  return PyLong_FromVoidPtr(reinterpret_cast<StreamObject*>(object)->handle);
}

PyObject* stream_context(PyObject* object, void*) {
  auto* self = reinterpret_cast<StreamObject*>(object);
  if (self->context == nullptr) Py_RETURN_NONE;
  return PyLong_FromVoidPtr(self->context);
}

PyMethodDef kStreamMethods[] = {
    {"from_handle", as_method(stream_from_handle), METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "from_handle(handle): a borrowed Stream for an existing CUstream; gilsan never destroys it."},
    {"legacy", stream_legacy, METH_NOARGS | METH_CLASS, "The legacy default stream (CU_STREAM_LEGACY)."},
    {"per_thread", stream_per_thread, METH_NOARGS | METH_CLASS, "The per-thread default stream."},
    {"close", stream_close, METH_NOARGS, "Destroys an owning stream (pending work still completes); borrowed: forgets it."},
    {"__enter__", stream_enter, METH_NOARGS, nullptr},
    {"__exit__", stream_exit, METH_VARARGS, nullptr},
    {"work", as_method(stream_work), METH_VARARGS | METH_KEYWORDS,
     "work(ms): device work that keeps the stream busy for ms milliseconds (a spin kernel)."},
    {"synchronize", as_method(stream_synchronize), METH_VARARGS | METH_KEYWORDS,
     "synchronize(*, hold_gil=False): waits for the stream. hold_gil=True keeps the GIL while waiting, as a C "
     "extension that forgets to release it would."},
    {"query", stream_query, METH_NOARGS, "True when all work on the stream has completed."},
    {"wait_event", stream_wait_event, METH_O, "wait_event(event): later work on the stream waits for the event."},
    {"begin_capture", as_method(stream_begin_capture), METH_VARARGS | METH_KEYWORDS,
     "begin_capture(mode='global'): starts stream capture ('global', 'thread_local' or 'relaxed')."},
    {"end_capture", stream_end_capture, METH_NOARGS, "Ends stream capture and returns the captured gilsan.Graph."},
    {"is_capturing", stream_is_capturing, METH_NOARGS, "True while the stream captures."},
    {nullptr, nullptr, 0, nullptr},
};

PyMemberDef kStreamMembers[] = {
    {"owning", T_BOOL, offsetof(StreamObject, owning), READONLY, "True when gilsan created (and destroys) the stream"},
    {"closed", T_BOOL, offsetof(StreamObject, closed), READONLY, nullptr},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(StreamObject, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyGetSetDef kStreamGetSet[] = {
    {"handle", stream_handle, nullptr, "the CUstream as an int", nullptr},
    {"context", stream_context, nullptr, "the stream's CUcontext as an int (None: follows the current context)",
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot kStreamSlots[] = {
    {Py_tp_doc, const_cast<char*>("Stream(*, non_blocking=True, priority=None): an owning CUDA stream in the "
                                  "current context. See also Stream.from_handle, legacy, per_thread.")},
    {Py_tp_new, reinterpret_cast<void*>(stream_new)},
    {Py_tp_dealloc, reinterpret_cast<void*>(stream_dealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(stream_repr)},
    {Py_tp_methods, kStreamMethods},
    {Py_tp_members, kStreamMembers},
    {Py_tp_getset, kStreamGetSet},
    {0, nullptr},
};

PyType_Spec kStreamSpec = {"gilsan.Stream", sizeof(StreamObject), 0, Py_TPFLAGS_DEFAULT, kStreamSlots};

}  // namespace

bool add_stream_type(PyObject* module) {
  g_stream_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kStreamSpec));
  return g_stream_type != nullptr &&
         PyModule_AddObjectRef(module, "Stream", reinterpret_cast<PyObject*>(g_stream_type)) == 0;
}

StreamObject* open_stream_or_raise(PyObject* object, const char* who) {
  if (!PyObject_TypeCheck(object, g_stream_type)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a gilsan.Stream, not '%s'", who, Py_TYPE(object)->tp_name);
    return nullptr;
  }
  auto* stream = reinterpret_cast<StreamObject*>(object);
  if (stream->closed) {
    PyErr_Format(PyExc_ValueError, "%s: the stream %p is closed", who, stream->handle);
    return nullptr;
  }
  return stream;
}

bool stream_context_or_raise(StreamObject* stream, CUcontext* context) {
  if (stream->context != nullptr) {
    *context = stream->context;
    return true;
  }
  return current_context_or_raise(context);
}

}  // namespace gilsan::pymodule
