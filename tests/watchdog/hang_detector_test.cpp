// HangDetector's rules with made-up clocks and threads.
#include "harness/watchdog/hang_detector.h"

#include <gtest/gtest.h>

namespace gilsan::watchdog {
namespace {

constexpr std::uint64_t kMs = 1'000'000;
using Blocking = ThreadActivity::Blocking;

HangDetector detector() { return HangDetector(HangDetector::Options{500 * kMs, 0.2}); }

ProgressSample counters(std::uint64_t driver_calls, std::uint64_t busy_until = 0) {
  ProgressSample sample;
  sample.counters[0] = driver_calls;
  sample.device_busy_until_ns = busy_until;
  return sample;
}

ThreadActivity thread(int tid, Blocking blocking, std::uint64_t since = 0, std::string on = "futex") {
  ThreadActivity activity;
  activity.tid = tid;
  activity.blocking = blocking;
  activity.blocked_on = std::move(on);
  activity.blocked_since_ns = since;
  return activity;
}

TEST(HangDetector, StronglyBlockedThreadWithoutProgressIsAHang) {
  HangDetector hang = detector();
  EXPECT_TRUE(hang.observe_progress(0, counters(5)));
  for (std::uint64_t t = 20; t < 500; t += 20) {
    EXPECT_FALSE(hang.observe_progress(t * kMs, counters(5)));
    EXPECT_FALSE(hang.observe_threads(t * kMs, {thread(1, Blocking::Strong, 1)}).hung);
  }
  EXPECT_FALSE(hang.observe_progress(510 * kMs, counters(5)));
  HangVerdict verdict = hang.observe_threads(510 * kMs, {thread(1, Blocking::Strong, 1)});
  EXPECT_TRUE(verdict.hung);
  EXPECT_EQ(verdict.blocked_tids, std::vector<int>{1});
}

TEST(HangDetector, ProgressRestartsTheQuietPeriod) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(5));
  hang.observe_progress(400 * kMs, counters(6));
  EXPECT_EQ(hang.last_progress_ns(), 400 * kMs);
  EXPECT_FALSE(hang.observe_threads(600 * kMs, {thread(1, Blocking::Strong, 1)}).hung);
  EXPECT_TRUE(hang.observe_threads(900 * kMs, {thread(1, Blocking::Strong, 1)}).hung);
}

TEST(HangDetector, DeclaredDeviceWorkIsProgressUntilItsEnd) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(5, 2000 * kMs));
  EXPECT_TRUE(hang.observe_progress(1900 * kMs, counters(5, 2000 * kMs)));
  EXPECT_FALSE(hang.observe_threads(1950 * kMs, {thread(1, Blocking::Strong, 1)}).hung);
  EXPECT_FALSE(hang.observe_progress(2100 * kMs, counters(5, 2000 * kMs)));
  EXPECT_FALSE(hang.observe_threads(2100 * kMs, {thread(1, Blocking::Strong, 1)}).hung);
  EXPECT_TRUE(hang.observe_threads(2400 * kMs, {thread(1, Blocking::Strong, 1)}).hung);
}

TEST(HangDetector, WeakBlockingDoesNotCountWhileAThreadSleeps) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  ThreadActivity sleeper = thread(2, Blocking::None);
  sleeper.sleeping = true;  // one long sleep: its timeslices never change
  EXPECT_FALSE(hang.observe_threads(10 * kMs, {thread(1, Blocking::Weak), sleeper}).hung);
  EXPECT_FALSE(hang.observe_threads(800 * kMs, {thread(1, Blocking::Weak), sleeper}).hung);
  // Without the sleeper the weak wait starts to count, from when it was first seen alone.
  EXPECT_FALSE(hang.observe_threads(900 * kMs, {thread(1, Blocking::Weak)}).hung);
  EXPECT_TRUE(hang.observe_threads(1400 * kMs, {thread(1, Blocking::Weak)}).hung);
}

TEST(HangDetector, ASleeperThatWakesPeriodicallyDoesNotHoldWeakWaitsBack) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  ThreadActivity timer = thread(2, Blocking::None);
  timer.sleeping = true;
  timer.timeslices = 10;
  EXPECT_FALSE(hang.observe_threads(20 * kMs, {thread(1, Blocking::Weak), timer}).hung);  // not known yet
  timer.timeslices = 11;  // it woke up and went back to sleep: a timer loop, not a long sleep
  EXPECT_FALSE(hang.observe_threads(40 * kMs, {thread(1, Blocking::Weak), timer}).hung);
  timer.timeslices = 15;
  EXPECT_TRUE(hang.observe_threads(560 * kMs, {thread(1, Blocking::Weak), timer}).hung);
}

TEST(HangDetector, AComputingThreadIsProgress) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  ThreadActivity worker = thread(2, Blocking::None);
  worker.cpu_ns = 0;
  hang.observe_threads(100 * kMs, {thread(1, Blocking::Strong, 1), worker});
  worker.cpu_ns = 90 * kMs;  // 90% of the 100 ms since the last sample
  hang.observe_threads(200 * kMs, {thread(1, Blocking::Strong, 1), worker});
  EXPECT_EQ(hang.last_progress_ns(), 200 * kMs);
  worker.cpu_ns = 91 * kMs;  // then it stops computing
  EXPECT_FALSE(hang.observe_threads(600 * kMs, {thread(1, Blocking::Strong, 1), worker}).hung);
  EXPECT_TRUE(hang.observe_threads(700 * kMs, {thread(1, Blocking::Strong, 1), worker}).hung);
}

TEST(HangDetector, ABlockedThreadSpinningDoesNotHideTheHang) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  ThreadActivity spinner = thread(1, Blocking::Strong, 1);  // e.g. spinning inside cuStreamSynchronize
  hang.observe_threads(100 * kMs, {spinner});
  spinner.cpu_ns = 400 * kMs;
  EXPECT_TRUE(hang.observe_threads(510 * kMs, {spinner}).hung);
}

// A thread that uses a whole CPU from 0 on: `cpu_ns` equals the time.
ThreadActivity busy(int tid, std::uint64_t now_ns) {
  ThreadActivity activity = thread(tid, Blocking::None);
  activity.cpu_ns = now_ns;
  return activity;
}

// What the Watchdog does between threads_to_check() and observe_threads(): the stack check's result.
ThreadActivity checked(ThreadActivity activity, std::string driver_entry_point) {
  activity.stack_checked = true;
  activity.spinning_in = std::move(driver_entry_point);
  return activity;
}

TEST(HangDetector, ASpinInADriverCallIsNotProgress) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  ThreadActivity callback = thread(2, Blocking::Strong, 1, "gil");
  for (std::uint64_t t = 20; t < 500; t += 20) {
    EXPECT_TRUE(hang.threads_to_check(t * kMs, {busy(1, t * kMs), callback}).empty());  // counters quiet < 500 ms
    EXPECT_FALSE(hang.observe_threads(t * kMs, {busy(1, t * kMs), callback}).hung);    // computing, as far as known
  }
  EXPECT_EQ(hang.threads_to_check(500 * kMs, {busy(1, 500 * kMs), callback}), std::vector<int>{1});
  // Blocked since the counters last moved, not since the check: detected at the first check.
  HangVerdict verdict = hang.observe_threads(500 * kMs, {checked(busy(1, 500 * kMs), "cuStreamSynchronize"), callback});
  EXPECT_TRUE(verdict.hung);
  EXPECT_EQ(verdict.blocked_tids, std::vector<int>{1});  // the callback's wait began 1 ns later
  EXPECT_EQ(hang.last_progress_ns(), 0u);
}

TEST(HangDetector, ASpinCountsFromTheLastCheckThatSawTheThreadComputingElsewhere) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  ThreadActivity callback = thread(2, Blocking::Strong, 1, "gil");
  for (std::uint64_t t = 20; t < 500; t += 20) hang.observe_threads(t * kMs, {busy(1, t * kMs), callback});
  EXPECT_FALSE(hang.observe_threads(500 * kMs, {checked(busy(1, 500 * kMs), ""), callback}).hung);  // real work
  EXPECT_EQ(hang.last_progress_ns(), 500 * kMs);
  for (std::uint64_t t = 520; t < 1000; t += 20) {
    EXPECT_EQ(hang.threads_to_check(t * kMs, {busy(1, t * kMs), callback}), std::vector<int>{1});
    EXPECT_FALSE(hang.observe_threads(t * kMs, {checked(busy(1, t * kMs), "cuStreamSynchronize"), callback}).hung);
  }
  EXPECT_TRUE(hang.observe_threads(1000 * kMs, {checked(busy(1, 1000 * kMs), "cuStreamSynchronize"), callback}).hung);
}

TEST(HangDetector, ASpinnerThatLeavesTheDriverComputesAgain) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  ThreadActivity callback = thread(2, Blocking::Strong, 1, "gil");
  hang.observe_threads(450 * kMs, {busy(1, 450 * kMs), callback});
  hang.observe_threads(500 * kMs, {checked(busy(1, 500 * kMs), ""), callback});
  hang.observe_threads(600 * kMs, {checked(busy(1, 600 * kMs), "cuMemcpyDtoH"), callback});
  // A known spinner is checked again even when it used little CPU in between (descheduled).
  ThreadActivity idle_spinner = busy(1, 600 * kMs);
  EXPECT_EQ(hang.threads_to_check(700 * kMs, {idle_spinner, callback}), std::vector<int>{1});
  EXPECT_FALSE(hang.observe_threads(700 * kMs, {checked(busy(1, 700 * kMs), ""), callback}).hung);
  EXPECT_EQ(hang.last_progress_ns(), 700 * kMs);
  EXPECT_FALSE(hang.observe_threads(1100 * kMs, {checked(busy(1, 1100 * kMs), ""), callback}).hung);
  EXPECT_EQ(hang.last_progress_ns(), 1100 * kMs);
}

TEST(HangDetector, AComputingThreadBesideASpinnerIsStillProgress) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  ThreadActivity callback = thread(2, Blocking::Strong, 1, "gil");
  hang.observe_threads(480 * kMs, {busy(1, 480 * kMs), busy(3, 480 * kMs), callback});
  EXPECT_EQ(hang.threads_to_check(500 * kMs, {busy(1, 500 * kMs), busy(3, 500 * kMs), callback}),
            (std::vector<int>{1, 3}));
  for (std::uint64_t t = 500; t <= 1500; t += 20) {
    EXPECT_FALSE(hang.observe_threads(t * kMs, {checked(busy(1, t * kMs), "cuStreamSynchronize"),
                                                checked(busy(3, t * kMs), ""), callback})
                     .hung);
    EXPECT_EQ(hang.last_progress_ns(), t * kMs);
  }
  // Once the worker stops, the spinner is blocked from the worker's last computation on.
  ThreadActivity stopped = busy(3, 1500 * kMs);
  EXPECT_FALSE(hang.observe_threads(1520 * kMs, {checked(busy(1, 1520 * kMs), "cuStreamSynchronize"), stopped, callback}).hung);
  EXPECT_TRUE(hang.observe_threads(2000 * kMs, {checked(busy(1, 2000 * kMs), "cuStreamSynchronize"), stopped, callback}).hung);
}

TEST(HangDetector, CounterProgressForgetsSpinners) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  hang.observe_threads(480 * kMs, {busy(1, 480 * kMs)});
  hang.observe_threads(500 * kMs, {checked(busy(1, 500 * kMs), "cuStreamSynchronize")});
  EXPECT_TRUE(hang.observe_progress(510 * kMs, counters(2)));
  EXPECT_TRUE(hang.threads_to_check(520 * kMs, {busy(1, 520 * kMs)}).empty());
  EXPECT_FALSE(hang.observe_threads(520 * kMs, {busy(1, 520 * kMs)}).hung);
}

TEST(HangDetector, ANewWaitStartsItsOwnClock) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  hang.observe_threads(100 * kMs, {thread(1, Blocking::Weak, 0, "futex")});
  EXPECT_FALSE(hang.observe_threads(550 * kMs, {thread(1, Blocking::Weak, 0, "poll")}).hung);
  EXPECT_TRUE(hang.observe_threads(1050 * kMs, {thread(1, Blocking::Weak, 0, "poll")}).hung);
}

TEST(HangDetector, NoBlockedThreadIsNoHang) {
  HangDetector hang = detector();
  hang.observe_progress(0, counters(1));
  EXPECT_FALSE(hang.observe_threads(5000 * kMs, {thread(1, Blocking::None)}).hung);
}

TEST(DescribeActivity, BoardWaitsAreStrongAndKernelWaitsWeak) {
  board::ThreadRecord record;
  record.calls.push_back(board::CallRecord{"cuStreamSynchronize", 1, 2, 0, 77, board::GilState::Holds});
  ProcThreadState futex;
  futex.state = 'S';
  futex.syscall = SyscallState{SyscallState::Kind::InSyscall, 202};
  ThreadActivity in_call = describe_activity(5, &futex, &record);
  EXPECT_EQ(in_call.blocking, ThreadActivity::Blocking::Strong);
  EXPECT_EQ(in_call.blocked_since_ns, 77u);
  ThreadActivity kernel_only = describe_activity(5, &futex, nullptr);
  EXPECT_EQ(kernel_only.blocking, ThreadActivity::Blocking::Weak);
  ProcThreadState sleeping = futex;
  sleeping.syscall.number = 230;  // clock_nanosleep on x86-64
#if defined(__x86_64__)
  ThreadActivity sleeper = describe_activity(5, &sleeping, nullptr);
  EXPECT_TRUE(sleeper.sleeping);
  EXPECT_EQ(sleeper.blocking, ThreadActivity::Blocking::None);
#endif
  ProcThreadState running;
  running.state = 'R';
  EXPECT_EQ(describe_activity(5, &running, nullptr).blocking, ThreadActivity::Blocking::None);
}

}  // namespace
}  // namespace gilsan::watchdog
