#include "harness/child/python_api.h"
// python_api.h first: Python.h must precede the standard headers.
#include "harness/child/scenario_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "harness/board/board_writer.h"
#include "harness/child/embedded_python.h"
#include "harness/child/python_lock_tracing_installer.h"
#include "harness/child/scenario_requirements.h"
#include "harness/child/scenario_sanitizer.h"
#include "harness/driver/install_layout.h"
#include "harness/scenario/child_protocol.h"
#include "harness/scenario/child_report.h"
#include "harness/scenario/python_environment.h"
#include "harness/scenario/scenario_header.h"

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
  const int fd = inherited_report_fd();
  if (fd < 0) {
    std::fprintf(stderr, "gilsan: %s is internal; use 'gilsan run SCENARIO.py'\n", kScenarioChildCommand);
    leave(2);
  }
  return fd;
}

// The write end of the watchdog's Python-stack pipe, when the parent passed one (-1 otherwise).
int python_stack_fd_from_environment() {
  const char* text = std::getenv(kPythonStackFdVariable);
  char* end = nullptr;
  const long fd = text != nullptr ? std::strtol(text, &end, 10) : -1;
  if (text == nullptr || *end != '\0' || fd < 0 || ::fcntl(static_cast<int>(fd), F_GETFD) < 0) return -1;
  ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);  // not for processes the scenario execs
  return static_cast<int>(fd);
}

// The watchdog's child side, first thing (docs/watchdog.md): the board mapped before any thread
// exists, the stack sampler before the crash reporter (whose handler blocks the sampler's signal).
// All of it does nothing when the parent made no board.
void prepare_for_the_watchdog() {
  board::attach();
  board::install_stack_sampler();
  board::install_crash_reporter();
}

// faulthandler's stacks go to the parent's pipe; the signal is one scenarios do not use.
void send_python_stacks_to_the_watchdog(EmbeddedPython& python) {
  const int fd = python_stack_fd_from_environment();
  if (fd < 0 || !board::enabled()) return;
  const int signal_number = SIGRTMIN + 7;
  python.dump_python_stacks_to(fd, signal_number);
  board::announce_python_stack_signal(signal_number);
}

// Scenarios crash on purpose; their core files would only fill the working folder.
void disable_core_files() {
  const rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
}

// The module's own host functions first (it counts those it skipped), then whatever else the driver
// still holds (a peer's, a native one), within one bound.
std::optional<unsigned long long> drain_host_functions_after_finalize() {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(kDrainAfterFinalizeSeconds));
#ifdef GILSAN_WITH_PYMODULE
  const std::optional<unsigned long long> skipped = gilsan_module_drain_after_finalize(kDrainAfterFinalizeSeconds);
#else
  const std::optional<unsigned long long> skipped;
#endif
  while (scenario_host_functions_waiting() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return skipped;
}

// A conformance scenario runs against one implementation (reference unless --impl names another): the
// scenario must be for it, and it must be installed and have the capabilities the scenario needs.
std::optional<std::string> unmet_implementation(const ScenarioHeader& header, const ChildArguments& arguments,
                                                EmbeddedPython& python) {
  const std::string implementation = arguments.implementation.value_or("reference");
  if (!header.allows_implementation(implementation)) return "not written for " + implementation;
  return python.select_implementation(implementations_folder(), implementation, header.capabilities);
}

int run(const ChildArguments& arguments, ChildReportWriter& writer) {
  const ScenarioHeader header = read_scenario_header(arguments.scenario_path);
  // Before the interpreter: the module looks the sanitizer up when it is imported.
  if (scenario_sanitizer_requested()) start_scenario_sanitizer();
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
  send_python_stacks_to_the_watchdog(python);
  writer.started(python.version());

  std::optional<std::string> reason = unmet_requirement(header, arguments.driver_request, python);
  if (!reason && header.is_conformance()) reason = unmet_implementation(header, arguments, python);
  if (reason) {
    writer.skip(*reason);
    python.finalize();
    return 0;
  }
  if (header.is_conformance()) {
    const EmbeddedPython::ImplementationDescription description = python.describe_implementation();
    writer.implementation(description.version, description.platform);
  }
  python.report_unraisables_to(writer);
  // Before the scenario makes its locks, so that the sanitizer and the watchdog see them.
  install_scenario_python_locks();
  const MainResult result = python.run_main(arguments.scenario_path);
  if (result.exception) writer.exception(*result.exception);
  if (result.system_exit_code) writer.system_exit(*result.system_exit_code);
  if (std::optional<std::string> driver = python.gilsan_driver_description()) writer.driver(*driver);

  const int status = python.finalize();
  scenario_interpreter_finished();
  writer.finalized(status, drain_host_functions_after_finalize());
  int exit_status = status < 0 ? 120 : 0;  // 120: what python exits with when finalization fails to flush
  if (result.exception) exit_status = 1;
  if (result.system_exit_code) exit_status = *result.system_exit_code;
  // After the drain: host functions that ran late are checked too.
  return finish_scenario_sanitizer(exit_status);
}

}  // namespace

std::string implementations_folder() {
  if (const char* folder = std::getenv("GILSAN_IMPL_PATH"); folder != nullptr && *folder != '\0') return folder;
  return installed_or(installed_data_folder() + "/impl", GILSAN_SOURCE_DIR "/harness/impl");
}

void run_scenario_child(const ChildArguments& arguments) {
  ChildReportWriter writer(report_fd_from_environment());
  prepare_for_the_watchdog();
  disable_core_files();
  try {
    leave(run(arguments, writer));
  } catch (const std::exception& error) {
    writer.error(error.what());
    leave(kChildFailedStatus);
  }
}

}  // namespace gilsan
