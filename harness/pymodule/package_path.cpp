#include "harness/pymodule/package_path.h"

#include <dlfcn.h>

#include <filesystem>

#include "harness/pymodule/python_ref.h"

namespace gilsan::pymodule {

bool add_package_path(PyObject* module) {
  // The extension's file, from the code itself: __file__ is set by the import system only after
  // PyInit returns.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&add_package_path), &info) == 0 || info.dli_fname == nullptr) {
    PyErr_SetString(PyExc_ImportError, "gilsan: cannot find the extension module's own file (dladdr)");
    return false;
  }
  const std::string folder = (std::filesystem::path(info.dli_fname).parent_path() / "gilsan").string();
  PyRef path(Py_BuildValue("[s]", folder.c_str()));
  return path && PyModule_AddObjectRef(module, "__path__", path.get()) == 0;
}

}  // namespace gilsan::pymodule
