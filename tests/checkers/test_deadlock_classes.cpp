// The deadlocks of DESIGN.md's taxonomy as event sequences: each must be predicted as a lock-order
// cycle of the right class, whether or not the timing of the sequence would have hung.
#include <gtest/gtest.h>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

using Kind = PseudoLockKind;

HostFunction python_on(Handle stream, std::string callable = "on_done at scenario.py:14") {
  return Harness::host_function(HostFunctionKind::python, stream, std::move(callable));
}
HostFunction native_on(Handle stream, std::string callable = "libc free") {
  return Harness::host_function(HostFunctionKind::native, stream, std::move(callable));
}

TEST(DeadlockClasses, FinishedPythonCallbackThenGilHeldSyncIsGilDriverInversion) {
  Harness h;
  h.sanitizer.name_thread(kMain, "main");
  // The callback ran and returned long before: this run does not hang.
  h.run(kCallback, python_on(kStream1), {"trampoline", "on_done at scenario.py:14"});
  EXPECT_TRUE(h.cycles().empty());
  h.sync_stream(kMain, kStream1, /*holds_gil=*/true,
                {"ctypes.PyDLL call", "main at scenario.py:20"});
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  const Report& report = cycles[0];
  EXPECT_EQ(report.deadlock_class, DeadlockClass::gil_driver_inversion);
  // The shortest cycle: the callback's own completion waits for the GIL directly.
  ASSERT_EQ(kinds(report), (std::vector{Kind::gil, Kind::stream_completion}));
  EXPECT_EQ(report.cycle[1].stream, kStream1);
  // One sentence per edge, each with the stack of the first time it was seen.
  ASSERT_EQ(report.edges.size(), 2u);
  EXPECT_EQ(report.edges[0].sentence,
            "thread 100 (main) holds the GIL and waits in cuStreamSynchronize(stream 0x5001) for "
            "completion of stream 0x5001.");
  EXPECT_EQ(report.edges[0].evidence.stack, (Stack{"ctypes.PyDLL call", "main at scenario.py:20"}));
  EXPECT_EQ(
      report.edges[1].sentence,
      "completion of stream 0x5001 waits for host function on_done at scenario.py:14 (python, "
      "gilsan) on stream 0x5001, run by thread 300, which waits for the GIL.");
  EXPECT_EQ(report.edges[1].evidence.stack, (Stack{"trampoline", "on_done at scenario.py:14"}));
  ASSERT_TRUE(report.edges[1].evidence.thread.host_function);
  EXPECT_EQ(report.edges[1].evidence.thread.host_function->kind, HostFunctionKind::python);
  EXPECT_EQ(report.summary,
            "potential deadlock: the GIL -> completion of stream 0x5001 -> the GIL");
}

TEST(DeadlockClasses, GilHeldSyncBeforeTheCallbackRunsIsTheSameSingleReport) {
  Harness h;
  h.sync_stream(kMain, kStream1, true);
  h.run(kCallback, python_on(kStream1));
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::gil_driver_inversion);
}

TEST(DeadlockClasses, SyncWithTheGilReleasedIsSafe) {
  Harness h;
  for (int repeat = 0; repeat < 3; ++repeat) {
    h.run(kCallback, python_on(kStream1));
    h.take_gil(kMain);
    h.sync_stream(kMain, kStream1, /*holds_gil=*/false);  // a binding that releases the GIL
    h.sanitizer.gil_released(kMain);
  }
  EXPECT_TRUE(h.sanitizer.reports().empty());
}

TEST(DeadlockClasses, QueriesThatCannotBlockDrawNoEdge) {
  Harness h;
  h.run(kCallback, python_on(kStream1));
  h.call(kMain, "cuStreamQuery", kContext, kStream1, true, {});
  h.call(kMain, "cuEventQuery", kContext, std::nullopt, true, {});
  h.call(kMain, "cuLaunchHostFunc", kContext, kStream1, true, {});
  EXPECT_TRUE(h.sanitizer.reports().empty());
}

TEST(DeadlockClasses, GilHeldEventSynchronizeIsGilDriverInversion) {
  Harness h;
  h.run(kCallback, python_on(kStream1));
  h.sanitizer.driver_call_enter({.thread = kMain,
                                 .entry_point = "cuEventSynchronize",
                                 .context = kContext,
                                 .event = 0xe1,
                                 .holds_gil = true,
                                 .waits = {.streams = {kStream1}}});
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::gil_driver_inversion);
  EXPECT_NE(cycles[0].edges[0].sentence.find("cuEventSynchronize(event 0xe1)"), std::string::npos);
}

TEST(DeadlockClasses, GilHeldContextSynchronizeCoversStreamsSeenLater) {
  Harness h;
  h.call(kMain, "cuCtxSynchronize", kContext, std::nullopt, true, {.whole_context = true});
  h.run(kCallback, python_on(kStream2));  // a stream the sanitizer had never seen at the sync
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::gil_driver_inversion);
  EXPECT_EQ(kinds(cycles[0]), (std::vector{Kind::gil, Kind::context_completion}));
}

TEST(DeadlockClasses, GilHeldCallTheDriverBlocksIsGilDriverInversion) {
  Harness h;
  h.run(kCallback, python_on(kStream1));
  h.call(kMain, "cuMemAlloc", kContext, std::nullopt, true, {});
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::gil_driver_inversion);
  EXPECT_EQ(kinds(cycles[0]), (std::vector{Kind::gil, Kind::host_function_lock}));
  EXPECT_EQ(cycles[0].edges[0].sentence,
            "thread 100 holds the GIL and calls cuMemAlloc(context 0xc1), which the driver blocks "
            "while a host function of context 0xc1 runs.");
}

TEST(DeadlockClasses, BlockingCallOnAnotherContextIsSafe) {
  Harness h;
  h.run(kCallback2, Harness::host_function(HostFunctionKind::python, kStream3, "cb", kContext2));
  h.call(kMain, "cuMemAlloc", kContext, std::nullopt, true, {});
  h.sync_stream(kMain, kStream1, true);
  EXPECT_TRUE(h.cycles().empty());
}

TEST(DeadlockClasses, NativeCallbackQueuedBehindAPythonOneIsGilDriverInversion) {
  // The native host function on S2 needs no GIL, but it waits for the callback thread, which a
  // Python host function on S1 occupies while it waits for the GIL.
  Harness h;
  h.run(kCallback, python_on(kStream1));
  h.run(kCallback, native_on(kStream2));
  h.sync_stream(kMain, kStream2, true);
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::gil_driver_inversion);
  EXPECT_EQ(kinds(cycles[0]),
            (std::vector{Kind::gil, Kind::stream_completion, Kind::callback_thread}));
  EXPECT_EQ(cycles[0].cycle[1].stream, kStream2);
}

TEST(DeadlockClasses, OnlyNativeCallbacksMeanNoInversion) {
  Harness h;
  h.run(kCallback, native_on(kStream1));
  h.run(kCallback, native_on(kStream2));
  h.sync_stream(kMain, kStream1, true);
  EXPECT_TRUE(h.cycles().empty());
}

TEST(DeadlockClasses, HostFunctionSyncingItsOwnStreamIsCallbackSelfWait) {
  Harness h;
  h.begin(kCallback, native_on(kStream1, "bad_cb"));
  h.sanitizer.driver_call_enter({.thread = kCallback,
                                 .entry_point = "cuStreamSynchronize",
                                 .context = kContext,
                                 .stream = kStream1,
                                 .holds_gil = false,
                                 .waits = {.streams = {kStream1}},
                                 .stack = {"bad_cb at x.c:3"}});
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::callback_self_wait);
  ASSERT_EQ(kinds(cycles[0]), (std::vector{Kind::stream_completion}));
  ASSERT_EQ(cycles[0].edges.size(), 1u);
  EXPECT_EQ(cycles[0].edges[0].from, 0u);
  EXPECT_EQ(cycles[0].edges[0].to, 0u);
  EXPECT_EQ(cycles[0].edges[0].sentence,
            "completion of stream 0x5001 waits for host function bad_cb (native, gilsan) on stream "
            "0x5001, run by thread 300, which waits in cuStreamSynchronize(stream 0x5001) for "
            "completion of stream 0x5001.");
}

TEST(DeadlockClasses, HostFunctionWaitingForAnEventOfItsOwnStreamIsCallbackSelfWait) {
  Harness h;
  h.begin(kCallback, python_on(kStream1));
  h.sanitizer.driver_call_enter({.thread = kCallback,
                                 .entry_point = "cuEventSynchronize",
                                 .context = kContext,
                                 .event = 0xe1,
                                 .holds_gil = false,
                                 .waits = {.streams = {kStream1}}});
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::callback_self_wait);
}

TEST(DeadlockClasses, ContextSynchronizeRefusedInsideAHostFunctionWaitsForNothing) {
  Harness h;
  h.begin(kCallback, native_on(kStream1));
  h.call(kCallback, "cuCtxSynchronize", kContext, std::nullopt, false, {.whole_context = true},
         kCudaErrorNotPermitted);
  h.sanitizer.host_function_end(kCallback);
  EXPECT_TRUE(h.cycles().empty());
  EXPECT_EQ(h.reports_of(Checker::cuda_call_in_host_function).size(), 1u);
}

TEST(DeadlockClasses, ContextSynchronizeInsideAHostFunctionWhereTheDriverAllowsItIsSelfWait) {
  Harness
      h;  // cuStreamSynchronize is not refused; a driver that let cuCtxSynchronize wait would hang
  h.begin(kCallback, native_on(kStream1));
  h.sanitizer.driver_call_enter({.thread = kCallback,
                                 .entry_point = "cuCtxSynchronizeThatWaits",
                                 .context = kContext,
                                 .holds_gil = false,
                                 .waits = {.whole_context = true}});
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::callback_self_wait);
  EXPECT_EQ(kinds(cycles[0]), (std::vector{Kind::context_completion}));
}

TEST(DeadlockClasses, HostFunctionWaitingForAnotherStreamWithHostFunctionsIsSerialization) {
  Harness h;
  h.run(kCallback, native_on(kStream2, "producer"));  // S2 has host functions (already done)
  h.begin(kCallback, native_on(kStream1, "consumer"));
  h.call(kCallback, "cuStreamSynchronize", kContext, kStream2, false, {.streams = {kStream2}});
  h.sanitizer.host_function_end(kCallback);
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::callback_serialization);
  EXPECT_EQ(kinds(cycles[0]), (std::vector{Kind::stream_completion, Kind::callback_thread}));
  EXPECT_EQ(cycles[0].cycle[0].stream, kStream2);
}

TEST(DeadlockClasses, SerializationFoundInEitherOrder) {
  Harness h;
  h.begin(kCallback, native_on(kStream1, "consumer"));
  h.call(kCallback, "cuStreamSynchronize", kContext, kStream2, false, {.streams = {kStream2}});
  h.sanitizer.host_function_end(kCallback);
  EXPECT_TRUE(h.cycles().empty());  // S2 has had no host function yet: it only waits for the GPU
  h.run(kCallback, native_on(kStream2, "producer"));
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::callback_serialization);
}

TEST(DeadlockClasses, HostFunctionWaitingForAStreamOfAnotherContextIsSafe) {
  Harness h;
  h.run(kCallback2, Harness::host_function(HostFunctionKind::native, kStream3, "other", kContext2));
  h.begin(kCallback, native_on(kStream1));
  h.call(kCallback, "cuStreamSynchronize", kContext2, kStream3, false, {.streams = {kStream3}});
  h.sanitizer.host_function_end(kCallback);
  EXPECT_TRUE(h.cycles().empty());
}

TEST(DeadlockClasses, HostFunctionNeedingALockHeldByABlockedCallerIsCallbackDriverLock) {
  // A worker holds a user lock and calls cuMemAlloc, which the driver blocks while a host function
  // of the context runs; the host function waits for that lock.
  Harness h;
  h.acquire(kWorker, 0x10c, "pool_lock", {"worker at app.py:30"});
  h.call(kWorker, "cuMemAlloc", kContext, std::nullopt, false, {}, kCudaSuccess,
         {"alloc at app.py:31"});
  h.sanitizer.lock_release(kWorker, 0x10c);
  h.begin(kCallback, native_on(kStream1, "recycle"));
  h.acquire(kCallback, 0x10c, "pool_lock", {"recycle at pool.c:12"});
  h.sanitizer.lock_release(kCallback, 0x10c);
  h.sanitizer.host_function_end(kCallback);
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::callback_driver_lock);
  EXPECT_EQ(kinds(cycles[0]), (std::vector{Kind::user_lock, Kind::host_function_lock}));
  EXPECT_EQ(cycles[0].edges[0].evidence.stack, Stack{"alloc at app.py:31"});
  EXPECT_EQ(cycles[0].edges[1].evidence.stack, Stack{"recycle at pool.c:12"});
  EXPECT_EQ(
      cycles[0].edges[1].sentence,
      "the driver's host-function lock of context 0xc1 is held while host function recycle "
      "(native, gilsan) on stream 0x5001 runs on thread 300, which waits for lock 'pool_lock' "
      "(0x10c).");
}

TEST(DeadlockClasses, HostFunctionNeedingALockHeldByASyncingThreadIsUserLockInversion) {
  Harness h;
  h.acquire(kMain, 0x10c, "results");
  h.sync_stream(kMain, kStream1, false);
  h.sanitizer.lock_release(kMain, 0x10c);
  h.begin(kCallback, python_on(kStream1));
  h.sanitizer.lock_acquire(
      {.thread = kCallback, .lock = 0x10c, .name = "results", .releases_gil_while_waiting = true});
  h.sanitizer.lock_release(kCallback, 0x10c);
  h.sanitizer.host_function_end(kCallback);
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::user_lock_inversion);
  EXPECT_EQ(kinds(cycles[0]), (std::vector{Kind::user_lock, Kind::stream_completion}));
}

TEST(DeadlockClasses, DestroyedStreamHandleReusedStartsClean) {
  Harness h;
  h.run(kCallback, python_on(kStream1));
  h.sanitizer.stream_destroyed(kContext, kStream1);
  h.sync_stream(kMain, kStream1, true);  // a new stream that got the same handle, no callbacks
  EXPECT_TRUE(h.cycles().empty());
}

TEST(DeadlockClasses, NullStreamsOfTwoContextsAreDifferentStreams) {
  Harness h;
  h.run(kCallback2, Harness::host_function(HostFunctionKind::python, 0, "cb", kContext2));
  h.sync_stream(kMain, 0, true, {}, kContext);
  EXPECT_TRUE(h.cycles().empty());
  h.sync_stream(kMain, 0, true, {}, kContext2);
  EXPECT_EQ(h.cycles().size(), 1u);
}

TEST(DeadlockClasses, DistinctInversionsOfOneCallbackAreEachReportedOnce) {
  Harness h;
  for (int repeat = 0; repeat < 20; ++repeat) {
    h.run(kCallback, python_on(kStream1));
    h.sync_stream(kMain, kStream1, true);  // GIL -> S1
    h.call(kMain, "cuCtxSynchronize", kContext, std::nullopt, true,
           {.whole_context = true});                               // GIL -> C
    h.call(kMain, "cuMemFree", kContext, std::nullopt, true, {});  // GIL -> host-function lock
  }
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 3u);
  for (const Report& cycle : cycles)
    EXPECT_EQ(cycle.deadlock_class, DeadlockClass::gil_driver_inversion);
}

}  // namespace
}  // namespace gilsan::checkers::testing
