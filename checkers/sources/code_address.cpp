#include "checkers/sources/code_address.h"

#include <atomic>

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>

#include "checkers/sources/implementations.h"
#include "checkers/sources/native_stack.h"

namespace gilsan::checkers {
namespace {

std::string demangled(const char* symbol) {
  // Demangled, so that a suppression can name a C++ function as people write it.
  int status = -1;
  char* text = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  std::string name = status == 0 && text != nullptr ? text : symbol;
  std::free(text);
  return name;
}

}  // namespace

HostFunctionIdentity identify_host_function(const void* code_address) {
  const auto value = reinterpret_cast<std::uintptr_t>(code_address);
  HostFunctionIdentity identity;
  identity.callable = hex(value);
  if (code_address == nullptr) {
    identity.implementation = "unknown";
    return identity;
  }
  Dl_info info{};
  const bool in_object = ::dladdr(code_address, &info) != 0 && info.dli_fname != nullptr;
  if (in_object) identity.object = info.dli_fname;
  ImplementationIdentity implementation = implementation_of_object(identity.object);
  identity.implementation = std::move(implementation.implementation);
  identity.kind = implementation.kind;
  if (!in_object) return identity;
  if (info.dli_sname != nullptr) {
    identity.callable = demangled(info.dli_sname);
    const auto offset = value - reinterpret_cast<std::uintptr_t>(info.dli_saddr);
    if (offset != 0) identity.callable += "+" + hex(offset);
  } else if (std::string symbol = static_symbol_name(code_address); !symbol.empty()) {
    // A function of an executable that exports nothing: dladdr sees only dynamic symbols.
    identity.callable = std::move(symbol);
  } else if (info.dli_fbase != nullptr) {
    // A stripped object: its offset names the function the same way in every run (no ASLR in it).
    identity.callable = std::string(object_base_name(identity.object)) + "+" +
                        hex(value - reinterpret_cast<std::uintptr_t>(info.dli_fbase));
  }
  return identity;
}

namespace {
std::atomic<std::uint64_t> g_identity_caches{0};
}  // namespace

HostFunctionIdentities::HostFunctionIdentities() : instance_(++g_identity_caches) {}

const HostFunctionIdentity& HostFunctionIdentities::of(const void* code_address) {
  struct Last {
    std::uint64_t cache = 0;
    const void* code_address = nullptr;
    const HostFunctionIdentity* identity = nullptr;
  };
  thread_local Last last;
  if (last.cache == instance_ && last.code_address == code_address) return *last.identity;
  std::lock_guard lock(mutex_);
  auto found = identities_.find(code_address);
  if (found == identities_.end())
    found = identities_.emplace(code_address, identify_host_function(code_address)).first;
  last = Last{instance_, code_address, &found->second};
  return found->second;
}

}  // namespace gilsan::checkers
