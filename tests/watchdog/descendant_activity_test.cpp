// DescendantActivity against real child processes of this test: one that waits on a pipe nobody
// writes (moves only at the first look, when it is new), one that computes and one that sleeps one
// long sleep (move at every look), and one that sleeps in a loop (a poller: only when new).
#include "harness/watchdog/descendant_activity.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace gilsan::watchdog {
namespace {

// A child of this process that runs `body` until killed; reaped by the destructor.
class ChildProcess {
 public:
  template <typename Body>
  explicit ChildProcess(Body body) : pid_(::fork()) {
    if (pid_ == 0) {
      body();
      ::_exit(0);
    }
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

void let_it_run() { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

constexpr double kCpuFraction = 0.2;

TEST(DescendantActivity, NoChildrenNeverMove) {
  DescendantActivity descendants(::getpid(), kCpuFraction);
  EXPECT_FALSE(descendants.moved_since_last_look(now_ns()));
  EXPECT_FALSE(descendants.moved_since_last_look(now_ns()));
}

TEST(DescendantActivity, AWaitingChildMovesOnlyWhenNew) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ChildProcess child([&ends] {
    char byte = 0;
    while (::read(ends[0], &byte, 1) != 0) {
    }
  });
  ASSERT_GT(child.pid(), 0);
  DescendantActivity descendants(::getpid(), kCpuFraction);
  let_it_run();
  EXPECT_TRUE(descendants.moved_since_last_look(now_ns()));  // new since the last look
  let_it_run();
  EXPECT_FALSE(descendants.moved_since_last_look(now_ns()));
  ::close(ends[0]);
  ::close(ends[1]);
}

TEST(DescendantActivity, AComputingChildMovesAtEveryLook) {
  ChildProcess child([] {
    volatile unsigned long spins = 0;
    for (;;) spins = spins + 1;
  });
  ASSERT_GT(child.pid(), 0);
  // A hundredth of a CPU: the child computes without pause, but a loaded machine (parallel tests, a
  // build beside them) may give it far less than a fifth of one.
  DescendantActivity descendants(::getpid(), 0.01);
  let_it_run();
  EXPECT_TRUE(descendants.moved_since_last_look(now_ns()));
  let_it_run();
  EXPECT_TRUE(descendants.moved_since_last_look(now_ns()));
}

TEST(DescendantActivity, AChildInOneLongSleepMovesAtEveryLook) {
  ChildProcess child([] { ::sleep(100); });
  ASSERT_GT(child.pid(), 0);
  DescendantActivity descendants(::getpid(), kCpuFraction);
  let_it_run();
  EXPECT_TRUE(descendants.moved_since_last_look(now_ns()));
  let_it_run();
  EXPECT_TRUE(descendants.moved_since_last_look(now_ns()));
}

TEST(DescendantActivity, AChildThatSleepsInALoopIsAPoller) {
  ChildProcess child([] {
    for (;;) ::usleep(5'000);
  });
  ASSERT_GT(child.pid(), 0);
  DescendantActivity descendants(::getpid(), kCpuFraction);
  let_it_run();
  EXPECT_TRUE(descendants.moved_since_last_look(now_ns()));  // new
  // Once seen asleep at two looks with wake-ups in between, it no longer counts (a look that catches it
  // awake, which a loaded machine makes likelier, can delay that by a look or two).
  int quiet_looks_in_a_row = 0;
  for (int look = 0; look < 30 && quiet_looks_in_a_row < 3; ++look) {
    let_it_run();
    quiet_looks_in_a_row = descendants.moved_since_last_look(now_ns()) ? 0 : quiet_looks_in_a_row + 1;
  }
  EXPECT_EQ(quiet_looks_in_a_row, 3);
}

}  // namespace
}  // namespace gilsan::watchdog
