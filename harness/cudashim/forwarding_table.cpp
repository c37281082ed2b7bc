#include "harness/cudashim/forwarding_table.h"

#include <cstdio>
#include <iterator>
#include <unordered_map>

#include "harness/cudashim/observed_call.h"
#include "harness/cudashim/real_driver.h"

namespace {

constexpr const char* kForwardedNames[] = {
#include "forwarded_names.inc"
};

}  // namespace

// Read by the generated stubs (forwarders.S): `jmp *gilsan_shim_slots+8*i(%rip)`.
extern "C" __attribute__((visibility("hidden"))) void* gilsan_shim_slots[std::size(kForwardedNames)];
void* gilsan_shim_slots[std::size(kForwardedNames)];

namespace gilsan::cudashim {
namespace {

// Filled once, before any entry point can be called; read-only afterwards.
std::unordered_map<void*, void*>& wrappers_by_real_function() {
  static auto* const map = new std::unordered_map<void*, void*>();
  return *map;
}

// Runs when the library is loaded, before dlopen returns it to anyone: every slot must be valid by
// the time the first entry point is called.
__attribute__((constructor(101))) void fill_slots() {
  const RealDriver& real = real_driver();
  if (real.handle == nullptr) {
    std::fprintf(stderr, "gilsan: forwarding libcuda.so.1: no real driver: %s\n", real.error.c_str());
  }
  auto& wrappers = wrappers_by_real_function();
  for (std::size_t i = 0; i < std::size(kForwardedNames); ++i) {
    void* function = real_function(kForwardedNames[i]);
    const WrappedEntryPoint* wrapped = wrapped_entry_point(kForwardedNames[i]);
    if (wrapped == nullptr) {
      gilsan_shim_slots[i] = function != nullptr ? function : unavailable_function();
      continue;
    }
    if (wrapped->real != nullptr) *wrapped->real = function != nullptr ? function : unavailable_function();
    if (wrapped->name_slot != nullptr) *wrapped->name_slot = wrapped->entry_point;
    if (function != nullptr) wrappers.emplace(function, wrapped->wrapper);
    gilsan_shim_slots[i] = wrapped->wrapper;
  }
}

}  // namespace

void* wrapper_for_real_function(void* function) {
  const auto& wrappers = wrappers_by_real_function();
  auto found = wrappers.find(function);
  return found != wrappers.end() ? found->second : function;
}

}  // namespace gilsan::cudashim
