#include "harness/pymodule/module_errors.h"

#include <string>

#include "harness/pymodule/driver_access.h"
#include "harness/pymodule/python_ref.h"

namespace gilsan::pymodule {
namespace {

PyObject* g_cuda_error = nullptr;
PyObject* g_driver_error = nullptr;

// Written in Python because it is a plain exception class whose attributes and message read best there.
constexpr const char* kErrorClassesSource = R"PY(
class CudaError(RuntimeError):
    """A CUDA driver call failed: name (e.g. 'CUDA_ERROR_NOT_READY'), code (the CUresult) and call."""

    def __init__(self, name, code, call):
        super().__init__(name, code, call)
        self.name = name
        self.code = code
        self.call = call

    def __str__(self):
        return f"{self.call} failed: {self.name} ({self.code})"


class DriverError(RuntimeError):
    """The CUDA driver (real or simulated) chosen by GILSAN_DRIVER cannot be opened."""


CudaError.__module__ = DriverError.__module__ = "gilsan"
)PY";

}  // namespace

bool add_error_types(PyObject* module) {
  PyRef globals(PyDict_New());
  if (!globals || PyDict_SetItemString(globals.get(), "__builtins__", PyEval_GetBuiltins()) != 0) return false;
  PyRef done(PyRun_String(kErrorClassesSource, Py_file_input, globals.get(), globals.get()));
  if (!done) return false;
  g_cuda_error = Py_NewRef(PyDict_GetItemString(globals.get(), "CudaError"));
  g_driver_error = Py_NewRef(PyDict_GetItemString(globals.get(), "DriverError"));
  return PyModule_AddObjectRef(module, "CudaError", g_cuda_error) == 0 &&
         PyModule_AddObjectRef(module, "DriverError", g_driver_error) == 0;
}

PyObject* cuda_error_type() { return g_cuda_error; }
PyObject* driver_error_type() { return g_driver_error; }

void set_cuda_error(CUresult result, const char* call) {
  std::string name = "CUresult(" + std::to_string(static_cast<int>(result)) + ")";
  if (const DriverTable* table = opened_driver_table()) name = table->error_name(result);
  PyRef error(PyObject_CallFunction(g_cuda_error, "sis", name.c_str(), static_cast<int>(result), call));
  if (error) PyErr_SetObject(g_cuda_error, error.get());
}

}  // namespace gilsan::pymodule
