#include "harness/driver/install_layout.h"

#include <dlfcn.h>
#include <link.h>

#include <filesystem>
#include <vector>

namespace gilsan {

namespace fs = std::filesystem;

namespace {

// The address dladdr is asked about: internal linkage, so each binary that links this code answers
// with its own file (an exported function could be bound to another binary's copy).
void marker() {}

fs::path containing_binary() {
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&marker), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
      map == nullptr)
    return {};
  // The executable's link map has an empty name; its file is /proc/self/exe (argv[0] may be relative
  // or a name found on PATH).
  std::error_code error;
  const fs::path file = (map->l_name == nullptr || *map->l_name == '\0') ? fs::path("/proc/self/exe") : fs::path(map->l_name);
  fs::path resolved = fs::canonical(file, error);
  return error ? fs::path() : resolved;
}

// The prefix when `folder` is PREFIX/below (below relative, e.g. "bin" or "lib/x86_64-linux-gnu").
fs::path prefix_above(const fs::path& folder, const fs::path& below) {
  fs::path prefix = folder;
  std::vector<fs::path> parts(below.begin(), below.end());
  for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
    if (prefix.filename() != *part) return {};
    prefix = prefix.parent_path();
  }
  return prefix;
}

}  // namespace

std::string installed_library_folder() { return GILSAN_INSTALL_LIBDIR; }
std::string installed_data_folder() { return GILSAN_INSTALL_DATADIR; }

std::string installed_file(std::string_view relative) {
  const fs::path binary = containing_binary();
  if (binary.empty()) return {};
  const fs::path folder = binary.parent_path();
  // The Python module lives two folders below LIBDIR (LIBDIR/gilsan/python).
  for (const char* below : {GILSAN_INSTALL_BINDIR, GILSAN_INSTALL_LIBDIR, GILSAN_INSTALL_PYTHONDIR}) {
    const fs::path prefix = prefix_above(folder, below);
    if (prefix.empty()) continue;
    std::error_code error;
    const fs::path candidate = prefix / fs::path(relative);
    if (fs::exists(candidate, error)) return candidate.string();
  }
  return {};
}

std::string installed_or(std::string_view relative, std::string build_tree_path) {
  std::string installed = installed_file(relative);
  return installed.empty() ? build_tree_path : installed;
}

std::string shipped_profile_path(const std::string& source_path) {
  const std::string relative = installed_data_folder() + "/profiles/" + fs::path(source_path).filename().string();
  return installed_or(relative, source_path);
}

}  // namespace gilsan
