#include "harness/runner/commands.h"

#include <cstdio>
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

}  // namespace

int run_command(const RunCommand& command) {
  const ScenarioHeader header = read_scenario_header(command.scenario);
  if (!sanitizer_options_are_usable(command.settings)) return kExitUsage;
  InterruptHook interrupt;
  SupervisionHook* hooks[] = {&interrupt};
  const ScenarioResult result = run_scenario(command.scenario, header, command.settings, hooks);

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
  InterruptHook interrupt;
  SupervisionHook* hooks[] = {&interrupt};
  const SuiteSummary summary = run_suite(command.settings, hooks, [](const ScenarioResult& result) {
    std::cout << one_line_report(result) << std::endl;
  });
  std::cout << summary.line() << std::endl;
  if (summary.interrupted) return kExitInterrupted;
  if (summary.harness_errors > 0) return kExitInternal;
  return summary.failed > 0 ? kExitMismatch : kExitAllMatched;
}

}  // namespace gilsan
