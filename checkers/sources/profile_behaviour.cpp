#include "checkers/sources/profile_behaviour.h"

#include "harness/driver/install_layout.h"

#include <cstdlib>
#include <stdexcept>

namespace gilsan::checkers {

DriverBehaviour behaviour_from_profile(std::shared_ptr<const DriverProfile> profile) {
  DriverBehaviour behaviour;
  behaviour.blocks_while_host_function_runs = [profile](std::string_view entry_point) {
    const auto found = profile->while_host_function_runs.find(std::string(entry_point));
    return found != profile->while_host_function_runs.end() &&
           found->second == OutsideBehaviour::Blocks;
  };
  behaviour.refused_in_host_function = [profile](std::string_view entry_point) {
    const auto found = profile->inside_host_function.find(std::string(entry_point));
    return found != profile->inside_host_function.end() &&
           found->second == InsideBehaviour::NotPermitted;
  };
  return behaviour;
}

std::string profile_path_for_sources() {
  if (const char* path = std::getenv("GILSAN_PROFILE"); path != nullptr && *path != '\0') {
    return path;
  }
  return shipped_profile_path(GILSAN_SHIPPED_PROFILE);
}

std::shared_ptr<const DriverProfile> load_profile_for_sources() {
  return std::make_shared<const DriverProfile>(load_driver_profile(profile_path_for_sources()));
}

}  // namespace gilsan::checkers
