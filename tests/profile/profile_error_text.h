// The message parse_driver_profile throws for a profile's text, shared by the profile tests.
#pragma once

#include <string>

#include "harness/profile/driver_profile.h"

namespace gilsan {

// The error for `text` read as "test.json", or "" when it parses.
inline std::string error_for(const std::string& text) {
  try {
    parse_driver_profile(text, "test.json");
  } catch (const DriverProfileError& error) {
    return error.what();
  }
  return "";
}

}  // namespace gilsan
