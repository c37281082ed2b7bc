#include "harness/pymodule/event_object.h"

#include "harness/pymodule/context_object.h"
#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/stream_object.h"
#include "harness/pymodule/type_support.h"

namespace gilsan::pymodule {
namespace {

PyTypeObject* g_event_type = nullptr;

bool destroy_event(EventObject* self) {
  const CUevent handle = self->handle;
  self->handle = nullptr;
  const DriverTable* table = opened_driver_table();
  if (handle == nullptr || table == nullptr) return true;
  return check_release(call_driver("cuEventDestroy", Gil::Release, [&] { return table->cuEventDestroy(handle); }),
                       "cuEventDestroy", self->context);
}

EventObject* open_event_or_raise(PyObject* object, const char* who) {
  CUevent handle = nullptr;
  if (!event_handle_or_raise(object, who, &handle)) return nullptr;
  return reinterpret_cast<EventObject*>(object);
}

int event_init(PyObject* object, PyObject* args, PyObject* kwargs) {
  auto* self = reinterpret_cast<EventObject*>(object);
  static const char* keywords[] = {"timing", "blocking_sync", nullptr};
  int timing = 0;
  int blocking_sync = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$pp:Event", const_cast<char**>(keywords), &timing, &blocking_sync))
    return -1;
  if (!destroy_event(self)) return -1;
  run_deferred_releases();
  CUcontext context = nullptr;
  if (!current_context_or_raise(&context)) return -1;
  const DriverTable* table = opened_driver_table();
  unsigned flags = timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING;
  if (blocking_sync) flags |= CU_EVENT_BLOCKING_SYNC;
  CUevent handle = nullptr;
  if (!check_driver(call_driver("cuEventCreate", Gil::Release, [&] { return table->cuEventCreate(&handle, flags); }),
                    "cuEventCreate", context))
    return -1;
  self->handle = handle;
  self->context = context;
  return 0;
}

void event_dealloc(PyObject* object) {
  auto* self = reinterpret_cast<EventObject*>(object);
  if (self->handle != nullptr) {
    SavedException saved;
    if (!destroy_event(self)) write_unraisable("while destroying a gilsan.Event");
  }
  free_heap_object(object);
}

PyObject* event_record(PyObject* object, PyObject* stream_object) {
  EventObject* self = open_event_or_raise(object, "Event.record");
  if (self == nullptr) return nullptr;
  StreamObject* stream = open_stream_or_raise(stream_object, "Event.record");
  if (stream == nullptr) return nullptr;
  run_deferred_releases();
  const DriverTable* table = opened_driver_table();
  const CUevent handle = self->handle;
  const CUstream on = stream->handle;
  if (!check_driver(call_driver("cuEventRecord", Gil::Release, DriverCallTarget{self->context, on, handle},
                                [&] { return table->cuEventRecord(handle, on); }),
                    "cuEventRecord", self->context))
    return nullptr;
  observe_event_recorded(handle, on, stream->context != nullptr ? stream->context : self->context);
  Py_RETURN_NONE;
}

PyObject* event_synchronize(PyObject* object, PyObject* args, PyObject* kwargs) {
  bool hold_gil = false;
  if (!parse_hold_gil(args, kwargs, "|$p:synchronize", hold_gil)) return nullptr;
  EventObject* self = open_event_or_raise(object, "Event.synchronize");
  if (self == nullptr) return nullptr;
  run_deferred_releases();
  const DriverTable* table = opened_driver_table();
  const CUevent handle = self->handle;
  const CUresult result = call_driver("cuEventSynchronize", hold_gil ? Gil::Hold : Gil::Release,
                                      DriverCallTarget{self->context, nullptr, handle}, [&] { return table->cuEventSynchronize(handle); });
  if (!check_driver(result, "cuEventSynchronize", self->context)) return nullptr;
  Py_RETURN_NONE;
}

PyObject* event_query(PyObject* object, PyObject*) {
  EventObject* self = open_event_or_raise(object, "Event.query");
  if (self == nullptr) return nullptr;
  run_deferred_releases();
  const DriverTable* table = opened_driver_table();
  const CUevent handle = self->handle;
  const CUresult result = call_driver("cuEventQuery", Gil::Release, [&] { return table->cuEventQuery(handle); });
  if (result == CUDA_ERROR_NOT_READY) Py_RETURN_FALSE;
  if (!check_driver(result, "cuEventQuery", self->context)) return nullptr;
  Py_RETURN_TRUE;
}

PyObject* event_elapsed_ms(PyObject* object, PyObject* later_object) {
  EventObject* self = open_event_or_raise(object, "Event.elapsed_ms");
  if (self == nullptr) return nullptr;
  CUevent later = nullptr;
  if (!event_handle_or_raise(later_object, "Event.elapsed_ms", &later)) return nullptr;
  const DriverTable* table = opened_driver_table();
  const CUevent handle = self->handle;
  float milliseconds = 0;
  if (!check_driver(call_driver("cuEventElapsedTime", Gil::Release,
                                [&] { return table->cuEventElapsedTime(&milliseconds, handle, later); }),
                    "cuEventElapsedTime", self->context))
    return nullptr;
  return PyFloat_FromDouble(milliseconds);
}

PyObject* event_close(PyObject* object, PyObject*) {
  run_deferred_releases();
  if (!destroy_event(reinterpret_cast<EventObject*>(object))) return nullptr;
  Py_RETURN_NONE;
}

PyObject* event_repr(PyObject* object) {
  auto* self = reinterpret_cast<EventObject*>(object);
  if (self->handle == nullptr) return PyUnicode_FromString("<gilsan.Event closed>");
  return PyUnicode_FromFormat("<gilsan.Event handle=%p>", self->handle);
}

PyObject* event_handle(PyObject* object, void*) {
  auto* self = reinterpret_cast<EventObject*>(object);
  if (self->handle == nullptr) Py_RETURN_NONE;
  return PyLong_FromVoidPtr(self->handle);
}

PyMethodDef kEventMethods[] = {
    {"record", event_record, METH_O, "record(stream): records the event at the current end of the stream."},
    {"synchronize", as_method(event_synchronize), METH_VARARGS | METH_KEYWORDS,
     "synchronize(*, hold_gil=False): waits for the event. hold_gil=True keeps the GIL while waiting."},
    {"query", event_query, METH_NOARGS, "True when the work before the recorded point has completed."},
    {"elapsed_ms", event_elapsed_ms, METH_O, "elapsed_ms(later): milliseconds between this event and a later one."},
    {"close", event_close, METH_NOARGS, "Destroys the event."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef kEventGetSet[] = {
    {"handle", event_handle, nullptr, "the CUevent as an int (None once closed)", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot kEventSlots[] = {
    {Py_tp_doc, const_cast<char*>("Event(*, timing=False, blocking_sync=False): a CUDA event in the current context.")},
    {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void*>(event_init)},
    {Py_tp_dealloc, reinterpret_cast<void*>(event_dealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(event_repr)},
    {Py_tp_methods, kEventMethods},
    {Py_tp_getset, kEventGetSet},
    {0, nullptr},
};

PyType_Spec kEventSpec = {"gilsan.Event", sizeof(EventObject), 0, Py_TPFLAGS_DEFAULT, kEventSlots};

}  // namespace

bool add_event_type(PyObject* module) {
  g_event_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kEventSpec));
  return g_event_type != nullptr &&
         PyModule_AddObjectRef(module, "Event", reinterpret_cast<PyObject*>(g_event_type)) == 0;
}

bool event_handle_or_raise(PyObject* object, const char* who, CUevent* event) {
  if (!PyObject_TypeCheck(object, g_event_type)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a gilsan.Event, not '%s'", who, Py_TYPE(object)->tp_name);
    return false;
  }
  auto* self = reinterpret_cast<EventObject*>(object);
  if (self->handle == nullptr) {
    PyErr_Format(PyExc_ValueError, "%s: the event is closed", who);
    return false;
  }
  *event = self->handle;
  return true;
}

}  // namespace gilsan::pymodule
