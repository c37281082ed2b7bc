#include "harness/runner/native_locks_preload.h"

#include <link.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "harness/driver/install_layout.h"

namespace gilsan {
namespace {

std::string chosen_or_found(const char* variable, std::string_view installed_name, const char* build_tree_path) {
  if (const char* chosen = std::getenv(variable); chosen != nullptr && *chosen != '\0') return chosen;
  if (std::string installed = installed_file(installed_library_folder() + "/" + std::string(installed_name));
      !installed.empty())
    return installed;
  if (build_tree_path != nullptr && std::filesystem::exists(build_tree_path)) return build_tree_path;
  return {};
}

// The sanitizer runtime this gilsan was built with, when it is a shared library: a preloaded library
// ahead of it makes the child's runtime refuse to start ("ASan runtime does not come first").
std::string own_sanitizer_runtime() {
  std::string found;
  ::dl_iterate_phdr(
      [](struct dl_phdr_info* info, std::size_t, void* data) {
        const std::string_view path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const std::string_view name = path.substr(path.find_last_of('/') + 1);
        if (name.starts_with("libasan.so") || name.starts_with("libtsan.so")) {
          *static_cast<std::string*>(data) = std::string(path);
          return 1;
        }
        return 0;
      },
      &found);
  return found;
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
  std::string preload;
  if (const std::string runtime = own_sanitizer_runtime(); !runtime.empty()) preload = runtime + ":";
  preload += interposer;
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
