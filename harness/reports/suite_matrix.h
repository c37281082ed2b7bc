// What `gilsan suite` prints after the runs: the skipped runs folded by reason, the matrix of
// conformance scenarios by implementation, and, for each run that did not go as expected, an excerpt
// of its report (docs/runner.md).
#pragma once

#include <string>
#include <vector>

#include "harness/runner/scenario_run.h"

namespace gilsan {

// The skipped runs folded: "SKIP 104 runs: cupy is not installed (...)", one line per distinct reason,
// most frequent first, then by reason; "" when none was skipped. (A suite's per-run skip lines are
// printed only with --verbose: on a machine without the peers they were most of its output.)
std::string skip_summary(const std::vector<ScenarioResult>& results);

// "" when no conformance scenario ran. A cell says "ok" (as expected: a pass, or the deadlock or
// report the scenario expects), "FAIL", "error" (the run itself failed), "skip" (the reason is on a
// SKIP line) or "" (the scenario is not written for that implementation, or another shard ran it).
std::string conformance_matrix(const std::vector<ScenarioResult>& results);

// Each failed run's line and its failure_excerpt (failure_excerpt.h), indented. "" when nothing failed.
std::string failure_excerpts(const std::vector<ScenarioResult>& results);

}  // namespace gilsan
