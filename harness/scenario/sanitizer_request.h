// What the parent checks of a sanitized run before it starts one (docs/runner.md, "The sanitizer"):
// the caller's GILSAN_OPTIONS and a scenario's suppressions file, so that a typo is one usage error
// naming the file and line rather than a failed child per scenario. The child reads the same files
// again when its sanitizer starts (harness/child/scenario_sanitizer.h).
#pragma once

#include <optional>
#include <string>

#include "harness/scenario/scenario_header.h"

namespace gilsan {

// One line saying what is wrong with the caller's GILSAN_OPTIONS, if anything; in a build without
// the checkers, that the sanitizer is not part of it.
std::optional<std::string> sanitizer_options_error();

// Where a scenario's `suppressions = FILE` is: FILE beside the scenario.
std::string scenario_suppressions_path(const std::string& scenario, const std::string& file);

// The scenario's suppressions file parsed now: a bad line is a ScenarioInputError naming both files
// and the line.
void check_scenario_suppressions(const std::string& scenario, const ScenarioHeader& header);

}  // namespace gilsan
