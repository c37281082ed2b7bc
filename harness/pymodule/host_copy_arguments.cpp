#include "harness/pymodule/host_copy_arguments.h"

#include <cstdint>

namespace gilsan::pymodule {
namespace {

bool parse_address(const char* who, const char* role, PyObject* object, HostSpan& span) {
  const unsigned long long value = PyLong_AsUnsignedLongLong(object);
  if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_Format(PyExc_OverflowError, "%s: %s address %R is negative or does not fit a pointer", who, role, object);
    return false;
  }
  if (value == 0) {
    PyErr_Format(PyExc_ValueError, "%s: %s is a null address", who, role);
    return false;
  }
  if (value > UINTPTR_MAX) {
    PyErr_Format(PyExc_OverflowError, "%s: %s address %R does not fit a pointer", who, role, object);
    return false;
  }
  span.address = reinterpret_cast<char*>(static_cast<std::uintptr_t>(value));
  span.length = -1;
  return true;
}

}  // namespace

bool parse_host_span(const char* who, const char* role, PyObject* object, bool writable, HostSpan& span) {
  if (PyLong_Check(object) && !PyBool_Check(object)) return parse_address(who, role, object, span);
  if (!PyObject_CheckBuffer(object)) {
    PyErr_Format(PyExc_TypeError, "%s: %s must be a bytes-like object or an int address, not '%s'", who, role,
                 Py_TYPE(object)->tp_name);
    return false;
  }
  PyRef view(PyMemoryView_FromObject(object));
  if (!view) return false;
  const Py_buffer* buffer = PyMemoryView_GET_BUFFER(view.get());
  if (writable && buffer->readonly) {
    PyErr_Format(PyExc_ValueError, "%s: %s is read-only ('%s'); it must be writable", who, role,
                 Py_TYPE(object)->tp_name);
    return false;
  }
  if (!PyBuffer_IsContiguous(buffer, 'C')) {
    PyErr_Format(PyExc_ValueError, "%s: %s must be C-contiguous", who, role);
    return false;
  }
  span.address = static_cast<char*>(buffer->buf);
  span.length = buffer->len;
  span.view = std::move(view);
  return true;
}

bool resolve_copy_size(const char* who, PyObject* nbytes, const char* const* roles, const Py_ssize_t* lengths,
                       int count, std::size_t& size) {
  Py_ssize_t wanted = -1;
  if (nbytes != nullptr && nbytes != Py_None) {
    if (!PyLong_Check(nbytes) || PyBool_Check(nbytes)) {
      PyErr_Format(PyExc_TypeError, "%s: nbytes must be an int or None, not '%s'", who, Py_TYPE(nbytes)->tp_name);
      return false;
    }
    wanted = PyLong_AsSsize_t(nbytes);
    if (wanted == -1 && PyErr_Occurred()) return false;
    if (wanted < 0) {
      PyErr_Format(PyExc_ValueError, "%s: nbytes must be >= 0, not %zd", who, wanted);
      return false;
    }
  } else {
    for (int i = 0; i < count && wanted < 0; ++i) wanted = lengths[i];
    if (wanted < 0) {
      PyErr_Format(PyExc_TypeError, "%s: with int addresses only, nbytes must be given", who);
      return false;
    }
  }
  for (int i = 0; i < count; ++i) {
    if (lengths[i] >= 0 && lengths[i] < wanted) {
      PyErr_Format(PyExc_ValueError, "%s: %s holds %zd bytes, fewer than the %zd to copy", who, roles[i], lengths[i],
                   wanted);
      return false;
    }
  }
  size = static_cast<std::size_t>(wanted);
  return true;
}

bool check_no_overlap(const char* who, const char* first_role, const char* first, std::size_t first_size,
                      const char* second_role, const char* second, std::size_t second_size) {
  const auto a = reinterpret_cast<std::uintptr_t>(first);
  const auto b = reinterpret_cast<std::uintptr_t>(second);
  if (first_size == 0 || second_size == 0 || a >= b + second_size || b >= a + first_size) return true;
  PyErr_Format(PyExc_ValueError, "%s: %s and %s overlap (%zu bytes at %p, %zu bytes at %p)", who, first_role,
               second_role, first_size, static_cast<const void*>(first), second_size,
               static_cast<const void*>(second));
  return false;
}

bool keep_alive_tuple(PyRef& tuple, PyObject* first, PyObject* second, PyObject* third) {
  PyObject* const items[] = {first, second, third};
  Py_ssize_t count = 0;
  for (PyObject* item : items) count += item != nullptr;
  tuple = PyRef();
  if (count == 0) return true;
  tuple = PyRef(PyTuple_New(count));
  if (!tuple) return false;
  Py_ssize_t index = 0;
  for (PyObject* item : items)
    if (item != nullptr) PyTuple_SET_ITEM(tuple.get(), index++, Py_NewRef(item));
  return true;
}

}  // namespace gilsan::pymodule
