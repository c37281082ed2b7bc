#include "checkers/sources/profile_behaviour.h"

#include "harness/driver/install_layout.h"

#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <stdexcept>

namespace gilsan::checkers {

DriverBehaviour behaviour_from_profile(std::shared_ptr<const DriverProfile> profile, ModuleLoading mode) {
  // Looked up on every driver call: the mode's answers are taken once.
  auto blocking = std::make_shared<std::set<std::string, std::less<>>>();
  auto refused = std::make_shared<std::set<std::string, std::less<>>>();
  for (const auto& [entry, behaviour] : profile->while_host_function_runs)
    if (profile->outside(mode, entry) == OutsideBehaviour::Blocks) blocking->insert(entry);
  for (const auto& [entry, behaviour] : profile->inside_host_function)
    if (profile->inside(mode, entry) == InsideBehaviour::NotPermitted) refused->insert(entry);
  DriverBehaviour behaviour;
  behaviour.blocks_while_host_function_runs = [blocking](std::string_view entry_point) {
    return blocking->contains(entry_point);
  };
  behaviour.refused_in_host_function = [refused](std::string_view entry_point) { return refused->contains(entry_point); };
  return behaviour;
}

DriverBehaviour behaviour_from_profile(std::shared_ptr<const DriverProfile> profile) {
  return behaviour_from_profile(std::move(profile), module_loading_from_environment(std::getenv("CUDA_MODULE_LOADING")));
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
