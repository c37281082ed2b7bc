// Implementation identity as data: which host_launch implementation (CuPy, cuda.core, ctypes...) a
// piece of code belongs to and whether its host functions take the GIL, from the object that contains
// the code, by the rows of implementations.inc. code_address.h applies it to a code address.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "checkers/core/handles.h"

namespace gilsan::checkers {

struct ImplementationObject {
  std::string_view object_pattern;  // "*/cupy_backends/*", "libffi*", "[anonymous]"
  std::string_view implementation;  // "cupy"
  HostFunctionKind kind;            // python: its trampoline takes the GIL; native: it never does
};

namespace implementations_detail {
enum class Trampoline { no_gil, takes_gil };
constexpr HostFunctionKind kind_of(Trampoline trampoline) {
  return trampoline == Trampoline::takes_gil ? HostFunctionKind::python : HostFunctionKind::native;
}
}  // namespace implementations_detail

// Every row, in order: the first that matches wins.
inline constexpr std::array kImplementationObjects = {
#define GILSAN_IMPLEMENTATION_OBJECT(object_pattern, implementation, trampoline) \
  ImplementationObject{object_pattern, implementation,                          \
                       implementations_detail::kind_of(implementations_detail::Trampoline::trampoline)},
#include "checkers/sources/implementations.inc"
#undef GILSAN_IMPLEMENTATION_OBJECT
};

// What the rows call code that is in no mapped object (dladdr finds none).
inline constexpr std::string_view kAnonymousCode = "[anonymous]";

struct ImplementationIdentity {
  std::string implementation;  // the row's name; without a row, the object's base name
  HostFunctionKind kind = HostFunctionKind::native;
};

// "runtime.cpython-312-x86_64-linux-gnu.so" of ".../cupy_backends/cuda/api/runtime.cpython-312-x86_64-linux-gnu.so".
std::string_view object_base_name(std::string_view object_path);

// The implementation of code in `object_path` (dladdr's dli_fname: a path, or only a base name), or
// in no object when it is empty. No row matching: native, named by the base name. Pure (no dladdr),
// so that tests can feed it realistic paths.
ImplementationIdentity implementation_of_object(std::string_view object_path);

}  // namespace gilsan::checkers
