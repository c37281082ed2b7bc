#include "harness/runner/commands.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <fstream>
#include <iostream>

#include "harness/runner/exit_codes.h"
#include "harness/runner/interrupt_hook.h"
#include "harness/runner/run_report.h"
#include "harness/runner/scenario_sanitizer.h"

namespace gilsan {
namespace {

int exit_code_for(ResultStatus status) {
  switch (status) {
    case ResultStatus::Passed:
    case ResultStatus::Skipped: return kExitAllMatched;
    case ResultStatus::Failed: return kExitMismatch;
    case ResultStatus::Interrupted: return kExitInterrupted;
    case ResultStatus::HarnessError: return kExitInternal;
  }
  return kExitInternal;
}

// A bad GILSAN_OPTIONS would fail every child the same way: said once, as a usage error.
bool sanitizer_options_are_usable(const RunSettings& settings) {
  if (!settings.sanitize) return true;
  const std::optional<std::string> error = sanitizer_options_error();
  if (error) std::cerr << "gilsan: " << *error << "\n";
  return !error;
}

// The driver every child of the command uses, chosen once: a --driver real that cannot work is one
// line before anything runs, not a failure per scenario.
bool choose_driver(RunSettings& settings) {
  try {
    settings.driver = choose_run_driver(settings.driver_request);
    return true;
  } catch (const std::exception& error) {
    std::cerr << "gilsan: " << error.what() << "\n";
    return false;
  }
}

// A program run (gilsan run -- COMMAND) has no header: the command line gives the expectation, and it
// runs until it ends or the watchdog calls a hang, unless --timeout bounds it.
std::optional<ScenarioHeader> program_header(const RunCommand& command) {
  ScenarioHeader header;
  try {
    header.expect = parse_expectation(command.expect.value_or("pass"));
  } catch (const std::invalid_argument& error) {
    std::cerr << "gilsan run: --expect " << command.expect.value_or("") << ": " << error.what() << "\n";
    return std::nullopt;
  }
  header.timeout_seconds = kProgramTimeoutSeconds;
  header.description = "a program run as it is";
  return header;
}

// Why `command` cannot be run as execvp would run it, or "" when it can: said before anything starts.
std::string unrunnable(const std::string& command) {
  if (command.find('/') != std::string::npos)
    return ::access(command.c_str(), X_OK) == 0 ? "" : command + ": " + std::strerror(errno);
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/bin:/bin";
  while (true) {
    const auto colon = rest.find(':');
    const std::string folder(rest.substr(0, colon));
    const std::string candidate = (folder.empty() ? "." : folder) + "/" + command;
    if (::access(candidate.c_str(), X_OK) == 0) return "";
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return command + ": not found on PATH";
}

std::string command_line_of(const std::vector<std::string>& program) {
  std::string line;
  for (const std::string& argument : program) line += (line.empty() ? "" : " ") + argument;
  return line;
}

}  // namespace

int run_command(const RunCommand& command) {
  const bool program = !command.settings.program.empty();
  std::optional<ScenarioHeader> header = program ? program_header(command) : read_scenario_header(command.scenario);
  if (!header) return kExitUsage;
  if (program) {
    if (const std::string why = unrunnable(command.settings.program.front()); !why.empty()) {
      std::cerr << "gilsan run: " << why << "\n";
      return kExitUsage;
    }
  }
  if (!sanitizer_options_are_usable(command.settings)) return kExitUsage;
  if (program && command.settings.sanitize && injection_library_path().empty()) {
    std::cerr << "gilsan run: a program's sanitizer is libgilsan_inject.so, which this build lacks (no CUPTI); "
                 "use --sanitize off\n";
    return kExitUsage;
  }
  RunSettings settings = command.settings;
  if (!choose_driver(settings)) return kExitUsage;
  InterruptHook interrupt;
  SupervisionHook* hooks[] = {&interrupt};
  const ScenarioResult result =
      run_scenario(program ? command_line_of(settings.program) : command.scenario, *header, settings, hooks);

  const std::string report = command.format == ReportFormat::Json ? json_report(result) : text_report(result);
  if (command.output_path) {
    std::ofstream stream(*command.output_path, std::ios::binary | std::ios::trunc);
    stream << report;
    stream.close();
    if (!stream) {
      std::cerr << "gilsan run: cannot write the report to " << *command.output_path << "\n";
      return kExitUsage;
    }
    std::cout << one_line_report(result) << std::endl;
  } else {
    std::cout << report << std::flush;
  }
  return exit_code_for(result.status());
}

int suite_command(const SuiteCommand& command) {
  if (!sanitizer_options_are_usable(command.settings.run)) return kExitUsage;
  SuiteSettings settings = command.settings;
  if (!choose_driver(settings.run)) return kExitUsage;
  InterruptHook interrupt;
  SupervisionHook* hooks[] = {&interrupt};
  const SuiteSummary summary = run_suite(settings, hooks, [](const ScenarioResult& result) {
    std::cout << one_line_report(result) << std::endl;
  });
  std::cout << summary.line() << std::endl;
  if (summary.interrupted) return kExitInterrupted;
  if (summary.harness_errors > 0) return kExitInternal;
  return summary.failed > 0 ? kExitMismatch : kExitAllMatched;
}

}  // namespace gilsan
