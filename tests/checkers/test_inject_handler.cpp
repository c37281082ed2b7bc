// The injection library's logic (checkers/inject) on synthetic CUPTI callbacks around real calls
// into the simulated driver: the self-test, both wrapping modes, what gets reported.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <cupti_runtime_cbid.h>

#include "checkers/inject/call_classes.h"
#include "checkers/inject/inject_handler.h"
#include "checkers/sources/profile_behaviour.h"
#include "tests/checkers/fake_cupti.h"
#include "tests/checkers/sim_session.h"
#include "tests/checkers/source_test_support.h"

// A native host function the executable does not export (file-local, global namespace): only the
// ELF .symtab names it, and the sanitizer's own frames (gilsan::checkers::) end above it.
static void CUDA_CB file_local_host_function_allocates(void* fake_cupti) {
  CUdeviceptr pointer = 0;
  auto& cupti = *static_cast<gilsan::checkers::testing::FakeCupti*>(fake_cupti);
  if (cupti.mem_alloc(&pointer, 64) == CUDA_SUCCESS) cupti.mem_free(pointer);
}

namespace gilsan::checkers::testing {
namespace {

using inject::InjectHandler;
using inject::WrapMode;

SimCalls sim_calls() {
  const DriverTable& d = SimSession::get().driver();
  SimCalls calls;
  calls.launch_host_func = d.cuLaunchHostFunc;
  calls.stream_create = d.cuStreamCreate;
  calls.stream_synchronize = d.cuStreamSynchronize;
  calls.stream_destroy = d.cuStreamDestroy;
  calls.stream_is_capturing = d.cuStreamIsCapturing;
  calls.context_push = d.cuCtxPushCurrent;
  calls.context_pop = d.cuCtxPopCurrent;
  calls.context_get_current = d.cuCtxGetCurrent;
  calls.context_synchronize = d.cuCtxSynchronize;
  calls.primary_context_retain = d.cuDevicePrimaryCtxRetain;
  calls.mem_alloc = d.cuMemAlloc;
  calls.mem_free = d.cuMemFree;
  calls.graph_add_host_node = d.cuGraphAddHostNode;
  calls.get_error_name = d.cuGetErrorName;
  calls.begin_capture = d.cuStreamBeginCapture;
  calls.end_capture = d.cuStreamEndCapture;
  return calls;
}

// Whether the test's main thread "holds the GIL" for the handler's GIL probe.
thread_local bool t_holds_gil = false;

// The handler's own end markers refused on demand, as a driver refuses a launch into a stream that
// broke between the application's launch and the marker's.
// With g_refuse_after set, the refusal waits until it is true (the begin marker and the application's
// function have run on an idle stream), so that the exit callback comes second.
std::atomic<bool> g_refuse_end_markers{false};
std::atomic<bool>* g_refuse_after = nullptr;
decltype(&::cuLaunchHostFunc) g_launch_behind_refusals = nullptr;
CUresult launch_refusing_end_markers(CUstream stream, CUhostFn function, void* data) {
  if (function == &inject::run_end_marker && g_refuse_end_markers.load()) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (g_refuse_after != nullptr && !g_refuse_after->load() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::yield();
    }
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  return g_launch_behind_refusals(stream, function, data);
}

class InjectHandlerTest : public ::testing::Test {
 public:
  explicit InjectHandlerTest(bool honour_rewrites = true, std::string_view suppressions = "", bool stacks = false,
                             inject::OwnTimeStats* stats = nullptr, bool report_enqueued = true,
                             bool refusable_end_markers = false)
      : recording_(suppressions, stacks), cupti_(sim_calls(), honour_rewrites) {
    SimSession::get().make_current();
    inject::InjectOptions options;
    options.error_names = ErrorNames([](int code) -> const char* {
      const char* name = nullptr;
      return SimSession::get().driver().cuGetErrorName(static_cast<CUresult>(code), &name) == CUDA_SUCCESS ? name
                                                                                                  : nullptr;
    });
    options.holds_gil = [] { return std::optional<bool>(t_holds_gil); };
    options.runtime_error_name = [](int code) -> std::string_view {
      return code == 800 ? "cudaErrorNotPermitted" : code == 0 ? "cudaSuccess" : "";
    };
    options.announce = [this](std::string_view line) { announced_.emplace_back(line); };
    options.stats = stats;
    options.report_enqueued = report_enqueued;
    inject::InjectedDriver driver = cupti_.injected_driver();
    if (refusable_end_markers) {
      g_launch_behind_refusals = driver.launch_host_func;
      driver.launch_host_func = launch_refusing_end_markers;
    }
    handler_ = std::make_unique<InjectHandler>(*recording_.sanitizer, driver,
                                               behaviour_from_profile(load_profile_for_sources()),
                                               std::move(options));
    cupti_.attach(handler_.get());
  }
  ~InjectHandlerTest() override { cupti_.attach(nullptr); }

  // The application's first context call: the handler runs its self-test at its exit.
  void start_application() {
    CUcontext context = nullptr;
    ASSERT_EQ(CUDA_SUCCESS, cupti_.primary_context_retain(&context, SimSession::get().device()));
    EXPECT_EQ(SimSession::get().context(), context);
  }
  void gil_held_synchronize(CUstream stream) {
    t_holds_gil = true;
    EXPECT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream));
    t_holds_gil = false;
  }

  RecordingSanitizer recording_;
  FakeCupti cupti_;
  std::unique_ptr<InjectHandler> handler_;
  std::vector<std::string> announced_;
};

class RewritingDriver : public InjectHandlerTest {};

class DriverIgnoringRewrites : public InjectHandlerTest {
 protected:
  DriverIgnoringRewrites() : InjectHandlerTest(false) {}
};

class RefusedEndMarkers : public InjectHandlerTest {
 protected:
  explicit RefusedEndMarkers(bool report_enqueued = true)
      : InjectHandlerTest(false, "", false, nullptr, report_enqueued, true) {}
  ~RefusedEndMarkers() override {
    g_refuse_end_markers = false;
    g_refuse_after = nullptr;
  }
};

// The injected library's defaults (no host_function_enqueued: repeated begins are held back by the
// callback thread, InjectHandler::wrapped_begin), marker mode.
class RefusedEndMarkersDefaults : public RefusedEndMarkers {
 protected:
  RefusedEndMarkersDefaults() : RefusedEndMarkers(false) {}
};

class SuppressingInjectTest : public InjectHandlerTest {
 protected:
  SuppressingInjectTest() : InjectHandlerTest(true, "lock-order-cycle:*run_lambda(void*)\n") {}
};

// As libgilsan_inject.so runs by default: gil-held-blocking-call off, so no host_function_enqueued,
// and repeated host functions skip the Sanitizer (InjectHandler::wrapped_begin).
class InjectedDefaults : public InjectHandlerTest {
 protected:
  InjectedDefaults() : InjectHandlerTest(true, "", false, nullptr, false) {}
};

class StackCapturingInjectTest : public InjectHandlerTest {
 protected:
  StackCapturingInjectTest() : InjectHandlerTest(true, "", true) {}
};

class TimedInjectTest : public InjectHandlerTest {
 protected:
  TimedInjectTest() : InjectHandlerTest(true, "", false, &stats_) {}
  static inject::OwnTimeStats stats_;
};
inject::OwnTimeStats TimedInjectTest::stats_;

TEST_F(RewritingDriver, SelfTestChoosesRewriteModeAndSaysSoOnce) {
  start_application();
  EXPECT_EQ(WrapMode::rewrite, handler_->mode());
  CUcontext again = nullptr;
  ASSERT_EQ(CUDA_SUCCESS, cupti_.primary_context_retain(&again, SimSession::get().device()));
  ASSERT_EQ(1u, announced_.size());
  EXPECT_NE(std::string::npos, announced_[0].find("rewrite mode")) << announced_[0];
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
  // The self-test's own calls are not the application's.
  EXPECT_TRUE(recording_.sink->reports().empty());
}

TEST_F(DriverIgnoringRewrites, SelfTestFallsBackToMarkers) {
  start_application();
  EXPECT_EQ(WrapMode::markers, handler_->mode());
  ASSERT_EQ(1u, announced_.size());
  EXPECT_NE(std::string::npos, announced_[0].find("marker mode")) << announced_[0];
  EXPECT_NE(std::string::npos, announced_[0].find("ignored rewritten")) << announced_[0];
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

// The same program in both modes: a callback that takes the GIL finishes, then the main thread
// synchronizes its stream with the GIL held. The user's function runs exactly once either way.
void finished_callback_then_gil_held_sync(InjectHandlerTest& test, FakeCupti& cupti, RecordingSanitizer& recording) {
  SimStream stream;
  std::atomic<int> runs{0};
  HostBody body = [&] {
    ++runs;
    with_simulated_gil(*recording.sanitizer);
  };
  ASSERT_EQ(CUDA_SUCCESS, cupti.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti.stream_synchronize(stream.get()));
  EXPECT_EQ(1, runs.load());
  EXPECT_TRUE(recording.reports_of(Checker::lock_order_cycle).empty());
  test.gil_held_synchronize(stream.get());
  const auto cycles = recording.reports_of(Checker::lock_order_cycle);
  ASSERT_EQ(1u, cycles.size());
  EXPECT_EQ(DeadlockClass::gil_driver_inversion, cycles[0].deadlock_class);
  EXPECT_EQ(0u, recording.sanitizer->finish().ignored_events);
}

TEST_F(RewritingDriver, FinishedCallbackThenGilHeldSynchronizeIsACycle) {
  start_application();
  finished_callback_then_gil_held_sync(*this, cupti_, recording_);
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST_F(InjectedDefaults, FinishedCallbackThenGilHeldSynchronizeIsACycle) {
  start_application();
  finished_callback_then_gil_held_sync(*this, cupti_, recording_);
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST_F(DriverIgnoringRewrites, MarkersStillShowTheCycle) {
  start_application();
  finished_callback_then_gil_held_sync(*this, cupti_, recording_);
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST_F(RewritingDriver, WithoutAContextCallTheFirstLaunchRunsTheSelfTest) {
  finished_callback_then_gil_held_sync(*this, cupti_, recording_);
  EXPECT_EQ(WrapMode::rewrite, handler_->mode());
}

TEST_F(RewritingDriver, MemAllocInsideAHostFunctionIsReportedWithTheDriversResult) {
  start_application();
  SimStream stream;
  CUresult inside = CUDA_SUCCESS;
  HostBody body = [&] {
    CUdeviceptr pointer = 0;
    inside = cupti_.mem_alloc(&pointer, 64);
    if (inside == CUDA_SUCCESS) cupti_.mem_free(pointer);
  };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  const auto found = recording_.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_FALSE(found.empty());
  ASSERT_TRUE(found[0].call.has_value());
  EXPECT_EQ("cuMemAlloc", found[0].call->entry_point);  // "cuMemAlloc_v2" without its suffix
  EXPECT_EQ(static_cast<int>(inside), found[0].call->result);
  EXPECT_EQ(SimSession::get().result_name(inside), found[0].call->result_name);
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

// CUDA runtime calls (CUPTI's runtime-API domain) inside a host function: the runtime may refuse
// before it reaches the driver, so the runtime call itself is reported, with the runtime's result.
constexpr std::uint32_t kCudaMalloc = CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020;
constexpr int kCudaErrorNotPermitted = 800;

TEST_F(RewritingDriver, RuntimeCallInsideAHostFunctionIsReportedWithTheRuntimesResult) {
  start_application();
  SimStream stream;
  HostBody body = [&] {
    cupti_.runtime_call(kCudaMalloc, "cudaMalloc_v3020", [] { return kCudaErrorNotPermitted; });
  };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  const auto found = recording_.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_EQ(1u, found.size());
  ASSERT_TRUE(found[0].call.has_value());
  EXPECT_EQ("cudaMalloc", found[0].call->entry_point);
  EXPECT_EQ(kCudaErrorNotPermitted, found[0].call->result);
  EXPECT_EQ("cudaErrorNotPermitted", found[0].call->result_name);
  EXPECT_NE(std::string::npos, found[0].summary.find("cudaErrorNotPermitted (800)")) << found[0].summary;
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST_F(RewritingDriver, RuntimeCallOutsideHostFunctionsIsNotReported) {
  start_application();
  CUdeviceptr pointer = 0;
  EXPECT_EQ(0, cupti_.runtime_call(kCudaMalloc, "cudaMalloc_v3020", [&] {
    return cupti_.mem_alloc(&pointer, 64) == CUDA_SUCCESS ? 0 : 2;
  }));
  cupti_.mem_free(pointer);
  EXPECT_TRUE(recording_.reports_of(Checker::cuda_call_in_host_function).empty());
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST_F(RewritingDriver, RuntimeCallWithItsOwnDriverCallIsReportedOnceNamingBoth) {
  start_application();
  SimStream stream;
  CUresult driver_result = CUDA_SUCCESS;
  HostBody body = [&] {
    cupti_.runtime_call(kCudaMalloc, "cudaMalloc_v3020", [&] {
      CUdeviceptr pointer = 0;
      driver_result = cupti_.mem_alloc(&pointer, 64);
      if (driver_result == CUDA_SUCCESS) cupti_.mem_free(pointer);
      return driver_result == CUDA_SUCCESS ? 0 : kCudaErrorNotPermitted;
    });
  };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  const auto found = recording_.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_EQ(1u, found.size());  // not cuMemAlloc nor cuMemFree on their own
  ASSERT_TRUE(found[0].call.has_value());
  EXPECT_EQ("cudaMalloc", found[0].call->entry_point);
  EXPECT_NE(std::string::npos, found[0].summary.find("cuMemAlloc")) << found[0].summary;
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST_F(RewritingDriver, RuntimeErrorLookupsInsideAHostFunctionAreNotReported) {
  start_application();
  SimStream stream;
  HostBody body = [&] {
    cupti_.runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorName_v6050, "cudaGetErrorName_v6050", [] { return 0; });
    cupti_.runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020, "cudaGetLastError_v3020", [] { return 0; });
  };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  EXPECT_TRUE(recording_.reports_of(Checker::cuda_call_in_host_function).empty());
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST_F(RewritingDriver, GraphHostNodeIsWrappedWithoutTouchingTheApplicationsParams) {
  start_application();
  const DriverTable& d = SimSession::get().driver();
  SimStream stream;
  std::atomic<int> runs{0};
  HostBody body = [&] {
    ++runs;
    with_simulated_gil(*recording_.sanitizer);
  };
  CUgraph graph = nullptr;
  ASSERT_EQ(CUDA_SUCCESS, d.cuGraphCreate(&graph, 0));
  const CUDA_HOST_NODE_PARAMS params{run_lambda, &body};
  CUgraphNode node = nullptr;
  ASSERT_EQ(CUDA_SUCCESS, cupti_.graph_add_host_node(&node, graph, &params));
  EXPECT_EQ(&run_lambda, params.fn);
  EXPECT_EQ(&body, params.userData);
  CUgraphExec exec = nullptr;
  ASSERT_EQ(CUDA_SUCCESS, d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  for (int launch = 0; launch < 2; ++launch) ASSERT_EQ(CUDA_SUCCESS, d.cuGraphLaunch(exec, stream.get()));
  ASSERT_EQ(CUDA_SUCCESS, d.cuStreamSynchronize(stream.get()));
  EXPECT_EQ(2, runs.load());
  // A graph node's stream is unknown to the handler; its context is not: a GIL-held
  // cuCtxSynchronize waits for it.
  t_holds_gil = true;
  EXPECT_EQ(CUDA_SUCCESS, cupti_.context_synchronize());
  t_holds_gil = false;
  EXPECT_EQ(1u, recording_.reports_of(Checker::lock_order_cycle).size());
  EXPECT_EQ(CUDA_SUCCESS, d.cuGraphExecDestroy(exec));
  EXPECT_EQ(CUDA_SUCCESS, d.cuGraphDestroy(graph));
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

// cuda.core's GraphBuilder.callback: cuLaunchHostFunc into a capturing stream makes a host node
// that runs at every graph launch, on the launch stream.
TEST_F(RewritingDriver, CapturedLaunchRunsAtEveryGraphLaunch) {
  start_application();
  const DriverTable& d = SimSession::get().driver();
  SimStream capturing;
  SimStream launching;
  std::atomic<int> runs{0};
  HostBody body = [&] {
    ++runs;
    with_simulated_gil(*recording_.sanitizer);
  };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.begin_capture(capturing.get(), CU_STREAM_CAPTURE_MODE_RELAXED));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(capturing.get(), run_lambda, &body));
  CUgraph graph = nullptr;
  ASSERT_EQ(CUDA_SUCCESS, cupti_.end_capture(capturing.get(), &graph));
  EXPECT_EQ(0, runs.load());
  CUgraphExec exec = nullptr;
  ASSERT_EQ(CUDA_SUCCESS, d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  for (int launch = 0; launch < 3; ++launch) ASSERT_EQ(CUDA_SUCCESS, d.cuGraphLaunch(exec, launching.get()));
  ASSERT_EQ(CUDA_SUCCESS, d.cuStreamSynchronize(launching.get()));
  EXPECT_EQ(3, runs.load());
  // The node's stream is not the capturing one: synchronizing that stream waits for nothing of it.
  gil_held_synchronize(capturing.get());
  EXPECT_TRUE(recording_.reports_of(Checker::lock_order_cycle).empty());
  t_holds_gil = true;
  EXPECT_EQ(CUDA_SUCCESS, cupti_.context_synchronize());
  t_holds_gil = false;
  EXPECT_EQ(1u, recording_.reports_of(Checker::lock_order_cycle).size());
  EXPECT_EQ(CUDA_SUCCESS, d.cuGraphExecDestroy(exec));
  EXPECT_EQ(CUDA_SUCCESS, d.cuGraphDestroy(graph));
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

// More launches than a thread's first block of pooled records has slots (record_pool.h): every record is
// finished by its run, in both modes, and a launch the driver refuses keeps none.
void launch_many_then_one_refused(InjectHandlerTest& test, FakeCupti& cupti) {
  constexpr int kLaunches = 2 * static_cast<int>(inject::RecordPool::kFirstSlots) + 7;
  SimStream stream;
  std::atomic<int> runs{0};
  HostBody body = [&] { ++runs; };
  for (int i = 0; i < kLaunches; ++i) ASSERT_EQ(CUDA_SUCCESS, cupti.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti.stream_synchronize(stream.get()));
  EXPECT_EQ(kLaunches, runs.load());
  EXPECT_EQ(0u, test.handler_->records_in_flight());

  CUstream gone = nullptr;
  ASSERT_EQ(CUDA_SUCCESS, SimSession::get().driver().cuStreamCreate(&gone, CU_STREAM_NON_BLOCKING));
  ASSERT_EQ(CUDA_SUCCESS, SimSession::get().driver().cuStreamDestroy(gone));
  EXPECT_NE(CUDA_SUCCESS, cupti.launch_host_func(gone, run_lambda, &body));
  EXPECT_EQ(0u, test.handler_->records_in_flight());
  EXPECT_EQ(kLaunches, runs.load());
  EXPECT_TRUE(test.recording_.sink->reports().empty());
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST_F(RewritingDriver, EveryPooledRecordIsFinishedAndARefusedLaunchKeepsNone) {
  start_application();
  launch_many_then_one_refused(*this, cupti_);
}

TEST_F(DriverIgnoringRewrites, EveryPooledRecordIsFinishedAndARefusedLaunchKeepsNone) {
  start_application();
  launch_many_then_one_refused(*this, cupti_);
}

// Marker mode, and the end marker's launch is refused while the begin marker still waits in the queue:
// the begin marker ends the run and finishes the record when it runs (before, the exit callback
// released it twice and the begin marker then began a host function on a released record, one that
// nothing would end).
TEST_F(RefusedEndMarkers, ABeginMarkerLeftWithoutItsEndFinishesTheRecord) {
  start_application();
  ASSERT_EQ(WrapMode::markers, handler_->mode());
  SimStream stream;
  std::atomic<bool> held{true};
  HostBody hold = [&] {
    while (held.load()) std::this_thread::yield();
  };
  std::atomic<int> runs{0};
  HostBody body = [&] { ++runs; };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &hold));
  g_refuse_end_markers = true;
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  g_refuse_end_markers = false;
  EXPECT_EQ(2u, handler_->records_in_flight()) << "the held function's, and the one its queued begin marker holds";
  held = false;
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  EXPECT_EQ(1, runs.load()) << "the application's function ran, unwatched";
  EXPECT_EQ(0u, handler_->records_in_flight());
  EXPECT_EQ(0u, recording_.sanitizer->waiting_host_functions()) << "nothing is left enqueued that will not begin";
  // The stream and the handler go on as before.
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  EXPECT_EQ(2, runs.load());
  EXPECT_EQ(0u, handler_->records_in_flight());
  EXPECT_EQ(0u, recording_.sanitizer->waiting_host_functions());
  EXPECT_TRUE(recording_.sink->reports().empty());
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

// The other order: on an idle stream the begin marker and the application's function have run when
// the end marker's launch is refused. The callback thread may still point at the record (a held-back
// begin), so the record is kept rather than released under it: one stays in flight, and the stream
// and the handler go on.
TEST_F(RefusedEndMarkersDefaults, ARecordWhoseBeginMarkerRanIsKeptWhenItsEndMarkerIsRefused) {
  start_application();
  ASSERT_EQ(WrapMode::markers, handler_->mode());
  SimStream stream;
  std::atomic<int> runs{0};
  HostBody body = [&] { ++runs; };
  for (int i = 0; i < 3; ++i) ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  std::atomic<bool> ran{false};
  HostBody marks = [&] {
    ++runs;
    ran = true;
  };
  g_refuse_after = &ran;
  g_refuse_end_markers = true;
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &marks));
  g_refuse_end_markers = false;
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  EXPECT_EQ(4, runs.load());
  EXPECT_EQ(1u, handler_->records_in_flight()) << "kept, not released under the callback thread";
  for (int i = 0; i < 2 * static_cast<int>(inject::RecordPool::kFirstSlots); ++i) {
    ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  }
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  EXPECT_EQ(4 + 2 * static_cast<int>(inject::RecordPool::kFirstSlots), runs.load());
  EXPECT_EQ(1u, handler_->records_in_flight());
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

// A host function like the last one the thread ran adds nothing to the model, so the handler does
// not send its begin and end, unless the thread makes a call inside it: that call must still be
// made inside the host function, holding what the host function holds.
TEST_F(InjectedDefaults, ACallInsideARepeatedHostFunctionIsStillInsideIt) {
  start_application();
  SimStream stream;
  HostBody empty = [] {};
  for (int i = 0; i < 3; ++i) ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &empty));
  HostBody allocates = [&] {
    CUdeviceptr pointer = 0;
    if (cupti_.mem_alloc(&pointer, 64) == CUDA_SUCCESS) cupti_.mem_free(pointer);
  };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &allocates));
  HostBody runtime_call = [&] {
    cupti_.runtime_call(kCudaMalloc, "cudaMalloc_v3020", [] { return kCudaErrorNotPermitted; });
  };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &empty));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &runtime_call));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  const auto found = recording_.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_EQ(2u, found.size());
  ASSERT_TRUE(found[0].call.has_value() && found[1].call.has_value());
  EXPECT_EQ("cuMemAlloc", found[0].call->entry_point);
  EXPECT_EQ("cudaMalloc", found[1].call->entry_point);
  EXPECT_EQ(0u, recording_.sanitizer->finish().ignored_events);
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

// A destroyed stream's pseudo-locks and edges leave the model: a host function on a new stream that
// got the same handle is news again, and its edges make the cycle of a later GIL-held synchronize.
// The handle's reuse is acted out: the handler is told of a successful cuStreamDestroy of a stream
// the simulated driver keeps, as if the application's next cuStreamCreate had returned it again.
TEST_F(InjectedDefaults, AHostFunctionOnAReusedStreamHandleIsSentAgain) {
  start_application();
  SimStream stream;
  HostBody body = [&] { with_simulated_gil(*recording_.sanitizer); };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  cupti_.act_out_stream_destroy(stream.get());
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  EXPECT_TRUE(recording_.reports_of(Checker::lock_order_cycle).empty());
  gil_held_synchronize(stream.get());
  EXPECT_EQ(1u, recording_.reports_of(Checker::lock_order_cycle).size());
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

// GILSAN_OPTIONS stats=1: each wrapped host function's own time is counted, the user's excluded.
TEST_F(TimedInjectTest, EveryWrappedHostFunctionIsTimed) {
  start_application();
  SimStream stream;
  HostBody body = [] {};
  for (int i = 0; i < 5; ++i) ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  const std::string summary = stats_.summary();
  EXPECT_NE(std::string::npos, summary.find("; 5 wrapped host functions (the user's function excluded), "))
      << summary;
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST(OwnTimeStats, CountsAndAveragesEachPiece) {
  inject::OwnTimeStats stats;
  EXPECT_EQ("gilsan: own time: 0 launch callbacks; 0 other API callbacks; 0 wrapped host functions (the user's "
            "function excluded)",
            stats.summary());
  stats.add_launch_callback(std::chrono::nanoseconds(100));
  stats.add_launch_callback(std::chrono::nanoseconds(300));
  stats.add_other_callback(std::chrono::nanoseconds(50));
  stats.add_wrapper(std::chrono::nanoseconds(70));
  EXPECT_EQ("gilsan: own time: 2 launch callbacks, 200 ns each; 1 other API callbacks, 50 ns each; 1 wrapped host "
            "functions (the user's function excluded), 70 ns each",
            stats.summary());
}

TEST_F(RewritingDriver, PerThreadLaunchIsOnThePerThreadStream) {
  start_application();
  HostBody body = [&] { with_simulated_gil(*recording_.sanitizer); };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func_per_thread(nullptr, run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, SimSession::get().driver().cuStreamSynchronize(CU_STREAM_PER_THREAD));
  gil_held_synchronize(CU_STREAM_PER_THREAD);
  const auto cycles = recording_.reports_of(Checker::lock_order_cycle);
  ASSERT_EQ(1u, cycles.size());
  bool names_per_thread_stream = false;
  for (const PseudoLock& lock : cycles[0].cycle) names_per_thread_stream |= lock.stream == 0x2;
  EXPECT_TRUE(names_per_thread_stream);
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST_F(SuppressingInjectTest, SuppressionMatchesTheWrappedCallable) {
  start_application();
  SimStream stream;
  HostBody body = [&] { with_simulated_gil(*recording_.sanitizer); };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), run_lambda, &body));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  gil_held_synchronize(stream.get());
  const RunSummary summary = recording_.sanitizer->finish();
  EXPECT_TRUE(recording_.reports_of(Checker::lock_order_cycle).empty());
  EXPECT_EQ(1u, summary.suppressed);
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST(CallClasses, SuffixesArePeeledAndTheProfileDecidesBlocking) {
  const DriverBehaviour behaviour = behaviour_from_profile(load_profile_for_sources());
  const inject::CallClass sync = inject::classify_call("cuStreamSynchronize_ptsz", behaviour);
  EXPECT_EQ(inject::CallKind::stream_synchronize, sync.kind);
  EXPECT_EQ("cuStreamSynchronize", sync.entry_point);
  EXPECT_TRUE(sync.per_thread);
  const inject::CallClass free_call = inject::classify_call("cuMemFree_v2", behaviour);
  EXPECT_EQ("cuMemFree", free_call.entry_point);
  EXPECT_TRUE(free_call.blocks_while_host_function_runs);  // "blocks" in the shipped profile
  EXPECT_FALSE(inject::classify_call("cuLaunchKernel", behaviour).blocks_while_host_function_runs);
  EXPECT_EQ(inject::CallKind::graph_add_node_v2, inject::classify_call("cuGraphAddNode_v2", behaviour).kind);
  EXPECT_EQ(inject::CallKind::graph_add_node, inject::classify_call("cuGraphAddNode", behaviour).kind);
  EXPECT_EQ(inject::CallKind::launch_host_func, inject::classify_call("cuLaunchHostFunc_v2", behaviour).kind);
  EXPECT_TRUE(inject::classify_call("cuCtxSynchronize_v2", behaviour).versioned);
  EXPECT_FALSE(inject::classify_call("cuCtxSynchronize", behaviour).versioned);
}

TEST_F(StackCapturingInjectTest, ReportsCarryTheCallersNativeStackAndStaticNames) {
  start_application();
  SimStream stream;
  for (int run = 0; run < 3; ++run) {
    ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(stream.get(), file_local_host_function_allocates, &cupti_));
  }
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(stream.get()));
  const auto found = recording_.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_EQ(1u, found.size());  // three runs, one report
  ASSERT_TRUE(found[0].host_function.has_value());
  EXPECT_EQ("file_local_host_function_allocates(void*)", found[0].host_function->callable);
  ASSERT_FALSE(found[0].stack.empty());
  // Named at report time, and cut where the sanitizer's and the fake CUPTI's frames end.
  EXPECT_EQ(0u, found[0].stack[0].find("file_local_host_function_allocates(void*)+0x")) << found[0].stack[0];
  EXPECT_NE(std::string::npos, found[0].stack[0].find("(gilsan_checkers_source_tests)")) << found[0].stack[0];
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

TEST_F(StackCapturingInjectTest, EveryEdgeOfACycleHasAStack) {
  start_application();
  finished_callback_then_gil_held_sync(*this, cupti_, recording_);
  const auto cycles = recording_.reports_of(Checker::lock_order_cycle);
  ASSERT_EQ(1u, cycles.size());
  for (const CycleEdge& edge : cycles[0].edges) {
    ASSERT_FALSE(edge.evidence.stack.empty()) << edge.sentence;
    EXPECT_EQ(std::string::npos, edge.evidence.stack[0].find("gilsan::checkers::inject::")) << edge.evidence.stack[0];
    EXPECT_NE(0u, edge.evidence.stack[0].find("0x")) << edge.evidence.stack[0];  // named, not raw
  }
  SimSession::get().driver().cuDevicePrimaryCtxRelease(SimSession::get().device());
}

}  // namespace
}  // namespace gilsan::checkers::testing
