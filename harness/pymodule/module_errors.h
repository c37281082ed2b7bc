// The module's exception types: gilsan.CudaError(name, code, call) for a driver call that failed, and
// gilsan.DriverError for a driver that cannot be opened.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>

namespace gilsan::pymodule {

// Creates the types and adds them to the module. False with an exception set on failure.
bool add_error_types(PyObject* module);

PyObject* cuda_error_type();
PyObject* driver_error_type();

// Sets gilsan.CudaError(name, code, call), e.g. ("CUDA_ERROR_NOT_READY", 600, "cuStreamQuery").
void set_cuda_error(CUresult result, const char* call);

}  // namespace gilsan::pymodule
