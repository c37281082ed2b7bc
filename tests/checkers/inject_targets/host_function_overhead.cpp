// host_function_overhead: launches many empty native host functions on one stream and prints the
// cost of each, to compare a run with libgilsan_inject.so injected against one without.
//
//   host_function_overhead [--count N] [--driver LIBRARY]
//
// The driver is dlopen'd (default libcuda.so.1; any library with the driver API, e.g. the simulated
// driver) and resolved through cuGetProcAddress_v2; nothing links libcuda. Output, one line:
//   host_functions=N total_ns=T ns_per_host_function=X
// where T runs from the first launch to the end of the synchronize that waits for the last one,
// after a warm-up of N/10 host functions. Exit status 0, or 1 with a line saying what failed.
#include <cuda.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

struct Driver {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_retain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) primary_release = nullptr;
  decltype(&::cuCtxSetCurrent) set_current = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamDestroy) stream_destroy = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuLaunchHostFunc) launch_host_func = nullptr;
};

template <typename Function>
bool resolve(GetProcAddress get, const char* name, Function& slot) {
  void* address = nullptr;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (get(name, &address, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS || address == nullptr) {
    std::fprintf(stderr, "host_function_overhead: the driver has no %s\n", name);
    return false;
  }
  slot = reinterpret_cast<Function>(address);
  return true;
}

void CUDA_CB empty_host_function(void*) {}

bool check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return true;
  std::fprintf(stderr, "host_function_overhead: %s returned %d\n", what, static_cast<int>(result));
  return false;
}

// Launches `count` host functions and waits for the last; returns the nanoseconds it took, or -1.
long long timed_launches(const Driver& driver, CUstream stream, long count) {
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < count; ++i) {
    if (!check(driver.launch_host_func(stream, empty_host_function, nullptr), "cuLaunchHostFunc")) return -1;
  }
  if (!check(driver.stream_synchronize(stream), "cuStreamSynchronize")) return -1;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  long count = 20000;
  std::string library = "libcuda.so.1";
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument == "--count" && i + 1 < argc) {
      char* end = nullptr;
      count = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || count <= 0) {
        std::fprintf(stderr, "host_function_overhead: --count wants a positive number, not '%s'\n", argv[i]);
        return 1;
      }
    } else if (argument == "--driver" && i + 1 < argc) {
      library = argv[++i];
    } else {
      std::fprintf(stderr, "usage: host_function_overhead [--count N] [--driver LIBRARY]\n");
      return 1;
    }
  }
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "host_function_overhead: cannot load %s: %s\n", library.c_str(), ::dlerror());
    return 1;
  }
  auto get = reinterpret_cast<GetProcAddress>(::dlsym(handle, "cuGetProcAddress_v2"));
  Driver driver;
  if (get == nullptr || !resolve(get, "cuInit", driver.init) || !resolve(get, "cuDeviceGet", driver.device_get) ||
      !resolve(get, "cuDevicePrimaryCtxRetain", driver.primary_retain) ||
      !resolve(get, "cuDevicePrimaryCtxRelease", driver.primary_release) ||
      !resolve(get, "cuCtxSetCurrent", driver.set_current) || !resolve(get, "cuStreamCreate", driver.stream_create) ||
      !resolve(get, "cuStreamDestroy", driver.stream_destroy) ||
      !resolve(get, "cuStreamSynchronize", driver.stream_synchronize) ||
      !resolve(get, "cuLaunchHostFunc", driver.launch_host_func)) {
    if (get == nullptr) std::fprintf(stderr, "host_function_overhead: %s has no cuGetProcAddress_v2\n", library.c_str());
    return 1;
  }
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  if (!check(driver.init(0), "cuInit") || !check(driver.device_get(&device, 0), "cuDeviceGet") ||
      !check(driver.primary_retain(&context, device), "cuDevicePrimaryCtxRetain") ||
      !check(driver.set_current(context), "cuCtxSetCurrent") ||
      !check(driver.stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate")) {
    return 1;
  }
  const long warm_up = count / 10 > 0 ? count / 10 : 1;
  if (timed_launches(driver, stream, warm_up) < 0) return 1;
  const long long total = timed_launches(driver, stream, count);
  if (total < 0) return 1;
  std::printf("host_functions=%ld total_ns=%lld ns_per_host_function=%.1f\n", count, total,
              static_cast<double>(total) / static_cast<double>(count));
  driver.stream_destroy(stream);
  driver.primary_release(device);
  return 0;
}
