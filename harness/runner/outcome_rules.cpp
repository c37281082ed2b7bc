#include "harness/runner/outcome_rules.h"

#include <sys/wait.h>

#include <algorithm>

#include "harness/runner/signal_names.h"

namespace gilsan {

Outcome derive_outcome(const SupervisedRun& run) {
  const ChildReport& report = run.report;
  if (run.verdict) return run.verdict->outcome;
  if (run.timed_out) return {OutcomeKind::Timeout, {}};
  if (report.harness_error) return {OutcomeKind::HarnessError, *report.harness_error};
  if (WIFSIGNALED(run.wait_status)) return {OutcomeKind::Crash, signal_name(WTERMSIG(run.wait_status))};
  if (report.skip_reason) return {OutcomeKind::Skipped, *report.skip_reason};
  if (report.exception) return {OutcomeKind::Exception, report.exception->type.display()};
  if (WIFEXITED(run.wait_status) && WEXITSTATUS(run.wait_status) != 0)
    return {OutcomeKind::Exit, std::to_string(WEXITSTATUS(run.wait_status))};
  if (!report.python_version)
    return {OutcomeKind::HarnessError, "the scenario child exited without reporting anything"};
  if (!report.unraisables.empty()) return {OutcomeKind::Unraisable, report.unraisables.front().type.display()};
  return {OutcomeKind::Pass, {}};
}

bool outcome_meets_expectation(const Outcome& expected, const Outcome& actual, const ChildReport& report) {
  if (expected.kind != actual.kind) return false;
  switch (expected.kind) {
    case OutcomeKind::Exception:
      return report.exception && report.exception->type.is_named(expected.detail);
    case OutcomeKind::Unraisable:
      return std::any_of(report.unraisables.begin(), report.unraisables.end(),
                         [&](const UnraisableRecord& record) { return record.type.is_named(expected.detail); });
    default:
      return expected.detail == actual.detail;
  }
}

}  // namespace gilsan
