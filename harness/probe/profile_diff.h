// The behavioural difference between two driver profiles: every topology and table cell whose value
// changed, one line each, e.g. "inside_host_function.cuMemAlloc: not-permitted -> allowed".
// Origins and `unmeasured` are not cells: two drivers always differ in origin.
// An entry point that one profile's file lists and the other's does not (written before the driver
// table had it) is one line, "new entry point cuDeviceGetUuid: inside_host_function not-permitted,
// while_host_function_runs returns" (or "removed entry point ..."), with the answers of the profile
// that lists it; its cells are not compared, the other profile's being unmeasured.
#pragma once

#include <string>
#include <vector>

#include "harness/profile/driver_profile.h"

namespace gilsan::probe {

std::vector<std::string> diff_profiles(const DriverProfile& before, const DriverProfile& after);

}  // namespace gilsan::probe
