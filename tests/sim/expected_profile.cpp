#include "tests/sim/expected_profile.h"

#include <dlfcn.h>

#include "tests/sim/test_support.h"

namespace gilsan::test {
namespace {

std::string g_path;  // from --profile

// The sim's own account of the profile it runs with (canonical JSON).
std::string sim_profile_json() {
  void* library = dlopen(driver().library_path().c_str(), RTLD_NOW | RTLD_NOLOAD);
  auto json = library ? reinterpret_cast<const char* (*)()>(dlsym(library, "gilsanSimProfileJson")) : nullptr;
  return json ? json() : "";
}

bool from_the_sim() { return g_path.empty() && on_sim(); }

}  // namespace

void set_expected_profile_path(const std::string& path) { g_path = path; }

const std::string& expected_profile_path() {
  static const std::string path = !g_path.empty() ? g_path
                                  : on_sim()       ? std::string(driver().sim.profile_source())
                                                   : std::string(GILSAN_DEFAULT_PROFILE_PATH);
  return path;
}

const DriverProfile& expected_profile() {
  static const auto* profile = from_the_sim()
                                   ? new DriverProfile(parse_driver_profile(sim_profile_json(), expected_profile_path()))
                                   : new DriverProfile(load_driver_profile(expected_profile_path()));
  return *profile;
}

}  // namespace gilsan::test
