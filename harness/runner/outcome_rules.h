// How a finished child run becomes one Outcome, and whether that outcome is what the scenario
// expects. The rules, first match wins:
//   a hook's verdict (e.g. the watchdog's deadlock class); timeout; the child's own failure
//   (harness-error); killed by a signal (crash:SIGNAL); skipped; an uncaught exception
//   (exception:Type); a non-zero exit status (exit:N, e.g. sys.exit(3) or os._exit(3));
//   any unraisable exception (unraisable:Type of the first); otherwise pass.
#pragma once

#include "harness/runner/child_supervisor.h"
#include "harness/runner/outcome.h"

namespace gilsan {

Outcome derive_outcome(const SupervisedRun& run);

// exception:T matches the uncaught exception's type by bare or module-qualified name;
// unraisable:T matches when any unraisable had that type; every other expectation must equal the
// outcome exactly.
bool outcome_meets_expectation(const Outcome& expected, const Outcome& actual, const ChildReport& report);

}  // namespace gilsan
