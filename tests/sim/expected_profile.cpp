#include "tests/sim/expected_profile.h"

#include <cstdlib>
#include <memory>

#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

std::string g_path;

}  // namespace

void set_expected_profile_path(const std::string& path) { g_path = path; }

const std::string& expected_profile_path() {
  if (g_path.empty()) {
    const char* sim_profile = std::getenv("GILSAN_SIM_PROFILE");
    g_path = on_sim() && sim_profile != nullptr && *sim_profile != '\0' ? sim_profile : GILSAN_DEFAULT_PROFILE_PATH;
  }
  return g_path;
}

const DriverProfile& expected_profile() {
  static const auto* profile = new DriverProfile(load_driver_profile(expected_profile_path()));
  return *profile;
}

}  // namespace gilsan::test
