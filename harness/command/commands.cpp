#include "harness/command/commands.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string_view>

#include "harness/command/exit_codes.h"
#include "harness/command/output_path.h"
#include "harness/command/run_progress.h"
#include "harness/command/suite_progress.h"
#include "harness/reports/conformance_markdown.h"
#include "harness/reports/failure_excerpt.h"
#include "harness/reports/github_annotations.h"
#include "harness/reports/junit_report.h"
#include "harness/reports/results_file.h"
#include "harness/reports/run_report.h"
#include "harness/reports/sarif_report.h"
#include "harness/reports/suite_matrix.h"
#include "harness/reports/suite_results_json.h"
#include "harness/runner/interrupt_hook.h"
#include "harness/runner/run_folders.h"
#include "harness/runner/run_guardian.h"
#include "harness/runner/under_command.h"
#include "harness/scenario/sanitizer_request.h"
#include "harness/text/errno_text.h"

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

// The GILSAN_* variables the parent acts on, checked before anything runs (docs/runner.md).
bool environment_is_usable(const char* command) {
  if (const char* trace = std::getenv("GILSAN_WATCHDOG_TRACE"); trace != nullptr) {
    if (const std::optional<std::string> why = why_unwritable(trace)) {
      std::cerr << "gilsan " << command << ": GILSAN_WATCHDOG_TRACE=" << trace << ": " << *why << "\n";
      return false;
    }
  }
  return true;
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
  if (executable_path(command)) return "";
  return command + ": " + (command.find('/') != std::string::npos ? errno_text(errno) : "not found on PATH");
}

std::string command_line_of(const std::vector<std::string>& program) {
  std::string line;
  for (const std::string& argument : program) line += (line.empty() ? "" : " ") + argument;
  return line;
}

}  // namespace

int run_command(const RunCommand& command) {
  // First, before any thread: nothing this run starts may outlive it (run_guardian.h), and what killed
  // runs left behind goes (run_folders.h).
  const RunGuardian guardian;
  remove_leftovers_of_dead_runs(temporary_folders());
  const bool program = !command.settings.program.empty();
  std::optional<ScenarioHeader> header = program ? program_header(command) : read_scenario_header(command.scenario);
  if (!header || !environment_is_usable("run")) return kExitUsage;
  if (!program && command.settings.sanitize) check_scenario_suppressions(command.scenario, *header);
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
  const std::string name = program ? command_line_of(settings.program) : command.scenario;
  RunProgressHook progress(name, effective_timeout_seconds(*header, settings));
  SupervisionHook* hooks[] = {&interrupt, &progress};
  const ScenarioResult result =
      run_scenario(name, *header, settings, hooks);

  const std::string report = command.format == ReportFormat::Json
                                 ? json_report(result)
                                 : text_report(result, command.format == ReportFormat::Full);
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
  if (command.sarif_path) {
    try {
      write_results_file(*command.sarif_path, sarif_log({result}, command.sarif_root.value_or(default_sarif_root())));
    } catch (const std::exception& error) {
      std::cerr << "gilsan run: " << error.what() << "\n";
      return kExitUsage;
    }
  }
  return exit_code_for(result.status());
}

namespace {

// The files a suite was asked for, each written whole; throws std::system_error naming one that cannot be.
void write_suite_outputs(const SuiteOutputs& outputs, const RunSettings& run, const SuiteSummary& summary) {
  const std::vector<ScenarioResult>& results = summary.results;
  if (outputs.junit_path) write_results_file(*outputs.junit_path, junit_xml(results, summary.seconds));
  if (outputs.sarif_path)
    write_results_file(*outputs.sarif_path, sarif_log(results, outputs.sarif_root.value_or(default_sarif_root())));
  if (outputs.json_path) write_results_file(*outputs.json_path, suite_results_json(results, run, summary.seconds));
  if (outputs.markdown_path)
    write_results_file(*outputs.markdown_path,
                       conformance_markdown(results, run.driver ? run.driver->kind : run.driver_request,
                                            outputs.command_line));
}

// The matrix, the failures and the summary line of a suite's results; the exit code they make.
int report_suite(const std::vector<ScenarioResult>& results, const SuiteSummary& summary) {
  if (const std::string skips = skip_summary(results); !skips.empty()) std::cout << skips;
  if (const std::string matrix = conformance_matrix(results); !matrix.empty()) std::cout << "\n" << matrix;
  if (const std::string failures = failure_excerpts(results); !failures.empty()) std::cout << "\n" << failures;
  if (github_actions_requested()) std::cout << github_annotations(results);
  std::cout << summary.line() << std::endl;
  if (summary.interrupted) return kExitInterrupted;
  if (summary.harness_errors > 0) return kExitInternal;
  return summary.failed > 0 ? kExitMismatch : kExitAllMatched;
}

// --compare's results, or why they cannot be used; nullopt with no --compare.
std::optional<ComparedRun> read_compared(const MergeCommand& command, const std::string& driver,
                                         const std::vector<ScenarioResult>& results, std::string& error) {
  if (command.compare_paths.empty()) return std::nullopt;
  RunSettings other;
  ComparedRun compared;
  try {
    compared.results = read_suite_results(command.compare_paths, other);
    compared.driver = other.driver_request;
    check_comparable(compared, driver, results);
  } catch (const std::runtime_error& failure) {
    error = std::string("--compare ") + failure.what();
    return std::nullopt;
  }
  return compared;
}

}  // namespace

int merge_command(const MergeCommand& command) {
  SuiteSettings settings;
  std::vector<ScenarioResult> results;
  std::optional<ComparedRun> compared;
  std::string error;
  try {
    results = read_suite_results(command.inputs, settings.run);
  } catch (const std::runtime_error& failure) {
    error = failure.what();
  }
  // Every input is read before anything is written: a bad one leaves no partial output.
  if (error.empty()) compared = read_compared(command, settings.run.driver_request, results, error);
  if (!error.empty()) {
    std::cerr << "gilsan merge: " << error << "\n";
    return kExitUsage;
  }
  SuiteSummary summary;
  double seconds = 0;
  for (const ScenarioResult& result : results) {
    count_result(result.status(), summary);
    seconds += result.run.elapsed.count();
  }
  if (command.junit_path) write_results_file(*command.junit_path, junit_xml(results, seconds));
  if (command.sarif_path)
    write_results_file(*command.sarif_path, sarif_log(results, command.sarif_root.value_or(default_sarif_root())));
  if (command.json_path) write_results_file(*command.json_path, suite_results_json(results, settings.run, seconds));
  if (command.markdown_path)
    write_results_file(*command.markdown_path, conformance_markdown(results, settings.run.driver_request,
                                                                    command.command_line, compared ? &*compared : nullptr));
  return report_suite(results, summary);
}

int suite_command(const SuiteCommand& command) {
  const RunGuardian guardian;  // as run_command's
  remove_leftovers_of_dead_runs(temporary_folders());
  if (!environment_is_usable("suite") || !sanitizer_options_are_usable(command.settings.run)) return kExitUsage;
  SuiteSettings settings = command.settings;
  if (!choose_driver(settings.run)) return kExitUsage;
  if (settings.run.driver && settings.run.driver->kind == "real" && settings.jobs > 1)
    std::cerr << "gilsan suite: --jobs " << settings.jobs << " on the real driver: runs share the GPU and slow each "
              << "other's device work, which the watchdog may take for a hang\n";
  const std::vector<SuiteItem> items = suite_items(settings);
  if (items.empty() && !settings.allow_empty) {
    std::cerr << "gilsan suite: " << nothing_selected(settings) << " (--allow-empty to pass with none)\n";
    return kExitUsage;
  }
  InterruptHook interrupt;
  SuiteProgress progress(items.size(), command.verbose);
  SupervisionHook* hooks[] = {&interrupt, &progress};
  const SuiteOutputs& outputs = command.outputs;
  // JUnit and SARIF carry the runs' output and reports, so those are kept for them.
  const bool keep_everything = outputs.junit_path || outputs.sarif_path;
  const SuiteSummary summary = run_suite(
      settings, items, hooks,
      [&](ScenarioResult& result) {
        progress.ended(result);
        if (!keep_everything) keep_only_the_excerpt(result);
      },
      [&](const SuiteItem& item) { progress.started(item); });
  progress.done();
  write_suite_outputs(outputs, settings.run, summary);
  return report_suite(summary.results, summary);
}

}  // namespace gilsan
