// A repeated native host function's begin is held back (checkers/core/sanitizer_begins.cpp): the books
// see every run, and the graph sees the run as soon as the thread does anything inside it.
#include <gtest/gtest.h>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

constexpr std::uint64_t kLock = 7;

HostFunction native(std::uint64_t run_key = 0, Handle stream = kStream1) {
  HostFunction run = Harness::host_function(HostFunctionKind::native, stream, "libapp.so:on_done");
  run.run_key = run_key;
  return run;
}

// The callback thread takes a user lock inside a host function of kStream1 while main, holding that
// lock, waits for kStream1: a cycle, whichever run of the same host function takes the lock.
void lock_inside_the_run_numbered(Harness& h, int taking_run) {
  for (int run = 1; run <= taking_run; ++run) {
    h.begin(kCallback, native());
    if (run == taking_run) {
      h.acquire(kCallback, kLock, "queue_lock", {"on_done takes queue_lock"});
      h.sanitizer.lock_release(kCallback, kLock);
    }
    h.sanitizer.host_function_end(kCallback);
  }
  h.acquire(kMain, kLock, "queue_lock", {"main takes queue_lock"});
  h.sync_stream(kMain, kStream1, false, {"main synchronizes"});
  h.sanitizer.lock_release(kMain, kLock);
}

TEST(HeldBackBegins, ALockTakenInARepeatedRunIsTakenHoldingWhatTheRunHolds) {
  for (int taking_run : {1, 2, 5}) {
    Harness h;
    lock_inside_the_run_numbered(h, taking_run);
    EXPECT_EQ(h.cycles().size(), 1u) << "the lock taken in run " << taking_run;
    EXPECT_EQ(h.sanitizer.finish().ignored_events, 0u);
  }
}

TEST(HeldBackBegins, ACallInARepeatedRunIsInsideIt) {
  Harness h;
  for (int run = 0; run < 3; ++run) h.run(kCallback, native());
  h.begin(kCallback, native());
  h.call(kCallback, "cuMemAlloc", kContext, std::nullopt, false, {}, kCudaErrorNotPermitted, {"on_done allocates"});
  h.sanitizer.host_function_end(kCallback);
  const auto found = h.reports_of(Checker::cuda_call_in_host_function);
  ASSERT_EQ(found.size(), 1u);
  ASSERT_TRUE(found[0].host_function);
  EXPECT_EQ(found[0].host_function->callable, "libapp.so:on_done");
}

TEST(HeldBackBegins, ANestedRunInsideARepeatedOneNestsInIt) {
  Harness h;
  for (int run = 0; run < 3; ++run) h.run(kCallback, native());
  h.begin(kCallback, native());
  h.begin(kCallback, Harness::host_function(HostFunctionKind::python, kStream1, "s.py:3 inner"));
  h.sanitizer.host_function_end(kCallback);
  h.sanitizer.host_function_end(kCallback);
  EXPECT_EQ(h.sanitizer.finish().ignored_events, 0u) << "every end found its begin";
}

TEST(HeldBackBegins, EveryRunKeepsItsBooks) {
  Harness h;
  constexpr std::uint64_t kRuns = 20;
  for (std::uint64_t key = 1; key <= kRuns; ++key) h.sanitizer.host_function_enqueued({kMain, native(key), {}});
  EXPECT_EQ(h.sanitizer.waiting_host_functions(), kRuns);
  for (std::uint64_t key = 1; key <= kRuns; ++key) h.run(kCallback, native(key));
  EXPECT_EQ(h.sanitizer.waiting_host_functions(), 0u) << "each held-back begin counted as begun";
  const RunSummary summary = h.sanitizer.finish();
  EXPECT_TRUE(h.reports_of(Checker::host_function_lost_at_exit).empty());
  EXPECT_EQ(summary.ignored_events, 0u);
}

}  // namespace
}  // namespace gilsan::checkers::testing
