#include "harness/pymodule/host_function_argument.h"

#include <cstdint>
#include <cstring>

#include "harness/pymodule/python_ref.h"

namespace gilsan::pymodule {
namespace {

// The ctypes module if the program imported it; a ctypes function pointer cannot exist otherwise.
PyRef imported_ctypes() {
  PyRef modules = PyRef::borrow(PyImport_GetModuleDict());
  return PyRef::borrow(PyDict_GetItemString(modules.get(), "ctypes"));
}

// 1: fn is a ctypes function pointer, 0: it is not, -1: error.
int is_ctypes_function_pointer(PyObject* ctypes, PyObject* fn) {
  PyRef base(PyObject_GetAttrString(ctypes, "_CFuncPtr"));
  if (!base) return -1;
  return PyObject_IsInstance(fn, base.get());
}

// Checks restype None, argtypes (c_void_p,) and a foreign-function (not PYFUNCTYPE) prototype.
bool check_host_fn_prototype(const char* who, PyObject* ctypes, PyObject* fn) {
  PyRef restype(PyObject_GetAttrString(fn, "restype"));
  PyRef argtypes(PyObject_GetAttrString(fn, "argtypes"));
  PyRef void_pointer(PyObject_GetAttrString(ctypes, "c_void_p"));
  PyRef flags(PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(fn)), "_flags_"));
  PyRef python_api_flag(PyObject_GetAttrString(ctypes, "_FUNCFLAG_PYTHONAPI"));
  if (!restype || !argtypes || !void_pointer || !flags || !python_api_flag) return false;
  // argtypes reads back as a tuple for a CFUNCTYPE, and as whatever was assigned for a library function.
  bool arguments_match = false;
  if (PyTuple_Check(argtypes.get()) || PyList_Check(argtypes.get())) {
    arguments_match = PySequence_Fast_GET_SIZE(argtypes.get()) == 1 &&
                      PySequence_Fast_GET_ITEM(argtypes.get(), 0) == void_pointer.get();
  }
  const long flag_bits = PyLong_AsLong(flags.get());
  const long python_api = PyLong_AsLong(python_api_flag.get());
  if (PyErr_Occurred()) return false;
  if (restype.get() == Py_None && arguments_match && (flag_bits & python_api) == 0) return true;
  PyErr_Format(PyExc_TypeError,
               "%s: a ctypes function pointer must have the CUhostFn prototype void (*)(void*), i.e. "
               "ctypes.CFUNCTYPE(None, ctypes.c_void_p); got restype=%R, argtypes=%R%s",
               who, restype.get(), argtypes.get(),
               (flag_bits & python_api) ? " (a PYFUNCTYPE: the driver calls CUhostFn without the GIL)" : "");
  return false;
}

// A ctypes function pointer's buffer is the pointer itself. (ctypes.cast would do too, but it ties the
// source object into a reference cycle with its result, which keeps it alive until the next gc.)
bool ctypes_function_address(const char* who, PyObject* fn, CUhostFn& function) {
  Py_buffer view;
  if (PyObject_GetBuffer(fn, &view, PyBUF_SIMPLE) != 0) return false;
  const bool pointer_sized = view.len == static_cast<Py_ssize_t>(sizeof(void*));
  void* address = nullptr;
  if (pointer_sized) std::memcpy(&address, view.buf, sizeof address);
  PyBuffer_Release(&view);
  if (!pointer_sized) {
    PyErr_Format(PyExc_TypeError, "%s: this ctypes function object does not hold a function pointer", who);
    return false;
  }
  function = reinterpret_cast<CUhostFn>(address);
  return true;
}

bool is_int(PyObject* object) { return PyLong_Check(object) && !PyBool_Check(object); }

bool parse_address(PyObject* object, void*& address) {
  const unsigned long long value = PyLong_AsUnsignedLongLong(object);
  if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) return false;
  address = reinterpret_cast<void*>(static_cast<std::uintptr_t>(value));
  return true;
}

bool parse_user_data(const char* who, PyObject* user_data, HostFunctionArgument& out) {
  if (user_data == nullptr || user_data == Py_None) return true;
  if (is_int(user_data)) return parse_address(user_data, out.user_data);
  if (PyRef ctypes = imported_ctypes()) {
    PyRef void_pointer(PyObject_GetAttrString(ctypes.get(), "c_void_p"));
    if (!void_pointer) return false;
    const int is_pointer = PyObject_IsInstance(user_data, void_pointer.get());
    if (is_pointer < 0) return false;
    if (is_pointer == 1) {
      PyRef value(PyObject_GetAttrString(user_data, "value"));
      if (!value) return false;
      return value.get() == Py_None || parse_address(value.get(), out.user_data);
    }
  }
  if (PyObject_CheckBuffer(user_data)) {
    Py_buffer view;
    if (PyObject_GetBuffer(user_data, &view, PyBUF_SIMPLE) != 0) return false;
    out.user_data_copy.reset(std::malloc(view.len > 0 ? static_cast<std::size_t>(view.len) : 1));
    if (out.user_data_copy == nullptr) {
      PyBuffer_Release(&view);
      PyErr_NoMemory();
      return false;
    }
    if (view.len > 0) std::memcpy(out.user_data_copy.get(), view.buf, static_cast<std::size_t>(view.len));
    PyBuffer_Release(&view);
    out.user_data = out.user_data_copy.get();
    return true;
  }
  PyErr_Format(PyExc_TypeError,
               "%s: user_data must be None, an int address, a ctypes.c_void_p or a bytes-like object, not '%s'", who,
               Py_TYPE(user_data)->tp_name);
  return false;
}

bool parse_native(const char* who, const TrailingArguments& rest, HostFunctionArgument& out) {
  if (rest.positional_count() != 0) {
    PyErr_Format(PyExc_TypeError,
                 "%s: a native CUhostFn gets only user_data=, not positional arguments (%zd given)", who,
                 rest.positional_count());
    return false;
  }
  PyObject* user_data = rest.keyword("user_data");
  if (rest.keyword_count() - (user_data != nullptr ? 1 : 0) != 0) {
    PyErr_Format(PyExc_TypeError, "%s: a native CUhostFn gets only user_data=, not other keyword arguments", who);
    return false;
  }
  if (out.function == nullptr) {
    PyErr_Format(PyExc_ValueError, "%s: the native host function address is null", who);
    return false;
  }
  out.native = true;
  return parse_user_data(who, user_data, out);
}

// A Python function, bound method or builtin: callable, and never a ctypes function pointer, so the
// ctypes test (two attribute lookups) is skipped for the callables host_launch is given most.
bool plainly_python_callable(PyObject* fn) { return PyFunction_Check(fn) || PyMethod_Check(fn) || PyCFunction_Check(fn); }

}  // namespace

bool parse_host_function(const char* who, PyObject* fn, const TrailingArguments& rest, HostFunctionArgument& out) {
  // An int address first: no int is a ctypes function pointer.
  if (is_int(fn)) {
    void* address = nullptr;
    if (!parse_address(fn, address)) return false;
    out.function = reinterpret_cast<CUhostFn>(address);
    return parse_native(who, rest, out);
  }
  if (!plainly_python_callable(fn)) {
    if (PyRef ctypes = imported_ctypes()) {
      const int is_pointer = is_ctypes_function_pointer(ctypes.get(), fn);
      if (is_pointer < 0) return false;
      if (is_pointer == 1) {
        if (!check_host_fn_prototype(who, ctypes.get(), fn) || !ctypes_function_address(who, fn, out.function))
          return false;
        out.object = fn;
        return parse_native(who, rest, out);
      }
    }
    if (!PyCallable_Check(fn)) {
      PyErr_Format(PyExc_TypeError,
                   "%s: fn must be callable, a ctypes CFUNCTYPE(None, c_void_p) function pointer or an int address "
                   "of a CUhostFn, not '%s'",
                   who, Py_TYPE(fn)->tp_name);
      return false;
    }
  }
  out.object = fn;
  out.args = rest.new_positional_tuple();
  if (out.args == nullptr) return false;
  out.kwargs = rest.new_keyword_dict();
  return out.kwargs != nullptr || PyErr_Occurred() == nullptr;
}

}  // namespace gilsan::pymodule
