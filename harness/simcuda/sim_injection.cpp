#include "harness/simcuda/sim_injection.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace gilsan::sim {

void load_injection_library() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* path = std::getenv("CUDA_INJECTION64_PATH");
    if (path == nullptr || *path == '\0') return;
    void* library = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);  // kept loaded: it lives as long as the driver
    if (library == nullptr) {
      const char* why = ::dlerror();
      std::fprintf(stderr, "gilsan simulated driver: CUDA_INJECTION64_PATH=%s: %s\n", path,
                   why != nullptr ? why : "cannot be loaded");
      return;
    }
    using InitializeInjection = int (*)();
    auto initialize = reinterpret_cast<InitializeInjection>(::dlsym(library, "InitializeInjection"));
    if (initialize == nullptr) {
      std::fprintf(stderr, "gilsan simulated driver: CUDA_INJECTION64_PATH=%s has no InitializeInjection\n", path);
      return;
    }
    initialize();
  });
}

}  // namespace gilsan::sim
