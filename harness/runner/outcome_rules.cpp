#include "harness/runner/outcome_rules.h"

#include <sys/wait.h>

#include <algorithm>
#include <string_view>

#include "harness/scenario/signal_names.h"

namespace gilsan {
namespace {

constexpr std::string_view kUnraisableChecker = "unraisable-in-host-function";

// The sanitizer's unraisable-in-host-function says what the runner's own unraisable:T already
// says, with less (no type to match): it does not make the outcome a report by itself.
bool restates_unraisable(const std::string& checker, const ChildReport& report) {
  return checker == kUnraisableChecker && !report.unraisables.empty();
}

}  // namespace

Outcome derive_outcome(const SupervisedRun& run, const std::vector<std::string>& sanitizer_checkers) {
  const ChildReport& report = run.report;
  if (run.verdict) return run.verdict->outcome;
  if (run.timed_out) return {OutcomeKind::Timeout, {}};
  // Before crash: the SIGKILL that ended it was the supervisor's.
  if (run.memory_limit_exceeded) return {OutcomeKind::MemoryLimit, {}};
  if (report.harness_error) return {OutcomeKind::HarnessError, *report.harness_error};
  if (WIFSIGNALED(run.wait_status)) return {OutcomeKind::Crash, signal_name(WTERMSIG(run.wait_status))};
  if (report.skip_reason) return {OutcomeKind::Skipped, *report.skip_reason};
  // Before exceptions and exit statuses: a finding explains what the scenario then did (an
  // exception raised by a refused CUDA call), and the exit status is the sanitizer's policy.
  if (const auto finding = std::find_if(sanitizer_checkers.begin(), sanitizer_checkers.end(),
                                        [&](const std::string& checker) { return !restates_unraisable(checker, report); });
      finding != sanitizer_checkers.end())
    return {OutcomeKind::Report, *finding};
  if (report.exception) return {OutcomeKind::Exception, report.exception->type.display()};
  // With sanitizer reports, the child's status is the sanitizer's exit-code policy (the scenario's
  // own 0 turned into `exitcode`), not an exit of the scenario's.
  if (WIFEXITED(run.wait_status) && WEXITSTATUS(run.wait_status) != 0 && sanitizer_checkers.empty())
    return {OutcomeKind::Exit, std::to_string(WEXITSTATUS(run.wait_status))};
  // A program (gilsan run -- COMMAND) reports nothing after its exec: its exit status is its outcome.
  if (!report.python_version && !report.program)
    return {OutcomeKind::HarnessError, "the scenario child exited without reporting anything"};
  if (!report.unraisables.empty()) return {OutcomeKind::Unraisable, report.unraisables.front().type.display()};
  return {OutcomeKind::Pass, {}};
}

bool outcome_meets_expectation(const Outcome& expected, const Outcome& actual, const ChildReport& report,
                               const std::vector<std::string>& sanitizer_checkers) {
  // report:unraisable-in-host-function also matches the unraisable:T outcome it restates.
  if (expected.kind == OutcomeKind::Report && actual.kind == OutcomeKind::Unraisable)
    return std::find(sanitizer_checkers.begin(), sanitizer_checkers.end(), expected.detail) != sanitizer_checkers.end();
  if (expected.kind != actual.kind) return false;
  switch (expected.kind) {
    case OutcomeKind::Exception:
      return report.exception && report.exception->type.is_named(expected.detail);
    case OutcomeKind::Unraisable:
      return std::any_of(report.unraisables.begin(), report.unraisables.end(),
                         [&](const UnraisableRecord& record) { return record.type.is_named(expected.detail); });
    case OutcomeKind::Report:
      return std::find(sanitizer_checkers.begin(), sanitizer_checkers.end(), expected.detail) !=
             sanitizer_checkers.end();
    default:
      return expected.detail == actual.detail;
  }
}

}  // namespace gilsan
