// The behavioural difference between two driver profiles: every topology and table cell whose value
// changed, one line each, e.g. "inside_host_function.cuMemAlloc: not-permitted -> allowed".
// Origins and `unmeasured` are not cells: two drivers always differ in origin.
#pragma once

#include <string>
#include <vector>

#include "harness/profile/driver_profile.h"

namespace gilsan::probe {

std::vector<std::string> diff_profiles(const DriverProfile& before, const DriverProfile& after);

}  // namespace gilsan::probe
