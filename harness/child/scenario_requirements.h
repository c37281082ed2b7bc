// Whether a scenario can run here: the driver it allows and the things it needs.
// Evaluated in the scenario child, where the chosen Python environment and driver are.
#pragma once

#include <optional>
#include <string>

#include "harness/child/embedded_python.h"
#include "harness/scenario/scenario_header.h"

namespace gilsan {

// The reason to skip the scenario, or nullopt when it can run. `driver_request` is auto, real or sim;
// `auto` is resolved (through the driver table) only when the answer depends on it.
std::optional<std::string> unmet_requirement(const ScenarioHeader& header, const std::string& driver_request,
                                             EmbeddedPython& python);

}  // namespace gilsan
