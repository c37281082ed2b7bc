// SARIF 2.1.0 for code scanning (GitHub's upload-sarif, other SARIF viewers): `gilsan run`, `suite` and
// `merge` write it with --sarif FILE. Each run that did not meet its expectation gives one result per
// report its sanitizer made (ruleId: the checker) and one for its outcome unless a sanitizer report
// already is the outcome (ruleId: the deadlock class, the checker, or the outcome's kind). Results sit
// on the scenario's file, at the line the report names (reported_line.h: the blocking call, the raise,
// a sanitizer report's first frame in the scenario), else at its header (line 1). URIs are relative to
// a root (--sarif-root; default: the git work tree above the working folder, else the working folder),
// named SRCROOT in originalUriBaseIds, so that code scanning maps them to the repository; a scenario
// outside the root gets an absolute file URI.
// A lock-order cycle's edges become a code flow, one thread flow per edge; other stacks become related
// locations. Rules carry the `gilsan explain` page of their name (docs/explain/) as their help.
#pragma once

#include <string>
#include <vector>

#include "harness/runner/scenario_run.h"

namespace gilsan {

// The folder SARIF URIs are relative to when --sarif-root is not given: the nearest folder at or above
// the working folder that holds a .git entry (git's top level), else the working folder. Absolute.
std::string default_sarif_root();

// The sarif-schema-2.1.0 document, as JSON text; `root` is an absolute folder.
std::string sarif_log(const std::vector<ScenarioResult>& results, const std::string& root);

}  // namespace gilsan
