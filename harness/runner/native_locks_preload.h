// What a run's child gets preloaded so that its native locks show on the board: the interposer
// libgilsan_native_locks.so (harness/nativelocks), before whatever the caller preloads. It is never
// built with a sanitizer, so a program gets no sanitizer runtime with it.
#pragma once

#include <optional>
#include <string>

namespace gilsan {

// $GILSAN_NATIVE_LOCKS_LIBRARY, else the installed library, else this build's; "" when none exists.
std::string native_locks_library_path();

// The child's LD_PRELOAD: the interposer (when it exists) ahead of `inherited` (the caller's
// LD_PRELOAD, unset: nullptr). nullopt: nothing to change.
std::optional<std::string> child_preload(const char* inherited);

// An ASan runtime refuses a preloaded library ahead of it ("ASan runtime does not come first"): gilsan's
// own in its ASan build, where the child starts as gilsan itself, or an instrumented program's. The
// interposer defines no allocation function, so the order does not matter to ASan: this option, put
// first in the child's ASAN_OPTIONS (the caller's own options after it win), says so.
inline constexpr const char* kPreloadAheadOfAsanOption = "verify_asan_link_order=0";

// The small C library the native scenarios (scenarios/native) load, for the child's environment as
// GILSAN_NATIVE_SCENARIO_LIBRARY; "" when this build or install has none.
std::string native_scenario_library_path();

}  // namespace gilsan
