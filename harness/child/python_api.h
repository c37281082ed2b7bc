// Small helpers over the CPython C API for the scenario child. Include this header first in a .cpp
// file: Python.h must come before any standard header.
//
// Every function here expects the GIL to be held.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <memory>
#include <string>

#include "harness/scenario/outcome.h"

namespace gilsan::python {

struct Release {
  void operator()(PyObject* object) const { Py_XDECREF(object); }
};
// Owns one strong reference.
using Ref = std::unique_ptr<PyObject, Release>;

// str(object) / repr(object) as UTF-8, with unencodable characters backslash-escaped. A failing
// __str__ or __repr__ gives a placeholder and leaves no exception set.
std::string str_of(PyObject* object);
std::string repr_of(PyObject* object);

// type.__module__ and type.__qualname__ of an exception type.
PythonTypeName type_name_of(PyObject* type);

// The exception being raised, normalized, taken out of the error indicator (null if none).
Ref take_raised_exception();
// Puts `exception` back as the error indicator.
void restore_raised_exception(Ref exception);

// The text traceback.format_exception(exception) produces, or a placeholder if that fails.
std::string formatted_traceback(PyObject* exception);

// Describes the pending Python error (type: message) and clears it; for C++ error messages.
std::string describe_and_clear_error();

}  // namespace gilsan::python
