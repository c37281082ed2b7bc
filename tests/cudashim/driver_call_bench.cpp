// gilsan_driver_call_bench: what the forwarding driver adds to each driver call and host function it
// watches, in one process, side by side with the driver behind it.
//
// The real driver and the forwarding driver are both loaded (the forwarding one finds the real one as
// it does in a `gilsan run` child), and every benchmark runs once through each: the calls the
// forwarding driver makes of its own around a launch (the stream's context, its capture state), a
// query that libraries ask at every launch, a host function's launch, and a host function's run on the
// driver's callback thread. The forwarding driver describes calls only when someone listens, so run it
// under `gilsan run` for the watchdog's board (the figures of a `--sanitize off` child):
//
//   gilsan run --driver real --sanitize off -- build/bin/gilsan_driver_call_bench
//       --forwarding build/harness/cudashim/libgilsan_cudashim.so --benchmark_repetitions=5
//       --benchmark_enable_random_interleaving=true --benchmark_out=calls.json --benchmark_out_format=json
//   tests/cudashim/driver_call_ratios.py calls.json
//
// --real names the driver behind (default: libcuda.so.1 as the loader finds it; the forwarding driver
// is told the same through GILSAN_REAL_LIBCUDA). The benchmarks' names say which driver ("real/",
// "forwarding/"); queries are timed per call, launches and runs per batch of 32 or 1,000 host functions
// (the name's last part) with the counter ns_per_host_function.
#include <benchmark/benchmark.h>
#include <cuda.h>
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The entry points the benchmarks call, from one library.
struct Driver {
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuStreamGetCtx) stream_get_ctx = nullptr;
  decltype(&::cuStreamGetCaptureInfo) stream_get_capture_info = nullptr;  // _v3
  decltype(&::cuLaunchHostFunc) launch_host_func = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
};

void* open_library(const std::string& path) {
  void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // kept open for the process
  if (library == nullptr) std::fprintf(stderr, "gilsan_driver_call_bench: %s\n", ::dlerror());
  return library;
}

template <typename Function>
bool bind(void* library, const std::string& path, const char* symbol, Function& out) {
  out = reinterpret_cast<Function>(::dlsym(library, symbol));
  if (out == nullptr) std::fprintf(stderr, "gilsan_driver_call_bench: %s does not export %s\n", path.c_str(), symbol);
  return out != nullptr;
}

bool load(const std::string& path, Driver& driver) {
  void* library = open_library(path);
  return library != nullptr && bind(library, path, "cuCtxGetCurrent", driver.ctx_get_current) &&
         bind(library, path, "cuStreamGetCtx", driver.stream_get_ctx) &&
         bind(library, path, "cuStreamGetCaptureInfo_v3", driver.stream_get_capture_info) &&
         bind(library, path, "cuLaunchHostFunc", driver.launch_host_func) &&
         bind(library, path, "cuStreamSynchronize", driver.stream_synchronize);
}

CUstream g_stream = nullptr;  // created through the real driver, used through both

// Host functions per timed batch (the benchmark's argument): 32 stay within the watchdog's table of
// pending host functions (256 entries), 1,000 overflow it, as a queue behind held work does.

void CUDA_CB do_nothing(void*) {}

// The batch waits behind this one until the benchmark lets it go, so that launches are timed against
// an idle callback thread and runs against an idle launching thread.
std::atomic<bool> g_held{false};
void CUDA_CB hold_until_released(void*) {
  while (g_held.load(std::memory_order_acquire)) {
  }
}

bool check(CUresult result, benchmark::State& state, const char* what) {
  if (result == CUDA_SUCCESS) return true;
  state.SkipWithError((std::string(what) + " failed with CUresult " + std::to_string(result)).c_str());
  return false;
}

void query_current_context(benchmark::State& state, const Driver* driver) {
  CUcontext context = nullptr;
  for (auto _ : state) {
    if (!check(driver->ctx_get_current(&context), state, "cuCtxGetCurrent")) break;
    benchmark::DoNotOptimize(context);
  }
}

void query_stream_context(benchmark::State& state, const Driver* driver) {
  CUcontext context = nullptr;
  for (auto _ : state) {
    if (!check(driver->stream_get_ctx(g_stream, &context), state, "cuStreamGetCtx")) break;
    benchmark::DoNotOptimize(context);
  }
}

void query_capture_state(benchmark::State& state, const Driver* driver) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  for (auto _ : state) {
    if (!check(driver->stream_get_capture_info(g_stream, &status, nullptr, nullptr, nullptr, nullptr, nullptr), state,
               "cuStreamGetCaptureInfo"))
      break;
    benchmark::DoNotOptimize(status);
  }
}

using Clock = std::chrono::steady_clock;

// One batch of `count` behind a held host function: `timed_launches` times the launches, else the
// release and drain. Returns the seconds per host function, or a negative number after an error.
double batch(benchmark::State& state, const Driver& driver, bool timed_launches, int count) {
  g_held.store(true, std::memory_order_release);
  if (!check(driver.launch_host_func(g_stream, &hold_until_released, nullptr), state, "cuLaunchHostFunc")) {
    g_held.store(false);
    return -1;
  }
  const auto launches_start = Clock::now();
  for (int i = 0; i < count; ++i) {
    if (driver.launch_host_func(g_stream, &do_nothing, nullptr) != CUDA_SUCCESS) {
      g_held.store(false);
      driver.stream_synchronize(g_stream);
      check(CUDA_ERROR_UNKNOWN, state, "cuLaunchHostFunc in the batch");
      return -1;
    }
  }
  const auto drain_start = Clock::now();
  g_held.store(false, std::memory_order_release);
  if (!check(driver.stream_synchronize(g_stream), state, "cuStreamSynchronize")) return -1;
  const auto end = Clock::now();
  const auto elapsed = timed_launches ? drain_start - launches_start : end - drain_start;
  return std::chrono::duration<double>(elapsed).count() / count;
}

// A benchmark's iteration is one batch (the hold and release are not timed); the counter is what
// the ratios read: nanoseconds per host function.
void timed_batches(benchmark::State& state, const Driver& driver, bool timed_launches) {
  const int count = static_cast<int>(state.range(0));
  double total = 0;
  std::int64_t batches = 0;
  for (auto _ : state) {
    const double seconds = batch(state, driver, timed_launches, count);
    if (seconds < 0) return;
    state.SetIterationTime(seconds * count);
    total += seconds;
    ++batches;
  }
  if (batches > 0) state.counters["ns_per_host_function"] = total * 1e9 / static_cast<double>(batches);
}

void launch(benchmark::State& state, const Driver* driver) { timed_batches(state, *driver, /*timed_launches=*/true); }

void run_drained(benchmark::State& state, const Driver* driver) {
  timed_batches(state, *driver, /*timed_launches=*/false);
}

// Takes --real PATH and --forwarding PATH out of the arguments; the rest are Google Benchmark's.
bool take_option(std::vector<char*>& arguments, const char* name, std::string& value) {
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    if (std::strcmp(arguments[i], name) != 0) continue;
    if (i + 1 >= arguments.size()) {
      std::fprintf(stderr, "gilsan_driver_call_bench: %s needs a path\n", name);
      std::exit(2);
    }
    value = arguments[i + 1];
    arguments.erase(arguments.begin() + static_cast<std::ptrdiff_t>(i), arguments.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    return true;
  }
  return false;
}

// Opens the real driver, makes its primary context current and a stream on it. Returns the driver's
// file (the forwarding driver is told that file: it must not find itself, nor another driver).
std::string set_up(const std::string& real_path, Driver& real) {
  void* library = open_library(real_path);
  if (library == nullptr) return {};
  auto init = reinterpret_cast<decltype(&::cuInit)>(::dlsym(library, "cuInit"));
  auto device_get = reinterpret_cast<decltype(&::cuDeviceGet)>(::dlsym(library, "cuDeviceGet"));
  auto retain = reinterpret_cast<decltype(&::cuDevicePrimaryCtxRetain)>(::dlsym(library, "cuDevicePrimaryCtxRetain"));
  auto set_current = reinterpret_cast<decltype(&::cuCtxSetCurrent)>(::dlsym(library, "cuCtxSetCurrent"));
  auto stream_create = reinterpret_cast<decltype(&::cuStreamCreate)>(::dlsym(library, "cuStreamCreate"));
  CUdevice device = 0;
  CUcontext context = nullptr;
  const bool ready = init != nullptr && device_get != nullptr && retain != nullptr && set_current != nullptr &&
                     stream_create != nullptr && init(0) == CUDA_SUCCESS && device_get(&device, 0) == CUDA_SUCCESS &&
                     retain(&context, device) == CUDA_SUCCESS && set_current(context) == CUDA_SUCCESS &&
                     stream_create(&g_stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
  Dl_info file{};
  if (!ready || ::dladdr(reinterpret_cast<void*>(init), &file) == 0 || file.dli_fname == nullptr) {
    std::fprintf(stderr, "gilsan_driver_call_bench: %s: no device context and stream\n", real_path.c_str());
    return {};
  }
  return load(real_path, real) ? std::string(file.dli_fname) : std::string();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> arguments(argv, argv + argc);
  std::string real_path = "libcuda.so.1";
  std::string forwarding_path;
  take_option(arguments, "--real", real_path);
  if (!take_option(arguments, "--forwarding", forwarding_path)) {
    std::fprintf(stderr, "usage: gilsan_driver_call_bench --forwarding LIBGILSAN_CUDASHIM [--real LIBCUDA] [benchmark options]\n");
    return 2;
  }
  static Driver real, forwarding;
  const std::string real_file = set_up(real_path, real);
  if (real_file.empty()) return 1;
  // The forwarding driver must stand in front of the same driver: one library, one context.
  ::setenv("GILSAN_REAL_LIBCUDA", real_file.c_str(), /*overwrite=*/1);
  if (!load(forwarding_path, forwarding)) return 1;
  for (const auto& [name, driver] : {std::pair{"real", &real}, std::pair{"forwarding", &forwarding}}) {
    const std::string prefix = std::string(name) + "/";
    benchmark::RegisterBenchmark((prefix + "cuCtxGetCurrent").c_str(), query_current_context, driver);
    benchmark::RegisterBenchmark((prefix + "cuStreamGetCtx").c_str(), query_stream_context, driver);
    benchmark::RegisterBenchmark((prefix + "cuStreamGetCaptureInfo").c_str(), query_capture_state, driver);
    benchmark::RegisterBenchmark((prefix + "cuLaunchHostFunc").c_str(), launch, driver)->Arg(32)->Arg(1000)->UseManualTime();
    benchmark::RegisterBenchmark((prefix + "host-function-run").c_str(), run_drained, driver)
        ->Arg(32)
        ->Arg(1000)
        ->UseManualTime();
  }
  int count = static_cast<int>(arguments.size());
  benchmark::Initialize(&count, arguments.data());
  if (benchmark::ReportUnrecognizedArguments(count, arguments.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
