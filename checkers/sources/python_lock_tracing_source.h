// The Python half of the lock source, checkers/sources/python_lock_tracing.py, compiled into the
// program at build time (python_lock_tracing_source.cpp.in) so that no front end needs the file at
// run time: the scenario child runs it through the C API (python_lock_tracing_installer.h); a front
// end that reaches Python only through PyRun_SimpleString (the injected library) runs the code
// python_lock_tracing_install_code() returns. Plain C++, no Python headers: this is its own small
// library, gilsan_python_lock_tracing.
#pragma once

#include <string>
#include <string_view>

namespace gilsan {

// The name of the module the source becomes (in sys.modules).
inline constexpr const char* kPythonLockTracingModule = "_gilsan_lock_tracing";

// The module's source text.
std::string_view python_lock_tracing_source();

// Where the source lives in gilsan's tree: the file name its code objects carry, so that tracebacks
// and the Python stacks of reports show its lines.
const char* python_lock_tracing_path();

// Python code that makes the module from the source (registered as kPythonLockTracingModule), then
// installs it with the five functions of `library_path` (checkers/sources/python_lock_hooks.h) found
// through ctypes.PyDLL; an empty path means the program itself (the executable's exports). Leaves no
// name behind in the namespace it runs in. Run it once, with the GIL held, e.g. PyRun_SimpleString.
std::string python_lock_tracing_install_code(std::string_view library_path);

}  // namespace gilsan
