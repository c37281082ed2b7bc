// The message parse_driver_profile throws for a profile's text, and the line it should name; shared
// by the profile tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
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

// The 1-based line of the first occurrence of `needle` in `text` at or after `from`.
inline int line_of(const std::string& text, const std::string& needle, std::size_t from = 0) {
  auto at = text.find(needle, from);
  EXPECT_NE(std::string::npos, at) << needle;
  if (at == std::string::npos) return 0;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

}  // namespace gilsan
