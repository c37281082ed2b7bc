// Outcome: what happened to one scenario run, and (the same type) what its header expects.
//
// Written as "kind" or "kind:detail": pass, timeout, exception:ValueError, unraisable:RuntimeError,
// crash:SIGSEGV, deadlock:gil-driver-inversion, report:lock-order-cycle. A few kinds exist only as
// results and can never be expected: exit:N (the child exited non-zero with no uncaught exception,
// e.g. os._exit(3)), skipped, interrupted (the user stopped gilsan) and harness-error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gilsan {

enum class OutcomeKind {
  Pass,
  Exception,
  Unraisable,
  Crash,
  Timeout,
  MemoryLimit,  // --max-rss
  Deadlock,
  Report,
  Exit,
  Skipped,
  Interrupted,
  HarnessError,
};

struct Outcome {
  OutcomeKind kind = OutcomeKind::Pass;
  std::string detail;  // exception type, signal name, deadlock class, checker, exit status or reason

  std::string to_string() const;
  bool operator==(const Outcome&) const = default;
};

std::string_view to_string(OutcomeKind kind);

// The outcome Outcome::to_string wrote ("deadlock:unknown", "skipped:needs cupy: ..."), for results
// read back from a suite's JSON. Throws std::invalid_argument for an unknown kind.
Outcome outcome_from_string(std::string_view text);

// Parses an `expect` value. Throws std::invalid_argument with a message that says what is allowed.
Outcome parse_expectation(std::string_view text);

// The deadlock classes of the taxonomy (docs/explain/), and the sanitizer's checker names (issue 5).
const std::vector<std::string_view>& deadlock_classes();
const std::vector<std::string_view>& checker_names();

// A Python exception type as "module.QualName", or just "QualName" for builtins.
struct PythonTypeName {
  std::string module;
  std::string qualname;

  std::string display() const;
  // True when `expected` names this type: its qualname alone or module-qualified.
  bool is_named(std::string_view expected) const;
};

}  // namespace gilsan
