// load_inject_library LIBRARY: loads libgilsan_inject.so as the CUDA driver would (dlopen, then its
// InitializeInjection) in a process that has no libcuda loaded. The library must load with its
// CUPTI dependency resolved, export InitializeInjection, and decline with one line on stderr
// instead of crashing: it is only ever meant to start inside a driver's cuInit.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: load_inject_library LIBRARY\n");
    return 2;
  }
  void* library = ::dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "load_inject_library: %s\n", ::dlerror());
    return 1;
  }
  using Initialize = int (*)();
  auto initialize = reinterpret_cast<Initialize>(::dlsym(library, "InitializeInjection"));
  if (initialize == nullptr) {
    std::fprintf(stderr, "load_inject_library: %s exports no InitializeInjection\n", argv[1]);
    return 1;
  }
  const int started = initialize();
  std::printf("InitializeInjection returned %d\n", started);
  return started == 0 ? 0 : 1;
}
