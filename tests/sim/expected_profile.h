// The driver profile the per-entry-point tests hold the driver to.
#pragma once

#include <string>

#include "harness/profile/driver_profile.h"

namespace gilsan::test {

// "" picks the default: on the sim, the profile the sim is using (gilsanSimProfileJson); on the real
// driver, the shipped default profile (GILSAN_DEFAULT_PROFILE).
void set_expected_profile_path(const std::string& path);
// Loaded on first use; throws DriverProfileError when the file is malformed.
const DriverProfile& expected_profile();
const std::string& expected_profile_path();

}  // namespace gilsan::test
