// A thread that lets the GIL go and takes it back (a binding around every driver call): the Sanitizer
// holds the release back until the thread's next event and skips a round trip that changes nothing
// (Sanitizer::gil_released). These tests pin down that the model still ends up where the events say.
#include <gtest/gtest.h>

#include "tests/checkers/sanitizer_test_support.h"

namespace gilsan::checkers::testing {
namespace {

void round_trip(Harness& h, ThreadId thread) {
  h.sanitizer.gil_released(thread);
  h.sanitizer.gil_acquire_begin(thread);
  h.sanitizer.gil_acquired(thread);
}

// A synchronize whose source cannot tell the GIL: the model's own GIL state decides.
void sync_unknown_gil(Harness& h, ThreadId thread) {
  h.call(thread, "cuStreamSynchronize", kContext, kStream1, std::nullopt, {.streams = {kStream1}});
}

std::size_t gil_held_reports(const Harness& h) { return h.reports_of(Checker::gil_held_blocking_call).size(); }

TEST(GilRoundTrips, ARoundTripHoldingOnlyTheGilLeavesItHeldOnce) {
  Harness h;
  h.take_gil(kMain);
  round_trip(h, kMain);
  sync_unknown_gil(h, kMain);
  EXPECT_EQ(gil_held_reports(h), 1u) << "the GIL is held after the round trip";

  Harness released;
  released.take_gil(kMain);
  round_trip(released, kMain);
  released.sanitizer.gil_released(kMain);  // held back, then applied before the synchronize
  sync_unknown_gil(released, kMain);
  EXPECT_EQ(gil_held_reports(released), 0u) << "one release after one acquire leaves the GIL free";
  EXPECT_EQ(released.sanitizer.finish().ignored_events, 0u);
}

TEST(GilRoundTrips, ARoundTripHoldingALockStillWaitsForTheGilFromIt) {
  Harness h;
  h.take_gil(kMain);
  h.acquire(kMain, 7, "native");  // GIL -> lock
  round_trip(h, kMain);           // lock -> GIL: the thread re-takes the GIL holding the lock
  const auto cycles = h.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].deadlock_class, DeadlockClass::user_lock_inversion);
}

TEST(GilRoundTrips, AnEventInsideASkippedRoundTripSeesTheThreadWaitingForTheGil) {
  Harness h;
  h.take_gil(kMain);
  h.sanitizer.gil_released(kMain);
  h.sanitizer.gil_acquire_begin(kMain);     // skipped: it changes nothing so far
  h.sanitizer.name_thread(kCallback, "x");  // applies it: released, waiting for the GIL
  h.sanitizer.gil_acquired(kMain);          // taken: depth 1, not 2
  h.sanitizer.gil_released(kMain);
  sync_unknown_gil(h, kMain);
  EXPECT_EQ(gil_held_reports(h), 0u);
  EXPECT_EQ(h.sanitizer.finish().ignored_events, 0u);
}

TEST(GilRoundTrips, ARoundTripInsideAPythonHostFunctionAfterFinalizationBeganIsReported) {
  Harness h;
  h.begin(kCallback, Harness::host_function(HostFunctionKind::native, kStream1, "trampoline"));
  h.take_gil(kCallback);
  h.sanitizer.interpreter_finalization_began();
  round_trip(h, kCallback);
  EXPECT_EQ(h.reports_of(Checker::host_function_after_finalization).size(), 1u);
}

TEST(GilRoundTrips, HeldBackEventsAfterFinishAreCountedAsIgnored) {
  Harness h;
  h.take_gil(kMain);
  h.sanitizer.finish();
  h.sanitizer.gil_released(kMain);
  h.sanitizer.gil_acquire_begin(kMain);
  h.sanitizer.thread_exited(kMain);
  EXPECT_EQ(h.sanitizer.finish().ignored_events, 3u);
}

}  // namespace
}  // namespace gilsan::checkers::testing
