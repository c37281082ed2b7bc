// Lock-order cycles among user locks and the GIL, fed through the Sanitizer as event sequences.
#include <gtest/gtest.h>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

// Thread `thread` takes the locks in order, then lets them go in reverse.
void nest(Harness& h, ThreadId thread, const std::vector<std::uint64_t>& locks) {
  for (std::uint64_t lock : locks)
    h.acquire(thread, lock, "L" + std::to_string(lock),
              {"frame of thread " + std::to_string(thread) + " taking L" + std::to_string(lock)});
  for (auto lock = locks.rbegin(); lock != locks.rend(); ++lock)
    h.sanitizer.lock_release(thread, *lock);
}

TEST(LockCycles, TwoNodeCycleIsReportedWithBothStacks) {
  Harness h;
  nest(h, 1, {1, 2});
  EXPECT_TRUE(h.cycles().empty());
  nest(h, 2, {2, 1});
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  const Report& cycle = cycles[0];
  // No CUDA in it: the taxonomy files plain lock inversions under user-lock-inversion.
  EXPECT_EQ(cycle.deadlock_class, DeadlockClass::user_lock_inversion);
  ASSERT_EQ(cycle.cycle.size(), 2u);
  ASSERT_EQ(cycle.edges.size(), 2u);
  EXPECT_EQ(cycle.cycle[0].lock, 1u);
  EXPECT_EQ(cycle.edges[0].evidence.thread.id, 1u);  // L1 -> L2 was thread 1's
  EXPECT_EQ(cycle.edges[1].evidence.thread.id, 2u);
  EXPECT_EQ(cycle.edges[0].evidence.stack, Stack{"frame of thread 1 taking L2"});
  EXPECT_EQ(cycle.edges[1].evidence.stack, Stack{"frame of thread 2 taking L1"});
  EXPECT_EQ(cycle.edges[0].sentence,
            "thread 1 holds lock 'L1' (0x1) and waits for lock 'L2' (0x2).");
  EXPECT_EQ(h.sink->reports().size(), 1u);
}

TEST(LockCycles, ThreeNodeCycle) {
  Harness h;
  nest(h, 1, {1, 2});
  nest(h, 2, {2, 3});
  EXPECT_TRUE(h.cycles().empty());
  nest(h, 3, {3, 1});
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].cycle.size(), 3u);
}

TEST(LockCycles, FiveNodeCycle) {
  Harness h;
  for (std::uint64_t i = 0; i < 4; ++i) nest(h, 10 + i, {i, i + 1});
  EXPECT_TRUE(h.cycles().empty());
  nest(h, 14, {4, 0});
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  ASSERT_EQ(cycles[0].cycle.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(cycles[0].cycle[i].lock, i);
  EXPECT_EQ(
      cycles[0].summary,
      "potential deadlock: lock 'L0' (0x0) -> lock 'L1' (0x1) -> lock 'L2' (0x2) -> lock 'L3' "
      "(0x3) -> lock 'L4' (0x4) -> lock 'L0' (0x0)");
}

TEST(LockCycles, ConsistentOrderIsNeverACycle) {
  Harness h;
  for (int repeat = 0; repeat < 50; ++repeat) {
    nest(h, 1, {1, 2, 3, 4});
    nest(h, 2, {1, 3});
    nest(h, 3, {2, 4});
    h.take_gil(1);  // the GIL last, always
    h.sanitizer.gil_released(1);
    nest(h, 1, {1, 2});
  }
  EXPECT_TRUE(h.sanitizer.reports().empty());
  EXPECT_EQ(h.sanitizer.finish().exit_code, 0);
}

TEST(LockCycles, EachCycleIsReportedOnceAcrossRepeats) {
  Harness h;
  for (int repeat = 0; repeat < 100; ++repeat) {
    nest(h, 1, {1, 2});
    nest(h, 2, {2, 1});
  }
  EXPECT_EQ(h.cycles().size(), 1u);
  EXPECT_EQ(h.sink->reports().size(), 1u);
}

TEST(LockCycles, TryLockDrawsNoEdgeIntoIt) {
  Harness h;
  h.acquire(1, 1, "A");
  h.sanitizer.lock_acquire({.thread = 1, .lock = 2, .name = "B", .can_block = false});
  h.sanitizer.lock_release(1, 2);
  h.sanitizer.lock_release(1, 1);
  nest(h, 2, {2, 1});
  EXPECT_TRUE(h.cycles().empty());
}

TEST(LockCycles, TryLockedLockStillOrdersWhatIsTakenUnderIt) {
  Harness h;
  h.sanitizer.lock_acquire({.thread = 1, .lock = 1, .name = "A", .can_block = false});
  h.acquire(1, 2, "B");
  h.sanitizer.lock_release(1, 2);
  h.sanitizer.lock_release(1, 1);
  nest(h, 2, {2, 1});
  EXPECT_EQ(h.cycles().size(), 1u);
}

TEST(LockCycles, PythonLockTakenUnderTheGilDoesNotOrderAfterIt) {
  // CPython waits for a threading.Lock with the GIL released, so GIL-then-lock cannot deadlock.
  Harness h;
  h.take_gil(1);
  h.sanitizer.lock_acquire(
      {.thread = 1, .lock = 7, .name = "py", .releases_gil_while_waiting = true});
  h.sanitizer.lock_release(1, 7);
  h.sanitizer.gil_released(1);
  h.acquire(2, 7, "py");
  h.take_gil(2);
  EXPECT_TRUE(h.cycles().empty());
}

TEST(LockCycles, NativeLockTakenUnderTheGilOrdersAfterIt) {
  Harness h;
  h.take_gil(1);
  h.acquire(1, 7, "native");
  h.sanitizer.lock_release(1, 7);
  h.sanitizer.gil_released(1);
  h.acquire(2, 7, "native");
  h.take_gil(2);
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(kinds(cycles[0]), (std::vector{PseudoLockKind::gil, PseudoLockKind::user_lock}));
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::user_lock_inversion);
  EXPECT_EQ(cycles[0].edges[1].sentence,
            "thread 2 holds lock 'native' (0x7) and waits for the GIL.");
}

// A native lock's acquire carries the interpreter's word on the GIL: a library called through ctypes.CDLL
// takes its lock without the GIL, though no GIL event said the thread let it go, and draws no GIL edge;
// one called through ctypes.PyDLL holds it, though no GIL event said the thread took it.
TEST(LockCycles, ANativeLockGoesByTheInterpretersWordOnTheGil) {
  Harness without;
  without.take_gil(1);
  without.sanitizer.lock_acquire({.thread = 1, .lock = 7, .name = "native", .holds_gil = false});
  without.sanitizer.lock_release(1, 7);
  without.sanitizer.gil_released(1);
  without.acquire(2, 7, "native");
  without.take_gil(2);
  EXPECT_TRUE(without.cycles().empty());

  Harness with;
  with.sanitizer.lock_acquire({.thread = 1, .lock = 7, .name = "native", .holds_gil = true});
  with.sanitizer.lock_release(1, 7);
  with.acquire(2, 7, "native");
  with.take_gil(2);
  const auto cycles = with.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(kinds(cycles[0]), (std::vector{PseudoLockKind::gil, PseudoLockKind::user_lock}));
}

TEST(LockCycles, ReentrantLockDoesNotWaitForItself) {
  Harness h;
  h.acquire(1, 1, "rlock");
  h.acquire(1, 1, "rlock");  // re-entry: no rlock -> rlock
  h.sanitizer.lock_release(1, 1);
  h.acquire(1, 2, "B");  // rlock is still held once: rlock -> B
  h.sanitizer.lock_release(1, 2);
  h.sanitizer.lock_release(1, 1);
  EXPECT_TRUE(h.sanitizer.reports().empty());
  nest(h, 2, {2, 1});
  EXPECT_EQ(h.cycles().size(), 1u);
  EXPECT_EQ(h.sanitizer.finish().ignored_events, 0u);
}

TEST(LockCycles, LockReleasedByAnotherThreadIsNoLongerHeld) {
  Harness h;
  h.acquire(1, 1, "handed over");
  h.sanitizer.lock_release(2, 1);  // threading.Lock may be released by any thread
  h.acquire(1, 2, "B");            // thread 1 no longer holds lock 1: no edge 1 -> 2
  h.sanitizer.lock_release(1, 2);
  nest(h, 3, {2, 1});
  EXPECT_TRUE(h.cycles().empty());
  EXPECT_EQ(h.sanitizer.finish().ignored_events, 0u);
}

TEST(LockCycles, DestroyedLockIdReusedByANewLockInheritsNoOrder) {
  Harness h;
  nest(h, 1, {1, 2});
  h.sanitizer.lock_destroyed(2);
  nest(h, 2, {2, 1});  // a different lock at the same address
  EXPECT_TRUE(h.cycles().empty());
}

TEST(LockCycles, ReleaseOfALockNobodyHoldsIsCountedAsIgnored) {
  Harness h;
  h.sanitizer.lock_release(1, 99);
  h.sanitizer.gil_released(1);
  h.sanitizer.host_function_end(1);
  h.sanitizer.driver_call_exit({.thread = 1, .entry_point = "cuStreamSynchronize", .result = 0});
  EXPECT_EQ(h.sanitizer.finish().ignored_events, 4u);
}

TEST(LockCycles, ReentrantGilNestedEnsureKeepsItHeldUntilTheLastRelease) {
  Harness h;
  h.run(kCallback, Harness::host_function(HostFunctionKind::python, kStream1, "cb"));
  h.take_gil(kMain);
  h.take_gil(kMain);  // PyGILState_Ensure nested: no wait, no edge GIL -> GIL
  h.sanitizer.gil_released(kMain);
  // Still held once: the source cannot tell (holds_gil unknown); the core goes by the GIL events.
  h.call(kMain, "cuStreamSynchronize", kContext, kStream1, std::nullopt, {.streams = {kStream1}});
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::gil_driver_inversion);
}

TEST(LockCycles, ReentrantGilFullyReleasedWaitsWithoutIt) {
  Harness h;
  h.run(kCallback, Harness::host_function(HostFunctionKind::python, kStream1, "cb"));
  h.take_gil(kMain);
  h.take_gil(kMain);
  h.sanitizer.gil_released(kMain);
  h.sanitizer.gil_released(kMain);
  h.call(kMain, "cuStreamSynchronize", kContext, kStream1, std::nullopt, {.streams = {kStream1}});
  EXPECT_TRUE(h.sanitizer.reports().empty());
  EXPECT_EQ(h.sanitizer.finish().ignored_events, 0u);
}

}  // namespace
}  // namespace gilsan::checkers::testing
