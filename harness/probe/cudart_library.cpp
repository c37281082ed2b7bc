#include "harness/probe/cudart_library.h"

#include <dlfcn.h>

#include "harness/probe/probe_fixture.h"

namespace gilsan::probe {

const std::vector<std::string>& default_runtime_libraries() {
  static const std::vector<std::string> libraries = {"libcudart.so.13", "libcudart.so.12",
                                                     "/usr/local/cuda/lib64/libcudart.so.13",
                                                     "/usr/local/cuda/lib64/libcudart.so.12"};
  return libraries;
}

std::string load_cudart(const std::string& library,
                        const std::function<void(EntryPointResolver&)>& resolve_entry_points) {
  const std::vector<std::string> candidates =
      library.empty() ? default_runtime_libraries() : std::vector<std::string>{library};
  std::string tried;
  for (const std::string& path : candidates) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed (cudart_library.h)
    if (handle == nullptr) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    EntryPointResolver resolver([handle](const char* symbol) { return dlsym(handle, symbol); });
    resolve_entry_points(resolver);
    if (!resolver.missing().empty())
      throw SetupFailure("dlsym " + resolver.missing_list() + " in " + path, CUDA_ERROR_NOT_FOUND, "no-symbol");
    return path;
  }
  throw SetupFailure("dlopen libcudart (tried " + tried + ")", CUDA_ERROR_NOT_FOUND, "no-runtime");
}

}  // namespace gilsan::probe
