// A driver profile (harness/profile/driver_profile.h): any text parses or is a DriverProfileError of one
// line naming the file, and what parses survives its own canonical JSON unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "harness/profile/driver_profile.h"
#include "tests/fuzz/fuzz_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gilsan::DriverProfile profile;
  try {
    profile = gilsan::parse_driver_profile(gilsan::fuzz::as_text(data, size), "fuzz.json");
  } catch (const gilsan::DriverProfileError& error) {
    gilsan::fuzz::require_one_line_naming(error, "fuzz.json:");
    return 0;
  }
  const gilsan::DriverProfile again = gilsan::parse_driver_profile(gilsan::to_json(profile), "canonical.json");
  if (!again.same_behaviour(profile)) {
    std::fprintf(stderr, "fuzz rule broken: the profile's canonical JSON reads back differently\n");
    std::abort();
  }
  return 0;
}
