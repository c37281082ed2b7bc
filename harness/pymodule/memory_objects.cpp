#include "harness/pymodule/memory_objects.h"

#include <cuda.h>
#include <structmember.h>

#include "harness/pymodule/context_object.h"
#include "harness/pymodule/deferred_release.h"
#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/driver_call.h"
#include "harness/pymodule/stream_object.h"
#include "harness/pymodule/type_support.h"

namespace gilsan::pymodule {
namespace {

struct DeviceBufferObject {
  PyObject_HEAD
  CUdeviceptr pointer;
  Py_ssize_t size;
  CUcontext context;
};

struct PinnedBufferObject {
  PyObject_HEAD
  void* pointer;
  Py_ssize_t size;
  Py_ssize_t exports;  // live buffer-protocol views: the memory may not be freed under them
  CUcontext context;
};

PyTypeObject* g_device_type = nullptr;
PyTypeObject* g_pinned_type = nullptr;

// Releases a Py_buffer when it goes out of scope.
class BufferView {
 public:
  bool acquire(PyObject* object, int flags) {
    acquired_ = PyObject_GetBuffer(object, &view_, flags) == 0;
    return acquired_;
  }
  ~BufferView() {
    if (acquired_) PyBuffer_Release(&view_);
  }
  const Py_buffer& get() const { return view_; }

 private:
  Py_buffer view_{};
  bool acquired_ = false;
};

Py_ssize_t parse_size(PyObject* args, PyObject* kwargs, const char* format) {
  static const char* keywords[] = {"nbytes", nullptr};
  Py_ssize_t size = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, format, const_cast<char**>(keywords), &size)) return -1;
  if (size <= 0) {
    PyErr_Format(PyExc_ValueError, "nbytes must be positive, not %zd", size);
    return -1;
  }
  return size;
}

// --- DeviceBuffer ---

bool free_device(DeviceBufferObject* self) {
  const CUdeviceptr pointer = self->pointer;
  self->pointer = 0;
  const DriverTable* table = opened_driver_table();
  if (pointer == 0 || table == nullptr) return true;
  return check_release(call_driver("cuMemFree", Gil::Release, DriverCallTarget{self->context, nullptr, nullptr},
                                   [&] { return table->cuMemFree(pointer); }),
                       "cuMemFree", self->context);
}

DeviceBufferObject* open_device_or_raise(PyObject* object, const char* who) {
  auto* self = reinterpret_cast<DeviceBufferObject*>(object);
  if (self->pointer != 0) return self;
  PyErr_Format(PyExc_ValueError, "%s: the device buffer is freed", who);
  return nullptr;
}

int device_init(PyObject* object, PyObject* args, PyObject* kwargs) {
  auto* self = reinterpret_cast<DeviceBufferObject*>(object);
  const Py_ssize_t size = parse_size(args, kwargs, "n:DeviceBuffer");
  if (size < 0 || !free_device(self)) return -1;
  run_deferred_releases();
  CUcontext context = nullptr;
  if (!current_context_or_raise(&context)) return -1;
  const DriverTable* table = opened_driver_table();
  CUdeviceptr pointer = 0;
  if (!check_driver(call_driver("cuMemAlloc", Gil::Release, DriverCallTarget{context, nullptr, nullptr},
                                [&] { return table->cuMemAlloc(&pointer, static_cast<size_t>(size)); }),
                    "cuMemAlloc", context))
    return -1;
  self->pointer = pointer;
  self->size = size;
  self->context = context;
  return 0;
}

void device_dealloc(PyObject* object) {
  auto* self = reinterpret_cast<DeviceBufferObject*>(object);
  if (self->pointer != 0) {
    SavedException saved;
    if (!free_device(self)) write_unraisable("while freeing a gilsan.DeviceBuffer");
  }
  free_heap_object(object);
}

// Parses (host, *, stream=None, offset=0); an asynchronous copy needs a PinnedBuffer.
bool parse_copy(PyObject* args, PyObject* kwargs, const char* format, const char* who, PyObject*& host,
                StreamObject*& stream, Py_ssize_t& offset) {
  static const char* keywords[] = {"host", "stream", "offset", nullptr};
  PyObject* stream_object = Py_None;
  offset = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, format, const_cast<char**>(keywords), &host, &stream_object, &offset))
    return false;
  stream = nullptr;
  if (stream_object != Py_None) {
    stream = open_stream_or_raise(stream_object, who);
    if (stream == nullptr) return false;
    if (!PyObject_TypeCheck(host, g_pinned_type)) {
      PyErr_Format(PyExc_TypeError,
                   "%s: an asynchronous copy (stream=...) needs a gilsan.PinnedBuffer on the host side, not '%s'",
                   who, Py_TYPE(host)->tp_name);
      return false;
    }
  }
  return true;
}

bool check_range(const DeviceBufferObject& self, Py_ssize_t offset, Py_ssize_t length, const char* who) {
  if (offset >= 0 && length >= 0 && offset <= self.size && length <= self.size - offset) return true;
  PyErr_Format(PyExc_ValueError, "%s: %zd bytes at offset %zd do not fit in a device buffer of %zd bytes", who, length,
               offset, self.size);
  return false;
}

PyObject* device_copy_from_host(PyObject* object, PyObject* args, PyObject* kwargs) {
  constexpr const char* who = "DeviceBuffer.copy_from_host";
  DeviceBufferObject* self = open_device_or_raise(object, who);
  PyObject* host = nullptr;
  StreamObject* stream = nullptr;
  Py_ssize_t offset = 0;
  if (self == nullptr || !parse_copy(args, kwargs, "O|$On:copy_from_host", who, host, stream, offset)) return nullptr;
  BufferView view;
  if (!view.acquire(host, PyBUF_C_CONTIGUOUS) || !check_range(*self, offset, view.get().len, who)) return nullptr;
  run_deferred_releases();
  const DriverTable* table = opened_driver_table();
  const CUdeviceptr destination = self->pointer + static_cast<CUdeviceptr>(offset);
  const void* source = view.get().buf;
  const auto length = static_cast<size_t>(view.get().len);
  CUresult result = CUDA_SUCCESS;
  if (stream != nullptr) {
    const CUstream on = stream->handle;
    result = call_driver("cuMemcpyHtoDAsync", Gil::Release,
                         [&] { return table->cuMemcpyHtoDAsync(destination, source, length, on); });
  } else {
    result = call_driver("cuMemcpyHtoD", Gil::Release, [&] { return table->cuMemcpyHtoD(destination, source, length); });
  }
  if (!check_driver(result, stream != nullptr ? "cuMemcpyHtoDAsync" : "cuMemcpyHtoD", self->context)) return nullptr;
  Py_RETURN_NONE;
}

PyObject* device_copy_to_host(PyObject* object, PyObject* args, PyObject* kwargs) {
  constexpr const char* who = "DeviceBuffer.copy_to_host";
  DeviceBufferObject* self = open_device_or_raise(object, who);
  PyObject* host = nullptr;
  StreamObject* stream = nullptr;
  Py_ssize_t offset = 0;
  if (self == nullptr || !parse_copy(args, kwargs, "O|$On:copy_to_host", who, host, stream, offset)) return nullptr;
  BufferView view;
  if (!view.acquire(host, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) || !check_range(*self, offset, view.get().len, who))
    return nullptr;
  run_deferred_releases();
  const DriverTable* table = opened_driver_table();
  const CUdeviceptr source = self->pointer + static_cast<CUdeviceptr>(offset);
  void* destination = view.get().buf;
  const auto length = static_cast<size_t>(view.get().len);
  CUresult result = CUDA_SUCCESS;
  if (stream != nullptr) {
    const CUstream on = stream->handle;
    result = call_driver("cuMemcpyDtoHAsync", Gil::Release,
                         [&] { return table->cuMemcpyDtoHAsync(destination, source, length, on); });
  } else {
    result = call_driver("cuMemcpyDtoH", Gil::Release, [&] { return table->cuMemcpyDtoH(destination, source, length); });
  }
  if (!check_driver(result, stream != nullptr ? "cuMemcpyDtoHAsync" : "cuMemcpyDtoH", self->context)) return nullptr;
  Py_RETURN_NONE;
}

PyObject* device_memset(PyObject* object, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"value", "stream", nullptr};
  DeviceBufferObject* self = open_device_or_raise(object, "DeviceBuffer.memset");
  unsigned char value = 0;
  PyObject* stream_object = Py_None;
  if (self == nullptr ||
      !PyArg_ParseTupleAndKeywords(args, kwargs, "b|$O:memset", const_cast<char**>(keywords), &value, &stream_object))
    return nullptr;
  StreamObject* stream = nullptr;
  if (stream_object != Py_None && (stream = open_stream_or_raise(stream_object, "DeviceBuffer.memset")) == nullptr)
    return nullptr;
  run_deferred_releases();
  const DriverTable* table = opened_driver_table();
  const CUdeviceptr pointer = self->pointer;
  const auto length = static_cast<size_t>(self->size);
  CUresult result = CUDA_SUCCESS;
  if (stream != nullptr) {
    const CUstream on = stream->handle;
    result = call_driver("cuMemsetD8Async", Gil::Release, [&] { return table->cuMemsetD8Async(pointer, value, length, on); });
  } else {
    result = call_driver("cuMemsetD8", Gil::Release, [&] { return table->cuMemsetD8(pointer, value, length); });
  }
  if (!check_driver(result, stream != nullptr ? "cuMemsetD8Async" : "cuMemsetD8", self->context)) return nullptr;
  Py_RETURN_NONE;
}

PyObject* device_free(PyObject* object, PyObject*) {
  run_deferred_releases();
  if (!free_device(reinterpret_cast<DeviceBufferObject*>(object))) return nullptr;
  Py_RETURN_NONE;
}

PyObject* device_pointer(PyObject* object, void*) {
  return PyLong_FromUnsignedLongLong(reinterpret_cast<DeviceBufferObject*>(object)->pointer);
}

PyMethodDef kDeviceMethods[] = {
    {"copy_from_host", as_method(device_copy_from_host), METH_VARARGS | METH_KEYWORDS,
     "copy_from_host(host, *, stream=None, offset=0): copies len(host) bytes to the device."},
    {"copy_to_host", as_method(device_copy_to_host), METH_VARARGS | METH_KEYWORDS,
     "copy_to_host(host, *, stream=None, offset=0): fills the writable host buffer from the device."},
    {"memset", as_method(device_memset), METH_VARARGS | METH_KEYWORDS, "memset(value, *, stream=None)"},
    {"free", device_free, METH_NOARGS, "Frees the device memory (cuMemFree)."},
    {"close", device_free, METH_NOARGS, "Same as free()."},
    {nullptr, nullptr, 0, nullptr},
};

PyMemberDef kDeviceMembers[] = {
    {"nbytes", T_PYSSIZET, offsetof(DeviceBufferObject, size), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyGetSetDef kDeviceGetSet[] = {
    {"ptr", device_pointer, nullptr, "the CUdeviceptr as an int (0 once freed)", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot kDeviceSlots[] = {
    {Py_tp_doc, const_cast<char*>("DeviceBuffer(nbytes): device memory in the current context.")},
    {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void*>(device_init)},
    {Py_tp_dealloc, reinterpret_cast<void*>(device_dealloc)},
    {Py_tp_methods, kDeviceMethods},
    {Py_tp_members, kDeviceMembers},
    {Py_tp_getset, kDeviceGetSet},
    {0, nullptr},
};

PyType_Spec kDeviceSpec = {"gilsan.DeviceBuffer", sizeof(DeviceBufferObject), 0, Py_TPFLAGS_DEFAULT, kDeviceSlots};

// --- PinnedBuffer ---

bool free_pinned(PinnedBufferObject* self) {
  if (self->exports > 0) {
    PyErr_Format(PyExc_BufferError, "PinnedBuffer.close: %zd buffer view(s) still use the memory", self->exports);
    return false;
  }
  void* pointer = self->pointer;
  self->pointer = nullptr;
  const DriverTable* table = opened_driver_table();
  if (pointer == nullptr || table == nullptr) return true;
  return check_release(call_driver("cuMemFreeHost", Gil::Release, [&] { return table->cuMemFreeHost(pointer); }),
                       "cuMemFreeHost", self->context);
}

int pinned_init(PyObject* object, PyObject* args, PyObject* kwargs) {
  auto* self = reinterpret_cast<PinnedBufferObject*>(object);
  const Py_ssize_t size = parse_size(args, kwargs, "n:PinnedBuffer");
  if (size < 0 || !free_pinned(self)) return -1;
  run_deferred_releases();
  CUcontext context = nullptr;
  if (!current_context_or_raise(&context)) return -1;
  const DriverTable* table = opened_driver_table();
  void* pointer = nullptr;
  if (!check_driver(call_driver("cuMemAllocHost", Gil::Release,
                                [&] { return table->cuMemAllocHost(&pointer, static_cast<size_t>(size)); }),
                    "cuMemAllocHost", context))
    return -1;
  self->pointer = pointer;
  self->size = size;
  self->context = context;
  return 0;
}

void pinned_dealloc(PyObject* object) {
  auto* self = reinterpret_cast<PinnedBufferObject*>(object);
  if (self->pointer != nullptr) {
    SavedException saved;
    if (!free_pinned(self)) write_unraisable("while freeing a gilsan.PinnedBuffer");
  }
  free_heap_object(object);
}

int pinned_getbuffer(PyObject* object, Py_buffer* view, int flags) {
  auto* self = reinterpret_cast<PinnedBufferObject*>(object);
  if (self->pointer == nullptr) {
    PyErr_SetString(PyExc_ValueError, "PinnedBuffer: the buffer is closed");
    view->obj = nullptr;
    return -1;
  }
  if (PyBuffer_FillInfo(view, object, self->pointer, self->size, 0, flags) != 0) return -1;
  ++self->exports;
  return 0;
}

void pinned_releasebuffer(PyObject* object, Py_buffer*) { --reinterpret_cast<PinnedBufferObject*>(object)->exports; }

PyObject* pinned_close(PyObject* object, PyObject*) {
  run_deferred_releases();
  if (!free_pinned(reinterpret_cast<PinnedBufferObject*>(object))) return nullptr;
  Py_RETURN_NONE;
}

PyObject* pinned_pointer(PyObject* object, void*) {
  return PyLong_FromVoidPtr(reinterpret_cast<PinnedBufferObject*>(object)->pointer);
}

Py_ssize_t pinned_length(PyObject* object) { return reinterpret_cast<PinnedBufferObject*>(object)->size; }

PyMethodDef kPinnedMethods[] = {
    {"close", pinned_close, METH_NOARGS, "Frees the pinned memory (cuMemFreeHost); refused while views exist."},
    {nullptr, nullptr, 0, nullptr},
};

PyMemberDef kPinnedMembers[] = {
    {"nbytes", T_PYSSIZET, offsetof(PinnedBufferObject, size), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyGetSetDef kPinnedGetSet[] = {
    {"ptr", pinned_pointer, nullptr, "the host address as an int (0 once closed)", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot kPinnedSlots[] = {
    {Py_tp_doc, const_cast<char*>("PinnedBuffer(nbytes): page-locked host memory (cuMemAllocHost), a writable "
                                  "bytes-like object.")},
    {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void*>(pinned_init)},
    {Py_tp_dealloc, reinterpret_cast<void*>(pinned_dealloc)},
    {Py_tp_methods, kPinnedMethods},
    {Py_tp_members, kPinnedMembers},
    {Py_tp_getset, kPinnedGetSet},
    {Py_bf_getbuffer, reinterpret_cast<void*>(pinned_getbuffer)},
    {Py_bf_releasebuffer, reinterpret_cast<void*>(pinned_releasebuffer)},
    {Py_sq_length, reinterpret_cast<void*>(pinned_length)},
    {0, nullptr},
};

PyType_Spec kPinnedSpec = {"gilsan.PinnedBuffer", sizeof(PinnedBufferObject), 0, Py_TPFLAGS_DEFAULT, kPinnedSlots};

}  // namespace

bool add_memory_types(PyObject* module) {
  g_device_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kDeviceSpec));
  g_pinned_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&kPinnedSpec));
  return g_device_type != nullptr && g_pinned_type != nullptr &&
         PyModule_AddObjectRef(module, "DeviceBuffer", reinterpret_cast<PyObject*>(g_device_type)) == 0 &&
         PyModule_AddObjectRef(module, "PinnedBuffer", reinterpret_cast<PyObject*>(g_pinned_type)) == 0;
}

bool is_device_buffer(PyObject* object) { return PyObject_TypeCheck(object, g_device_type); }

bool device_buffer_memory_or_raise(PyObject* object, const char* who, CUdeviceptr* pointer, Py_ssize_t* size,
                                   CUcontext* context) {
  const DeviceBufferObject* self = open_device_or_raise(object, who);
  if (self == nullptr) return false;
  *pointer = self->pointer;
  *size = self->size;
  *context = self->context;
  return true;
}

}  // namespace gilsan::pymodule
