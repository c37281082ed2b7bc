// Who a host function is when the source only knows its code address (the injection library and the
// sim source see a CUhostFn pointer): the callable, from the symbol dladdr finds (else, for an
// executable's own functions, from the object's ELF .symtab); the implementation and whether it takes
// the GIL, from the object that contains the code, by the table of implementations.inc.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "checkers/core/handles.h"

namespace gilsan::checkers {

struct HostFunctionIdentity {
  // What reports and suppressions call the implementation: the table's name ("cupy", "ctypes",
  // "cuda-bindings", "python"...), else the object's base name ("libmyapp.so"); "unknown" for a null
  // address.
  std::string implementation;
  // python when the implementation's trampoline takes the GIL, else native (implementations.inc).
  HostFunctionKind kind = HostFunctionKind::native;
  // "on_done+0x12" (demangled: "ns::on_done(void*)"); without a symbol, the object and the offset in
  // it ("runtime.cpython-312-x86_64-linux-gnu.so+0x1a2b0", the same in every run), or the address
  // ("0x7f12345678") when no object contains it.
  std::string callable;
  // The object that contains the code, as dladdr names it (usually a full path); "" when none does.
  std::string object;
};

// Not async-signal-safe (dladdr, ELF reading, allocation); the caller caches per address.
HostFunctionIdentity identify_host_function(const void* code_address);

// identify_host_function, asked once per address: dladdr and demangling cost microseconds, and a
// program launches the same few functions again and again. Each thread remembers its last answer, so a
// loop of launches of one function takes no lock. Thread-safe; answers stay valid as long as the cache.
class HostFunctionIdentities {
 public:
  HostFunctionIdentities();
  const HostFunctionIdentity& of(const void* code_address);

 private:
  // Tells this cache's entries in a thread's memory from those of an earlier cache at the same address.
  const std::uint64_t instance_;
  std::mutex mutex_;
  std::unordered_map<const void*, HostFunctionIdentity> identities_;  // never erased
};

}  // namespace gilsan::checkers
