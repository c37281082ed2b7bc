// Which Python the scenario child embeds and which site-packages it sees.
//
// The interpreter is always the libpython gilsan was built against (GILSAN_PYTHON_VERSION); a
// virtualenv given with --python-env must be of that same major.minor version, because its
// compiled packages (CuPy, cuda.core) are built for it.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace gilsan {

struct PythonEnvironment {
  std::string executable;                    // sys.executable in the child; Python finds its stdlib from it
  std::optional<std::string> virtualenv;     // its root folder (absolute), which becomes sys.prefix
  std::optional<std::string> site_packages;  // the virtualenv's
};

// The virtualenv gilsan is installed in (PREFIX/pyvenv.cfg beside PREFIX/bin/gilsan), else the build's
// interpreter with no extra site-packages.
PythonEnvironment default_python_environment();

// The virtualenv at `root`: its bin/python and lib/pythonX.Y/site-packages. Throws
// std::invalid_argument naming what is missing.
PythonEnvironment virtualenv_python_environment(const std::string& root);

}  // namespace gilsan
