// A suite's results as JSON (gilsan suite --json FILE; schema gilsan-suite-results/1, docs/runner.md):
// one record per scenario with its expectation, outcome and status, for tools that compare runs (the
// sim/real parity check, CI dashboards).
#pragma once

#include <string>
#include <vector>

#include "harness/runner/scenario_run.h"

namespace gilsan {

std::string suite_results_json(const std::vector<ScenarioResult>& results, const RunSettings& settings,
                               double total_seconds);

}  // namespace gilsan
