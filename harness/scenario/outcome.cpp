#include "harness/scenario/outcome.h"

#include <stdexcept>

#include "harness/scenario/python_names.h"
#include "harness/scenario/signal_names.h"
#include "harness/watchdog/deadlock_class.h"

namespace gilsan {
namespace {

std::string joined(const std::vector<std::string_view>& names) {
  std::string text;
  for (std::string_view name : names) text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

bool contains(const std::vector<std::string_view>& names, std::string_view name) {
  for (std::string_view candidate : names)
    if (candidate == name) return true;
  return false;
}

}  // namespace

// The taxonomy's names (checkers/core/deadlock_classes.inc, the watchdog's and the core's one table),
// so an expectation can name exactly what the watchdog reports.
const std::vector<std::string_view>& deadlock_classes() {
  static const std::vector<std::string_view> classes = [] {
    std::vector<std::string_view> names;
    for (const DeadlockClassInfo& row : kDeadlockClasses) names.push_back(row.name);
    return names;
  }();
  return classes;
}

// The sanitizer's checker names, from its one table (a header-only list: no link to the checkers).
const std::vector<std::string_view>& checker_names() {
  static const std::vector<std::string_view> names = {
#define GILSAN_CHECKER(enumerator, name, summary) name,
#include "checkers/core/checkers.inc"
#undef GILSAN_CHECKER
  };
  return names;
}

std::string_view to_string(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::Pass: return "pass";
    case OutcomeKind::Exception: return "exception";
    case OutcomeKind::Unraisable: return "unraisable";
    case OutcomeKind::Crash: return "crash";
    case OutcomeKind::Timeout: return "timeout";
    case OutcomeKind::MemoryLimit: return "memory-limit";
    case OutcomeKind::Deadlock: return "deadlock";
    case OutcomeKind::Report: return "report";
    case OutcomeKind::Exit: return "exit";
    case OutcomeKind::Skipped: return "skipped";
    case OutcomeKind::Interrupted: return "interrupted";
    case OutcomeKind::HarnessError: return "harness-error";
  }
  return "?";
}

std::string Outcome::to_string() const {
  std::string text(gilsan::to_string(kind));
  if (!detail.empty()) text += ":" + detail;
  return text;
}

Outcome outcome_from_string(std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  const std::string detail(colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1));
  for (OutcomeKind candidate :
       {OutcomeKind::Pass, OutcomeKind::Exception, OutcomeKind::Unraisable, OutcomeKind::Crash, OutcomeKind::Timeout,
        OutcomeKind::MemoryLimit, OutcomeKind::Deadlock, OutcomeKind::Report, OutcomeKind::Exit, OutcomeKind::Skipped, OutcomeKind::Interrupted,
        OutcomeKind::HarnessError}) {
    if (gilsan::to_string(candidate) == kind) return {candidate, detail};
  }
  throw std::invalid_argument("unknown outcome '" + std::string(text) + "'");
}

Outcome parse_expectation(std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  const std::string_view detail = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  const bool has_detail = colon != std::string_view::npos;

  if (kind == "pass" || kind == "timeout" || kind == "memory-limit") {
    if (has_detail) throw std::invalid_argument("'" + std::string(kind) + "' takes no ':' detail");
    return {kind == "pass" ? OutcomeKind::Pass : kind == "timeout" ? OutcomeKind::Timeout : OutcomeKind::MemoryLimit, {}};
  }
  if (kind == "exception" || kind == "unraisable") {
    if (!is_dotted_python_name(detail))
      throw std::invalid_argument("'" + std::string(kind) + ":' needs a Python exception type, e.g. " +
                                  std::string(kind) + ":ValueError");
    return {kind == "exception" ? OutcomeKind::Exception : OutcomeKind::Unraisable, std::string(detail)};
  }
  if (kind == "crash") {
    const auto number = signal_number(detail);
    if (!number) throw std::invalid_argument("'crash:' needs a signal name, e.g. crash:SIGSEGV, not '" +
                                             std::string(detail) + "'");
    return {OutcomeKind::Crash, signal_name(*number)};
  }
  if (kind == "deadlock") {
    if (!contains(deadlock_classes(), detail))
      throw std::invalid_argument("unknown deadlock class '" + std::string(detail) + "' (one of: " +
                                  joined(deadlock_classes()) + ")");
    return {OutcomeKind::Deadlock, std::string(detail)};
  }
  if (kind == "report") {
    if (!contains(checker_names(), detail))
      throw std::invalid_argument("unknown checker '" + std::string(detail) + "' (one of: " +
                                  joined(checker_names()) + ")");
    return {OutcomeKind::Report, std::string(detail)};
  }
  throw std::invalid_argument("unknown expectation '" + std::string(text) +
                              "' (pass, timeout, memory-limit, exception:T, unraisable:T, crash:SIGNAL, deadlock:CLASS "
                              "or report:CHECKER)");
}

std::string PythonTypeName::display() const {
  if (module.empty() || module == "builtins") return qualname;
  return module + "." + qualname;
}

bool PythonTypeName::is_named(std::string_view expected) const {
  return expected == qualname || expected == display();
}

}  // namespace gilsan
