// host_function_overhead: launches many empty native host functions on one stream and prints the
// cost of each, to compare a run with libgilsan_inject.so injected against one without.
//
//   host_function_overhead [--count N] [--driver LIBRARY]
//
// The driver is dlopen'd (default libcuda.so.1; any library with the driver API, e.g. the simulated
// driver) and resolved through cuGetProcAddress_v2; nothing links libcuda. Output, one line:
//   host_functions=N total_ns=T ns_per_host_function=X launch_ns_per_host_function=L launch_p50_ns=M
//   launch_p99_ns=P
// where T runs from the first launch to the end of the synchronize that waits for the last one,
// after a warm-up of N/10 host functions; L is the launching thread's loop alone (T over L says
// whether the launching thread or the driver's callback path sets the pace); M and P are the median
// and 99th percentile of one cuLaunchHostFunc call (an even cost per call, or rare waits for room).
// Exit status 0, or 1 with a line saying what failed.
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

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

struct Timing {
  long long total_ns = -1;   // first launch to the end of the synchronize after the last
  long long launch_ns = -1;  // first launch to the return of the last: the launching thread's share
  // One launch call's time, median and 99th percentile: an even cost per call, or rare long waits.
  long long launch_p50_ns = -1;
  long long launch_p99_ns = -1;
};

// The q-quantile of `values` (reordered).
long long quantile(std::vector<long long>& values, double q) {
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(q * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

// Launches `count` host functions and waits for the last; total_ns stays -1 when a call failed.
Timing timed_launches(const Driver& driver, CUstream stream, long count) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  };
  Timing timing;
  // One clock read per launch: each call's time is the gap to the next one's start.
  std::vector<Clock::time_point> starts(static_cast<std::size_t>(count) + 1);
  const auto start = Clock::now();
  for (long i = 0; i < count; ++i) {
    starts[static_cast<std::size_t>(i)] = Clock::now();
    if (!check(driver.launch_host_func(stream, empty_host_function, nullptr), "cuLaunchHostFunc")) return timing;
  }
  starts.back() = Clock::now();
  const long long launched = since(start);
  std::vector<long long> calls(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < calls.size(); ++i) {
    calls[i] = std::chrono::duration_cast<std::chrono::nanoseconds>(starts[i + 1] - starts[i]).count();
  }
  timing.launch_p50_ns = quantile(calls, 0.5);
  timing.launch_p99_ns = quantile(calls, 0.99);
  if (!check(driver.stream_synchronize(stream), "cuStreamSynchronize")) return timing;
  timing.total_ns = since(start);
  timing.launch_ns = launched;
  return timing;
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
  if (timed_launches(driver, stream, warm_up).total_ns < 0) return 1;
  const Timing timing = timed_launches(driver, stream, count);
  if (timing.total_ns < 0) return 1;
  const auto per_host_function = [count](long long ns) { return static_cast<double>(ns) / static_cast<double>(count); };
  std::printf(
      "host_functions=%ld total_ns=%lld ns_per_host_function=%.1f launch_ns_per_host_function=%.1f "
      "launch_p50_ns=%lld launch_p99_ns=%lld\n",
      count, timing.total_ns, per_host_function(timing.total_ns), per_host_function(timing.launch_ns),
      timing.launch_p50_ns, timing.launch_p99_ns);
  driver.stream_destroy(stream);
  driver.primary_release(device);
  return 0;
}
