// Finding and loading the CUDA runtime (libcudart) for the probe's runtime cases.
//
// Two kinds of case drive libcudart rather than the driver: the runtime comparison
// (runtime_comparison.h) and the runtime's first kernel launch (runtime_first_launch.h). Both dlopen
// the same library the same way, the one --cudart names or else the first of the defaults that loads,
// and each resolves its own entry points in it; this is that one search, so the two always agree on
// which runtime they measure and report a missing one in the same words.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/profile/entry_point_resolver.h"

namespace gilsan::probe {

// Where the child looks for libcudart when --cudart does not say, in order.
const std::vector<std::string>& default_runtime_libraries();

// dlopens `library`, or when it is "" the first of default_runtime_libraries() that loads, and hands
// `resolve_entry_points` a resolver over its symbols to fill the caller's function pointers. The
// library is never closed: the runtime keeps threads of its own, and a case uses it until its process
// ends. Returns the path that loaded. Throws SetupFailure "no-runtime" when none loads, and
// "no-symbol" (naming every missing entry point) when the one that loaded lacks any of them.
std::string load_cudart(const std::string& library,
                        const std::function<void(EntryPointResolver&)>& resolve_entry_points);

}  // namespace gilsan::probe
