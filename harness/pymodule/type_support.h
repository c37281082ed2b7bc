// Small helpers shared by the module's Python types.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>

namespace gilsan::pymodule {

// A METH_VARARGS | METH_KEYWORDS (or METH_FASTCALL | METH_KEYWORDS) function in a PyMethodDef slot, which
// is typed as PyCFunction.
template <typename Function>
PyCFunction as_method(Function function) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(function));
}

// Parses the keyword-only `hold_gil=False` of a method that takes nothing else.
inline bool parse_hold_gil(PyObject* args, PyObject* kwargs, const char* format, bool& hold_gil) {
  static const char* keywords[] = {"hold_gil", nullptr};
  int flag = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, format, const_cast<char**>(keywords), &flag)) return false;
  hold_gil = flag != 0;
  return true;
}

// Reports the pending exception to sys.unraisablehook as "Exception ignored <where>" (e.g. in a
// dealloc that failed to free a driver resource), keeping any exception that was already in flight.
inline void write_unraisable(const char* where) {
#if PY_VERSION_HEX >= 0x030D0000
  PyErr_FormatUnraisable("Exception ignored %s", where);
#else
  _PyErr_WriteUnraisableMsg(where, nullptr);
#endif
}

// Saves the exception in flight (a dealloc may run while one propagates) and restores it on exit.
class SavedException {
 public:
  SavedException() { PyErr_Fetch(&type_, &value_, &traceback_); }
  ~SavedException() { PyErr_Restore(type_, value_, traceback_); }
  SavedException(const SavedException&) = delete;
  SavedException& operator=(const SavedException&) = delete;

 private:
  PyObject* type_ = nullptr;
  PyObject* value_ = nullptr;
  PyObject* traceback_ = nullptr;
};

// Heap types (PyType_FromSpec) own a reference to their type, dropped after the object is freed.
inline void free_heap_object(PyObject* object) {
  PyTypeObject* type = Py_TYPE(object);
  type->tp_free(object);
  Py_DECREF(type);
}

}  // namespace gilsan::pymodule
