#include "harness/runner/python_api.h"
// python_api.h first: Python.h must precede the standard headers.
#include "harness/runner/scenario_child.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "harness/runner/child_report.h"
#include "harness/runner/embedded_python.h"
#include "harness/runner/python_environment.h"
#include "harness/runner/scenario_header.h"
#include "harness/runner/scenario_requirements.h"

#ifdef GILSAN_WITH_PYMODULE
#include "harness/pymodule/gilsan_module.h"
#endif

namespace gilsan {
namespace {

// How long to wait after Py_FinalizeEx for host functions that were still queued in the driver;
// the scenario's own timeout still bounds the whole child.
constexpr double kDrainAfterFinalizeSeconds = 5.0;

constexpr int kChildFailedStatus = 3;

// Flushes C stdio and leaves without running static destructors: driver callback threads may still
// be running, and tearing down globals under them would turn a finished scenario into a crash.
[[noreturn]] void leave(int status) {
  std::fflush(nullptr);
  ::_exit(status & 0xff);
}

int report_fd_from_environment() {
  const char* text = std::getenv(kChildReportFdVariable);
  char* end = nullptr;
  const long fd = text != nullptr ? std::strtol(text, &end, 10) : -1;
  if (text == nullptr || *end != '\0' || fd < 0 || ::fcntl(static_cast<int>(fd), F_GETFD) < 0) {
    std::fprintf(stderr, "gilsan: %s is internal; use 'gilsan run SCENARIO.py'\n", kScenarioChildCommand);
    leave(2);
  }
  // Processes the scenario starts with exec must not inherit the report channel.
  ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  return static_cast<int>(fd);
}

// Scenarios crash on purpose; their core files would only fill the working folder.
void disable_core_files() {
  const rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
}

std::optional<unsigned long long> drain_host_functions_after_finalize() {
#ifdef GILSAN_WITH_PYMODULE
  return gilsan_module_drain_after_finalize(kDrainAfterFinalizeSeconds);
#else
  return std::nullopt;
#endif
}

int run(const ChildArguments& arguments, ChildReportWriter& writer) {
  const ScenarioHeader header = read_scenario_header(arguments.scenario_path);
#ifdef GILSAN_WITH_PYMODULE
  if (PyImport_AppendInittab("gilsan", PyInit_gilsan) != 0) throw PythonError("cannot register the gilsan module");
#endif
  const PythonEnvironment environment = arguments.virtualenv ? virtualenv_python_environment(*arguments.virtualenv)
                                                             : default_python_environment();
  const std::filesystem::path scenario(arguments.scenario_path);
  const InterpreterSettings settings{environment.executable, arguments.scenario_path,
                                     std::filesystem::absolute(scenario).parent_path().string(),
                                     environment.virtualenv, environment.site_packages};
  EmbeddedPython python(settings);
  writer.started(python.version());

  if (std::optional<std::string> reason = unmet_requirement(header, arguments.driver_request, python)) {
    writer.skip(*reason);
    python.finalize();
    return 0;
  }
  python.report_unraisables_to(writer);
  const MainResult result = python.run_main(arguments.scenario_path);
  if (result.exception) writer.exception(*result.exception);
  if (result.system_exit_code) writer.system_exit(*result.system_exit_code);
  if (std::optional<std::string> driver = python.gilsan_driver_description()) writer.driver(*driver);

  const int status = python.finalize();
  writer.finalized(status, drain_host_functions_after_finalize());
  if (result.system_exit_code) return *result.system_exit_code;
  if (result.exception) return 1;
  return status < 0 ? 120 : 0;  // 120: what python exits with when finalization fails to flush
}

}  // namespace

void run_scenario_child(const ChildArguments& arguments) {
  ChildReportWriter writer(report_fd_from_environment());
  disable_core_files();
  try {
    leave(run(arguments, writer));
  } catch (const std::exception& error) {
    writer.error(error.what());
    leave(kChildFailedStatus);
  }
}

}  // namespace gilsan
