#include "harness/child/python_api.h"

namespace gilsan::python {
namespace {

std::string utf8_of(Ref text, const char* failure) {
  if (!text) {
    PyErr_Clear();
    return failure;
  }
  Ref bytes(PyUnicode_AsEncodedString(text.get(), "utf-8", "backslashreplace"));
  if (!bytes) {
    PyErr_Clear();
    return failure;
  }
  return std::string(PyBytes_AS_STRING(bytes.get()), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes.get())));
}

std::string string_attribute(PyObject* object, const char* name) {
  Ref value(PyObject_GetAttrString(object, name));
  if (!value || !PyUnicode_Check(value.get())) {
    PyErr_Clear();
    return {};
  }
  return utf8_of(std::move(value), "");
}

}  // namespace

std::string str_of(PyObject* object) { return utf8_of(Ref(PyObject_Str(object)), "<str() failed>"); }

std::string repr_of(PyObject* object) { return utf8_of(Ref(PyObject_Repr(object)), "<repr() failed>"); }

PythonTypeName type_name_of(PyObject* type) {
  return {string_attribute(type, "__module__"), string_attribute(type, "__qualname__")};
}

// Python 3.12 replaced the (type, value, traceback) triple with one exception object and
// deprecated the old calls; both paths end with a normalized exception that carries its traceback.
Ref take_raised_exception() {
#if PY_VERSION_HEX >= 0x030C0000
  return Ref(PyErr_GetRaisedException());
#else
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  if (type == nullptr) return nullptr;
  PyErr_NormalizeException(&type, &value, &traceback);
  if (traceback != nullptr && value != nullptr) PyException_SetTraceback(value, traceback);
  Py_XDECREF(type);
  Py_XDECREF(traceback);
  return Ref(value);
#endif
}

void restore_raised_exception(Ref exception) {
  if (!exception) return;
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(exception.release());
#else
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(exception.get()));
  Py_INCREF(type);
  PyObject* traceback = PyException_GetTraceback(exception.get());
  PyErr_Restore(type, exception.release(), traceback);
#endif
}

std::string formatted_traceback(PyObject* exception) {
  Ref module(PyImport_ImportModule("traceback"));
  Ref lines(module ? PyObject_CallMethod(module.get(), "format_exception", "O", exception) : nullptr);
  Ref empty(PyUnicode_FromString(""));
  Ref joined(lines && empty ? PyUnicode_Join(empty.get(), lines.get()) : nullptr);
  return utf8_of(std::move(joined), "<the traceback could not be formatted>");
}

std::string describe_and_clear_error() {
  Ref exception = take_raised_exception();
  if (!exception) return "no Python error";
  return type_name_of(reinterpret_cast<PyObject*>(Py_TYPE(exception.get()))).display() + ": " + str_of(exception.get());
}

}  // namespace gilsan::python
