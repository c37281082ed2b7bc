#include "harness/reports/run_report.h"

#include <sys/wait.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness/runner/resident_memory.h"
#include "harness/scenario/signal_names.h"

namespace gilsan {
namespace {

// Ordered: the report reads top-down in the order below (schema and outcome first).
using nlohmann::ordered_json;

std::string seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", value);
  return text;
}

std::string_view label(ResultStatus status) {
  switch (status) {
    case ResultStatus::Passed: return "PASS ";
    case ResultStatus::Failed: return "FAIL ";
    case ResultStatus::Skipped: return "SKIP ";
    case ResultStatus::Interrupted: return "STOP ";
    case ResultStatus::HarnessError: return "ERROR";
  }
  return "?    ";
}

void section(std::string& text, std::string_view title, std::string_view body) {
  text += "--- " + std::string(title) + " ---\n";
  text += body;
  if (!body.empty() && !body.ends_with('\n')) text += '\n';
}

std::string dropped_note(std::size_t dropped) {
  return dropped == 0 ? "" : "[" + std::to_string(dropped) + " more bytes dropped]\n";
}

ordered_json exit_json(int wait_status) {
  if (WIFSIGNALED(wait_status)) return {{"status", nullptr}, {"signal", signal_name(WTERMSIG(wait_status))}};
  return {{"status", WEXITSTATUS(wait_status)}, {"signal", nullptr}};
}

template <typename T>
ordered_json optional_json(const std::optional<T>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

}  // namespace

std::string_view to_string(ResultStatus status) {
  switch (status) {
    case ResultStatus::Passed: return "passed";
    case ResultStatus::Failed: return "failed";
    case ResultStatus::Skipped: return "skipped";
    case ResultStatus::Interrupted: return "interrupted";
    case ResultStatus::HarnessError: return "harness-error";
  }
  return "?";
}

std::string one_line_report(const ScenarioResult& result) {
  const ResultStatus status = result.status();
  std::string line = std::string(label(status)) + " " + result.scenario +
                     (result.implementation ? " [" + *result.implementation + "]" : "") + "  ";
  switch (status) {
    case ResultStatus::Passed: line += result.outcome.to_string(); break;
    case ResultStatus::Skipped: return line + result.outcome.detail;
    case ResultStatus::Failed:
      line += "expected " + result.header.expect.to_string() + ", got " + result.outcome.to_string();
      break;
    case ResultStatus::Interrupted:
    case ResultStatus::HarnessError: line += result.outcome.to_string(); break;
  }
  return line + " (" + seconds(result.run.elapsed.count()) + ")";
}

namespace {

// Whether the sanitizer ran and what it found, so that a clean run ("0 reports") is not mistaken for
// one where it did not run or did not get to finish.
std::string sanitizer_line(const std::optional<SanitizerFindings>& findings) {
  if (!findings) return "sanitizer: off (--sanitize off)\n";
  // The sanitizer writes its JSON at its first report and when it finishes, so none means neither.
  if (findings->json.empty()) return "sanitizer: no report written (the child ended before its sanitizer finished)\n";
  if (findings->error) return "sanitizer: unreadable report\n";
  const std::size_t count = findings->checkers.size();
  return "sanitizer: " + std::to_string(count) + (count == 1 ? " report" : " reports") + "\n";
}

}  // namespace

std::string text_report(const ScenarioResult& result, bool full) {
  const SupervisedRun& run = result.run;
  const ChildReport& report = run.report;
  const bool program = result.run.report.program.has_value();
  std::string text = (program ? "program   " : "scenario  ") + result.scenario + "\n";
  if (!result.header.description.empty()) text += "about     " + result.header.description + "\n";
  if (result.implementation) text += "impl      " + *result.implementation + "\n";
  text += "expected  " + result.header.expect.to_string() + "\n";
  text += "outcome   " + result.outcome.to_string() + "\n";
  if (report.driver) text += "driver    " + *report.driver + "\n";
  if (report.python_version) text += "python    " + *report.python_version + "\n";
  text += "time      " + seconds(run.elapsed.count()) +
          (result.timeout_seconds >= kProgramTimeoutSeconds ? std::string(" (no timeout)")
                                                             : " (timeout " + seconds(result.timeout_seconds) + ")") +
          "\n";
  text += sanitizer_line(result.sanitizer);
  if (run.verdict && run.verdict->outcome.kind == OutcomeKind::Deadlock)
    text += "stopped   SIGKILL to the process group after the watchdog's snapshot\n";
  else if (run.timed_out || run.verdict)
    text += std::string("stopped   SIGTERM to the process group") + (run.needed_sigkill ? ", then SIGKILL" : "") + "\n";
  if (run.memory_limit_exceeded)
    text += "stopped   SIGKILL to the process group: its resident memory passed --max-rss (" +
            byte_size_text(run.peak_resident_bytes) + " seen)\n";
  if (report.skipped_host_functions)
    text += "host functions skipped after finalization: " + std::to_string(*report.skipped_host_functions) + "\n";
  if (run.leftover_processes > 0)
    text += "leftover processes killed after the scenario ended: " + std::to_string(run.leftover_processes) + "\n";
  if (run.group_survived) text += "WARNING: a process of the scenario's group survived the cleanup\n";
  for (const std::string& error : report.protocol_errors) text += "report channel: " + error + "\n";

  if (run.verdict && !run.verdict->explanation.empty()) section(text, "verdict", run.verdict->explanation);
  if (result.watchdog) {
    section(text, "watchdog report", full ? result.watchdog->full_text : result.watchdog->text);
    if (result.watchdog->dot_error) text += "WARNING: " + *result.watchdog->dot_error + "\n";
  }
  if (result.sanitizer && !result.sanitizer->text.empty()) section(text, "sanitizer report", result.sanitizer->text);
  if (result.sanitizer && result.sanitizer->error) text += "WARNING: " + *result.sanitizer->error + "\n";
  if (report.exception) section(text, "uncaught exception", report.exception->traceback);
  for (std::size_t i = 0; i < report.unraisables.size(); ++i) {
    const UnraisableRecord& record = report.unraisables[i];
    section(text, "unraisable " + std::to_string(i + 1) + ": " + record.type.display(),
            record.context + (record.object.empty() ? "" : ": " + record.object) + "\n" + record.message);
  }
  section(text, "stdout", run.stdout_text + dropped_note(run.stdout_dropped_bytes));
  section(text, "stderr", run.stderr_text + dropped_note(run.stderr_dropped_bytes));
  text += one_line_report(result) + "\n";
  return text;
}

namespace {

// The watchdog's report as its own versioned object (docs/report-schema.md), with what the runner
// adds: the onset-to-report latency and a DOT file that could not be written.
ordered_json watchdog_json(const ScenarioResult& result) {
  if (!result.watchdog) return nullptr;
  const WatchdogFindings& findings = *result.watchdog;
  ordered_json document = ordered_json::parse(findings.json, nullptr, false);
  if (document.is_discarded()) document = {{"class", findings.class_name}, {"text", findings.text}};
  document["onset_to_report_ms"] =
      findings.onset_to_report_ms ? ordered_json(*findings.onset_to_report_ms) : ordered_json(nullptr);
  document["dot_error"] = optional_json(findings.dot_error);
  // The text form too, for tools that show the report to a person (the pytest plugin's failure text).
  document["text"] = findings.text;
  document["full_text"] = findings.full_text;
  return document;
}

// The sanitizer's own document (gilsan-sanitizer-report/1, docs/sanitizer.md) and its text; null
// when the run was not sanitized.
ordered_json sanitizer_json(const ScenarioResult& result) {
  if (!result.sanitizer) return nullptr;
  const SanitizerFindings& findings = *result.sanitizer;
  ordered_json document =
      findings.json.empty() ? ordered_json(nullptr) : ordered_json::parse(findings.json, nullptr, false);
  if (document.is_discarded()) document = nullptr;
  return {{"checkers", findings.checkers}, {"report", document}, {"text", findings.text},
          {"error", optional_json(findings.error)}};
}

}  // namespace

std::string json_report(const ScenarioResult& result) {
  const SupervisedRun& run = result.run;
  const ChildReport& report = run.report;
  ordered_json unraisables = ordered_json::array();
  for (const UnraisableRecord& record : report.unraisables)
    unraisables.push_back({{"type", record.type.display()},
                           {"message", record.message},
                           {"object", record.object},
                           {"context", record.context}});
  ordered_json document = {
      {"schema", kRunReportSchema},
      {"scenario", result.scenario},
      {"description", result.header.description},
      {"implementation", result.implementation ? ordered_json(*result.implementation) : ordered_json(nullptr)},
      {"expected", result.header.expect.to_string()},
      {"outcome", result.outcome.to_string()},
      {"status", to_string(result.status())},
      {"matched", result.matched},
      {"timeout_seconds", result.timeout_seconds},
      {"elapsed_seconds", run.elapsed.count()},
      {"exit", exit_json(run.wait_status)},
      {"timed_out", run.timed_out},
      {"memory_limit_exceeded", run.memory_limit_exceeded},
      {"peak_resident_bytes", run.peak_resident_bytes},
      {"needed_sigkill", run.needed_sigkill},
      {"python", optional_json(report.python_version)},
      {"driver", optional_json(report.driver)},
      {"exception", report.exception ? ordered_json{{"type", report.exception->type.display()},
                                            {"traceback", report.exception->traceback}}
                                     : ordered_json(nullptr)},
      {"unraisables", unraisables},
      {"skipped_host_functions", optional_json(report.skipped_host_functions)},
      {"leftover_processes", run.leftover_processes},
      {"group_survived", run.group_survived},
      {"verdict", run.verdict ? ordered_json{{"outcome", run.verdict->outcome.to_string()},
                                     {"explanation", run.verdict->explanation}}
                              : ordered_json(nullptr)},
      {"watchdog", watchdog_json(result)},
      {"sanitizer", sanitizer_json(result)},
      {"stdout", run.stdout_text},
      {"stderr", run.stderr_text},
      {"stdout_dropped_bytes", run.stdout_dropped_bytes},
      {"stderr_dropped_bytes", run.stderr_dropped_bytes},
      {"protocol_errors", report.protocol_errors},
  };
  return document.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace gilsan
