// GitHub Actions annotations for a suite's failures: with GITHUB_ACTIONS=true (set by Actions in every
// job), `gilsan suite` and `gilsan merge` print one `::error` workflow command per run that did not meet
// its expectation, and the Actions UI shows it on the scenario's file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/runner/scenario_run.h"

namespace gilsan {

// Whether the environment asks for them (GITHUB_ACTIONS is "true").
bool github_actions_requested();

// "::error file=S,line=1,title=gilsan: expected X, got Y::S [impl]: expected X, got Y" per failed or
// harness-error run, with the escapes the workflow-command syntax needs; empty when all matched.
std::string github_annotations(const std::vector<ScenarioResult>& results);

// The escaping of a workflow command's message (%, CR, LF) and of a property's value (also : and ,).
std::string escape_annotation_message(std::string_view text);
std::string escape_annotation_property(std::string_view text);

}  // namespace gilsan
