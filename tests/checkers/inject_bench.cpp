// gilsan_inject_bench: what the injected sanitizer adds to each host function, without a GPU.
//
// The InjectHandler (checkers/inject) is fed the CUPTI callbacks of cuLaunchHostFunc by hand, with a
// real Sanitizer behind it configured as libgilsan_inject.so configures it (injected defaults, the
// shipped driver profile), and the rewritten host function is run as the driver's callback thread
// would run it. No driver is involved: what is timed is only our own work per host function, which
// on the GPU comes on top of CUPTI's cost and the driver's. docs/performance.md, "Injected sanitizer
// overhead", has the numbers and how to run it:
//
//   build/bin/gilsan_inject_bench [--benchmark_filter=REGEX] [--benchmark_repetitions=N]
//
// Each benchmark reports time per host function (per call for the synchronize one).

// generated_cuda_meta.h needs cuda.h's internal versioning types (see checkers/inject/call_params.cpp).
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cupti_driver_cbid.h>
#include <generated_cuda_meta.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "checkers/core/sanitizer.h"
#include "checkers/inject/inject_handler.h"
#include "checkers/inject/inject_runtime.h"
#include "checkers/sources/profile_behaviour.h"
#include "tests/checkers/bench_two_threads.h"

namespace {

using gilsan::checkers::Sanitizer;
using gilsan::checkers::SanitizerConfig;
using gilsan::checkers::inject::DriverApiCallback;
using gilsan::checkers::inject::InjectedDriver;
using gilsan::checkers::inject::InjectHandler;
using gilsan::checkers::inject::InjectOptions;
using gilsan::checkers::inject::WrapMode;

// Handles the handler only passes around; no driver ever sees them.
CUcontext const kContext = reinterpret_cast<CUcontext>(std::uintptr_t{0x1000});
CUstream const kStream = reinterpret_cast<CUstream>(std::uintptr_t{0x2000});

void CUDA_CB empty_host_function(void*) {}

// A host function as the driver holds it after the launch: what the (maybe rewritten) arguments say.
struct Launched {
  CUhostFn function = nullptr;
  void* user_data = nullptr;
  void run() const { function(user_data); }
};

InjectHandler* g_handler = nullptr;

// One successful driver call as CUPTI frames it: the API-entry callback (which may rewrite
// `params`), then the API-exit callback.
template <typename Params>
void call_through_callbacks(InjectHandler& handler, std::uint32_t callback_id, const char* symbol, Params& params) {
  std::uint64_t correlation = 0;
  DriverApiCallback callback{true, callback_id, symbol, &params, nullptr, kContext, &correlation};
  handler.on_driver_api(callback);
  const int success = CUDA_SUCCESS;
  callback.entering = false;
  callback.result = &success;
  handler.on_driver_api(callback);
}

// One cuLaunchHostFunc: returns what the driver would run, the arguments as the entry callback left them.
Launched launch_through_callbacks(InjectHandler& handler, CUstream stream, CUhostFn function, void* user_data) {
  cuLaunchHostFunc_params params{stream, function, user_data};
  call_through_callbacks(handler, CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, "cuLaunchHostFunc", params);
  return Launched{params.fn, params.userData};
}

// The handler's own driver calls, for its start-up self-test: the launch runs at once, so the test
// sees the rewrite take and the handler settles in rewrite mode, as on driver 580.159.04.
CUresult bench_launch(CUstream stream, CUhostFn function, void* user_data) {
  launch_through_callbacks(*g_handler, stream, function, user_data).run();
  return CUDA_SUCCESS;
}
CUresult bench_stream_create(CUstream* stream, unsigned int) {
  *stream = kStream;
  return CUDA_SUCCESS;
}
CUresult bench_stream(CUstream) { return CUDA_SUCCESS; }
CUresult bench_is_capturing(CUstream, CUstreamCaptureStatus* status) {
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
CUresult bench_push(CUcontext) { return CUDA_SUCCESS; }
CUresult bench_pop(CUcontext* context) {
  *context = kContext;
  return CUDA_SUCCESS;
}
CUresult bench_exchange(CUstreamCaptureMode*) { return CUDA_SUCCESS; }
CUresult bench_error_name(CUresult, const char** name) {
  *name = "CUDA_SUCCESS";
  return CUDA_SUCCESS;
}

// The injected library's Sanitizer and handler, in rewrite mode.
class InjectedProcess {
 public:
  InjectedProcess() {
    const auto profile = gilsan::checkers::load_profile_for_sources();
    SanitizerConfig config;
    config.options = gilsan::checkers::inject::injected_default_options();
    config.driver = gilsan::checkers::behaviour_from_profile(profile);
    sanitizer_ = std::make_unique<Sanitizer>(std::move(config));
    InjectedDriver driver{bench_launch, bench_stream_create, bench_stream, bench_stream,
                          bench_is_capturing, bench_push, bench_pop, bench_exchange, bench_error_name};
    InjectOptions options;
    options.report_enqueued = false;  // as injected: gil-held-blocking-call is off
    handler_ = std::make_unique<InjectHandler>(*sanitizer_, driver, gilsan::checkers::behaviour_from_profile(profile),
                                               std::move(options));
    g_handler = handler_.get();
    if (handler_->ensure_self_test(kContext) != WrapMode::rewrite) {
      throw std::runtime_error("gilsan_inject_bench: the self-test did not choose rewrite mode");
    }
  }
  ~InjectedProcess() { g_handler = nullptr; }
  InjectHandler& handler() { return *handler_; }
  Sanitizer& sanitizer() { return *sanitizer_; }

 private:
  std::unique_ptr<Sanitizer> sanitizer_;
  std::unique_ptr<InjectHandler> handler_;
};

// Launch callbacks, then the wrapper, on one thread: the whole cost of one host function.
void BM_HostFunctionOneThread(benchmark::State& state) {
  InjectedProcess process;
  for (auto _ : state) {
    launch_through_callbacks(process.handler(), kStream, empty_host_function, nullptr).run();
  }
  if (!process.sanitizer().reports().empty()) state.SkipWithError("unexpected report");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HostFunctionOneThread);

// Only the launching thread's part: cuLaunchHostFunc's entry and exit callbacks. The wrappers run
// untimed, a batch at a time.
void BM_LaunchCallbacks(benchmark::State& state) {
  InjectedProcess process;
  constexpr std::size_t kBatch = 1024;
  std::vector<Launched> batch(kBatch);
  std::size_t used = 0;
  for (auto _ : state) {
    batch[used++] = launch_through_callbacks(process.handler(), kStream, empty_host_function, nullptr);
    if (used == kBatch) {
      state.PauseTiming();
      for (const Launched& launched : batch) launched.run();
      used = 0;
      state.ResumeTiming();
    }
  }
  for (std::size_t i = 0; i < used; ++i) batch[i].run();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LaunchCallbacks);

// Only the callback thread's part: the wrapper around an empty host function. The launches are made
// untimed, a batch at a time, in turn on state.range(0) streams. With few streams every host
// function after the first few repeats a signature the thread remembers, and its begin and end skip
// the Sanitizer (InjectHandler::wrapped_begin); with more streams than it remembers
// (HandlerThreadState::kSentBegins), each one's begin and end go to the Sanitizer.
void BM_WrapperOnCallbackThread(benchmark::State& state) {
  InjectedProcess process;
  const auto stream_count = static_cast<std::size_t>(state.range(0));
  constexpr std::size_t kBatch = 1024;
  std::vector<Launched> batch(kBatch);
  std::size_t next = kBatch;
  for (auto _ : state) {
    if (next == kBatch) {
      state.PauseTiming();
      for (std::size_t i = 0; i < kBatch; ++i) {
        const auto stream = reinterpret_cast<CUstream>(reinterpret_cast<std::uintptr_t>(kStream) + (i % stream_count));
        batch[i] = launch_through_callbacks(process.handler(), stream, empty_host_function, nullptr);
      }
      next = 0;
      state.ResumeTiming();
    }
    batch[next++].run();
  }
  for (; next < kBatch; ++next) batch[next].run();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WrapperOnCallbackThread)->ArgName("streams")->Arg(1)->Arg(16);

// As in a real process: one thread launches, another (the driver's callback thread) runs the
// wrappers in order, through a bounded queue. Records are made on one thread and freed on the other.
void BM_HostFunctionTwoThreads(benchmark::State& state) {
  InjectedProcess process;
  gilsan::checkers::testing::launch_here_run_there<Launched>(
      state, [&](std::uint64_t) { return launch_through_callbacks(process.handler(), kStream, empty_host_function, nullptr); },
      [](const Launched& launched) { launched.run(); });
}
BENCHMARK(BM_HostFunctionTwoThreads)->UseRealTime();

// cuStreamSynchronize's entry and exit callbacks, which the Sanitizer sees (a wait on the stream).
void BM_StreamSynchronizeCallbacks(benchmark::State& state) {
  InjectedProcess process;
  for (auto _ : state) {
    cuStreamSynchronize_params params{kStream};
    call_through_callbacks(process.handler(), CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, "cuStreamSynchronize", params);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StreamSynchronizeCallbacks);

}  // namespace

BENCHMARK_MAIN();
