// SARIF 2.1.0 for code scanning (GitHub's upload-sarif, other SARIF viewers): `gilsan run`, `suite` and
// `merge` write it with --sarif FILE. Each run that did not meet its expectation gives one result per
// report its sanitizer made (ruleId: the checker) and one for its outcome unless a sanitizer report
// already is the outcome (ruleId: the deadlock class, the checker, or the outcome's kind). Results sit
// on the scenario's file, at the scenario's line where a stack names one, else at its header (line 1).
// A lock-order cycle's edges become a code flow, one thread flow per edge; other stacks become related
// locations. Rules carry the `gilsan explain` page of their name (docs/explain/) as their help.
#pragma once

#include <string>
#include <vector>

#include "harness/runner/scenario_run.h"

namespace gilsan {

// The sarif-schema-2.1.0 document, as JSON text.
std::string sarif_log(const std::vector<ScenarioResult>& results);

}  // namespace gilsan
