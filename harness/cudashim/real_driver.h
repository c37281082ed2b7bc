// The real CUDA driver behind the forwarding one: found, loaded once, and asked for its functions.
//
// The forwarding driver is itself named libcuda.so.1 and comes first on the library path, so the real
// one is loaded by absolute path: $GILSAN_REAL_LIBCUDA (the runner sets it to the libcuda.so.1 its own
// process would load), else the first libcuda.so.1 that is not this library in $LD_LIBRARY_PATH's
// folders and the usual system folders.
#pragma once

#include <string>

namespace gilsan::cudashim {

struct RealDriver {
  void* handle = nullptr;  // dlopen'd, never closed
  std::string path;
  std::string error;  // why no real driver could be loaded; "" when one was
};

// Loads on first use (the library's constructor makes that first use); thread-safe.
const RealDriver& real_driver();

// The real driver's exported function `name`, or nullptr (no real driver, or it lacks the function).
void* real_function(const char* name);

// What stands in for a function the real driver lacks: it returns CUDA_ERROR_NOT_FOUND, whatever it
// was called with (the x86-64 calling convention lets a caller pass arguments it does not read).
void* unavailable_function();

// `name` as a typed pointer, never null.
template <typename Function>
Function real_or_unavailable(const char* name) {
  void* function = real_function(name);
  return reinterpret_cast<Function>(function != nullptr ? function : unavailable_function());
}

}  // namespace gilsan::cudashim
