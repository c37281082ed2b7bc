// The names a conformance scenario's header may use: the implementations gilsan has adapters for and
// the capabilities a scenario may require of one. The adapters (harness/impl/gilsan_impl: BUILTIN in
// __init__.py, CAPABILITIES in base.py) are the Python side of the same lists;
// tests/runner/conformance_vocabulary_test.py keeps the two equal.
#pragma once

#include <algorithm>
#include <iterator>
#include <string_view>

namespace gilsan {

// In the order the suite runs them and the matrix shows them, when --impl names none.
inline constexpr std::string_view kBuiltinImplementations[] = {"reference", "cupy", "cuda-core", "cuda-bindings",
                                                               "numba-cuda"};

inline constexpr std::string_view kCapabilities[] = {"stream-launch", "graph-node", "capture", "native-function",
                                                     "borrowed-stream"};

inline bool is_builtin_implementation(std::string_view name) {
  return std::find(std::begin(kBuiltinImplementations), std::end(kBuiltinImplementations), name) !=
         std::end(kBuiltinImplementations);
}

// An adapter of one's own is named "package.module:Class".
inline bool is_implementation_name(std::string_view name) {
  return is_builtin_implementation(name) || (name.find(':') != std::string_view::npos && name.front() != ':');
}

inline bool is_capability(std::string_view name) {
  return std::find(std::begin(kCapabilities), std::end(kCapabilities), name) != std::end(kCapabilities);
}

}  // namespace gilsan
