#include "harness/runner/scenario_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <vector>

#include "harness/driver/install_layout.h"
#include "harness/profile/driver_profile.h"
#include "harness/runner/child_process.h"
#include "harness/runner/native_locks_preload.h"
#include "harness/runner/outcome_rules.h"
#include "harness/runner/under_command.h"
#include "harness/scenario/child_protocol.h"
#include "harness/scenario/child_report.h"
#include "harness/scenario/sanitizer_request.h"

extern char** environ;

namespace gilsan {
namespace {

constexpr int kReportFdInChild = 3;

// The watchdog wants a tick every 10-50 ms (docs/watchdog.md); a short one keeps its detection close
// to the quiet period.
constexpr std::chrono::milliseconds kWatchdogTick{10};

// Which driver calls are held back while a host function runs, for the classifier: from the profile
// the run's simulated driver uses (--profile, else the built-in default), which is also the measured
// behaviour of the real driver it was probed on, under the loading mode the child runs in (the
// header's module_loading, else the caller's CUDA_MODULE_LOADING). An unreadable profile leaves the
// predicate empty; the child reports the profile's error itself.
watchdog::DriverCallBlocksPredicate blocks_predicate(const RunSettings& settings, const ScenarioHeader& header) {
#ifdef GILSAN_DEFAULT_PROFILE_PATH
  const std::string path = settings.profile_path.value_or(shipped_profile_path(GILSAN_DEFAULT_PROFILE_PATH));
#else
  if (!settings.profile_path) return [](std::string_view) { return false; };
  const std::string path = *settings.profile_path;
#endif
  try {
    auto profile = std::make_shared<const DriverProfile>(load_driver_profile(path));
    const ModuleLoading mode =
        header.module_loading.value_or(module_loading_from_environment(std::getenv("CUDA_MODULE_LOADING")));
    return [profile, mode](std::string_view entry_point) {
      try {
        return profile->outside(mode, entry_point) == OutsideBehaviour::Blocks;
      } catch (const std::out_of_range&) {
        return false;  // not a driver entry point the profile lists (e.g. a runtime name)
      }
    };
  } catch (const std::exception&) {
    return [](std::string_view) { return false; };
  }
}

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
std::vector<std::string> child_environment(const RunSettings& settings, const DriverFolder& driver_folder,
                                           std::vector<std::pair<std::string, std::string>> overrides) {
  for (auto& driver_variable : driver_folder.child_environment()) overrides.push_back(std::move(driver_variable));
  overrides.emplace_back(kChildReportFdVariable, std::to_string(kReportFdInChild));
  if (settings.profile_path) {
    overrides.emplace_back("GILSAN_SIM_PROFILE", *settings.profile_path);
    // The sanitizer judges calls by the profile the simulated driver runs.
    if (settings.sanitize) overrides.emplace_back("GILSAN_PROFILE", *settings.profile_path);
  }
  for (auto& sanitizer_override : sanitizer_signal_overrides()) overrides.push_back(std::move(sanitizer_override));
  // Native locks on the board (docs/native-locks.md), unless the caller said no.
  if (settings.native_locks) {
    if (std::optional<std::string> preload = child_preload(std::getenv("LD_PRELOAD"))) {
      overrides.emplace_back("LD_PRELOAD", std::move(*preload));
      // Ahead of an ASan runtime (gilsan's own in its ASan build, or an instrumented program's).
      auto asan = std::find_if(overrides.begin(), overrides.end(), [](const auto& entry) { return entry.first == "ASAN_OPTIONS"; });
      if (asan == overrides.end()) {
        const char* caller_options = std::getenv("ASAN_OPTIONS");
        overrides.emplace_back("ASAN_OPTIONS", caller_options != nullptr ? caller_options : "");
        asan = std::prev(overrides.end());
      }
      asan->second = std::string(kPreloadAheadOfAsanOption) + (asan->second.empty() ? "" : ":" + asan->second);
    }
  }
  if (std::string library = native_scenario_library_path(); !library.empty())
    overrides.emplace_back("GILSAN_NATIVE_SCENARIO_LIBRARY", std::move(library));
  // Only --profile chooses the profile, so a stale GILSAN_SIM_PROFILE in the shell cannot. A scenario
  // child runs its own sanitizer: an injected one from the caller's CUDA_INJECTION64_PATH would
  // compete with it for the driver's observer (a program gets gilsan's own, set above).
  std::vector<std::string> removed = {"GILSAN_SIM_PROFILE"};
  if (settings.program.empty()) removed.emplace_back("CUDA_INJECTION64_PATH");

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

// --under: the tool is spawned, with the child's command line after its own words. The tool needs
// the child's binary by its real path: /proc/self/exe would name the tool itself once it runs.
void run_under_tool(ChildCommand& command, const std::vector<std::string>& under) {
  std::error_code error;
  std::filesystem::path binary = std::filesystem::canonical(command.executable, error);
  if (error) throw std::system_error(error, "--under: the path of " + command.executable);
  std::vector<std::string> arguments = under;
  arguments.push_back(binary.string());
  arguments.insert(arguments.end(), command.arguments.begin() + 1, command.arguments.end());
  command.executable = under.front();
  command.arguments = std::move(arguments);
}

ChildCommand child_command(const std::string& scenario, const std::optional<std::string>& implementation,
                           const RunSettings& settings, const RunDriver& driver, const DriverFolder& driver_folder,
                           const SanitizerReportFolder* sanitizer_folder) {
  ChildCommand command;
  command.executable = settings.executable;
  std::vector<std::pair<std::string, std::string>> overrides;
  if (sanitizer_folder != nullptr) overrides = sanitizer_folder->child_environment();
  if (!settings.program.empty()) {
    command.arguments = {"gilsan", kProgramChildCommand, "--"};
    command.arguments.insert(command.arguments.end(), settings.program.begin(), settings.program.end());
    // The program's sanitizer is the injected one; the driver (real or sim) loads it at cuInit.
    if (sanitizer_folder != nullptr) overrides.emplace_back("CUDA_INJECTION64_PATH", injection_library_path());
  } else {
    command.arguments = {"gilsan", kScenarioChildCommand, "--driver", driver.kind};
    if (implementation) {
      command.arguments.push_back("--impl");
      command.arguments.push_back(*implementation);
    }
    if (settings.python.virtualenv) {
      command.arguments.push_back("--python-env");
      command.arguments.push_back(*settings.python.virtualenv);
    }
    command.arguments.push_back("--");
    command.arguments.push_back(scenario);
  }
  command.environment = child_environment(settings, driver_folder, std::move(overrides));
  command.report_fd_in_child = kReportFdInChild;
  if (!settings.under.empty()) run_under_tool(command, settings.under);
  return command;
}

// The header's suppression file, after the caller's GILSAN_OPTIONS (a later item wins).
void add_suppressions(ChildCommand& command, const std::string& scenario, const std::string& file) {
  const std::string path = scenario_suppressions_path(scenario, file);
  const std::string prefix = "GILSAN_OPTIONS=";
  std::string options;
  auto existing = std::find_if(command.environment.begin(), command.environment.end(),
                               [&](const std::string& entry) { return entry.starts_with(prefix); });
  if (existing != command.environment.end()) {
    options = existing->substr(prefix.size());
    command.environment.erase(existing);
  }
  if (!options.empty() && !options.ends_with(':')) options += ':';
  command.environment.push_back(prefix + options + "suppressions=" + path);
}

// A scenario that needs two devices gets a two-device simulated driver, unless the caller chose a
// device count; the real driver ignores the variable.
void give_the_simulated_driver_two_devices(ChildCommand& command, const ScenarioHeader& header) {
  if (std::find(header.needs.begin(), header.needs.end(), kNeedTwoDevices) == header.needs.end()) return;
  const std::string prefix = "GILSAN_SIM_DEVICES=";
  bool chosen = std::any_of(command.environment.begin(), command.environment.end(),
                            [&](const std::string& entry) { return entry.starts_with(prefix); });
  if (!chosen) command.environment.push_back(prefix + "2");
}

// A header's module_loading pins the child's CUDA_MODULE_LOADING, whatever the caller's environment
// says: the scenario's expectation is the profile's answer for that mode. The driver reads the
// variable once, at cuInit, after the child has started.
void pin_module_loading(ChildCommand& command, const ScenarioHeader& header) {
  if (!header.module_loading) return;
  const std::string prefix = "CUDA_MODULE_LOADING=";
  std::erase_if(command.environment, [&](const std::string& entry) { return entry.starts_with(prefix); });
  command.environment.push_back(prefix + module_loading_variable_value(*header.module_loading));
}

}  // namespace

std::string gilsan_version() { return GILSAN_VERSION; }

double effective_timeout_seconds(const ScenarioHeader& header, const RunSettings& settings) {
  const double seconds = settings.timeout_override_seconds.value_or(header.timeout_seconds.value_or(kDefaultTimeoutSeconds));
  return settings.under.empty() ? seconds : seconds * kUnderTimeoutFactor;
}

std::string injection_library_path() {
  if (const char* chosen = std::getenv("GILSAN_INJECT_LIBRARY"); chosen != nullptr && *chosen != '\0') return chosen;
  if (std::string installed = installed_file(installed_library_folder() + "/libgilsan_inject.so"); !installed.empty())
    return installed;
#ifdef GILSAN_INJECT_LIBRARY_PATH
  if (std::filesystem::exists(GILSAN_INJECT_LIBRARY_PATH)) return GILSAN_INJECT_LIBRARY_PATH;
#endif
  return {};
}

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
  result.gilsan_version = gilsan_version();
  result.scenario = scenario;
  result.header = header;
  if (header.is_conformance()) {
    result.implementation = settings.implementation.value_or("reference");
    result.header.expect = header.expect_for(*result.implementation);
  }
  result.timeout_seconds = effective_timeout_seconds(header, settings);

  SupervisionSettings supervision;
  supervision.timeout = std::chrono::milliseconds(std::llround(result.timeout_seconds * 1000));
  supervision.tick = kWatchdogTick;
  supervision.max_resident_bytes = settings.max_resident_bytes;
  WatchdogSettings watchdog_settings = settings.watchdog;
  if (!settings.under.empty()) watchdog_settings.under_tool_factor = kUnderTimeoutFactor;
  WatchdogHook watchdog(watchdog_settings, blocks_predicate(settings, header));
  // Private to this run and removed with it: the child's sanitizer writes its reports there.
  std::optional<SanitizerReportFolder> sanitizer_folder;
  if (settings.sanitize) sanitizer_folder.emplace();
  const RunDriver driver = settings.driver ? *settings.driver : choose_run_driver(settings.driver_request);
  // The forwarding driver is one of the sanitizer's sources: --sanitize off leaves the real driver bare.
  const DriverFolder driver_folder(driver, settings.sanitize);
  ChildCommand command = child_command(scenario, result.implementation, settings, driver, driver_folder,
                                       sanitizer_folder ? &*sanitizer_folder : nullptr);
  if (sanitizer_folder && header.suppressions) add_suppressions(command, scenario, *header.suppressions);
  give_the_simulated_driver_two_devices(command, header);
  pin_module_loading(command, header);
  watchdog.before_spawn(command);
  for (SupervisionHook* hook : hooks) hook->before_spawn(command);
  SpawnedChild child = spawn_in_own_process_group(command);
  const pid_t pid = child.pid;
  {
    ChildSupervisor supervisor(std::move(child), supervision);
    supervisor.add_hook(watchdog);
    for (SupervisionHook* hook : hooks) supervisor.add_hook(*hook);
    result.run = supervisor.run();
  }
  watchdog.finish(pid);
  result.watchdog = watchdog.findings();
  if (sanitizer_folder) result.sanitizer = sanitizer_folder->read();
  const std::vector<std::string> no_checkers;
  const std::vector<std::string>& checkers = result.sanitizer ? result.sanitizer->checkers : no_checkers;
  result.outcome = derive_outcome(result.run, checkers);
  result.matched = outcome_meets_expectation(result.header.expect, result.outcome, result.run.report, checkers);
  return result;
}

}  // namespace gilsan
