#include "harness/profile/absent_entry_points.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <set>

#include "harness/text/printable.h"

namespace gilsan {
namespace {

// Whether `variable` names the same file as `path` (same inode: the runner hands its children the
// absolute path of a --profile the user may have given relative).
bool variable_names(const char* variable, const std::string& path) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') return false;
  std::error_code error;
  return value == path || std::filesystem::equivalent(value, path, error);
}

// The starter of this process read `path` first and said what it lacks (see the header).
bool starter_has_said(const std::string& path) {
  // GILSAN_RUN_MARKER: harness/runner/run_marker.h, which this library, below the runner, cannot include.
  const char* run_marker = std::getenv("GILSAN_RUN_MARKER");
  if (run_marker != nullptr && *run_marker != '\0' && variable_names("GILSAN_SIM_PROFILE", path)) return true;
  return variable_names(kProfileWarnedVariable, path);
}

}  // namespace

void complete_call_tables(const ProfileSourceText& src, DriverProfile& profile) {
  constexpr const char* kInside = "inside_host_function";
  constexpr const char* kOutside = "while_host_function_runs";
  std::vector<std::string> absent;
  for (const std::string& entry : profiled_entry_points()) {
    const bool inside = profile.inside_host_function.contains(entry);
    const bool outside = profile.while_host_function_runs.contains(entry);
    if (inside && outside) continue;
    if (inside != outside) {
      // Half an entry point is a damaged or hand-edited file, not an older one.
      const char* missing_in = inside ? kOutside : kInside;
      src.fail_at_key(missing_in, "", "missing entry point '" + entry + "' in " + missing_in + " (" +
                                          (inside ? kInside : kOutside) +
                                          " lists it: a profile lists an entry point in both tables or in neither)");
    }
    profile.inside_host_function[entry] = kUnmeasuredInside;
    profile.while_host_function_runs[entry] = kUnmeasuredOutside;
    absent.push_back(entry);
  }
  std::sort(absent.begin(), absent.end());
  profile.absent_entry_points = std::move(absent);
}

std::vector<std::string> absent_entry_point_cells(const DriverProfile& profile) {
  std::vector<std::string> cells;
  std::vector<std::string> tables = {"inside_host_function", "while_host_function_runs"};
  // Measured EAGER tables say nothing of an entry point the profile lacks: its EAGER answers are the
  // unmeasured ones too.
  if (profile.eager_call_overrides)
    tables.insert(tables.end(), {"eager_call_overrides.inside_host_function", "eager_call_overrides.while_host_function_runs"});
  for (const std::string& entry : profile.absent_entry_points)
    for (const std::string& table : tables) cells.push_back(table + "." + entry);
  return cells;
}

std::string absent_entry_points_warning(const DriverProfile& profile, const std::string& source) {
  const std::vector<std::string>& absent = profile.absent_entry_points;
  if (absent.empty()) return "";
  std::string names;
  for (const std::string& entry : absent) names += (names.empty() ? "" : ", ") + entry;
  return printable("gilsan: " + source + ": " + std::to_string(absent.size()) + " entry point" +
                   (absent.size() == 1 ? "" : "s") + " unmeasured (not in this profile): " + names);
}

void warn_about_absent_entry_points(const DriverProfile& profile, const std::string& path) {
  if (profile.absent_entry_points.empty() || starter_has_said(path)) return;
  // Once per file, however it is named: the runner reads --profile as given, then by its absolute path.
  std::error_code error;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(path, error);
  const std::string key = error ? path : canonical.string();
  static std::mutex mutex;
  static std::set<std::string>* said = new std::set<std::string>();  // never destroyed: read until exit
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (!said->insert(key).second) return;
  }
  std::cerr << absent_entry_points_warning(profile, path) + "\n" << std::flush;
}

}  // namespace gilsan
