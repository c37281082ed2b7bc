#ifndef GILSAN_HARNESS_PYMODULE_PACKAGE_PATH_H
#define GILSAN_HARNESS_PYMODULE_PACKAGE_PATH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace gilsan::pymodule {

// Makes the extension module a package whose submodules (the pytest plugin, gilsan.pytest:
// docs/pytest-plugin.md) are the .py files of the folder `gilsan` beside the extension's own file:
// sets module.__path__ to [that folder]. A Python import only looks for submodules of a module that
// has __path__, and an extension module gets none from the import system. The folder need not exist
// (then `import gilsan.x` fails as for any missing submodule). Standalone extension only: the
// runner's embedded module has no file. Returns false with a Python error set.
bool add_package_path(PyObject* module);

}  // namespace gilsan::pymodule

#endif
