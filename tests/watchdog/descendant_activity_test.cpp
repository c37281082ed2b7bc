// DescendantActivity against real child processes of this test: one that waits on a pipe nobody
// writes (moves only at the first look, when it is new) and one that computes (moves at every look).
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

TEST(DescendantActivity, NoChildrenNeverMove) {
  DescendantActivity descendants(::getpid());
  EXPECT_FALSE(descendants.moved_since_last_look());
  EXPECT_FALSE(descendants.moved_since_last_look());
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
  DescendantActivity descendants(::getpid());
  let_it_run();
  EXPECT_TRUE(descendants.moved_since_last_look());  // new since the last look
  let_it_run();
  EXPECT_FALSE(descendants.moved_since_last_look());
  ::close(ends[0]);
  ::close(ends[1]);
}

TEST(DescendantActivity, AComputingChildMovesAtEveryLook) {
  ChildProcess child([] {
    volatile unsigned long spins = 0;
    for (;;) spins = spins + 1;
  });
  ASSERT_GT(child.pid(), 0);
  DescendantActivity descendants(::getpid());
  let_it_run();
  EXPECT_TRUE(descendants.moved_since_last_look());
  let_it_run();
  EXPECT_TRUE(descendants.moved_since_last_look());
}

}  // namespace
}  // namespace gilsan::watchdog
