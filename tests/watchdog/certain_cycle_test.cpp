// CertainCycleWatch on hand-built board views: a cycle whose every edge is on the board is confirmed
// once it has held for the confirmation, and only then; a cycle resting on native frames, a cycle that
// changes, progress and no cycle at all start the count over.
#include "harness/watchdog/certain_cycle.h"

#include <gtest/gtest.h>

#include "tests/watchdog/child_runner.h"
#include "tests/watchdog/snapshot_fixtures.h"

namespace gilsan::watchdog::testing {
namespace {

constexpr std::uint64_t kMillisecond = 1'000'000;
constexpr std::uint64_t kCertainConfirmation = 50 * kMillisecond;

CertainCycleWatch certain_watch() { return CertainCycleWatch(&test_profile_blocks, kCertainConfirmation); }

TEST(CertainCycle, ABoardCycleIsConfirmedOnceItHeldForTheConfirmation) {
  CertainCycleWatch certain = certain_watch();
  const Snapshot view = gil_inversion_snapshot();
  EXPECT_FALSE(certain.confirmed(100 * kMillisecond, view));
  EXPECT_FALSE(certain.confirmed(120 * kMillisecond, view));
  EXPECT_FALSE(certain.confirmed(149 * kMillisecond, view));
  EXPECT_TRUE(certain.confirmed(150 * kMillisecond, view));
  EXPECT_EQ(certain.held_ns(160 * kMillisecond), 60 * kMillisecond);
  EXPECT_EQ(certain.threads(), (std::vector<int>{kMain, kCallback}));
}

TEST(CertainCycle, ProgressOrALookWithoutTheCycleStartsOver) {
  CertainCycleWatch certain = certain_watch();
  const Snapshot view = gil_inversion_snapshot();
  EXPECT_FALSE(certain.confirmed(100 * kMillisecond, view));
  certain.forget();
  EXPECT_FALSE(certain.confirmed(160 * kMillisecond, view));  // seen afresh at 160
  Snapshot released = gil_inversion_snapshot();
  released.threads.back().board->gil_state = board::GilState::Released;  // the callback got on
  EXPECT_FALSE(certain.confirmed(200 * kMillisecond, released));
  EXPECT_FALSE(certain.confirmed(230 * kMillisecond, view));
  EXPECT_TRUE(certain.confirmed(280 * kMillisecond, view));
}

TEST(CertainCycle, AnotherCycleStartsOver) {
  CertainCycleWatch certain = certain_watch();
  EXPECT_FALSE(certain.confirmed(100 * kMillisecond, gil_inversion_snapshot()));
  Snapshot other = gil_inversion_snapshot();
  other.threads.front().board->calls.back().stream = kStream2;  // main now waits for another stream
  other.threads.back().board->host_functions.back().stream = kStream2;
  EXPECT_FALSE(certain.confirmed(160 * kMillisecond, other));
  EXPECT_TRUE(certain.confirmed(210 * kMillisecond, other));
}

TEST(CertainCycle, ACycleWithAnInferredEdgeWaitsForTheQuietPeriod) {
  // The callback thread's GIL wait is read from its native frames, not the board.
  CertainCycleWatch certain = certain_watch();
  Snapshot view = gil_inversion_snapshot();
  ThreadSnapshot& callback = view.threads.back();
  callback.board->gil_state = board::GilState::Unknown;
  callback.native_stack = {frame("__futex_abstimed_wait_common", "/lib/libc.so.6"),
                           frame("pthread_cond_timedwait", "/lib/libc.so.6"),
                           frame("PyGILState_Ensure", "/usr/bin/python3")};
  EXPECT_FALSE(certain.confirmed(100 * kMillisecond, view));
  EXPECT_FALSE(certain.confirmed(10'000 * kMillisecond, view));
}

TEST(CertainCycle, WithoutTheProfileItIsOff) {
  CertainCycleWatch certain({}, kCertainConfirmation);
  EXPECT_FALSE(certain.on());
  EXPECT_FALSE(certain.confirmed(100 * kMillisecond, gil_inversion_snapshot()));
  EXPECT_FALSE(certain.confirmed(10'000 * kMillisecond, gil_inversion_snapshot()));
}

}  // namespace
}  // namespace gilsan::watchdog::testing
