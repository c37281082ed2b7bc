// Events from many threads at once (run it under the TSan build): the result must not depend on the
// interleaving, and no report may be lost or doubled.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

TEST(Concurrency, ManyThreadsFeedingEventsFindEachCycleOnce) {
  constexpr int kRingThreads = 6;  // thread i takes lock i then lock i+1 (mod 6): one 6-node cycle
  constexpr int kRepeats = 300;
  Harness h;
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kRingThreads; ++i) {
    threads.emplace_back([&, i] {
      while (!go) std::this_thread::yield();
      const auto id = static_cast<ThreadId>(1000 + i);
      for (int repeat = 0; repeat < kRepeats; ++repeat) {
        h.acquire(id, i, "ring");
        h.acquire(id, (i + 1) % kRingThreads, "ring");
        h.sanitizer.lock_release(id, (i + 1) % kRingThreads);
        h.sanitizer.lock_release(id, i);
      }
    });
  }
  // Meanwhile: a callback thread runs Python host functions on two streams, and a main thread
  // synchronizes one of them with the GIL held (an inversion) and the other without (safe).
  threads.emplace_back([&] {
    while (!go) std::this_thread::yield();
    for (int repeat = 0; repeat < kRepeats; ++repeat) {
      h.sanitizer.host_function_enqueued(
          {.thread = kCallback,
           .host_function = Harness::host_function(HostFunctionKind::python, kStream1, "cb",
                                                   kContext, 0x1000 + repeat)});
      h.run(kCallback, Harness::host_function(HostFunctionKind::python, kStream1, "cb", kContext,
                                              0x1000 + repeat));
      h.run(kCallback, Harness::host_function(HostFunctionKind::python, kStream2, "cb2"));
      h.sanitizer.callable_released(
          {.thread = kCallback, .id = static_cast<std::uint64_t>(0x1000 + repeat)});
    }
  });
  threads.emplace_back([&] {
    while (!go) std::this_thread::yield();
    for (int repeat = 0; repeat < kRepeats; ++repeat) {
      h.sync_stream(kMain, kStream1, true);
      h.sync_stream(kMain, kStream2, false);
      (void)h.sanitizer.reports();  // readers race with writers too
    }
  });
  go = true;
  for (std::thread& thread : threads) thread.join();

  const RunSummary summary = h.sanitizer.finish();
  std::size_t rings = 0, inversions = 0, blocking = 0;
  for (const Report& report : summary.reports) {
    if (report.checker == Checker::lock_order_cycle &&
        report.deadlock_class == DeadlockClass::user_lock_inversion) {
      ++rings;
      EXPECT_EQ(report.cycle.size(), static_cast<std::size_t>(kRingThreads));
    } else if (report.checker == Checker::lock_order_cycle) {
      ++inversions;
      EXPECT_EQ(report.deadlock_class, DeadlockClass::gil_driver_inversion);
      EXPECT_EQ(report.cycle[1].stream, kStream1);
    } else if (report.checker == Checker::gil_held_blocking_call) {
      ++blocking;
    } else {
      ADD_FAILURE() << "unexpected report: " << report.summary;
    }
  }
  EXPECT_EQ(rings, 1u);
  EXPECT_EQ(inversions, 1u);
  EXPECT_EQ(blocking, 1u);
  EXPECT_EQ(summary.ignored_events, 0u);
  EXPECT_EQ(h.sink->reports().size(), summary.reports.size());
  EXPECT_EQ(h.sink->summaries().size(), 1u);
}

TEST(Concurrency, ReportsFromSeveralThreadsAllReachTheSinksOnce) {
  Harness h;
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      const auto id = static_cast<ThreadId>(2000 + i);
      for (int repeat = 0; repeat < 50; ++repeat) {
        // Every thread has its own GIL-held call site (its own stack): one report each.
        h.call(id, "cuStreamSynchronize", kContext, kStream1, true, {.streams = {kStream1}},
               kCudaSuccess, {"site " + std::to_string(i)});
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(h.sink->reports().size(), static_cast<std::size_t>(kThreads));
  EXPECT_EQ(h.sanitizer.reports().size(), static_cast<std::size_t>(kThreads));
}

}  // namespace
}  // namespace gilsan::checkers::testing
