// What a run's child gets preloaded so that its native locks show on the board: the interposer
// libgilsan_native_locks.so (harness/nativelocks), before whatever the caller preloads. In a gilsan
// built with a sanitizer, that sanitizer's runtime goes first, where it insists on being.
#pragma once

#include <optional>
#include <string>

namespace gilsan {

// $GILSAN_NATIVE_LOCKS_LIBRARY, else the installed library, else this build's; "" when none exists.
std::string native_locks_library_path();

// The child's LD_PRELOAD: the interposer (when it exists) ahead of `inherited` (the caller's
// LD_PRELOAD, unset: nullptr). nullopt: nothing to change.
std::optional<std::string> child_preload(const char* inherited);

// The small C library the native scenarios (scenarios/native) load, for the child's environment as
// GILSAN_NATIVE_SCENARIO_LIBRARY; "" when this build or install has none.
std::string native_scenario_library_path();

}  // namespace gilsan
