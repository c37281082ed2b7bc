// The `gilsan` Python module, for a program that embeds CPython (the scenario runner): register it
// with PyImport_AppendInittab("gilsan", &PyInit_gilsan) before Py_Initialize.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

extern "C" PyObject* PyInit_gilsan(void);
// After Py_FinalizeEx: waits (bounded) for host functions that were still pending when the
// interpreter finalized; returns how many the trampoline skipped because Python was gone.
extern "C" unsigned long long gilsan_module_drain_after_finalize(double timeout_seconds);
