#include "harness/scenario/python_environment.h"

#include "harness/driver/install_layout.h"

#include <filesystem>

namespace gilsan {

PythonEnvironment default_python_environment() {
  // Installed into a virtualenv (`pip install gilsan-*.whl` puts gilsan in VENV/bin beside VENV/pyvenv.cfg):
  // that virtualenv, whose packages are the ones its user means; the wheel was built for its Python.
  if (const std::string config = installed_file("pyvenv.cfg"); !config.empty())
    return virtualenv_python_environment(std::filesystem::path(config).parent_path().string());
  return {GILSAN_PYTHON_EXECUTABLE, std::nullopt, std::nullopt};
}

PythonEnvironment virtualenv_python_environment(const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path folder = fs::absolute(root, error);
  if (error || !fs::is_directory(folder, error))
    throw std::invalid_argument("--python-env " + root + ": not a folder");
  const fs::path site_packages = folder / "lib" / ("python" GILSAN_PYTHON_VERSION) / "site-packages";
  if (!fs::is_directory(site_packages, error))
    throw std::invalid_argument("--python-env " + root + ": no lib/python" GILSAN_PYTHON_VERSION
                                "/site-packages (gilsan embeds Python " GILSAN_PYTHON_VERSION
                                "; the virtualenv must be made with that version)");
  // The virtualenv's own python makes sys.prefix the virtualenv, as when it runs a script itself.
  const fs::path python = folder / "bin" / "python";
  const std::string executable = fs::exists(python, error) ? python.string() : GILSAN_PYTHON_EXECUTABLE;
  return {executable, folder.string(), site_packages.string()};
}

}  // namespace gilsan
