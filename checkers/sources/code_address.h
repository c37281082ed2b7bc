// Names for a host function the source only knows by its code address (the injection library and
// the sim source see a CUhostFn pointer): the symbol and the shared object that defines it, found
// with dladdr, else (an executable's own functions) from the object's ELF .symtab. The object's base name is what reports and suppressions call the implementation
// ("libcupy_backends.so"); the symbol is the callable.
#pragma once

#include <string>

#include "checkers/core/handles.h"

namespace gilsan::checkers {

struct CodeAddressNames {
  std::string callable;        // "on_done+0x12" (demangled: "ns::on_done(void*)") or "0x7f12345678" when the symbol is unknown
  std::string implementation;  // "libfoo.so", or "unknown" when no object contains the address
};

CodeAddressNames describe_code_address(const void* address);

// The kind a host function at that code most likely is, from where its code lives: python for code
// in a CPython extension module ("*.cpython-*.so", "*.abi3.so", libpython) or in a libffi closure
// or anonymous memory (a ctypes CFUNCTYPE, a JIT): such code runs Python and takes the GIL. native
// for code in any other object. A guess from the outside, stated in docs/sanitizer.md.
HostFunctionKind guess_host_function_kind(const CodeAddressNames& names);

}  // namespace gilsan::checkers
