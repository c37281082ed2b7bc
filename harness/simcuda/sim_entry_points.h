// Entry points of the simulated driver, numbered in the order of driver_entry_points.h.
//
// The policy table (what a call does inside a host function, or while one runs) is indexed by these
// ids. `entry("cuMemAlloc")` is evaluated at compile time, so a misspelt name does not compile.
#pragma once

#include <cstddef>
#include <string_view>

#include "harness/driver/driver_entry_points.h"

namespace gilsan::sim {

inline constexpr std::string_view kEntryPointNames[] = {
#define GILSAN_SIM_ENTRY_NAME(name) #name,
    GILSAN_DRIVER_ENTRY_POINTS(GILSAN_SIM_ENTRY_NAME)
#undef GILSAN_SIM_ENTRY_NAME
};

inline constexpr std::size_t kEntryPointCount = std::size(kEntryPointNames);

struct EntryId {
  std::size_t index;
  constexpr std::string_view name() const { return kEntryPointNames[index]; }
};

// A name that is not in the list makes this non-constant, which is a compile error at the call site.
consteval EntryId entry(std::string_view name) {
  for (std::size_t i = 0; i < kEntryPointCount; ++i)
    if (kEntryPointNames[i] == name) return EntryId{i};
  throw "not an entry point of driver_entry_points.h";
}

}  // namespace gilsan::sim
