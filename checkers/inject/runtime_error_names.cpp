#include "checkers/inject/runtime_error_names.h"

#include <dlfcn.h>

#include <algorithm>
#include <iterator>
#include <mutex>
#include <vector>

#include "checkers/inject/handler_thread_state.h"

namespace gilsan::checkers::inject {
namespace {

using GetErrorName = const char* (*)(int);

GetErrorName find_get_error_name() {
  // A runtime loaded RTLD_LOCAL (a Python extension's) is not in the global scope: ask each
  // runtime major version by name first, then the global scope (a program linked with -lcudart).
  for (const char* library : {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"}) {
    if (void* handle = ::dlopen(library, RTLD_NOW | RTLD_NOLOAD)) {
      void* symbol = ::dlsym(handle, "cudaGetErrorName");
      ::dlclose(handle);  // only drops the reference NOLOAD added; the application keeps its own
      if (symbol != nullptr) return reinterpret_cast<GetErrorName>(symbol);
    }
  }
  return reinterpret_cast<GetErrorName>(::dlsym(RTLD_DEFAULT, "cudaGetErrorName"));
}

struct NamedError {
  int code;
  const char* name;
};

// Sorted by code below; the header lists them in order, but that is not relied on.
constexpr NamedError kGeneratedNames[] =
#include "runtime_error_table.inc"
    ;

}  // namespace

std::string_view built_in_runtime_error_name(int result) {
  static const std::vector<NamedError> by_code = [] {
    std::vector<NamedError> sorted(std::begin(kGeneratedNames), std::end(kGeneratedNames));
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const NamedError& a, const NamedError& b) { return a.code < b.code; });
    return sorted;
  }();
  const auto found = std::lower_bound(by_code.begin(), by_code.end(), result,
                                      [](const NamedError& entry, int code) { return entry.code < code; });
  return found != by_code.end() && found->code == result ? found->name : "";
}

std::string_view runtime_error_name(int result) {
  static std::once_flag looked_up;
  static GetErrorName get_error_name = nullptr;
  std::call_once(looked_up, [] { get_error_name = find_get_error_name(); });
  if (get_error_name == nullptr) return built_in_runtime_error_name(result);
  QuietScope quiet;  // cudaGetErrorName is itself a runtime call: not the application's
  const char* name = get_error_name(result);
  return name != nullptr ? name : built_in_runtime_error_name(result);
}

}  // namespace gilsan::checkers::inject
