#include "harness/runner/scenario_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "harness/runner/child_process.h"
#include "harness/runner/child_report.h"
#include "harness/runner/outcome_rules.h"
#include "harness/runner/scenario_child.h"

extern char** environ;

namespace gilsan {
namespace {

constexpr int kReportFdInChild = 3;

// In a sanitizer build the child inherits the sanitizer's fatal-signal handlers, which turn a
// scenario's SIGSEGV into "exit 1": they leave those signals to the kernel so the outcome is still
// crash:SIGNAL. The caller's own options come later in the variable and win.
std::vector<std::pair<std::string, std::string>> sanitizer_signal_overrides() {
  std::vector<std::pair<std::string, std::string>> overrides;
  auto leave_signals_alone = [&](const char* variable) {
    const char* caller_options = std::getenv(variable);
    overrides.emplace_back(variable, std::string("handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0") +
                                         (caller_options != nullptr ? ":" + std::string(caller_options) : ""));
  };
#if defined(__SANITIZE_ADDRESS__)
  leave_signals_alone("ASAN_OPTIONS");
#endif
#if defined(__SANITIZE_THREAD__)
  leave_signals_alone("TSAN_OPTIONS");
#endif
  (void)leave_signals_alone;
  return overrides;
}

// The caller's environment with the variables the child and the gilsan module read set for this run.
std::vector<std::string> child_environment(const RunSettings& settings) {
  std::vector<std::pair<std::string, std::string>> overrides = {
      {"GILSAN_DRIVER", settings.driver_request},
      {kChildReportFdVariable, std::to_string(kReportFdInChild)},
  };
  if (settings.profile_path) overrides.emplace_back("GILSAN_SIM_PROFILE", *settings.profile_path);
#ifdef GILSAN_SIM_LIBRARY_PATH
  // A GILSAN_SIM_LIBRARY already set by the user wins over the one this build produced.
  if (std::getenv("GILSAN_SIM_LIBRARY") == nullptr) overrides.emplace_back("GILSAN_SIM_LIBRARY", GILSAN_SIM_LIBRARY_PATH);
#endif
  for (auto& sanitizer_override : sanitizer_signal_overrides()) overrides.push_back(std::move(sanitizer_override));
  // Only --profile chooses the profile, so a stale GILSAN_SIM_PROFILE in the shell cannot.
  const std::vector<std::string> removed = {"GILSAN_SIM_PROFILE"};

  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    bool replaced = std::find(removed.begin(), removed.end(), name) != removed.end();
    for (const auto& [override_name, value] : overrides) replaced = replaced || name == override_name;
    if (!replaced) environment.emplace_back(text);
  }
  for (const auto& [name, value] : overrides) environment.push_back(name + "=" + value);
  return environment;
}

ChildCommand child_command(const std::string& scenario, const RunSettings& settings) {
  ChildCommand command;
  command.executable = settings.executable;
  command.arguments = {"gilsan", kScenarioChildCommand, "--driver", settings.driver_request};
  if (settings.python.virtualenv) {
    command.arguments.push_back("--python-env");
    command.arguments.push_back(*settings.python.virtualenv);
  }
  command.arguments.push_back("--");
  command.arguments.push_back(scenario);
  command.environment = child_environment(settings);
  command.report_fd_in_child = kReportFdInChild;
  return command;
}

}  // namespace

ResultStatus ScenarioResult::status() const {
  switch (outcome.kind) {
    case OutcomeKind::Skipped: return ResultStatus::Skipped;
    case OutcomeKind::Interrupted: return ResultStatus::Interrupted;
    case OutcomeKind::HarnessError: return ResultStatus::HarnessError;
    default: return matched ? ResultStatus::Passed : ResultStatus::Failed;
  }
}

ScenarioResult run_scenario(const std::string& scenario, const ScenarioHeader& header, const RunSettings& settings,
                            std::span<SupervisionHook* const> hooks) {
  ScenarioResult result;
  result.scenario = scenario;
  result.header = header;
  result.timeout_seconds = settings.timeout_override_seconds.value_or(header.timeout_seconds.value_or(kDefaultTimeoutSeconds));

  SupervisionSettings supervision;
  supervision.timeout = std::chrono::milliseconds(std::llround(result.timeout_seconds * 1000));
  ChildSupervisor supervisor(spawn_in_own_process_group(child_command(scenario, settings)), supervision);
  for (SupervisionHook* hook : hooks) supervisor.add_hook(*hook);
  result.run = supervisor.run();
  result.outcome = derive_outcome(result.run);
  result.matched = outcome_meets_expectation(header.expect, result.outcome, result.run.report);
  return result;
}

}  // namespace gilsan
