// gilsan_in_process_bench: what the in-process sanitizer (`gilsan run`, sanitizer on) adds to each
// host function, without a GPU and without the interpreter.
//
// A Sanitizer configured as the scenario child configures it (every checker on, the shipped driver
// profile) is fed through a SimSource's observer hooks, as the simulated driver and the forwarding
// driver call them, together with the GIL events the gilsan module sends around each launch: per
// native host function, what `gilsan.host_launch(stream, fn, data)` in a Python loop makes the
// sanitizer do. Only our own work is timed; on the GPU it comes on top of the driver's.
//
//   build/bin/gilsan_in_process_bench [--benchmark_filter=REGEX] [--benchmark_repetitions=N]
//
// Each benchmark reports time per host function. docs/performance.md, "The in-process sanitizer's
// cost", says what the figures are made of.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

#include "checkers/core/sanitizer.h"
#include "checkers/sources/profile_behaviour.h"
#include "checkers/sources/sim_source.h"
#include "checkers/sources/thread_identity.h"
#include "tests/checkers/bench_two_threads.h"

namespace {

using gilsan::checkers::Sanitizer;
using gilsan::checkers::SanitizerConfig;
using gilsan::checkers::SimSource;
using gilsan::checkers::SimSourceOptions;

CUcontext const kContext = reinterpret_cast<CUcontext>(std::uintptr_t{0x1000});
CUstream const kStream = reinterpret_cast<CUstream>(std::uintptr_t{0x2000});

void CUDA_CB empty_host_function(void*) {}

// The scenario child's Sanitizer and SimSource (harness/child/scenario_sanitizer.cpp), minus the
// interpreter: no stack capture, no sinks (nothing is reported here).
class InProcess {
 public:
  InProcess() {
    const auto profile = gilsan::checkers::load_profile_for_sources();
    SanitizerConfig config;
    config.driver = gilsan::checkers::behaviour_from_profile(profile);
    sanitizer_ = std::make_unique<Sanitizer>(std::move(config));
    SimSourceOptions options;
    options.blocks_while_host_function_runs =
        gilsan::checkers::behaviour_from_profile(profile).blocks_while_host_function_runs;
    source_ = std::make_unique<SimSource>(*sanitizer_, std::move(options));
    observer_ = source_->observer();
  }
  Sanitizer& sanitizer() { return *sanitizer_; }

  // The launching thread's part of one `gilsan.host_launch` of a native function: the module lets
  // the GIL go around cuLaunchHostFunc, the driver reports the call and the enqueued run.
  GilsanSimHostFunction launch(std::uint64_t run_key) {
    const auto thread = gilsan::checkers::current_thread_id();
    sanitizer_->gil_released(thread);
    const GilsanSimApiCall call{"cuLaunchHostFunc", kContext, kStream, nullptr};
    observer_.api_enter(observer_.user, &call);
    const GilsanSimHostFunction run{run_key, kContext, kStream, empty_host_function, nullptr, nullptr};
    observer_.host_function_enqueued(observer_.user, &run);
    observer_.api_exit(observer_.user, &call, CUDA_SUCCESS);
    sanitizer_->gil_acquire_begin(thread);
    sanitizer_->gil_acquired(thread);
    return run;
  }
  // The driver's callback thread's part: the run's begin and end around the host function.
  void run(const GilsanSimHostFunction& run) {
    observer_.host_function_begin(observer_.user, &run);
    run.fn(run.user_data);
    observer_.host_function_end(observer_.user, &run);
  }

 private:
  std::unique_ptr<Sanitizer> sanitizer_;
  std::unique_ptr<SimSource> source_;
  GilsanSimObserver observer_{};
};

// Launch and run on one thread: the whole cost of one host function, with no other thread contending.
void BM_NativeHostFunctionOneThread(benchmark::State& state) {
  InProcess process;
  process.sanitizer().gil_acquired(gilsan::checkers::current_thread_id());  // the launcher holds the GIL
  std::uint64_t run_key = 0;
  for (auto _ : state) process.run(process.launch(++run_key));
  if (!process.sanitizer().reports().empty()) state.SkipWithError("unexpected report");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NativeHostFunctionOneThread);

// As in a real process: one thread launches, another (the driver's callback thread) runs the host
// functions in order through a bounded queue, so the two take the Sanitizer's lock in turn.
void BM_NativeHostFunctionTwoThreads(benchmark::State& state) {
  InProcess process;
  process.sanitizer().gil_acquired(gilsan::checkers::current_thread_id());
  gilsan::checkers::testing::launch_here_run_there<GilsanSimHostFunction>(
      state, [&](std::uint64_t run_key) { return process.launch(run_key); },
      [&](const GilsanSimHostFunction& run) { process.run(run); });
  if (!process.sanitizer().reports().empty()) state.SkipWithError("unexpected report");
}
BENCHMARK(BM_NativeHostFunctionTwoThreads)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
