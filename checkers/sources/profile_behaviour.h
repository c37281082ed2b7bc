// The DriverBehaviour predicates the Sanitizer needs, answered from a driver profile (the JSON the
// simulated driver loads and `gilsan probe` measures), so that no source hard-codes which calls the
// driver blocks or refuses around host functions.
#pragma once

#include <memory>
#include <string>

#include "checkers/core/events.h"
#include "harness/profile/driver_profile.h"

namespace gilsan::checkers {

// blocks_while_host_function_runs: while_host_function_runs[entry] is "blocks";
// refused_in_host_function: inside_host_function[entry] is "not-permitted"; both the tables of the
// loading mode (DriverProfile::outside/inside(mode, ...)). An entry point the profile does not list
// answers false to both.
DriverBehaviour behaviour_from_profile(std::shared_ptr<const DriverProfile> profile, ModuleLoading mode);
// The same under the mode the driver of this process runs in: CUDA_MODULE_LOADING, which the driver
// reads at cuInit (a sanitizer in the process sees the value the driver saw).
DriverBehaviour behaviour_from_profile(std::shared_ptr<const DriverProfile> profile);

// The profile an event source loads: $GILSAN_PROFILE when set, else the profile shipped with this
// build (profiles/h200-580.159.04.json, path baked in at build time).
std::string profile_path_for_sources();

// Loads profile_path_for_sources(). Throws DriverProfileError ("FILE:LINE: message").
std::shared_ptr<const DriverProfile> load_profile_for_sources();

}  // namespace gilsan::checkers
