// EmbeddedPython: the scenario child's interpreter, isolated from the caller's Python setup.
//
// Isolated configuration: PYTHON* variables and the user site are ignored, the system's
// site-packages are not on sys.path, no bytecode is written, stdio is unbuffered (a scenario killed on timeout still shows
// what it printed), UTF-8 mode is on, and Python's own signal handlers are installed as in
// `python script.py`. sys.path is the standard library, then the scenario's folder first, then the
// chosen virtualenv's site-packages (with its .pth files) when there is one.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/scenario/child_report.h"

namespace gilsan {

struct InterpreterSettings {
  std::string executable;     // what sys.executable says and where Python finds its stdlib
  std::string scenario_path;  // sys.argv[0]
  std::string scenario_folder;
  std::optional<std::string> virtualenv;     // becomes sys.prefix, as site.py does for a virtualenv
  std::optional<std::string> site_packages;  // a virtualenv's, added with site.addsitedir
};

class PythonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What running the file as __main__ ended with.
struct MainResult {
  std::optional<ExceptionRecord> exception;  // an uncaught exception other than SystemExit
  std::optional<int> system_exit_code;       // sys.exit(...) / raise SystemExit
};

class EmbeddedPython {
 public:
  // Initializes the interpreter; throws PythonError with Python's own message when it cannot.
  explicit EmbeddedPython(const InterpreterSettings& settings);
  EmbeddedPython(const EmbeddedPython&) = delete;
  EmbeddedPython& operator=(const EmbeddedPython&) = delete;
  // Finalizes if finalize() was not called (error paths).
  ~EmbeddedPython();

  std::string version() const;

  // Routes every sys.unraisablehook call to `writer` and then to Python's default hook, so the
  // text is still printed. The writer must outlive the interpreter.
  void report_unraisables_to(ChildReportWriter& writer);

  // Runs the file as __main__. An uncaught exception is printed through sys.excepthook, as python does.
  MainResult run_main(const std::string& path);

  // Nullopt when `module` (e.g. "cuda.core") can be imported, else the reason it cannot.
  std::optional<std::string> why_not_importable(const std::string& module);

  // A conformance scenario's implementation (harness/impl/gilsan_impl): puts `package_folder` on
  // sys.path and calls gilsan_impl.select(implementation, capabilities). Nullopt when the run can go on
  // with it, else why not (not installed, a capability it lacks); throws PythonError when the adapter
  // itself fails.
  std::optional<std::string> select_implementation(const std::string& package_folder, const std::string& implementation,
                                                   const std::vector<std::string>& capabilities);

  // After select_implementation: gilsan_impl.describe(), the implementation's packages and the
  // platform (GPU, driver, Python). Throws PythonError when the adapter fails.
  struct ImplementationDescription {
    std::string version;
    std::string platform;
  };
  ImplementationDescription describe_implementation();

  // str(gilsan.driver()) when the scenario imported the gilsan module and it has driver().
  std::optional<std::string> gilsan_driver_description();

  // faulthandler writes every thread's Python stack to `fd` when the process gets `signal_number`
  // (the watchdog's snapshot; no GIL needed). Not faulthandler.enable: its fatal-signal handler would
  // sit in front of the board's crash reporter, which must see the faulting frames first. A crash's
  // Python stacks come from the same snapshot, taken while the crashing thread waits in the reporter.
  void dump_python_stacks_to(int fd, int signal_number);

  // Py_FinalizeEx's status (0, or -1 when flushing buffered data failed).
  int finalize();

 private:
  bool finalized_ = false;
};

}  // namespace gilsan
