// JUnit XML for CI systems: one <testcase> per scenario, <failure> with the expected and actual
// outcome, <skipped> with the reason, and the scenario's stdout and stderr.
#pragma once

#include <string>
#include <vector>

#include "harness/runner/scenario_run.h"

namespace gilsan {

std::string junit_xml(const std::vector<ScenarioResult>& results, double total_seconds);

// Escapes text for XML character data and attributes, dropping characters XML 1.0 cannot carry.
std::string xml_escaped(std::string_view text);

}  // namespace gilsan
