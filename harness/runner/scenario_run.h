// Running one scenario: start the child, supervise it, and judge the outcome against the header.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/runner/child_supervisor.h"
#include "harness/runner/run_driver.h"
#include "harness/runner/sanitizer_findings.h"
#include "harness/runner/watchdog_hook.h"
#include "harness/scenario/python_environment.h"
#include "harness/scenario/scenario_header.h"

namespace gilsan {

inline constexpr double kDefaultTimeoutSeconds = 60;
// A program (gilsan run -- COMMAND) has no timeout of its own: a week stands for none.
inline constexpr double kProgramTimeoutSeconds = 7 * 24 * 3600;

struct RunSettings {
  std::string driver_request = "auto";            // auto | real | sim (--driver)
  // What driver_request came to (choose_run_driver), decided once per command; when absent each run
  // decides for itself.
  std::optional<RunDriver> driver;
  std::optional<std::string> profile_path;        // the simulated driver's profile (--profile)
  std::optional<double> timeout_override_seconds; // --timeout: wins over the header's timeout
  std::optional<std::size_t> max_resident_bytes;  // --max-rss (child_supervisor.h)
  PythonEnvironment python = default_python_environment();
  std::string executable = "/proc/self/exe";      // the binary that has the __scenario-child command
  WatchdogSettings watchdog;                      // --quiet-ms, --dot
  bool sanitize = true;                           // --sanitize on|off: the child runs the sanitizer
  bool native_locks = true;                       // --native-locks on|off: the interposer is preloaded
  // gilsan run -- COMMAND: the child becomes this program instead of running a scenario; its sanitizer
  // is libgilsan_inject.so (CUDA_INJECTION64_PATH), fed by the driver the run chose.
  std::vector<std::string> program;
  // A conformance scenario's implementation (--impl; gilsan_impl's name or package.module:Class); the
  // runner uses "reference" when none is given. Ordinary scenarios ignore it.
  std::optional<std::string> implementation;
  // --under: a tool and its options that the child runs under (under_command.h), its program a path;
  // empty for none. The timeout and the watchdog's quiet period are scaled by kUnderTimeoutFactor.
  std::vector<std::string> under;
};

enum class ResultStatus { Passed, Failed, Skipped, Interrupted, HarnessError };

struct ScenarioResult {
  std::string scenario;
  std::optional<std::string> implementation;  // the implementation a conformance scenario ran against
  ScenarioHeader header;
  double timeout_seconds = 0;
  Outcome outcome;
  bool matched = false;
  SupervisedRun run;
  std::optional<WatchdogFindings> watchdog;  // the watchdog's hang or crash report, when it saw one
  std::optional<SanitizerFindings> sanitizer;  // what the child's sanitizer reported (--sanitize on)
  // Set when a suite kept only the summary of this run (suite.h): the failure excerpt it had, the
  // output and the reports themselves being gone.
  std::optional<std::string> kept_excerpt;
  // The gilsan that ran it (gilsan_version(); a merged result: the one its results file names).
  std::string gilsan_version;

  ResultStatus status() const;
};

// This gilsan's version: the project's version and `git describe` of its source (cmake/GilsanVersion.cmake).
std::string gilsan_version();

// The timeout a run of `header` gets: --timeout, else the header's, else the default; scaled by
// kUnderTimeoutFactor under --under.
double effective_timeout_seconds(const ScenarioHeader& header, const RunSettings& settings);

// libgilsan_inject.so, the sanitizer of a program run ($GILSAN_INJECT_LIBRARY wins over the one this
// build made), or "" when this build has none.
std::string injection_library_path();

// Every run is supervised by the watchdog (watchdog_hook.h) besides `hooks`. Throws std::system_error
// when the child cannot be started, board::BoardError when the watchdog's board cannot be made.
ScenarioResult run_scenario(const std::string& scenario, const ScenarioHeader& header, const RunSettings& settings,
                            std::span<SupervisionHook* const> hooks = {});

}  // namespace gilsan
