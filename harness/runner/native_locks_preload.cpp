#include "harness/runner/native_locks_preload.h"

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "harness/driver/install_layout.h"

namespace gilsan {
namespace {

// $VARIABLE, else the installed file, else this build's; "" when none exists.
std::string chosen_or_found(const char* variable, std::string_view installed_name, const char* build_tree_path) {
  if (const char* chosen = std::getenv(variable); chosen != nullptr && *chosen != '\0') return chosen;
  std::string found = installed_or(installed_library_folder() + "/" + std::string(installed_name),
                                   build_tree_path != nullptr ? build_tree_path : "");
  return !found.empty() && std::filesystem::exists(found) ? found : std::string();
}

}  // namespace

std::string native_locks_library_path() {
#ifdef GILSAN_NATIVE_LOCKS_LIBRARY_PATH
  return chosen_or_found("GILSAN_NATIVE_LOCKS_LIBRARY", "libgilsan_native_locks.so", GILSAN_NATIVE_LOCKS_LIBRARY_PATH);
#else
  return chosen_or_found("GILSAN_NATIVE_LOCKS_LIBRARY", "libgilsan_native_locks.so", nullptr);
#endif
}

std::optional<std::string> child_preload(const char* inherited) {
  const std::string interposer = native_locks_library_path();
  if (interposer.empty()) return std::nullopt;
  std::string preload = interposer;
  if (inherited != nullptr && *inherited != '\0') preload += ":" + std::string(inherited);
  return preload;
}

std::string native_scenario_library_path() {
#ifdef GILSAN_NATIVE_SCENARIO_LIBRARY_PATH
  return chosen_or_found("GILSAN_NATIVE_SCENARIO_LIBRARY", "gilsan/libgilsan_native_scenario.so",
                         GILSAN_NATIVE_SCENARIO_LIBRARY_PATH);
#else
  return chosen_or_found("GILSAN_NATIVE_SCENARIO_LIBRARY", "gilsan/libgilsan_native_scenario.so", nullptr);
#endif
}

}  // namespace gilsan
