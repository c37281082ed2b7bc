#include "checkers/sources/code_address.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "checkers/core/handles.h"
#include "checkers/sources/native_stack.h"

namespace gilsan::checkers {

CodeAddressNames describe_code_address(const void* address) {
  const auto value = reinterpret_cast<std::uintptr_t>(address);
  CodeAddressNames names{hex(value), "unknown"};
  Dl_info info{};
  if (address == nullptr || ::dladdr(address, &info) == 0) return names;
  if (info.dli_fname != nullptr) {
    std::string_view path = info.dli_fname;
    const auto slash = path.rfind('/');
    names.implementation = std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
  }
  if (info.dli_sname != nullptr) {
    // Demangled, so that a suppression can name a C++ function as people write it.
    int status = -1;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    names.callable = status == 0 && demangled != nullptr ? demangled : info.dli_sname;
    std::free(demangled);
    const auto offset = value - reinterpret_cast<std::uintptr_t>(info.dli_saddr);
    if (offset != 0) names.callable += "+" + hex(offset);
  } else if (std::string symbol = static_symbol_name(address); !symbol.empty()) {
    // A function of an executable that exports nothing: dladdr sees only dynamic symbols.
    names.callable = std::move(symbol);
  }
  return names;
}

HostFunctionKind guess_host_function_kind(const CodeAddressNames& names) {
  const std::string_view object = names.implementation;
  const bool runs_python = object == "unknown" || object.find(".cpython-") != std::string_view::npos ||
                           object.ends_with(".abi3.so") || object.starts_with("libpython") ||
                           object.starts_with("libffi");
  return runs_python ? HostFunctionKind::python : HostFunctionKind::native;
}

}  // namespace gilsan::checkers
