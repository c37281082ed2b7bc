// How a finished child run becomes one Outcome, and whether that outcome is what the scenario
// expects. The rules, first match wins:
//   a hook's verdict (e.g. the watchdog's deadlock class); timeout; the child's own failure
//   (harness-error); killed by a signal (crash:SIGNAL); skipped; a sanitizer report
//   (report:CHECKER of the first report, leaving out unraisable-in-host-function when the run has
//   unraisables, which the rule for those names better; the child's exit status, 66 by default,
//   is the sanitizer's exit-code policy, not a failure of its own); an uncaught exception
//   (exception:Type); a non-zero exit status (exit:N, e.g. sys.exit(3) or os._exit(3));
//   any unraisable exception (unraisable:Type of the first); otherwise pass.
#pragma once

#include <string>
#include <vector>

#include "harness/runner/child_supervisor.h"
#include "harness/scenario/outcome.h"

namespace gilsan {

// `sanitizer_checkers`: the checker of every report the child's sanitizer made, in order.
Outcome derive_outcome(const SupervisedRun& run, const std::vector<std::string>& sanitizer_checkers = {});

// exception:T matches the uncaught exception's type by bare or module-qualified name;
// unraisable:T matches when any unraisable had that type; report:CHECKER when any sanitizer report
// came from that checker (and the outcome is report:* or the unraisable:T such a report restates);
// every other expectation must equal the outcome exactly.
bool outcome_meets_expectation(const Outcome& expected, const Outcome& actual, const ChildReport& report,
                               const std::vector<std::string>& sanitizer_checkers = {});

}  // namespace gilsan
