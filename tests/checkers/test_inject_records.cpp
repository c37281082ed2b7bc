// The injection library's records of stream launches (checkers/inject/record_pool.h,
// wrapped_host_function.h): each finished by its run in both modes, none kept by a refused launch,
// marker mode's refused end markers, repeated host functions, and the time each run costs us.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "tests/checkers/inject_handler_fixture.h"

namespace gilsan::checkers::testing {
namespace {

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

// Marker mode, a launch into a capturing stream whose end marker's launch is refused: the begin marker
// is a graph node that runs at every launch of the graph. It must end each run it begins, or the
// callback thread is left inside a host function for good (every later call on it looks made inside
// one, and the watchdog's board shows it busy).
TEST_F(RefusedEndMarkers, ACapturedBeginMarkerLeftWithoutItsEndEndsEveryRun) {
  start_application();
  ASSERT_EQ(WrapMode::markers, handler_->mode());
  const DriverTable& d = SimSession::get().driver();
  SimStream capturing;
  SimStream launching;
  std::atomic<int> runs{0};
  HostBody body = [&] { ++runs; };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.begin_capture(capturing.get(), CU_STREAM_CAPTURE_MODE_RELAXED));
  g_refuse_end_markers = true;
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(capturing.get(), run_lambda, &body));
  g_refuse_end_markers = false;
  CUgraph graph = nullptr;
  ASSERT_EQ(CUDA_SUCCESS, cupti_.end_capture(capturing.get(), &graph));
  CUgraphExec exec = nullptr;
  ASSERT_EQ(CUDA_SUCCESS, d.cuGraphInstantiateWithFlags(&exec, graph, 0));
  for (int launch = 0; launch < 3; ++launch) ASSERT_EQ(CUDA_SUCCESS, d.cuGraphLaunch(exec, launching.get()));
  ASSERT_EQ(CUDA_SUCCESS, d.cuStreamSynchronize(launching.get()));
  EXPECT_EQ(3, runs.load()) << "the application's function ran at every launch, unwatched";
  // A host function launched after them runs inside nothing but itself.
  std::atomic<int> depth{-1};
  HostBody probe = [&] { depth = handler_->host_functions_running_here(); };
  ASSERT_EQ(CUDA_SUCCESS, cupti_.launch_host_func(launching.get(), run_lambda, &probe));
  ASSERT_EQ(CUDA_SUCCESS, cupti_.stream_synchronize(launching.get()));
  EXPECT_EQ(1, depth.load());
  EXPECT_EQ(0u, handler_->records_in_flight());
  EXPECT_TRUE(recording_.sink->reports().empty());
  EXPECT_EQ(CUDA_SUCCESS, d.cuGraphExecDestroy(exec));
  EXPECT_EQ(CUDA_SUCCESS, d.cuGraphDestroy(graph));
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

}  // namespace
}  // namespace gilsan::checkers::testing
