// The injection library's logic (checkers/inject) on synthetic CUPTI callbacks around real calls
// into the simulated driver: the self-test, both wrapping modes, what gets reported. The records' own
// lifetimes are in test_inject_records.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "checkers/inject/call_classes.h"
#include "tests/checkers/inject_handler_fixture.h"

// A native host function the executable does not export (file-local, global namespace): only the
// ELF .symtab names it, and the sanitizer's own frames (gilsan::checkers::) end above it.
static void CUDA_CB file_local_host_function_allocates(void* fake_cupti) {
  CUdeviceptr pointer = 0;
  auto& cupti = *static_cast<gilsan::checkers::testing::FakeCupti*>(fake_cupti);
  if (cupti.mem_alloc(&pointer, 64) == CUDA_SUCCESS) cupti.mem_free(pointer);
}

namespace gilsan::checkers::testing {
namespace {

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