// The classifier on hand-built snapshots: every class of the taxonomy, the no-cycle cases, and facts
// inferred from native frames.
#include "harness/watchdog/classifier.h"

#include <algorithm>
#include <gtest/gtest.h>

#include "tests/watchdog/child_runner.h"
#include "tests/watchdog/snapshot_fixtures.h"

namespace gilsan::watchdog::testing {
namespace {

using board::GilState;
using board::Role;

Classification run(const Snapshot& snapshot) { return classify(snapshot, &test_profile_blocks); }

std::vector<std::string> cycle_nodes(const Classification& result) {
  std::vector<std::string> ids;
  for (const WaitEdge& edge : result.cycle) ids.push_back(edge.from);
  return ids;
}

bool cycle_has(const Classification& result, const std::string& id) {
  auto ids = cycle_nodes(result);
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::size_t inferred_in_cycle(const Classification& result) {
  return static_cast<std::size_t>(
      std::count_if(result.cycle.begin(), result.cycle.end(), [](const WaitEdge& edge) { return edge.inferred; }));
}

TEST(Classifier, GilDriverInversionFromTheBoard) {
  Classification result = run(gil_inversion_snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::gil_driver_inversion);
  ASSERT_EQ(result.cycle.size(), 4u);
  EXPECT_EQ(inferred_in_cycle(result), 0u);
  EXPECT_TRUE(cycle_has(result, "thread:100"));
  EXPECT_TRUE(cycle_has(result, "thread:101"));
  EXPECT_TRUE(cycle_has(result, "gil"));
  EXPECT_TRUE(cycle_has(result, "stream:0x10"));
  std::vector<std::string> texts;
  for (const WaitEdge& edge : result.cycle) texts.push_back(edge.text);
  EXPECT_NE(std::find(texts.begin(), texts.end(), "thread 100 (main) holds the GIL and waits in cuStreamSynchronize(stream 0x10)"),
            texts.end());
  EXPECT_NE(std::find(texts.begin(), texts.end(),
                      "stream 0x10 waits for host function #3 (python, gilsan, scenario.py:14 cb) on thread 101 "
                      "(callback thread of context 0x30)"),
            texts.end());
  EXPECT_TRUE(result.inferred.empty());
}

TEST(Classifier, GilHeldAtCallEntryCountsAsHolding) {
  Snapshot snapshot = gil_inversion_snapshot();
  board::ThreadRecord& main_record = *snapshot.threads[0].board;
  main_record.gil_state = GilState::Unknown;
  main_record.calls[0].gil_at_entry = GilState::Holds;
  Classification result = run(snapshot);
  EXPECT_EQ(result.deadlock_class, DeadlockClass::gil_driver_inversion);
  EXPECT_EQ(result.facts.find(kMain)->gil.source, "PyGILState_Check at cuStreamSynchronize entry");
}

TEST(Classifier, GilReleasedBeforeTheCallIsNoCycle) {
  Snapshot snapshot = gil_inversion_snapshot();
  snapshot.threads[0].board->gil_state = GilState::Released;
  Classification result = run(snapshot);
  EXPECT_TRUE(result.cycle.empty());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::unknown);
}

TEST(Classifier, GilDriverInversionThroughACallTheDriverHoldsBack) {
  Snapshot snapshot = gil_inversion_snapshot();
  snapshot.threads[0].board->calls[0] = call("cuMemAlloc_v2", 0);
  Classification result = run(snapshot);
  EXPECT_EQ(result.deadlock_class, DeadlockClass::gil_driver_inversion);
  EXPECT_TRUE(cycle_has(result, "driver-lock:0x30"));
}

// The profile says cuMemAllocAsync returns while a host function runs, but the GIL holder has been in
// it for the quiet period while the Python host function of its context waits for the GIL: the
// evidence names the class, and the report says the profile was wrong for this driver (issue 14: a
// kernel's first launch under lazy loading was such a call on the H200).
TEST(Classifier, ACallTheProfileSaysReturnsIsAnInversionOnTheEvidenceAndTheReportSaysSo) {
  Snapshot snapshot = gil_inversion_snapshot();
  snapshot.threads[0].board->calls[0] = call("cuMemAllocAsync", kStream2);
  Classification result = run(snapshot);
  EXPECT_EQ(result.deadlock_class, DeadlockClass::gil_driver_inversion);
  EXPECT_TRUE(cycle_has(result, "driver-lock:0x30"));
  EXPECT_EQ(inferred_in_cycle(result), 1u);
  ASSERT_FALSE(result.inferred.empty()) << "a cycle with an inferred edge lists it";
  EXPECT_NE(result.inferred.back().find("though the driver profile says it returns"), std::string::npos)
      << result.inferred.back();
  EXPECT_NE(std::find(result.reasons.begin(), result.reasons.end(),
                      "the profile says cuMemAllocAsync returns while a host function runs; this driver blocked it: "
                      "run gilsan probe"),
            result.reasons.end());
}

TEST(Classifier, ACallTheProfileSaysReturnsMakesNoCycleWhenNoHostFunctionWaitsForTheGil) {
  Snapshot snapshot = gil_inversion_snapshot();
  snapshot.threads[0].board->calls[0] = call("cuMemAllocAsync", kStream2);
  snapshot.threads[1].board->gil_state = GilState::Released;  // the host function runs, without the GIL
  Classification result = run(snapshot);
  EXPECT_TRUE(result.cycle.empty());
  EXPECT_NE(result.deadlock_class, DeadlockClass::gil_driver_inversion);
}

// CuPy on the real driver: nothing of this is on the board; the GIL waiter, the call and the GIL's
// holder are inferred from native frames and the Python stacks.
TEST(Classifier, GilDriverInversionInferredFromNativeFrames) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.plain_thread(kMain);
  main_thread.native_stack = {frame("__futex_abstimed_wait_common", "/lib/libc.so.6"),
                              frame("cudaStreamSynchronize", "/usr/lib/libcudart.so.13"),
                              frame("_PyEval_EvalFrameDefault", "/usr/bin/python3")};
  main_thread.python_stack = std::vector<PythonFrame>{{"repro.py", 9, "<module>"}};
  ThreadSnapshot& callback = builder.plain_thread(kCallback);
  callback.native_stack = {frame("__futex_abstimed_wait_common", "/lib/libc.so.6"),
                           frame("pthread_cond_timedwait", "/lib/libc.so.6"), frame("", "/usr/bin/python3"),
                           frame("PyGILState_Ensure", "/usr/bin/python3"),
                           frame("", "/venv/cupy_backends/cuda/api/runtime.so"), frame("", "/usr/lib/libcuda.so.1")};
  Classification result = run(builder.snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::gil_driver_inversion);
  EXPECT_EQ(result.cycle.size(), 3u);
  EXPECT_EQ(inferred_in_cycle(result), 3u);
  const ThreadFacts* waiter = result.facts.find(kCallback);
  EXPECT_EQ(waiter->gil.state, GilState::Waiting);
  EXPECT_TRUE(waiter->gil.inferred);
  EXPECT_EQ(waiter->gil.source, "native frame PyGILState_Ensure");
  EXPECT_TRUE(waiter->host_function && waiter->host_function->inferred);
  EXPECT_EQ(result.facts.find(kMain)->gil.state, GilState::Holds);
  EXPECT_GE(result.inferred.size(), 3u);
  // The GIL wait is a fact of the thread and an edge of the cycle: the report lists it once.
  const auto gil_waits = std::count_if(result.inferred.begin(), result.inferred.end(), [](const std::string& fact) {
    return fact.find("waits for the GIL") != std::string::npos;
  });
  EXPECT_EQ(gil_waits, 1) << ::testing::PrintToString(result.inferred);
}

TEST(Classifier, CallbackSelfWaitOnItsOwnStream) {
  SnapshotBuilder builder;
  builder.board_thread(kMain, Role::Main);
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  Classification result = run(builder.snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::callback_self_wait);
  EXPECT_EQ(cycle_nodes(result), (std::vector<std::string>{"thread:101", "stream:0x10"}));
}

TEST(Classifier, CallbackSelfWaitOnAnEventRecordedAfterIt) {
  SnapshotBuilder builder;
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.board->calls.push_back(call("cuEventSynchronize", 0, 0x50));
  builder.snapshot().events.push_back(board::EventRecord{0x50, kStream1, kContext, 10});
  Classification result = run(builder.snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::callback_self_wait);
  EXPECT_TRUE(cycle_has(result, "event:0x50"));
}

TEST(Classifier, CallbackSerializationOnAPendingHostFunction) {
  SnapshotBuilder builder;
  builder.board_thread(kMain, Role::Main);
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.board->calls.push_back(call("cuStreamSynchronize", kStream2));
  builder.snapshot().pending_host_functions.push_back(host_function(4, kStream2));
  Classification result = run(builder.snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::callback_serialization);
  EXPECT_TRUE(cycle_has(result, "callback-thread:0x30"));
  EXPECT_TRUE(cycle_has(result, "stream:0x20"));
}

TEST(Classifier, CallbackDriverLock) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = GilState::Released;
  main_thread.board->held_locks.push_back(board::LockRecord{0x99, "registry lock", 5});
  main_thread.board->calls.push_back(call("cuMemFree_v2", 0));
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.board->waiting_lock = board::LockRecord{0x99, "registry lock", 6};
  Classification result = run(builder.snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::callback_driver_lock);
  EXPECT_TRUE(cycle_has(result, "lock:0x99"));
  EXPECT_TRUE(cycle_has(result, "driver-lock:0x30"));
  EXPECT_EQ(inferred_in_cycle(result), 0u);
}

TEST(Classifier, UserLockInversionWithBoardLocks) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = GilState::Released;
  main_thread.board->held_locks.push_back(board::LockRecord{0x99, "results lock", 5});
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.board->waiting_lock = board::LockRecord{0x99, "results lock", 6};
  Classification result = run(builder.snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::user_lock_inversion);
  EXPECT_EQ(inferred_in_cycle(result), 0u);
}

TEST(Classifier, UserLockInversionWithAPythonLockSeenInFrames) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = GilState::Released;
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.native_stack = {frame("do_futex_wait", "/lib/libc.so.6"), frame("sem_clockwait", "/lib/libc.so.6"),
                           frame("PyThread_acquire_lock_timed", "/usr/bin/python3"),
                           frame("_PyEval_EvalFrameDefault", "/usr/bin/python3")};
  callback.python_stack = std::vector<PythonFrame>{{"scenario.py", 22, "cb"}};
  Classification result = run(builder.snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::user_lock_inversion);
  EXPECT_EQ(inferred_in_cycle(result), 2u);  // the wait (from frames) and the holder (by elimination)
  const WaitNode* lock = result.graph.node("lock:unknown@101");
  ASSERT_NE(lock, nullptr);
  EXPECT_EQ(lock->label, "an unidentified Python lock (acquired at scenario.py:22 in cb)");
}

TEST(Classifier, PlainLockOrderInversionIsAUserLockInversion) {
  SnapshotBuilder builder;
  ThreadSnapshot& one = builder.board_thread(kMain, Role::Main);
  one.board->held_locks.push_back(board::LockRecord{1, "A", 1});
  one.board->waiting_lock = board::LockRecord{2, "B", 2};
  ThreadSnapshot& two = builder.board_thread(kOther, Role::OtherNative);
  two.board->held_locks.push_back(board::LockRecord{2, "B", 1});
  two.board->waiting_lock = board::LockRecord{1, "A", 2};
  Classification result = run(builder.snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::user_lock_inversion);
  EXPECT_EQ(result.cycle.size(), 4u);
}

TEST(Classifier, FinalizationWithTheGilInTheCycle) {
  Snapshot snapshot = gil_inversion_snapshot();
  snapshot.interpreter_finalizing = true;
  Classification result = run(snapshot);
  EXPECT_EQ(result.deadlock_class, DeadlockClass::finalization);
  EXPECT_FALSE(result.facts.finalizing_inferred);
}

TEST(Classifier, FinalizationWhenTheCallbackThreadEnded) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = GilState::Released;
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  main_thread.native_stack = {frame("__futex_abstimed_wait_common", "/lib/libc.so.6"),
                              frame("cuStreamSynchronize", "/usr/lib/libgilsan_simcuda.so"),
                              frame("Py_FinalizeEx", "/usr/lib/libpython3.12.so")};
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1, board::HostFunctionKind::Ctypes));
  callback.proc.reset();  // PyGILState_Ensure ended the thread
  Classification result = run(builder.snapshot());
  EXPECT_TRUE(result.cycle.empty());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::finalization);
  EXPECT_TRUE(result.facts.finalizing_inferred);
}

TEST(Classifier, FinalizationWhenTheCallbackThreadIsParked) {
  SnapshotBuilder builder;
  builder.snapshot().interpreter_finalizing = true;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->calls.push_back(call("cuCtxSynchronize", 0));
  ThreadSnapshot& callback = builder.board_thread(kCallback, Role::DriverCallback, kContext);
  callback.board->host_functions.push_back(host_function(3, kStream1));
  callback.native_stack = {frame("pause", "/lib/libc.so.6"), frame("PyThread_hang_thread", "/usr/lib/libpython3.14.so"),
                           frame("PyGILState_Ensure", "/usr/lib/libpython3.14.so")};
  Classification result = run(builder.snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::finalization);
}

// The real driver with a ctypes host function at exit: nothing wrote the callback thread's record,
// and PyGILState_Ensure ended that thread; only the GIL-holding main thread and its stream remain.
TEST(Classifier, FinalizationWhenAGilHolderWaitsForWorkNoThreadRuns) {
  SnapshotBuilder builder;
  builder.snapshot().interpreter_finalizing = true;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = GilState::Holds;
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  Classification result = run(builder.snapshot());
  EXPECT_TRUE(result.cycle.empty());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::finalization);
  ASSERT_FALSE(result.inferred.empty());
  EXPECT_NE(result.inferred.back().find("holds the GIL during finalization"), std::string::npos);
}

// The real driver with a ctypes host function at exit, as measured on the H200 (580.159.04, Python
// 3.12): the callback thread is alive in PyGILState_Ensure under libcuda frames, but nothing recorded
// which stream its host function belongs to; the GIL holder's stream can only be waiting for it.
Snapshot gil_holder_and_unrecorded_callback(bool finalizing, bool board_knows_the_streams_host_function = false) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = GilState::Holds;
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  main_thread.native_stack = {frame("", "/usr/lib/libcuda.so.1"), frame("cuStreamSynchronize", "/usr/lib/libcuda.so.1"),
                              frame("_PyEval_EvalFrameDefault", "/usr/lib/libpython3.12.so")};
  if (finalizing) main_thread.native_stack.push_back(frame("Py_FinalizeEx", "/usr/lib/libpython3.12.so"));
  ThreadSnapshot& callback = builder.plain_thread(kCallback);
  callback.native_stack = {frame("pthread_cond_timedwait", "/lib/libc.so.6"),
                           frame("PyEval_RestoreThread", "/usr/lib/libpython3.12.so"),
                           frame("PyGILState_Ensure", "/usr/lib/libpython3.12.so"),
                           frame("", "/usr/lib/python3.12/lib-dynload/_ctypes.so"), frame("", "/usr/lib/libcuda.so.1")};
  if (board_knows_the_streams_host_function) {
    ThreadSnapshot& other = builder.board_thread(kOther, Role::DriverCallback, kContext);
    other.board->host_functions.push_back(host_function(7, kStream1));
  }
  return builder.snapshot();
}

TEST(Classifier, FinalizationThroughACallbackWhoseStreamIsUnrecorded) {
  Classification result = run(gil_holder_and_unrecorded_callback(true));
  EXPECT_EQ(result.deadlock_class, DeadlockClass::finalization);
  EXPECT_EQ(result.cycle.size(), 4u);
  EXPECT_TRUE(cycle_has(result, "thread:" + std::to_string(kCallback)));
  EXPECT_TRUE(cycle_has(result, "gil"));
  EXPECT_TRUE(result.facts.finalizing_inferred);
}

TEST(Classifier, GilDriverInversionThroughACallbackWhoseStreamIsUnrecorded) {
  Classification result = run(gil_holder_and_unrecorded_callback(false));
  EXPECT_EQ(result.deadlock_class, DeadlockClass::gil_driver_inversion);
  EXPECT_EQ(inferred_in_cycle(result), 2u);  // the stream's host function and the callback's GIL wait
}

// A host function recorded on another stream is not taken for the unrecorded one.
TEST(Classifier, AnUnrecordedStreamIsNotGuessedWhenTheBoardKnowsTheStreamsHostFunction) {
  Snapshot snapshot = gil_holder_and_unrecorded_callback(false, true);
  Classification result = run(snapshot);
  EXPECT_FALSE(cycle_has(result, "thread:" + std::to_string(kCallback)));
}

// The same waits outside finalization are a stalled GPU, not a finalization hang.
TEST(Classifier, AGilHolderWaitingForStalledWorkIsAGpuStallBeforeFinalization) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = GilState::Holds;
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  Classification result = run(builder.snapshot());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::gpu_stall);
}

TEST(Classifier, GpuStallWhenNoHostFunctionIsInTheWay) {
  SnapshotBuilder builder;
  ThreadSnapshot& main_thread = builder.board_thread(kMain, Role::Main);
  main_thread.board->gil_state = GilState::Released;
  main_thread.board->calls.push_back(call("cuStreamSynchronize", kStream1));
  builder.board_thread(kCallback, Role::DriverCallback, kContext);
  Classification result = run(builder.snapshot());
  EXPECT_TRUE(result.cycle.empty());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::gpu_stall);
  ASSERT_FALSE(result.reasons.empty());
  EXPECT_NE(result.reasons[0].find("stream 0x10"), std::string::npos);
}

TEST(Classifier, ALongRunningHostFunctionIsNoCycle) {
  Snapshot snapshot = gil_inversion_snapshot();
  snapshot.threads[1].board->gil_state = GilState::Holds;  // the callback runs, holding the GIL
  snapshot.threads[0].board->gil_state = GilState::Released;
  Classification result = run(snapshot);
  EXPECT_TRUE(result.cycle.empty());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::unknown);
}

TEST(Classifier, AGilWaitWithoutKnownHolderIsUnknown) {
  SnapshotBuilder builder;
  ThreadSnapshot& waiter = builder.board_thread(kOther, Role::Python);
  waiter.board->gil_state = GilState::Waiting;
  Classification result = run(builder.snapshot());
  EXPECT_TRUE(result.cycle.empty());
  EXPECT_EQ(result.deadlock_class, DeadlockClass::unknown);
}

TEST(Classifier, AnEmptySnapshotIsUnknownWithAReason) {
  Classification result = run(Snapshot{});
  EXPECT_EQ(result.deadlock_class, DeadlockClass::unknown);
  EXPECT_FALSE(result.reasons.empty());
}

TEST(Classifier, CyclesOnTheBoardArePreferredToInferredOnes) {
  Snapshot snapshot = gil_inversion_snapshot();
  // The callback's frames also show a native mutex wait: that adds a second cycle through an
  // unidentified lock whose holder is inferred. The board's cycle must win.
  snapshot.threads[1].native_stack = {frame("__lll_lock_wait", "/lib/libc.so.6"),
                                      frame("pthread_mutex_lock", "/lib/libc.so.6"), frame("callback", "/usr/bin/app")};
  Classification result = run(snapshot);
  EXPECT_GE(result.cycles_found, 2u);
  EXPECT_EQ(result.deadlock_class, DeadlockClass::gil_driver_inversion);
  EXPECT_EQ(inferred_in_cycle(result), 0u);
}

TEST(ClassOfCycle, ParsesAndPrintsEveryClassName) {
  for (const DeadlockClassInfo& row : kDeadlockClasses) {
    EXPECT_EQ(parse_deadlock_class(to_string(row.value)), row.value) << row.name;
  }
  EXPECT_FALSE(parse_deadlock_class("gil-inversion").has_value());
}

}  // namespace
}  // namespace gilsan::watchdog::testing
