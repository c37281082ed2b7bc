#include "harness/child/python_api.h"
// python_api.h first: Python.h must precede the standard headers.
#include "harness/child/python_lock_tracing_installer.h"

#include <string>

#include "checkers/sources/python_lock_hooks.h"
#include "checkers/sources/python_lock_tracing_source.h"
#include "harness/board/board_writer.h"
#include "harness/child/embedded_python.h"
#include "harness/child/scenario_sanitizer.h"

namespace gilsan {
namespace {

using python::Ref;

// The builtin module: the same five hooks as ctypes would reach, by the same names, without
// ctypes' per-call argument conversion (docs/sanitizer.md, "Python locks", has the measured cost).
// Called with the GIL held; the C functions neither block nor call back into Python.

bool arguments(const char* function, Py_ssize_t given, Py_ssize_t expected) {
  if (given == expected) return true;
  PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", function, expected, given);
  return false;
}

bool lock_id(PyObject* object, unsigned long long& id) {
  id = PyLong_AsUnsignedLongLong(object);
  return !(id == static_cast<unsigned long long>(-1) && PyErr_Occurred());
}

// Names are bytes (what ctypes' c_char_p takes too), or None.
bool lock_name(PyObject* object, const char*& name) {
  if (object == Py_None) {
    name = nullptr;
    return true;
  }
  if (!PyBytes_Check(object)) {
    PyErr_SetString(PyExc_TypeError, "a lock's name must be bytes or None");
    return false;
  }
  name = PyBytes_AS_STRING(object);
  return true;
}

PyObject* acquire_begin(PyObject*, PyObject* const* args, Py_ssize_t count) {
  unsigned long long lock = 0;
  const char* name = nullptr;
  if (!arguments("gilsan_lock_acquire_begin", count, 3) || !lock_id(args[0], lock) || !lock_name(args[1], name))
    return nullptr;
  const int blocking = PyObject_IsTrue(args[2]);
  if (blocking < 0) return nullptr;
  gilsan_lock_acquire_begin(lock, name, blocking);
  Py_RETURN_NONE;
}

PyObject* acquired(PyObject*, PyObject* const* args, Py_ssize_t count) {
  unsigned long long lock = 0;
  const char* name = nullptr;
  if (!arguments("gilsan_lock_acquired", count, 2) || !lock_id(args[0], lock) || !lock_name(args[1], name)) return nullptr;
  gilsan_lock_acquired(lock, name);
  Py_RETURN_NONE;
}

// The three hooks that take a lock id alone.
template <void (*Hook)(unsigned long long)>
PyObject* lock_only(PyObject*, PyObject* const* args, Py_ssize_t count) {
  unsigned long long lock = 0;
  if (!arguments("the lock hook", count, 1) || !lock_id(args[0], lock)) return nullptr;
  Hook(lock);
  Py_RETURN_NONE;
}

PyObject* notification_wait_begin(PyObject*, PyObject* const* args, Py_ssize_t count) {
  unsigned long long object = 0;
  const char* name = nullptr;
  if (!arguments("gilsan_lock_notification_wait_begin", count, 2) || !lock_id(args[0], object) ||
      !lock_name(args[1], name))
    return nullptr;
  gilsan_lock_notification_wait_begin(object, name);
  Py_RETURN_NONE;
}

PyObject* notification_wait_end(PyObject*, PyObject* const*, Py_ssize_t count) {
  if (!arguments("gilsan_lock_notification_wait_end", count, 0)) return nullptr;
  gilsan_lock_notification_wait_end();
  Py_RETURN_NONE;
}

template <typename Function>
PyCFunction fastcall(Function function) {
  // The documented way to store a METH_FASTCALL function in a PyMethodDef; through void(*)() so that
  // -Wcast-function-type sees the conversion is meant.
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(function));
}

PyMethodDef hook_methods[] = {
    {"gilsan_lock_acquire_begin", fastcall(acquire_begin), METH_FASTCALL, "(lock, name, blocking): about to take lock"},
    {"gilsan_lock_acquired", fastcall(acquired), METH_FASTCALL, "(lock, name): took it"},
    {"gilsan_lock_acquire_failed", fastcall(lock_only<gilsan_lock_acquire_failed>), METH_FASTCALL,
     "(lock): the acquire that began did not get it"},
    {"gilsan_lock_released", fastcall(lock_only<gilsan_lock_released>), METH_FASTCALL, "(lock): about to release it"},
    {"gilsan_lock_destroyed", fastcall(lock_only<gilsan_lock_destroyed>), METH_FASTCALL,
     "(lock): gone; its id may be reused"},
    {"gilsan_lock_notification_wait_begin", fastcall(notification_wait_begin), METH_FASTCALL,
     "(object, name): about to wait for a notification of a Condition"},
    {"gilsan_lock_notification_wait_end", fastcall(notification_wait_end), METH_FASTCALL, "(): the wait ended"},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef hook_module = {
    PyModuleDef_HEAD_INIT,
    "_gilsan_lock_hooks",
    "gilsan's Python-lock hooks (checkers/sources/python_lock_hooks.h), for _gilsan_lock_tracing.",
    -1,  // no per-interpreter state
    hook_methods,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

void throw_unless(bool ok, const std::string& what) {
  if (!ok) throw PythonError("cannot trace Python locks: " + what + ": " + python::describe_and_clear_error());
}

}  // namespace

void install_scenario_python_locks() {
  if (scenario_sanitizer_instance() == nullptr && !board::enabled()) return;
  PyObject* modules = PyImport_GetModuleDict();  // borrowed
  Ref hooks(PyModule_Create(&hook_module));
  throw_unless(hooks && PyDict_SetItemString(modules, hook_module.m_name, hooks.get()) == 0,
               "the hooks module");
  const std::string source(python_lock_tracing_source());
  Ref code(Py_CompileString(source.c_str(), python_lock_tracing_path(), Py_file_input));
  throw_unless(code != nullptr, "compiling the lock tracing");
  Ref tracing(PyImport_ExecCodeModuleEx(kPythonLockTracingModule, code.get(), python_lock_tracing_path()));
  throw_unless(tracing != nullptr, "running the lock tracing");
  Ref installed(PyObject_CallMethod(tracing.get(), "install", "O", hooks.get()));
  throw_unless(installed != nullptr, "installing it");
}

}  // namespace gilsan
