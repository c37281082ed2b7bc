#include "harness/pymodule/context_object.h"

#include <structmember.h>

#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/stream_payload_registry.h"
#include "harness/pymodule/stream_work.h"
#include "harness/pymodule/type_support.h"

namespace gilsan::pymodule {
namespace {

PyTypeObject* g_context_type = nullptr;
CUcontext g_default_primary = nullptr;  // device 0's primary context, retained once for the process

bool raise_if_closed(ContextObject* self) {
  if (!self->closed && self->handle != nullptr) return false;
  PyErr_SetString(PyExc_ValueError, "gilsan.Context: the context is closed");
  return true;
}

bool close_context(ContextObject* self) {
  if (self->closed) return true;
  const DriverTable* table = opened_driver_table();
  self->closed = true;
  if (table == nullptr) return true;
  if (self->primary) {
    const CUdevice device = self->device;
    return check_driver(call_driver("cuDevicePrimaryCtxRelease", Gil::Release,
                                    [&] { return table->cuDevicePrimaryCtxRelease(device); }),
                        "cuDevicePrimaryCtxRelease");
  }
  const CUcontext context = self->handle;
  forget_device_work_kernels(context);
  const CUresult result = call_driver("cuCtxDestroy", Gil::Release, [&] { return table->cuCtxDestroy(context); });
  // A destroyed context runs no more host functions: release what its streams still held.
  if (result == CUDA_SUCCESS) {
    abandon_stream_payloads(context);
    forget_context_failure(context);
  }
  return check_driver(result, "cuCtxDestroy", context);
}

int context_init(PyObject* object, PyObject* args, PyObject* kwargs) {
  auto* self = reinterpret_cast<ContextObject*>(object);
  static const char* keywords[] = {"device", "create", nullptr};
  int ordinal = 0;
  int create = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|i$p:Context", const_cast<char**>(keywords), &ordinal, &create))
    return -1;
  if (self->handle != nullptr && !close_context(self)) return -1;
  self->closed = true;
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return -1;
  CUdevice device = 0;
  if (!check_driver(call_driver("cuDeviceGet", Gil::Release, [&] { return table->cuDeviceGet(&device, ordinal); }),
                    "cuDeviceGet"))
    return -1;
  CUcontext context = nullptr;
  if (create) {
    // cuCtxCreate makes the new context current; pop it so that creating a Context changes nothing.
    CUresult result = call_driver("cuCtxCreate", Gil::Release, [&] { return table->cuCtxCreate(&context, nullptr, 0, device); });
    if (!check_driver(result, "cuCtxCreate")) return -1;
    CUcontext popped = nullptr;
    result = call_driver("cuCtxPopCurrent", Gil::Release, [&] { return table->cuCtxPopCurrent(&popped); });
    if (!check_driver(result, "cuCtxPopCurrent")) return -1;
  } else {
    CUresult result = call_driver("cuDevicePrimaryCtxRetain", Gil::Release,
                                  [&] { return table->cuDevicePrimaryCtxRetain(&context, device); });
    if (!check_driver(result, "cuDevicePrimaryCtxRetain")) return -1;
  }
  self->handle = context;
  self->device = device;
  self->ordinal = ordinal;
  self->primary = !create;
  self->closed = false;
  return 0;
}

void context_dealloc(PyObject* object) {
  auto* self = reinterpret_cast<ContextObject*>(object);
  if (self->handle != nullptr) {
    SavedException saved;
    if (!close_context(self)) write_unraisable("while closing a gilsan.Context");
  }
  free_heap_object(object);
}

PyObject* context_push(PyObject* object, PyObject*) {
  auto* self = reinterpret_cast<ContextObject*>(object);
  run_deferred_releases();
  if (raise_if_closed(self)) return nullptr;
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  const CUcontext context = self->handle;
  if (!check_driver(call_driver("cuCtxPushCurrent", Gil::Release, [&] { return table->cuCtxPushCurrent(context); }),
                    "cuCtxPushCurrent"))
    return nullptr;
  return Py_NewRef(object);
}

PyObject* context_pop(PyObject* object, PyObject*) {
  auto* self = reinterpret_cast<ContextObject*>(object);
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  CUcontext popped = nullptr;
  if (!check_driver(call_driver("cuCtxPopCurrent", Gil::Release, [&] { return table->cuCtxPopCurrent(&popped); }),
                    "cuCtxPopCurrent"))
    return nullptr;
  if (popped != self->handle) {
    PyErr_Format(PyExc_RuntimeError, "gilsan.Context.pop: popped context %p is not this context %p", popped,
                 self->handle);
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyObject* context_exit(PyObject* object, PyObject*) { return context_pop(object, nullptr); }

PyObject* context_synchronize_method(PyObject* object, PyObject* args, PyObject* kwargs) {
  auto* self = reinterpret_cast<ContextObject*>(object);
  if (raise_if_closed(self)) return nullptr;
  PyObject* pushed = context_push(object, nullptr);
  if (pushed == nullptr) return nullptr;
  Py_DECREF(pushed);
  PyObject* result = context_synchronize(nullptr, args, kwargs);
  PyObject* popped = context_pop(object, nullptr);
  if (popped == nullptr) {
    Py_XDECREF(result);
    return nullptr;
  }
  Py_DECREF(popped);
  return result;
}

PyObject* context_close(PyObject* object, PyObject*) {
  run_deferred_releases();
  if (!close_context(reinterpret_cast<ContextObject*>(object))) return nullptr;
  Py_RETURN_NONE;
}

PyObject* context_repr(PyObject* object) {
  auto* self = reinterpret_cast<ContextObject*>(object);
  return PyUnicode_FromFormat("<gilsan.Context device=%d %s handle=%p%s>", self->ordinal,
                              self->primary ? "primary" : "created", self->handle, self->closed ? " closed" : "");
}

PyObject* context_handle(PyObject* object, void*) {
  return PyLong_FromVoidPtr(reinterpret_cast<ContextObject*>(object)->handle);
}

PyMethodDef kContextMethods[] = {
    {"push", context_push, METH_NOARGS, "Makes this context current on the calling thread (cuCtxPushCurrent)."},
    {"pop", context_pop, METH_NOARGS, "Pops this context (cuCtxPopCurrent); it must be the current one."},
    {"__enter__", context_push, METH_NOARGS, nullptr},
    {"__exit__", context_exit, METH_VARARGS, nullptr},
    {"synchronize", as_method(context_synchronize_method),
     METH_VARARGS | METH_KEYWORDS, "synchronize(*, hold_gil=False): waits for all work of this context."},
    {"close", context_close, METH_NOARGS, "Releases the primary context, or destroys a created one."},
    {nullptr, nullptr, 0, nullptr},
};

PyMemberDef kContextMembers[] = {
    {"device", T_INT, offsetof(ContextObject, ordinal), READONLY, "device ordinal"},
    {"primary", T_BOOL, offsetof(ContextObject, primary), READONLY, "True for a device's primary context"},
    {"closed", T_BOOL, offsetof(ContextObject, closed), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyGetSetDef kContextGetSet[] = {
    {"handle", context_handle, nullptr, "the CUcontext as an int", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot kContextSlots[] = {
    {Py_tp_doc, const_cast<char*>("Context(device=0, *, create=False): a primary (retained) or created CUDA context.")},
    {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void*>(context_init)},
    {Py_tp_dealloc, reinterpret_cast<void*>(context_dealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(context_repr)},
    {Py_tp_methods, kContextMethods},
    {Py_tp_members, kContextMembers},
    {Py_tp_getset, kContextGetSet},
    {0, nullptr},
};

PyType_Spec kContextSpec = {"gilsan.Context", sizeof(ContextObject), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                            kContextSlots};

}  // namespace

bool add_context_type(PyObject* module) {
  g_context_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kContextSpec));
  return g_context_type != nullptr &&
         PyModule_AddObjectRef(module, "Context", reinterpret_cast<PyObject*>(g_context_type)) == 0;
}

bool current_context_or_raise(CUcontext* context) {
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return false;
  CUcontext current = nullptr;
  if (!check_driver(call_driver("cuCtxGetCurrent", Gil::Release, [&] { return table->cuCtxGetCurrent(&current); }),
                    "cuCtxGetCurrent"))
    return false;
  if (current == nullptr) {
    if (g_default_primary == nullptr) {
      CUdevice device = 0;
      if (!check_driver(call_driver("cuDeviceGet", Gil::Release, [&] { return table->cuDeviceGet(&device, 0); }),
                        "cuDeviceGet"))
        return false;
      CUcontext primary = nullptr;
      if (!check_driver(call_driver("cuDevicePrimaryCtxRetain", Gil::Release,
                                    [&] { return table->cuDevicePrimaryCtxRetain(&primary, device); }),
                        "cuDevicePrimaryCtxRetain"))
        return false;
      g_default_primary = primary;
    }
    current = g_default_primary;
    if (!check_driver(call_driver("cuCtxSetCurrent", Gil::Release, [&] { return table->cuCtxSetCurrent(current); }),
                      "cuCtxSetCurrent"))
      return false;
  }
  *context = current;
  return true;
}

PyObject* device_count(PyObject*, PyObject*) {
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  int count = 0;
  if (!check_driver(call_driver("cuDeviceGetCount", Gil::Release, [&] { return table->cuDeviceGetCount(&count); }),
                    "cuDeviceGetCount"))
    return nullptr;
  return PyLong_FromLong(count);
}

PyObject* current_context(PyObject*, PyObject*) {
  run_deferred_releases();
  const DriverTable* table = table_or_raise();
  if (table == nullptr) return nullptr;
  CUcontext current = nullptr;
  if (!check_driver(call_driver("cuCtxGetCurrent", Gil::Release, [&] { return table->cuCtxGetCurrent(&current); }),
                    "cuCtxGetCurrent"))
    return nullptr;
  if (current == nullptr) Py_RETURN_NONE;
  return PyLong_FromVoidPtr(current);
}

PyObject* context_synchronize(PyObject*, PyObject* args, PyObject* kwargs) {
  bool hold_gil = false;
  if (!parse_hold_gil(args, kwargs, "|$p:synchronize", hold_gil)) return nullptr;
  run_deferred_releases();
  CUcontext context = nullptr;
  if (!current_context_or_raise(&context)) return nullptr;
  const DriverTable* table = opened_driver_table();
  const CUresult result =
      call_driver("cuCtxSynchronize", hold_gil ? Gil::Hold : Gil::Release, DriverCallTarget{context, nullptr, nullptr}, [&] { return table->cuCtxSynchronize(); });
  if (!check_driver(result, "cuCtxSynchronize", context)) return nullptr;
  Py_RETURN_NONE;
}

}  // namespace gilsan::pymodule
