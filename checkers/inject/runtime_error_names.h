// The CUDA runtime's names for its error codes (cudaError_t), for cuda-call-in-host-function
// reports of runtime calls. The runtime is not ours to load: cudaGetErrorName is looked up in the
// libcudart the application already loaded, the first time a name is wanted (a runtime callback
// only comes once the runtime is there). When none can be asked (CuPy links the runtime statically),
// the names come from a table generated at build time from the toolkit's driver_types.h.
#pragma once

#include <string_view>

namespace gilsan::checkers::inject {

// "cudaErrorNotPermitted" for 800, or "" when neither a loaded runtime nor the table knows it.
// Thread-safe.
std::string_view runtime_error_name(int result);

// The generated table alone: "cudaSuccess" for 0, "" for a code the build's toolkit did not name.
std::string_view built_in_runtime_error_name(int result);

}  // namespace gilsan::checkers::inject
